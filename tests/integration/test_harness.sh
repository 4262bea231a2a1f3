#!/usr/bin/env bash
# once: tests/run.sh over made-up files; no build under test
# The test harness itself: tests/run.sh's counting and closing line,
# need_cmd (a missing dependency is a FAIL naming its package), and that
# the tests read nothing from outside the repository.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

# --- tests/run.sh over a tree of made-up test files --------------------------
F="$T_DIR/tree"
mkdir -p "$F/tests/integration"
cp "$ROOT/tests/run.sh" "$F/tests/"
printf '%s\n' 'echo "PASS a1"' 'echo "PASS a2"' >"$F/tests/integration/test_a.sh"
printf '%s\n' 'echo "FAIL b1: why"' 'exit 1' >"$F/tests/integration/test_b.sh"
printf '%s\n' 'echo "SKIP c1: this platform has no such thing"' >"$F/tests/integration/test_c.sh"
printf '%s\n' 'echo "nothing checked"' >"$F/tests/integration/test_d.sh"
printf '%s\n' 'echo "PASS e1"' 'exit 3' >"$F/tests/integration/test_e.sh"
ONLY= BUILD=nobuild bash "$F/tests/run.sh" >"$T_DIR/run.out" 2>&1
rc=$?
ok run_closing_line "$(tail -1 "$T_DIR/run.out")" "[ \"\$(tail -1 '$T_DIR/run.out')\" = '3 passed, 3 failed, 1 skipped' ]"
ok run_exit_status "exit $rc" "[ $rc -ne 0 ]"
ok run_no_check_is_failure "$(grep test_d "$T_DIR/run.out")" \
    "grep -q '^  \[integration/test_d.sh\] FAIL: ran no check' '$T_DIR/run.out'"
ok run_exit_without_fail_line "$(grep test_e "$T_DIR/run.out")" \
    "grep -q '^  \[integration/test_e.sh\] FAIL: exited with status 3' '$T_DIR/run.out'"
ok run_skip_shown "$(grep test_c "$T_DIR/run.out")" \
    "grep -q '^  \[integration/test_c.sh\] SKIP c1: this platform has no such thing' '$T_DIR/run.out'"
ok run_per_file_line "$(grep -E '^integration/test_a' "$T_DIR/run.out")" \
    "grep -qE '^integration/test_c.sh +0 passed, 0 failed, 1 skipped \([0-9]+s\)$' '$T_DIR/run.out'"
# A test that writes into the repository (as something once left a stray
# file "body" at the root) fails the run.
printf '%s\n' 'echo "PASS f1"' 'head -c 100 /dev/zero >body' >"$F/tests/integration/test_f.sh"
ONLY=test_f BUILD=nobuild bash "$F/tests/run.sh" >"$T_DIR/run3.out" 2>&1
rc=$?
ok run_repo_left_clean "exit $rc: $(tail -2 "$T_DIR/run3.out")" \
    "[ $rc -ne 0 ] && grep -qx '  \[run.sh\] FAIL tests_write_outside_tmp: the tests left in the repository: ./body' '$T_DIR/run3.out' && [ \"\$(tail -1 '$T_DIR/run3.out')\" = '1 passed, 1 failed, 0 skipped' ]"
rm -f "$F/tests/integration/test_"[bdef].sh "$F/body"
ONLY= BUILD=nobuild bash "$F/tests/run.sh" >"$T_DIR/run2.out" 2>&1
rc=$?
ok run_pass_exit_zero "exit $rc: $(tail -1 "$T_DIR/run2.out")" \
    "[ $rc -eq 0 ] && [ \"\$(tail -1 '$T_DIR/run2.out')\" = '2 passed, 0 failed, 1 skipped' ]"
# A "# once" file runs with the default build only (BUILD=build), and the
# run says so when it leaves it out.
printf '%s\n' '#!/usr/bin/env bash' '# once: checks no build' 'echo "PASS o1"' >"$F/tests/integration/test_o.sh"
ONLY=test_o BUILD=nobuild bash "$F/tests/run.sh" >"$T_DIR/once1.out" 2>&1
ONLY=test_o BUILD=build bash "$F/tests/run.sh" >"$T_DIR/once2.out" 2>&1
ok run_once_left_out "$(cat "$T_DIR/once1.out")" \
    "grep -qE '^integration/test_o.sh +not run with BUILD=nobuild: it checks no build of pacer' '$T_DIR/once1.out' && ! grep -q 'PASS o1' '$T_DIR/once1.out'"
ok run_once_default_build "$(cat "$T_DIR/once2.out")" \
    "[ \"\$(tail -1 '$T_DIR/once2.out')\" = '1 passed, 0 failed, 0 skipped' ]"
rm -f "$F/tests/integration/test_o.sh"

# --- JOBS: files side by side, a "# serial" one alone, lines in file order ----
# Each file marks itself running in $M while it runs. test_p1 passes only if
# test_p2 runs at the same time (it waits up to 3 s for it) and ends last;
# test_s (serial) must find nobody running and be found by nobody; the
# lines come in file order all the same.
P="$T_DIR/ptree" M="$T_DIR/marks"
mkdir -p "$P/tests/integration" "$M"
cp "$ROOT/tests/run.sh" "$P/tests/"
printf '%s\n' "touch $M/p1" "for i in \$(seq 30); do [ -e $M/p2 ] && break; sleep 0.1; done" \
    "[ -e $M/p2 ] && echo 'PASS p1_together' || echo 'FAIL p1_together: test_p2 did not run alongside'" \
    "sleep 0.5; rm -f $M/p1" >"$P/tests/integration/test_p1.sh"
printf '%s\n' "touch $M/p2" "sleep 0.2; echo 'PASS p2'; rm -f $M/p2" >"$P/tests/integration/test_p2.sh"
printf '%s\n' '#!/usr/bin/env bash' '# serial' "[ -z \"\$(ls $M)\" ] && echo 'PASS s_alone' || echo \"FAIL s_alone: \$(ls $M) running\"" \
    "touch $M/s; sleep 0.5; rm -f $M/s" >"$P/tests/integration/test_s.sh"
printf '%s\n' "[ ! -e $M/s ] && echo 'PASS t_not_with_s' || echo 'FAIL t_not_with_s: test_s running'" \
    "touch $M/t; sleep 0.3; rm -f $M/t" >"$P/tests/integration/test_t.sh"
printf '%s\n' 'echo "PASS u1"' >"$P/tests/integration/test_u.sh"
JOBS=2 ONLY= BUILD=nobuild bash "$P/tests/run.sh" >"$T_DIR/par.out" 2>&1
rc=$?
ok run_jobs_side_by_side "exit $rc: $(cat "$T_DIR/par.out")" \
    "[ $rc -eq 0 ] && [ \"\$(tail -1 '$T_DIR/par.out')\" = '5 passed, 0 failed, 0 skipped' ]"
ok run_jobs_file_order "$(cat "$T_DIR/par.out")" \
    "[ \"\$(grep -oE '^integration/test_[a-z0-9]+' '$T_DIR/par.out' | tr '\n' ' ')\" = 'integration/test_p1 integration/test_p2 integration/test_s integration/test_t integration/test_u ' ]"
rm -f "$M"/*
JOBS=1 ONLY=test_p BUILD=nobuild bash "$P/tests/run.sh" >"$T_DIR/seq.out" 2>&1
ok run_jobs_1_one_at_a_time "$(cat "$T_DIR/seq.out")" \
    "[ \"\$(tail -1 '$T_DIR/seq.out')\" = '1 passed, 1 failed, 0 skipped' ] && grep -q 'FAIL p1_together' '$T_DIR/seq.out'"

# --- need_cmd ------------------------------------------------------------------
# In a subshell, with its own fail(), so its FAIL lines are not this file's.
need_probe() {
    (
        fail() { echo "FAIL $1: $2"; }
        . "$ROOT/tests/integration/need.sh"
        need_cmd "$@"
        echo "rc=$?"
    )
}
out=$(need_probe sh dash)
ok need_cmd_present "$out" "[ '$out' = rc=0 ]"
out=$(need_probe /usr/share/doc pkg)
ok need_cmd_present_path "$out" "[ '$out' = rc=0 ]"
out=$(need_probe pacer-no-such-tool-x9 some-package)
ok need_cmd_missing_fails "$out" "[ \"\$(printf '%s\n' '$out' | head -1)\" = 'FAIL need_pacer-no-such-tool-x9: pacer-no-such-tool-x9 is missing: install the Debian package some-package (scripts/deps.sh does)' ] && printf '%s\n' '$out' | tail -1 | grep -qx rc=1"
out=$(need_probe /usr/share/pacer-no-such-dir/x some-package)
ok need_cmd_missing_path_fails "$out" "printf '%s\n' '$out' | head -1 | grep -q '^FAIL need_usr_share_pacer-no-such-dir_x: /usr/share/pacer-no-such-dir/x is missing: install the Debian package some-package' && printf '%s\n' '$out' | tail -1 | grep -qx rc=1"

# --- what the tests read --------------------------------------------------------
# Everything a test reads is in the repository (tests/data/ for data from
# elsewhere); nothing looks in ../shared.
hits=$(grep -rlE '\.\./shared|PACER_SHARED|shared/reference' "$ROOT/tests" "$ROOT/Makefile" 2>/dev/null |
    grep -v '^'"$ROOT"'/tests/integration/test_harness.sh$' | sed "s|^$ROOT/||")
ok reads_only_the_repo "files naming ../shared: $hits" "[ -z '$hits' ]"
# The docs cite only what the repository (or an installed copy) holds.
hits=$(grep -rlE '\.\./shared|shared/(reference|design|peers)' "$ROOT/docs" "$ROOT/README.md" 2>/dev/null |
    sed "s|^$ROOT/||")
ok docs_cite_only_the_repo "docs naming ../shared: $hits" "[ -z '$hits' ]"
# Each program a test needs is checked with need_cmd (a FAIL that names the
# package), not with a lookup of its own that could skip instead.
hits=$(grep -lE 'command[ ]-v|(^|[;&|(]) *which ' "$ROOT"/tests/integration/test_*.sh | sed "s|^$ROOT/||")
ok no_adhoc_tool_checks "ad-hoc checks in: $hits" "[ -z '$hits' ]"
# Every package named in a need_cmd is one scripts/deps.sh installs.
pkgs=$(cat "$ROOT"/tests/integration/*.sh | grep -v '^ *#' | grep -oE 'need_cmd +[^ ]+ +[a-z0-9][a-z0-9.+-]+' | awk '{sub(/\.$/, "", $3); print $3}' | sort -u)
missing=""
for p in $pkgs; do
    grep -qE "^$p( |\$)|^[a-z0-9 .+-]* $p( |\$)" "$ROOT/scripts/deps.sh" || missing="$missing $p"
done
ok need_cmd_packages_in_deps "not in scripts/deps.sh:$missing (of: $(echo $pkgs))" "[ -z '$missing' ]"

finish
