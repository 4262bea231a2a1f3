#!/usr/bin/env bash
# Run every unit-test binary and every integration script, count their
# "PASS name" / "FAIL name: why" lines, and end with "N passed, N failed".
# Env: BUILD (build dir, default build), PACER (the binary under test),
# ONLY (a substring: run only matching tests).
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export PACER=${PACER:-$PWD/pacer}
export BUILD_DIR=$PWD/$BUILD
export TOOLS=$PWD/$BUILD/tools
out=$(mktemp -d /tmp/pacer-tests.XXXXXX)
trap 'rm -rf "$out"' EXIT

passed=0 failed=0 broken=""

run_one() { # name, command...
    local name=$1; shift
    local log="$out/$(echo "$name" | tr '/' '_').log"
    local start=$SECONDS rc
    timeout --kill-after=10 600 "$@" >"$log" 2>&1
    rc=$?
    local p f
    p=$(grep -c '^PASS ' "$log")
    f=$(grep -c '^FAIL ' "$log")
    grep -E '^(FAIL|SKIP) ' "$log" | sed "s|^|  [$name] |"
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        # A crash or a timeout is a failure even if no line said so.
        echo "  [$name] FAIL: exited with status $rc; last lines:"
        tail -n 15 "$log" | sed 's/^/      /'
        f=$((f + 1))
    fi
    passed=$((passed + p)); failed=$((failed + f))
    printf '%-45s %4d passed, %d failed (%ds)\n' "$name" "$p" "$f" "$((SECONDS - start))"
}

for t in $(find "$BUILD/tests" -type f -perm -u+x 2>/dev/null | sort); do
    name=${t#"$BUILD/tests/"}
    case "$name" in *"${ONLY:-}"*) ;; *) continue ;; esac
    run_one "unit/$name" "$t"
done
for t in tests/integration/test_*.sh; do
    name=${t#tests/}
    case "$name" in *"${ONLY:-}"*) ;; *) continue ;; esac
    run_one "$name" bash "$t"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
