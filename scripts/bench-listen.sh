#!/usr/bin/env bash
# make bench (its last part), or make bench-listen alone: jwsinspect listen on loopback.
#   - notifications per second received, verified, stored (--log, synced before each 200)
#     and answered, from BENCH_LISTEN_CONNECTIONS curl connections at once (default 50), on
#     BENCH_NOTIFICATIONS distinct DID_RENEW bodies (default 5,000: each with its transaction
#     and renewal info nested, three ES256 signatures); then the same bodies again (every one
#     a repeat: answered 200 from the index, nothing written)
#   - latency per request (curl's time_total): p50, p99, max
#   - the listener's peak resident memory (VmHWM), before and after the load
#   - inspect's throughput on the same bodies (one file, -q, every core) and OpenSSL's verify
#     rate in the same run: the ratios
# Timings only: no test asserts on them.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${BENCH_NOTIFICATIONS:-5000}
connections=${BENCH_LISTEN_CONNECTIONS:-50}
bin=.build/release/jwsinspect
companion=.build/release/jwsinspect-fetch
command -v curl >/dev/null || { echo "bench-listen: curl is missing ('apt-get install curl'): listen not measured"; exit 0; }
work=$(mktemp -d)
pid=""
cleanup() { [ -z "$pid" ] || kill -9 "$pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
calc() { awk "BEGIN { printf \"%.${2:-0}f\", $1 }"; }

.build/release/mint-test-tokens timeline "$count" "$(( count / 10 > 0 ? count / 10 : 1 ))" "$work" >/dev/null
mkdir "$work/bodies"
awk -v dir="$work/bodies" '{ file = sprintf("%s/%d.json", dir, NR); printf "%s", $0 > file; close(file) }' \
    "$work/log.jsonl"

"$companion" listen --listen 127.0.0.1:0 --root "$work/root.pem" --log "$work/listened.jsonl" -q \
    2>"$work/listen.err" &
pid=$!
port=""
for _ in $(seq 1 600); do
    port=$(sed -n 's|.*receiving App Store Server Notifications at http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' \
        "$work/listen.err" | head -n 1)
    [ -n "$port" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
done
if [ -z "$port" ]; then
    echo "bench-listen: listen did not start ($(tail -n 1 "$work/listen.err")): not measured"
    exit 0
fi
peak() { awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status"; }
rss_before=$(peak)

# One curl config line set per request; --parallel runs them on $connections connections.
for i in $(seq 1 "$count"); do
    # `next` between requests, none after the last (curl stops at an empty one).
    [ "$i" = 1 ] || echo next
    printf 'url = "http://127.0.0.1:%s/"\ndata-binary = "@%s/bodies/%s.json"\noutput = "/dev/null"\nwrite-out = "%%{http_code} %%{time_total}\\n"\n' \
        "$port" "$work" "$i"
done >"$work/curl.conf"

run_load() {
    local start end
    start=$(date +%s%N)
    curl --silent --no-progress-meter --parallel --parallel-max "$connections" --config "$work/curl.conf" >"$work/$1.out" || true
    end=$(date +%s%N)
    calc "($end - $start) / 1000000000" 3
}
percentile() { sort -n "$work/$1.times" | awk -v p="$2" '{ v[NR] = $1 } END { i = int(NR * p / 100); if (i < 1) i = 1; printf "%.1f", v[i] * 1000 }'; }

stored_seconds=$(run_load stored)
repeat_seconds=$(run_load repeated)
rss_after=$(peak)
for phase in stored repeated; do
    awk '{ print $2 }' "$work/$phase.out" >"$work/$phase.times"
    awk '$1 != 200 { bad++ } END { exit bad > 0 }' "$work/$phase.out" ||
        echo "bench-listen: warning: $(awk '$1 != 200' "$work/$phase.out" | wc -l) $phase requests were not answered 200"
done
kill -INT "$pid"
wait "$pid" || true
pid=""
lines=$(wc -l <"$work/listened.jsonl")

# inspect on the same bodies, every core, best of three; OpenSSL's verify rate, best of three.
best=""
for _ in 1 2 3; do
    start=$(date +%s%N); "$bin" -q --root "$work/root.pem" "$work/log.jsonl" || true; end=$(date +%s%N)
    t=$(calc "($end - $start) / 1000000000" 4)
    if [ -z "$best" ] || awk "BEGIN { exit !($t < $best) }"; then best=$t; fi
done
openssl_rate=${OPENSSL_RATE:-0}
if [ "$openssl_rate" = 0 ]; then
    for _ in 1 2 3; do
        r=$(openssl speed -seconds 3 ecdsap256 2>/dev/null | awk '/256 bits ecdsa \(nistp256\)/ {print int($NF)}')
        if [ "$r" -gt "$openssl_rate" ]; then openssl_rate=$r; fi
    done
fi

stored_rate=$(calc "$count / $stored_seconds")
repeat_rate=$(calc "$count / $repeat_seconds")
inspect_rate=$(calc "$count / $best")
printf '\n| jwsinspect listen on loopback (%s distinct DID_RENEW notifications, %s connections, %s cores) | value |\n|---|---|\n' \
    "$count" "$connections" "$(nproc)"
printf '| stored: notifications/s (verified, appended and synced before each 200) | %s |\n' "$stored_rate"
printf '| stored: latency p50 / p99 / max, ms | %s / %s / %s |\n' "$(percentile stored 50)" "$(percentile stored 99)" \
    "$(percentile stored 100)"
printf '| repeated: notifications/s (verified, found in the index, nothing written) | %s |\n' "$repeat_rate"
printf '| repeated: latency p50 / p99 / max, ms | %s / %s / %s |\n' "$(percentile repeated 50)" \
    "$(percentile repeated 99)" "$(percentile repeated 100)"
printf '| log lines after both loads (each notification once) | %s |\n' "$lines"
printf '| inspect -q on the same bodies (one file, every core, best of 3): notifications/s | %s |\n' "$inspect_rate"
printf '| listen stored ÷ inspect | %s |\n' "$(calc "$stored_rate / $inspect_rate" 2)"
printf '| listen repeated ÷ inspect | %s |\n' "$(calc "$repeat_rate / $inspect_rate" 2)"
printf '| openssl speed ecdsap256 verify/s (1 core) | %s |\n' "$openssl_rate"
printf '| listen stored: ES256 verifications/s (3 a notification) ÷ OpenSSL verify/s | %s |\n' \
    "$(calc "3 * $stored_rate / $openssl_rate" 2)"
printf '| listener peak RSS before / after the loads, MiB | %s / %s |\n' "$(calc "$rss_before / 1024" 1)" \
    "$(calc "$rss_after / 1024" 1)"
