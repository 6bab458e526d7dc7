#!/usr/bin/env bash
# make leakcheck: valgrind --leak-check=full over the release binary verifying a batch of
# test-PKI tokens (valid, tampered, untrusted) and the real samples with nested tokens.
# Fails if valgrind finds any definitely or indirectly lost block.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "error: valgrind is missing: run 'apt-get install valgrind'" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
.build/release/mint-test-tokens 200 "$work" >/dev/null
{ cat "$work/tokens.jws"; sed -n '1,20p' "$work/tokens.jws" | sed 's/\.\([A-Za-z0-9_-]\)/.X\1/2'; } > "$work/mixed.jws"
run() {
    valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99 --quiet "$@" >/dev/null 2>"$work/vg.txt" || status=$?
    if [ "${status:-0}" = 99 ]; then cat "$work/vg.txt" >&2; echo "leakcheck: leaks found in: $*" >&2; exit 1; fi
    status=0
}
run .build/release/jwsinspect -q --jobs 2 --root "$work/root.pem" "$work/mixed.jws"
run .build/release/jwsinspect --format jsonl --root "$work/root.pem" "$work/mixed.jws"
run .build/release/jwsinspect Samples/notification-subscribed-sandbox-2025.jws Samples/transaction-sandbox-2022.jws
echo "leakcheck: no definitely or indirectly lost blocks (valgrind, release binary, 220 + 2 inputs)"
