#!/usr/bin/env bash
# What CI runs: the test suite, the test suite again under ASan + UBSan,
# and every fuzz target for a bounded time. Ends with one summary line
# "N passed, N failed" over all three; exits non-zero on any failure.
set -u
cd "$(dirname "$0")/.."
log=$(mktemp /tmp/pacer-ci.XXXXXX)
trap 'rm -f "$log"' EXIT
status=0

step() {
    echo "== $*"
    "$@" 2>&1 | tee -a "$log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
}

step make test
step make SAN=1 test
step make fuzz-smoke FUZZ_SECONDS="${FUZZ_SECONDS:-20}"

passed=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | awk '{s += $1} END {print s + 0}')
failed=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | awk '{s += $3} END {print s + 0}')
passed=$((passed + $(grep -c '^PASS fuzz_' "$log")))
failed=$((failed + $(grep -c '^FAIL fuzz_' "$log")))
[ "$failed" -eq 0 ] || status=1
echo "$passed passed, $failed failed"
exit $status
