#!/usr/bin/env bash
# make bench: measures the release binary on tokens minted by the test PKI.
#   - tokens/second with --jobs 1 and --jobs <all cores>, in every output mode (-q, JSON
#     Lines, JSON, tables)
#   - OpenSSL's own P-256 verify rate (openssl speed) in the same run, and the ratios
#   - peak resident memory for a large input (BENCH_LINES lines, default 1,000,000), every mode
#   - each target (ratios to OpenSSL, --jobs scaling, memory) beside its figure, and how many hold
#   - wall time of one single-token inspection from the command line, alternating with the
#     floor (a static Swift program that imports Foundation and prints a date), --version and
#     the OpenSSL floor (scripts/openssl-floor.c: only the OpenSSL calls of that token, in C)
#   - time and memory on hostile inputs at two sizes (they must grow linearly, and memory
#     must follow the largest record, not the input)
#   - with BENCH_BASELINE=path/to/another/jwsinspect: that binary and this one timed
#     alternately (--jobs 1, -q and --format jsonl, BENCH_ROUNDS rounds, default 11: best and median),
#     in the same run on the same tokens, with the ratio: how a change is shown not slower
#   - then legacy receipts (scripts/bench-receipts.sh): receipts/second on a real App Store
#     receipt, and the milliseconds one receipt of 200 in-app entries and about 100 KB takes
#   - then revocation (scripts/bench-revocation.sh): a batch with --check-revocation against
#     local openssl ocsp responders beside the offline rate
#   - then listen (scripts/bench-listen.sh): notifications per second and latency through
#     jwsinspect listen on loopback, beside inspect's rate on the same bodies
# Timings only: no test asserts on them. BENCH_TOKENS and BENCH_LINES change the sizes.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${BENCH_TOKENS:-20000}
lines=${BENCH_LINES:-1000000}
cores=$(nproc)
bin=.build/release/jwsinspect
[ -x /usr/bin/time ] || { echo "error: /usr/bin/time is missing: run 'apt-get install time'" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

.build/release/mint-test-tokens "$count" "$work" >/dev/null
root="$work/root.pem"
tokens="$work/tokens.jws"

calc() { awk "BEGIN { printf \"%.${2:-0}f\", $1 }"; }
# Best of three wall times, in seconds.
best_seconds() {
    local best="" start end t
    for _ in 1 2 3; do
        start=$(date +%s%N); "$@" >/dev/null || true; end=$(date +%s%N)
        t=$(calc "($end - $start) / 1000000000" 4)
        if [ -z "$best" ] || awk "BEGIN { exit !($t < $best) }"; then best=$t; fi
    done
    echo "$best"
}

echo "jwsinspect benchmark — $count tokens from one chain, $cores cores, $(openssl version | cut -d' ' -f1-2)"
# OpenSSL's rate is as noisy as ours on a shared machine: best of three runs too, so both
# sides of the ratio are measured the same way.
openssl_rate=0
for _ in 1 2 3; do
    r=$(openssl speed -seconds 3 ecdsap256 2>/dev/null | awk '/256 bits ecdsa \(nistp256\)/ {print int($NF)}')
    if [ "$r" -gt "$openssl_rate" ]; then openssl_rate=$r; fi
done

printf '\n| measurement | value |\n|---|---|\n'
printf '| openssl speed -seconds 3 ecdsap256, verify/s (1 core, best of 3) | %s |\n' "$openssl_rate"
# Every output mode: -q, JSON Lines, pretty JSON, tables (the default).
modes=("-q" "--format jsonl" "--format json" "--format table")
declare -A rate
for jobs in 1 "$cores"; do
    for mode in "${modes[@]}"; do
        # shellcheck disable=SC2086
        t=$(best_seconds "$bin" $mode --jobs "$jobs" --root "$root" "$tokens")
        r=$(calc "$count / $t")
        rate["$jobs $mode"]=$r
        printf '| jwsinspect %s --jobs %s, tokens/s | %s (%s µs/token) |\n' "$mode" "$jobs" "$r" "$(calc "$t * 1000000 / $count" 1)"
    done
done

# The targets, each beside its figure (issue 27): ratios of this run, so the machine's speed cancels.
# They are printed together at the end, after the memory of every mode is measured.
held=0 targets=0 report=""
target() {  # label, figure, comparison (>= or <), bound
    local holds=no
    if awk "BEGIN { exit !($2 $3 $4) }"; then holds=yes; held=$((held + 1)); fi
    targets=$((targets + 1))
    report+=$(printf '| %s | %s | %s %s | %s |' "$1" "$2" "$3" "$4" "$holds")$'\n'
}
for entry in "-q:0.9" "--format jsonl:0.75" "--format json:0.75" "--format table:0.5"; do
    mode=${entry%:*} bound=${entry##*:}
    target "$mode --jobs 1 ÷ openssl verify/s" "$(calc "${rate[1 $mode]} / $openssl_rate" 2)" ">=" "$bound"
done
if [ "$cores" -gt 1 ]; then
    scaling=$(calc "0.9 * $cores" 1)
    for mode in "${modes[@]}"; do
        target "$mode --jobs $cores ÷ --jobs 1" "$(calc "${rate[$cores $mode]} / ${rate[1 $mode]}" 2)" ">=" "$scaling"
    done
fi

# The same measurement for a baseline binary and this one, alternately, so that both meet the
# same machine load: the figure that says whether a change made jwsinspect slower.
if [ -n "${BENCH_BASELINE:-}" ]; then
    [ -x "$BENCH_BASELINE" ] || { echo "error: BENCH_BASELINE=$BENCH_BASELINE is not an executable" >&2; exit 1; }
    rounds=${BENCH_ROUNDS:-11}
    seconds() {
        local start end
        start=$(date +%s%N); "$@" >/dev/null || true; end=$(date +%s%N)
        calc "($end - $start) / 1000000000" 4
    }
    # The best and the median of a list of seconds.
    best() { tr ' ' '\n' <<< "$1" | sort -n | head -n 1; }
    median() { tr ' ' '\n' <<< "$1" | sort -n | awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }'; }
    for mode in "-q" "--format jsonl"; do
        base="" this=""
        for _ in $(seq "$rounds"); do
            # shellcheck disable=SC2086
            base="$base $(seconds "$BENCH_BASELINE" $mode --jobs 1 --root "$root" "$tokens")"
            # shellcheck disable=SC2086
            this="$this $(seconds "$bin" $mode --jobs 1 --root "$root" "$tokens")"
        done
        base=${base# } this=${this# }
        printf '| %s --jobs 1, tokens/s, baseline %s vs this build (%s rounds, alternating): best | %s vs %s |\n' \
            "$mode" "$BENCH_BASELINE" "$rounds" "$(calc "$count / $(best "$base")")" "$(calc "$count / $(best "$this")")"
        printf '| … median | %s vs %s |\n' "$(calc "$count / $(median "$base")")" "$(calc "$count / $(median "$this")")"
        printf '| %s --jobs 1: this build ÷ baseline, tokens/s (target ≥ 0.97): best, median | %s, %s |\n' "$mode" \
            "$(calc "$(best "$base") / $(best "$this")" 3)" "$(calc "$(median "$base") / $(median "$this")" 3)"
    done
fi

declare -A memory
# A large input: the minted tokens repeated to $lines lines, streamed from stdin.
big="$work/big.jws"
: > "$big"
while [ "$(wc -l < "$big")" -lt "$lines" ]; do cat "$tokens" >> "$big"; done
head -n "$lines" "$big" > "$big.tmp" && mv "$big.tmp" "$big"
# Peak memory in every mode over the stream (output to /dev/null); -q's wall time too.
for mode in "${modes[@]}"; do
    start=$(date +%s%N)
    # shellcheck disable=SC2086
    /usr/bin/time -f '%M' -o "$work/rss" "$bin" $mode --root "$root" - < "$big" > /dev/null
    end=$(date +%s%N)
    rss=$(calc "$(cat "$work/rss") / 1024" 1)
    printf '| %s-line input (%s MiB) on stdin, %s: peak RSS, wall time | %s MiB, %s s |\n' "$lines" \
        "$(( $(stat -c %s "$big") >> 20 ))" "$mode" "$rss" "$(calc "($end - $start) / 1000000000" 1)"
    memory["$mode"]=$rss
done
for mode in "${modes[@]}"; do
    target "$mode over $lines lines: peak RSS, MiB" "${memory[$mode]}" "<" 64
done

token=$(head -n 1 "$tokens")
# Start-up: one token from the command line beside the floor, a static Swift program that
# imports Foundation and prints a date, built here with the same toolchain; the two run
# alternately so that both meet the same machine load. Medians of $runs runs each.
runs=${BENCH_STARTUP_RUNS:-41}
printf 'import Foundation\nprint(Date())\n' > "$work/floor.swift"
swiftc -O -static-stdlib "$work/floor.swift" -o "$work/floor" 2>&1 | { grep -v "the use of \`mktemp' is dangerous" || true; }
# The OpenSSL floor: a C program making only the OpenSSL calls one token needs (the root's
# PEM, three DER certificates, X509_verify_cert, the ES256 signature), on this token's files.
b64url() { local text; text=$(tr '_-' '/+'); while (( ${#text} % 4 )); do text="$text="; done; base64 -d <<< "$text"; }
cut -d. -f1 <<< "$token" | b64url > "$work/header.json"
for i in 0 1 2; do jq -r ".x5c[$i]" "$work/header.json" | base64 -d > "$work/x5c-$i.der"; done
printf '%s' "$(cut -d. -f1,2 <<< "$token")" > "$work/signing-input"
cut -d. -f3 <<< "$token" | b64url > "$work/signature.raw"
compiler=$(command -v cc || command -v clang || true)
openssl_floor=()
if [ -n "$compiler" ] && "$compiler" -O2 scripts/openssl-floor.c -o "$work/openssl-floor" \
    $(pkg-config --cflags --libs libcrypto) 2>/dev/null; then
    openssl_floor=("$work/openssl-floor" "$root" "$work/x5c-0.der" "$work/x5c-1.der" "$work/x5c-2.der" \
        "$work/signing-input" "$work/signature.raw")
    "${openssl_floor[@]}" || { echo "error: the OpenSSL floor program did not verify the token" >&2; exit 1; }
    printf 'int main(void) { return 0; }\n' > "$work/empty.c"
    "$compiler" -O2 "$work/empty.c" -o "$work/empty"
fi
# Microseconds of one run, from bash's own clock ($EPOCHREALTIME: no `date` process inside
# the measurement, which would add a millisecond or two to every figure).
micros() {
    local start end
    start=${EPOCHREALTIME/[.,]/}
    "$@" >/dev/null 2>&1 || true
    end=${EPOCHREALTIME/[.,]/}
    echo $((end - start))
}
median_ms() { tr ' ' '\n' <<< "$1" | grep . | sort -n | awk '{ t[NR] = $1 } END { printf "%.1f", t[int((NR + 1) / 2)] / 1000 }'; }
one="" floor="" version="" ossl="" empty=""
for _ in $(seq "$runs"); do
    one="$one $(micros "$bin" -q --root "$root" "$token")"
    floor="$floor $(micros "$work/floor")"
    version="$version $(micros "$bin" --version)"
    if [ ${#openssl_floor[@]} -gt 0 ]; then
        ossl="$ossl $(micros "${openssl_floor[@]}")"
        empty="$empty $(micros "$work/empty")"
    fi
done
printf '| one token from the command line (-q --root), wall, median of %s, alternating with the floor | %s ms |\n' "$runs" "$(median_ms "$one")"
printf '| the floor: a static Swift program that imports Foundation and prints a date | %s ms |\n' "$(median_ms "$floor")"
printf '| jwsinspect --version | %s ms |\n' "$(median_ms "$version")"
printf '| one token ÷ the floor (target ≤ 2) | %s |\n' "$(calc "$(median_ms "$one") / $(median_ms "$floor")" 2)"
if [ -n "$ossl" ]; then
    printf '| the OpenSSL floor: C calling only the OpenSSL functions of one token (scripts/openssl-floor.c) | %s ms |\n' "$(median_ms "$ossl")"
    printf '| the OpenSSL floor ÷ the floor | %s |\n' "$(calc "$(median_ms "$ossl") / $(median_ms "$floor")" 2)"
    # What any Swift program doing this work pays: its own start (the floor) plus OpenSSL's
    # work (the OpenSSL floor less the start of an empty C program).
    bound=$(calc "$(median_ms "$floor") + $(median_ms "$ossl") - $(median_ms "$empty")" 1)
    printf '| an empty C program | %s ms |\n' "$(median_ms "$empty")"
    printf '| the bound for a Swift program doing this work: floor + OpenSSL floor − empty C | %s ms (%s × the floor) |\n' \
        "$bound" "$(calc "$bound / $(median_ms "$floor")" 2)"
    printf '| one token ÷ the OpenSSL floor | %s |\n' "$(calc "$(median_ms "$one") / $(median_ms "$ossl")" 2)"
    printf '| one token ÷ that bound | %s |\n' "$(calc "$(median_ms "$one") / $bound" 2)"
else
    echo "(no C compiler: the OpenSSL floor is not measured)"
fi

# Hostile inputs: time must grow with the input (4x the input, about 4x the time), memory
# must follow the largest record, not the input. Each input is generated at two sizes.
command -v python3 >/dev/null || { echo "error: python3 is needed to generate the hostile inputs" >&2; exit 1; }
header=$(head -n 1 "$tokens" | cut -d. -f1)
python3 - "$work" "$header" <<'PY'
import base64, json, sys
work, header = sys.argv[1], sys.argv[2]
b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
piece = "eyJh.eyJh." + "A" * 86
for mib in (4, 16):
    with open(f"{work}/glued-{mib}", "w") as f:
        f.write(piece * ((mib << 20) // len(piece)) + "\n")
body = '{"signedPayload":"%s.%s.%s"}\n' % (header, b64(b'{"signedDate":1}'), b64(bytes(64)))
for mib in (16, 64):
    with open(f"{work}/blank-{mib}", "w") as f:
        f.write(body + "\n" * (mib << 20))
fields = json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))
for count in (50, 200):
    with open(f"{work}/headers-{count}", "w") as f:
        for i in range(count):
            fields["pad"] = "%06d" % i + "x" * 690000
            f.write(b64(json.dumps(fields).encode()) + "." + b64(b'{"signedDate":1}') + "." + b64(bytes(64)) + "\n")
# Issue 48: a line of the record limit (64 MiB) of minimal tokens glued by spaces (2.79 million),
# and JSON documents of many small values (numbers, objects) and of tokens.
with open(f"{work}/glued-line-64", "w") as f:
    f.write("eyJhIjoxfQ.eyJhIjoxfQ.x " * 2790000 + "\n")
with open(f"{work}/dense-numbers", "w") as f:
    f.write("[" + ",".join(["1"] * 33000000) + "]\n")
with open(f"{work}/dense-objects", "w") as f:
    f.write("[" + ",".join(['{"x":1}'] * 8300000) + "]\n")
with open(f"{work}/token-array", "w") as f:
    f.write(json.dumps(["eyJhIjoxfQ.eyJhIjoxfQ.x"] * 2400000, separators=(",", ":")) + "\n")
PY
measure() { /usr/bin/time -f '%e %M' -o "$work/m" "$bin" -q --jobs 1 "$@" >/dev/null 2>&1 || true; tail -n 1 "$work/m"; }
row() {  # label, small file, large file, size ratio
    read -r t1 m1 < <(measure "$2"); read -r t2 m2 < <(measure "$3")
    printf '| %s | %s s, %s MiB | %s s, %s MiB | %s (input ×%s) |\n' "$1" "$t1" "$(calc "$m1 / 1024" 1)" "$t2" \
        "$(calc "$m2 / 1024" 1)" "$(calc "$t2 / ($t1 > 0.01 ? $t1 : 0.01)" 1)" "$4"
}
printf '\n| hostile input (--jobs 1 -q) | smaller: time, peak RSS | larger: time, peak RSS | time ratio |\n|---|---|---|---|\n'
row "one line of minimal tokens glued together, 4 / 16 MiB" "$work/glued-4" "$work/glued-16" 4
row "a notification body, then 16 / 64 MiB of newlines" "$work/blank-16" "$work/blank-64" 4
row "50 / 200 distinct 920 KB headers" "$work/headers-50" "$work/headers-200" 4

# One record of 64 MiB: peak RSS at most 8 times the record limit (512 MiB), at --jobs 1, the
# default and 8 (issue 48: 477 MB, 2.45 GB and more before).
printf '\n| one 64 MiB record (-q) | --jobs 1: time, peak RSS | default: time, peak RSS | --jobs 8: time, peak RSS |\n|---|---|---|---|\n'
for input in glued-line-64 token-array dense-numbers dense-objects; do
    line="| $input ($(( $(stat -c %s "$work/$input") >> 20 )) MiB) |"
    for jobs in 1 default 8; do
        args=(); [ "$jobs" = default ] || args=(--jobs "$jobs")
        /usr/bin/time -f '%e %M' -o "$work/m" "$bin" -q "${args[@]}" "$work/$input" >/dev/null 2>&1 || true
        read -r t m < <(tail -n 1 "$work/m")
        mib=$(calc "$m / 1024" 1)
        line="$line $t s, $mib MiB |"
        target "$input, --jobs $jobs: peak RSS, MiB" "$mib" "<=" 512
    done
    printf '%s\n' "$line"
done

printf '\n| measured | figure | target | holds |\n|---|---|---|---|\n%s' "$report"
printf '| tokens: targets held | %s of %s | | |\n' "$held" "$targets"

./scripts/bench-receipts.sh
./scripts/bench-revocation.sh
OPENSSL_RATE=$openssl_rate ./scripts/bench-listen.sh
