#!/usr/bin/env bash
# make bench-revocation (and the end of make bench): what --check-revocation costs a batch.
#   A test CA minted with --ocsp-url, two `openssl ocsp` responders on loopback for it, and
#   BENCH_TOKENS tokens (default 20,000) of its chain; `-q --jobs 1` with and without
#   --check-revocation, alternating, BENCH_ROUNDS rounds (default 7), best of each. Each
#   certificate is asked about once per run, so after the first token the cache is warm:
#   the target (issue 28) is the online rate within 3% of the offline one.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${BENCH_TOKENS:-20000}
rounds=${BENCH_ROUNDS:-7}
bin=.build/release/jwsinspect
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
calc() { awk "BEGIN { printf \"%.${2:-0}f\", $1 }"; }

mapfile -t ports < <(shuf -i 20000-60000 -n 2)
leaf_port=${ports[0]} intermediate_port=${ports[1]}
"$bin" mint ca --out "$work/ca" --ocsp-url "http://127.0.0.1:$leaf_port/" \
    --intermediate-ocsp-url "http://127.0.0.1:$intermediate_port/" >/dev/null
.build/release/mint-test-tokens "$count" "$work/tokens" "$work/ca" >/dev/null
(cd "$work/ca" && exec openssl ocsp -index ocsp-leaf-index.txt -port "$leaf_port" -CA intermediate.der \
    -rsigner intermediate.der -rkey intermediate-key.p8 -ndays 1 >/dev/null 2>&1) &
pids+=($!)
(cd "$work/ca" && exec openssl ocsp -index ocsp-intermediate-index.txt -port "$intermediate_port" -CA root.der \
    -rsigner root.der -rkey root-key.p8 -ndays 1 >/dev/null 2>&1) &
pids+=($!)
sleep 1
root="$work/tokens/root.pem" tokens="$work/tokens/tokens.jws"
# Both runs must verify every token, else the figures mean nothing.
"$bin" -q --jobs 1 --root "$root" "$tokens" || { echo "error: the offline run failed" >&2; exit 1; }
"$bin" -q --jobs 1 --root "$root" --check-revocation "$tokens" ||
    { echo "error: the --check-revocation run failed (exit $?)" >&2; exit 1; }

seconds() {
    local start end
    start=$(date +%s%N); "$@" >/dev/null || true; end=$(date +%s%N)
    calc "($end - $start) / 1000000000" 4
}
best_offline="" best_online=""
for _ in $(seq "$rounds"); do
    t=$(seconds "$bin" -q --jobs 1 --root "$root" "$tokens")
    if [ -z "$best_offline" ] || awk "BEGIN { exit !($t < $best_offline) }"; then best_offline=$t; fi
    t=$(seconds "$bin" -q --jobs 1 --root "$root" --check-revocation "$tokens")
    if [ -z "$best_online" ] || awk "BEGIN { exit !($t < $best_online) }"; then best_online=$t; fi
done
offline=$(calc "$count / $best_offline") online=$(calc "$count / $best_online")
ratio=$(calc "$online / $offline" 3)
holds=no
if awk "BEGIN { exit !($ratio >= 0.97) }"; then holds=yes; fi
printf '| revocation: -q --jobs 1, %s tokens of one chain, offline vs --check-revocation (local openssl ocsp, best of %s, alternating), tokens/s | %s vs %s |\n' \
    "$count" "$rounds" "$offline" "$online"
printf '| revocation: --check-revocation ÷ offline, tokens/s | %s | >= 0.97 | %s |\n' "$ratio" "$holds"
