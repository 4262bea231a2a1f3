#!/usr/bin/env bash
# Run every unit-test binary and every integration script, count their
# "PASS name" / "FAIL name: why" / "SKIP name: why" lines, and end with
# "N passed, N failed, N skipped"; exit non-zero on any failure. A test file
# that exits non-zero without a FAIL line, or reports no check at all, is
# one failure. (SKIP is only for what the platform cannot provide.)
# Env: BUILD (build dir, default build), PACER (the binary under test),
# ONLY (a substring: run only matching tests), JOBS (integration files run
# at once, default 2; 1 runs them one after the other).
#
# Most integration files wait on the clock (runs of -d seconds at modest
# rates), so JOBS of them run side by side. A file whose checks are bounded
# tightly in time or rate (a stall within 10%, a rate within 1%, latency
# bounds, valgrind, CPU-bound runs) says so with a line "# serial" or
# "# serial: why" among its first 10 lines, and runs alone. The others run
# first, JOBS at a time, then the serial ones one by one; results print in
# file order, each file's lines together, whatever order the files end in.
# A file that checks no build of pacer (the Makefile, this harness, the
# package dpkg-buildpackage compiles from the sources) says "# once" or
# "# once: why" among its first 10 lines: it runs with the default build
# (BUILD=build) only, as another (make SAN=1 test: build-san) would run
# the same checks a second time.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export PACER=${PACER:-$PWD/pacer}
export BUILD_DIR=$PWD/$BUILD
export TOOLS=$PWD/$BUILD/tools
JOBS=${JOBS:-2}
case "$JOBS" in '' | *[!0-9]* | 0) echo "run.sh: JOBS must be a positive number, not '$JOBS'" >&2; exit 2 ;; esac
out=$(mktemp -d /tmp/pacer-tests.XXXXXX)
# On the way out, files still running (an interrupted run) are stopped.
stop_running() {
    local p
    for p in "$out"/*.pid; do
        [ -e "$p" ] && [ ! -e "${p%.pid}.done" ] && kill "$(cat "$p")" 2>/dev/null
    done
}
trap 'stop_running; rm -rf "$out"' EXIT

passed=0 failed=0 skipped=0
touch "$out/start"

# base NAME: sets b, where a test's files go ($out/NAME with / as _); no
# fork, as the waiting loop below looks often.
base() { b="$out/${1//\//_}"; }

# exec_one NAME COMMAND...: run it (at most 600 s), its output into
# BASE.log, then "RC SECONDS" into BASE.done. BASE.pid is the timeout's
# pid, for the EXIT trap (timeout passes a TERM on to the test's group);
# the test keeps this shell's stdin (0<&0: not /dev/null, as for "&").
exec_one() {
    local b start=$SECONDS rc
    base "$1"
    shift
    timeout --kill-after=10 600 "$@" 0<&0 >"$b.log" 2>&1 &
    echo $! >"$b.pid"
    wait $!
    rc=$?
    echo "$rc $((SECONDS - start))" >"$b.done.tmp" && mv "$b.done.tmp" "$b.done"
}

# report_one NAME: count its PASS / FAIL / SKIP lines, print them and its line.
report_one() {
    local name=$1 b
    base "$name"
    local log="$b.log" rc secs
    read -r rc secs <"$b.done"
    local p f s
    p=$(grep -c '^PASS ' "$log")
    f=$(grep -c '^FAIL ' "$log")
    s=$(grep -c '^SKIP ' "$log")
    grep -E '^(FAIL|SKIP) ' "$log" | sed "s|^|  [$name] |"
    grep -E '^FAIL ' "$log" | sed "s|^|[$name] |" >>"$out/failures"
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        # A crash or a timeout is a failure even if no line said so.
        echo "  [$name] FAIL: exited with status $rc; last lines:"
        echo "[$name] FAIL: exited with status $rc" >>"$out/failures"
        tail -n 15 "$log" | sed 's/^/      /'
        f=$((f + 1))
    elif [ "$p" -eq 0 ] && [ "$f" -eq 0 ] && [ "$s" -eq 0 ]; then
        echo "  [$name] FAIL: ran no check (no PASS, FAIL or SKIP line); last lines:"
        echo "[$name] FAIL: ran no check" >>"$out/failures"
        tail -n 15 "$log" | sed 's/^/      /'
        f=1
    fi
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
    printf '%-45s %4d passed, %d failed, %d skipped (%ds)\n' "$name" "$p" "$f" "$s" "$secs"
}

run_one() { # name, command...
    exec_one "$@"
    report_one "$1"
}

# The integration files to run, in file order (the order they are
# reported in); those started, and not yet reported.
files=() started=()
# flush: report the files at the head of the list that have ended.
flush() {
    local b
    while [ ${#files[@]} -gt 0 ] && base "${files[0]}" && [ -e "$b.done" ]; do
        report_one "${files[0]}"
        files=("${files[@]:1}")
    done
}
# running: sets n, how many started files have not ended.
running() {
    local q b
    n=0
    for q in "${started[@]}"; do base "$q"; [ -e "$b.done" ] || n=$((n + 1)); done
}
# wait_below N: report what has ended until fewer than N files run.
wait_below() {
    local n
    while flush; running; [ "$n" -ge "$1" ]; do sleep 0.2; done
    flush # what ended after the last look
}

for t in $(find "$BUILD/tests" -type f -perm -u+x 2>/dev/null | sort); do
    name=${t#"$BUILD/tests/"}
    case "unit/$name" in *"${ONLY:-}"*) ;; *) continue ;; esac
    run_one "unit/$name" "$t"
done
serial=()
for t in tests/integration/test_*.sh; do
    name=${t#tests/}
    case "$name" in *"${ONLY:-}"*) ;; *) continue ;; esac
    if [ "$BUILD" != build ] && head -n 10 "$t" | grep -qE '^# once($|:)'; then
        printf '%-45s not run with BUILD=%s: it checks no build of pacer (# once)\n' "$name" "$BUILD"
        continue
    fi
    files+=("$name")
    if [ "$JOBS" -eq 1 ] || head -n 10 "$t" | grep -qE '^# serial($|:)'; then
        serial+=("$name")
    fi
done
# First the files that may share the machine, JOBS at a time (a pool:
# the next starts as soon as one ends); then the serial ones, one by one,
# with nothing else running.
for name in "${files[@]}"; do
    case " ${serial[*]} " in *" $name "*) continue ;; esac
    wait_below "$JOBS"
    started+=("$name")
    exec_one "$name" bash "tests/$name" &
done
wait_below 1
for name in "${serial[@]}"; do
    exec_one "$name" bash "tests/$name"
    flush
done

# Tests write under /tmp only: a file they left in the repository (outside
# .git and what the build makes) is a failure.
wrote=$(find . \( -path ./.git -o -path ./build -o -path ./build-san -o -path ./build-fuzz \
    -o -path "./$BUILD" -o -path ./pacer \) -prune -o -type f -newer "$out/start" -print | sort | head -n 20)
if [ -n "$wrote" ]; then
    echo "  [run.sh] FAIL tests_write_outside_tmp: the tests left in the repository:" $wrote
    echo "[run.sh] FAIL tests_write_outside_tmp" >>"$out/failures"
    failed=$((failed + 1))
fi

# The failures once more, last: a log read from its tail shows them.
if [ -s "$out/failures" ]; then
    echo "failed checks:"
    sed 's/^/  /' "$out/failures"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
