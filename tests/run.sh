#!/usr/bin/env bash
# Run every unit-test binary and every integration script, count their
# "PASS name" / "FAIL name: why" / "SKIP name: why" lines, and end with
# "N passed, N failed, N skipped"; exit non-zero on any failure. A test file
# that exits non-zero without a FAIL line, or reports no check at all, is
# one failure. (SKIP is only for what the platform cannot provide.)
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

passed=0 failed=0 skipped=0
touch "$out/start"

run_one() { # name, command...
    local name=$1; shift
    local log="$out/$(echo "$name" | tr '/' '_').log"
    local start=$SECONDS rc
    timeout --kill-after=10 600 "$@" >"$log" 2>&1
    rc=$?
    local p f s
    p=$(grep -c '^PASS ' "$log")
    f=$(grep -c '^FAIL ' "$log")
    s=$(grep -c '^SKIP ' "$log")
    grep -E '^(FAIL|SKIP) ' "$log" | sed "s|^|  [$name] |"
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        # A crash or a timeout is a failure even if no line said so.
        echo "  [$name] FAIL: exited with status $rc; last lines:"
        tail -n 15 "$log" | sed 's/^/      /'
        f=$((f + 1))
    elif [ "$p" -eq 0 ] && [ "$f" -eq 0 ] && [ "$s" -eq 0 ]; then
        echo "  [$name] FAIL: ran no check (no PASS, FAIL or SKIP line); last lines:"
        tail -n 15 "$log" | sed 's/^/      /'
        f=1
    fi
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
    printf '%-45s %4d passed, %d failed, %d skipped (%ds)\n' "$name" "$p" "$f" "$s" "$((SECONDS - start))"
}

for t in $(find "$BUILD/tests" -type f -perm -u+x 2>/dev/null | sort); do
    name=${t#"$BUILD/tests/"}
    case "unit/$name" in *"${ONLY:-}"*) ;; *) continue ;; esac
    run_one "unit/$name" "$t"
done
for t in tests/integration/test_*.sh; do
    name=${t#tests/}
    case "$name" in *"${ONLY:-}"*) ;; *) continue ;; esac
    run_one "$name" bash "$t"
done

# Tests write under /tmp only: a file they left in the repository (outside
# .git and what the build makes) is a failure.
wrote=$(find . \( -path ./.git -o -path ./build -o -path ./build-san -o -path ./build-fuzz \
    -o -path "./$BUILD" -o -path ./pacer \) -prune -o -type f -newer "$out/start" -print | sort | head -n 20)
if [ -n "$wrote" ]; then
    echo "  [run.sh] FAIL tests_write_outside_tmp: the tests left in the repository:" $wrote
    failed=$((failed + 1))
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
