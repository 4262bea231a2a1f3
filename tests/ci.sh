#!/usr/bin/env bash
# What CI runs: the test suite, the test suite again under ASan + UBSan,
# and every fuzz target for a bounded time. Ends with one summary line
# "N passed, N failed, N skipped" over all three; exits non-zero on any
# failure.
set -u
cd "$(dirname "$0")/.."
log=$(mktemp /tmp/pacer-ci.XXXXXX)
trap 'rm -f "$log"' EXIT
status=0

broken=0
step() {
    local before after
    echo "== $*"
    before=$(grep -cE '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$|^(PASS|FAIL) fuzz_' "$log")
    "$@" 2>&1 | tee -a "$log"
    if [ "${PIPESTATUS[0]}" -ne 0 ]; then
        status=1
        after=$(grep -cE '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$|^(PASS|FAIL) fuzz_' "$log")
        # A step that failed without saying what (a build error) counts as one failure.
        [ "$after" -gt "$before" ] || broken=$((broken + 1))
    fi
}

# CI's machine has 2 cores: both compile (-j2), and fuzz-smoke runs two
# targets at once, one a core (nothing else runs then). The test suites run
# four integration files at once (tests/run.sh, JOBS): most wait on the
# clock, the suite's checks hold with four on 2 cores (they assert rules,
# not this machine's timing), and the files bound tightly in time still run
# alone ("# serial"). Two at a time took the whole run past 25 minutes.
export JOBS=${JOBS:-4}
step make -j2 test
step make -j2 SAN=1 test
# The fuzz step is a smoke run (each target's corpus replayed, then a few
# seconds of mutation: a build or a seed that crashes is caught here);
# `make fuzz` and FUZZ_SECONDS=N are for fuzzing in earnest.
step make -j2 fuzz-smoke FUZZ_SECONDS="${FUZZ_SECONDS:-5}"

totals='^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$'
passed=$(grep -E "$totals" "$log" | awk '{s += $1} END {print s + 0}')
failed=$(grep -E "$totals" "$log" | awk '{s += $3} END {print s + 0}')
skipped=$(grep -E "$totals" "$log" | awk '{s += $5} END {print s + 0}')
passed=$((passed + $(grep -c '^PASS fuzz_' "$log")))
failed=$((failed + $(grep -c '^FAIL fuzz_' "$log") + broken))
[ "$failed" -eq 0 ] || status=1
echo "$passed passed, $failed failed, $skipped skipped"
exit $status
