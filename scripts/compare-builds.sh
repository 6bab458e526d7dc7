#!/usr/bin/env bash
# Compares two builds of jwsinspect byte for byte: standard output, standard error and the
# exit status of the same runs, on the same inputs, in every output mode.
#
#   scripts/compare-builds.sh OLD_BINARY NEW_BINARY [WORK_DIR]
#
# Inputs, made once and read by both builds: the bundled samples and Apple's test vectors,
# the eight real receipts (each alone, raw and base64, and together as one stream), a minted
# receipt of 200 in-app entries, difftest's corpus (scripts/difftest/dump_corpus.py, in the
# venv make difftest makes: one stream, and the first DIFFTEST_SINGLES tokens one run each),
# and a `mint suite` (each case alone, with its root). Modes: tables, --brief, --format json,
# --format jsonl, -q (the exit status), jsonl with --jobs 2 and --summary, tables with --time-zone,
# and standard output and error merged (their order).
# Exits 1 when a run differs (the first differences are shown), 0 when none does.
# Both run at one frozen moment (faketime, Debian's faketime package: the clock is "now" in
# validNow and the chain's "checked now"). Needs mint-test-tokens beside NEW_BINARY (make build-tools).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 OLD_BINARY NEW_BINARY [WORK_DIR]" >&2; exit 64; }
old=$(realpath "$1") new=$(realpath "$2")
work=${3:-$(mktemp -d)}
mkdir -p "$work/in" "$work/old" "$work/new"
singles=${DIFFTEST_SINGLES:-300}
venv=.build/difftest-venv/bin/python
minter="$(dirname "$new")/mint-test-tokens"
command -v faketime >/dev/null || { echo "error: faketime is missing: run 'apt-get install faketime'" >&2; exit 1; }
frozen=$(date -u '+%Y-%m-%d %H:%M:%S')

# Inputs.
in="$work/in"
if [ ! -s "$in/corpus/tokens.txt" ]; then
    [ -x "$venv" ] || { echo "error: $venv is missing: run make difftest once (it makes the venv)" >&2; exit 1; }
    (cd scripts/difftest && "../../$venv" dump_corpus.py "$in/corpus") >/dev/null
fi
rm -rf "$in/ca" "$in/suite"
"$new" mint ca --out "$in/ca" >/dev/null
"$new" mint suite --ca "$in/ca" --out "$in/suite" >/dev/null
"$minter" receipt 200 100000 "$in/big" >/dev/null
: > "$in/receipts.b64"
for r in Tests/Vectors/receipts/*.der; do base64 -w0 "$r" >> "$in/receipts.b64"; echo >> "$in/receipts.b64"; done
head -n "$singles" "$in/corpus/tokens.txt" > "$in/corpus/singles.txt"

runs=()  # name|args (one string; words split on |)
modes=("" "--brief" "--format json" "--format jsonl" "-q")
add() { runs+=("$1|$2"); }
for mode in "${modes[@]}"; do
    tag=${mode//[- ]/}; tag=${tag:-table}
    for f in Samples/*.jws Samples/*.der Tests/Vectors/receipts/*.der; do
        add "$tag-$(basename "$f")" "$mode $f"
        add "$tag-at-$(basename "$f")" "$mode --at 2025-06-01T00:00:00Z $f"
    done
    add "$tag-receipts-stream" "$mode $in/receipts.b64"
    add "$tag-receipts-stream-xcode-root" "$mode --root Tests/Vectors/apple/testCA.der $in/receipts.b64"
    add "$tag-big-receipt" "$mode --root $in/big/receipt-root.pem $in/big/receipt.der"
    add "$tag-corpus" "$mode --root $in/corpus/root.der --environment Sandbox --bundle-id com.example.app $in/corpus/tokens.txt"
    add "$tag-corpus-plain" "$mode --root $in/corpus/root.der $in/corpus/tokens.txt"
    for f in "$in"/suite/*.jws; do
        add "$tag-suite-$(basename "$f")" "$mode --root $in/ca/root.der $f"
    done
done
for f in Samples/*.jws Samples/*.der Tests/Vectors/receipts/*.der; do
    add "table-zone-$(basename "$f")" "--time-zone America/New_York $f"
done
add "table-zone-corpus" "--time-zone Asia/Kolkata --root $in/corpus/root.der $in/corpus/tokens.txt"
# Standard output and standard error merged, as a terminal shows them: their order too.
for mode in "" "--brief" "--jobs 2"; do
    add "merged${mode//[- ]/}-corpus" "$mode --root $in/corpus/root.der $in/corpus/tokens.txt"
done
add "jsonl-jobs2-summary-corpus" "--format jsonl --jobs 2 --summary --root $in/corpus/root.der $in/corpus/tokens.txt"
add "table-jobs2-summary-receipts" "--jobs 2 --summary $in/receipts.b64"
n=0
while IFS= read -r token; do
    n=$((n + 1))
    add "single-q-$n" "-q --root $in/corpus/root.der --environment Sandbox --bundle-id com.example.app -- $token"
done < "$in/corpus/singles.txt"

run_all() {  # binary, out dir
    local bin=$1 out=$2 entry name args status
    for entry in "${runs[@]}"; do
        name=${entry%%|*} args=${entry#*|}
        status=0
        if [[ $name == merged* ]]; then
            # shellcheck disable=SC2086
            faketime -f "$frozen" "$bin" $args > "$out/$name.out" 2>&1 || status=$?
        else
            # shellcheck disable=SC2086
            faketime -f "$frozen" "$bin" $args > "$out/$name.out" 2> "$out/$name.err" || status=$?
        fi
        echo "$status" > "$out/$name.status"
    done
}
run_all "$old" "$work/old"
run_all "$new" "$work/new"
# The binary's own path is part of no output (both are called as given), but a version may differ.
if diff -r -q "$work/old" "$work/new" > "$work/differences.txt"; then
    echo "compare-builds: ${#runs[@]} runs, 0 differ ($work)"
else
    echo "compare-builds: ${#runs[@]} runs, $(wc -l < "$work/differences.txt") files differ ($work/differences.txt):"
    head -n 20 "$work/differences.txt"
    exit 1
fi
