#!/usr/bin/env bash
# make bench: tokens/second of the release binary over tokens minted by the test
# PKI, OpenSSL's own P-256 verify rate measured in the same run, and the wall time
# of one single-token inspection. Timings only; no test asserts on them.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${BENCH_TOKENS:-5000}
bin=.build/release/jwsinspect
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

.build/release/mint-test-tokens "$count" "$work" >/dev/null

calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }
seconds() { local start end; start=$(date +%s%N); "$@" >/dev/null || true; end=$(date +%s%N); calc "($end - $start) / 1000000000"; }

echo "jwsinspect benchmark: $count tokens (one chain), $(nproc) cores, $(openssl version)"
for mode in "-q" "--format jsonl"; do
    # shellcheck disable=SC2086
    t=$(seconds "$bin" $mode --root "$work/root.pem" "$work/tokens.jws")
    rate=$(calc "$count / $t")
    per=$(calc "$t * 1000000 / $count")
    printf '  jwsinspect %-15s %8.3f s  %7.0f tokens/s  %7.1f us/token\n' "$mode" "$t" "$rate" "$per"
done

openssl_rate=$(openssl speed -seconds 3 ecdsap256 2>/dev/null | awk '/256 bits ecdsa \(nistp256\)/ {print int($NF)}')
printf '  openssl speed ecdsap256 verify (1 core): %s verifications/s\n' "$openssl_rate"

token=$(head -n 1 "$work/tokens.jws")
runs=50
start=$(date +%s%N)
for _ in $(seq "$runs"); do "$bin" -q --root "$work/root.pem" "$token"; done
end=$(date +%s%N)
printf '  single token from the command line: %.1f ms wall (mean of %d runs)\n' "$(calc "($end - $start) / 1000000 / $runs")" "$runs"
