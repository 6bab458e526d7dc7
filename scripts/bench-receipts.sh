#!/usr/bin/env bash
# The receipt figures of make bench (scripts/bench.sh runs this last; alone: make bench-receipts,
# after make build):
#   - receipts/second verifying one real App Store receipt (Tests/Vectors/receipts, 5.5 KB,
#     SHA-256, chain to Apple Inc. Root at its creation date) repeated on BENCH_RECEIPTS lines
#     of base64 (default 2,000): -q with --jobs 1 and --jobs <all cores>, --format jsonl --jobs 1
#   - one receipt of 200 in-app entries padded to about 100 KB (BENCH_RECEIPT_ENTRIES,
#     BENCH_RECEIPT_BYTES), minted by the test PKI (mint-test-tokens receipt): decoded and
#     verified per receipt in a batch of BENCH_BIG_RECEIPTS copies (default 100, no process
#     start), quiet, in JSON Lines and in tables; and one from the command line, wall time with
#     the process start, mean of 20 runs. In milliseconds: such receipts must decode in milliseconds.
#     Receipts/second over BENCH_BIG_RATE_RECEIPTS copies (default 1,000: the process start
#     amortized), for the targets' ratios.
#   - the OpenSSL floor of both (scripts/receipt-floor.c: per receipt only what OpenSSL must
#     do, base64, the digest of the content, the RSA verification and a read of every TLV
#     header), as receipts/second and as a ratio to `openssl speed rsa2048`: the most any
#     verifier reaches on these receipts, beside each target; and jwsinspect ÷ that floor.
# Timings only (best of three): no test asserts on them.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release/jwsinspect
count=${BENCH_RECEIPTS:-2000}
entries=${BENCH_RECEIPT_ENTRIES:-200}
bytes=${BENCH_RECEIPT_BYTES:-100000}
copies=${BENCH_BIG_RECEIPTS:-100}
rate_copies=${BENCH_BIG_RATE_RECEIPTS:-1000}
cores=$(nproc)
real=Tests/Vectors/receipts/38-sandbox-weeka-2025-g5.der
[ -x "$bin" ] && [ -x .build/release/mint-test-tokens ] || {
    echo "error: $bin is missing: run make build first" >&2
    exit 1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

calc() { awk "BEGIN { printf \"%.${2:-0}f\", $1 }"; }
# Best of three wall times, in seconds; the exit status must be `expected` (0 unless given).
best_seconds() {
    local expected=0
    if [ "$1" = --status ]; then expected=$2; shift 2; fi
    local best="" start end t status
    for _ in 1 2 3; do
        start=$(date +%s%N)
        status=0
        "$@" >/dev/null || status=$?
        end=$(date +%s%N)
        [ "$status" = "$expected" ] || { echo "error: '$*' exited $status, not $expected" >&2; exit 1; }
        t=$(calc "($end - $start) / 1000000000" 4)
        if [ -z "$best" ] || awk "BEGIN { exit !($t < $best) }"; then best=$t; fi
    done
    echo "$best"
}
# The receipt `der` in base64, one line, repeated `n` times into `file`.
repeat_base64() {
    local der=$1 n=$2 file=$3
    base64 -w0 "$der" | awk -v n="$n" '{ for (i = 0; i < n; i++) print }' > "$file"
}

receipts="$work/receipts.b64"
repeat_base64 "$real" "$count" "$receipts"
.build/release/mint-test-tokens receipt "$entries" "$bytes" "$work" >/dev/null
big="$work/receipt.der"
root="$work/receipt-root.pem"
bigs="$work/big.b64"
repeat_base64 "$big" "$copies" "$bigs"
rate_bigs="$work/big-rate.b64"
repeat_base64 "$big" "$rate_copies" "$rate_bigs"
# The OpenSSL floor (scripts/receipt-floor.c), when a C compiler is here.
compiler=$(command -v cc || command -v clang || true)
floor=""
if [ -n "$compiler" ] && "$compiler" -O2 scripts/receipt-floor.c -o "$work/receipt-floor" \
    $(pkg-config --cflags --libs libcrypto) 2>/dev/null; then
    floor="$work/receipt-floor"
fi

printf '\n| receipt measurement | value |\n|---|---|\n'
declare -A rate
for run in "-q 1" "-q $cores" "--format jsonl 1"; do
    mode=${run% *} jobs=${run##* }
    # shellcheck disable=SC2086
    t=$(best_seconds "$bin" $mode --jobs "$jobs" "$receipts")
    rate["$run"]=$(calc "$count / $t")
    printf '| real App Store receipt (%s bytes, SHA-256, Apple chain) × %s lines of base64, %s --jobs %s, receipts/s | %s (%s ms/receipt) |\n' \
        "$(stat -c %s "$real")" "$count" "$mode" "$jobs" "${rate[$run]}" "$(calc "$t * 1000 / $count" 3)"
done
printf '| receipts: --jobs %s -q ÷ --jobs 1 -q | %s |\n' "$cores" "$(calc "${rate[-q $cores]} / ${rate[-q 1]}" 2)"
# OpenSSL's RSA-2048 verify rate in the same run (best of three), for the targets' ratios.
rsa_rate=0
for _ in 1 2 3; do
    r=$(openssl speed -seconds 2 rsa2048 2>/dev/null | awk '/^rsa 2048 bits/ {print int($NF)}')
    if [ "${r:-0}" -gt "$rsa_rate" ]; then rsa_rate=$r; fi
done
printf '| openssl speed -seconds 2 rsa2048, verify/s (1 core, best of 3) | %s |\n' "$rsa_rate"

label="minted receipt, $entries in-app entries, $(stat -c %s "$big") bytes"
for mode in "-q" "--format jsonl" "--format table"; do
    # shellcheck disable=SC2086
    t=$(best_seconds "$bin" $mode --jobs 1 --root "$root" "$bigs")
    printf '| %s: decode and verify in a batch of %s (%s --jobs 1), per receipt | %s ms |\n' \
        "$label" "$copies" "$mode" "$(calc "$t * 1000 / $copies" 2)"
done
# The minted receipt of many entries, as receipts/s against OpenSSL too (one line per copy).
for mode in "-q" "--format jsonl"; do
    # shellcheck disable=SC2086
    t=$(best_seconds "$bin" $mode --jobs 1 --root "$root" "$rate_bigs")
    rate["big $mode"]=$(calc "$rate_copies / $t")
    printf '| %s: %s --jobs 1 over %s copies, receipts/s | %s |\n' "$label" "$mode" "$rate_copies" "${rate[big $mode]}"
done
# What OpenSSL alone reaches on the same receipts (receipts/s, best of three passes).
if [ -n "$floor" ]; then
    rate[floor]=$("$floor" "$receipts")
    rate["big floor"]=$("$floor" "$rate_bigs")
    printf '| the OpenSSL floor (scripts/receipt-floor.c), real receipt, receipts/s | %s (%s × rsa2048 verify/s) |\n' \
        "${rate[floor]}" "$(calc "${rate[floor]} / $rsa_rate" 3)"
    printf '| the OpenSSL floor, %s, receipts/s | %s (%s × rsa2048 verify/s) |\n' \
        "$label" "${rate[big floor]}" "$(calc "${rate[big floor]} / $rsa_rate" 3)"
    for run in "-q 1" "--format jsonl 1"; do
        printf '| real receipt %s --jobs 1 ÷ the OpenSSL floor | %s |\n' "${run% *}" "$(calc "${rate[$run]} / ${rate[floor]}" 2)"
    done
    for mode in "-q" "--format jsonl"; do
        printf '| %s-entry receipt %s --jobs 1 ÷ the OpenSSL floor | %s |\n' "$entries" "$mode" \
            "$(calc "${rate[big $mode]} / ${rate[big floor]}" 2)"
    done
else
    echo "(no C compiler: the OpenSSL floor is not measured)"
fi
runs=20
for mode in "-q" "--format table"; do
    start=$(date +%s%N)
    # shellcheck disable=SC2086
    for _ in $(seq "$runs"); do "$bin" $mode --root "$root" "$big" >/dev/null; done
    end=$(date +%s%N)
    printf '| %s: one from the command line (%s), wall with process start, mean of %s runs | %s ms |\n' \
        "$label" "$mode" "$runs" "$(calc "($end - $start) / 1000000 / $runs" 1)"
done

# The targets (issue 27), each beside its figure: ratios of this run. Beside each, the OpenSSL
# floor's own ratio: a target above it cannot hold, whatever the code.
printf '\n| receipt measured | figure | target | holds | the OpenSSL floor |\n|---|---|---|---|---|\n'
held=0 targets=0
target() {  # label, figure, bound (at least), the floor's figure
    local holds=no
    if awk "BEGIN { exit !($2 >= $3) }"; then holds=yes; held=$((held + 1)); fi
    targets=$((targets + 1))
    printf '| %s | %s | >= %s | %s | %s |\n' "$1" "$2" "$3" "$holds" "$4"
}
floor_ratio() { if [ -n "$floor" ]; then calc "${rate[$1]} / $rsa_rate" 3; else echo "not measured"; fi; }
target "real receipt -q --jobs 1 ÷ openssl rsa2048 verify/s" "$(calc "${rate[-q 1]} / $rsa_rate" 3)" 0.2 \
    "$(floor_ratio floor)"
target "real receipt --format jsonl --jobs 1 ÷ openssl rsa2048 verify/s" \
    "$(calc "${rate[--format jsonl 1]} / $rsa_rate" 3)" 0.1 "$(floor_ratio floor)"
target "$entries-entry receipt -q --jobs 1 ÷ openssl rsa2048 verify/s" "$(calc "${rate[big -q]} / $rsa_rate" 3)" 0.2 \
    "$(floor_ratio "big floor")"
target "$entries-entry receipt --format jsonl --jobs 1 ÷ openssl rsa2048 verify/s" \
    "$(calc "${rate[big --format jsonl]} / $rsa_rate" 3)" 0.1 "$(floor_ratio "big floor")"
printf '| receipts: targets held | %s of %s | | | |\n' "$held" "$targets"
