#!/usr/bin/env bash
# serial: errors<=0 at 200/s for 1 s (one request left unsent at the end fails it)
# test_slo_progress.sh's checks bounded tightly in time or rate, which need
# the machine to themselves (the rest of test_slo_progress.sh holds on a
# loaded one): --slo passing and failing at 200/s (errors<=0, rate>=95%),
# and the live progress line at -R100 under a pseudo-terminal (script(1)).
. "$(dirname "$0")/lib.sh"
D=$T_DIR

start_serve --threads 1 || { fail serve_start "$(serve_err)"; finish; }

# --- SLO -------------------------------------------------------------------
"$PACER" -t1 -c4 -d1s -R200 -L --slo 'p99<=500ms,p50<=500ms,errors<=0.1%,rate>=95%,max<=2s' \
    "$SERVE_URL" >"$D/slo_pass.out" 2>"$D/slo_pass.err"
rc=$?
ok slo_pass_exit0 "exit $rc: $(tail -3 "$D/slo_pass.err")" "[ $rc -eq 0 ]"
ok slo_pass_lines "$(tail -8 "$D/slo_pass.out")" \
    "[ \$(grep -c '^  PASS ' '$D/slo_pass.out') -eq 5 ] && grep -q '^SLO PASSED: all 5 objectives met' '$D/slo_pass.out'"
# The measured p99 is the report's own 99.000% line.
rep=$(pct "$D/slo_pass.out" 1 99.000)
slo=$(to_ms "$(awk '$1 == "PASS" && $2 == "p99<=500ms" { print $4 }' "$D/slo_pass.out")")
ok slo_p99_is_report_p99 "report $rep ms, SLO line $slo ms" "[ -n '$rep' ] && fcmp '$rep' == '$slo'"
ok slo_rate_measured "$(grep 'rate>=' "$D/slo_pass.out")" \
    "grep -qE 'PASS  rate>=95%  +measured (9[5-9]|100)\.[0-9]+% \([0-9.]+ of 200.00 req/s\)' '$D/slo_pass.out'"

"$PACER" -t1 -c4 -d1s -R200 --slo 'p99<=1us,errors<=0' "$SERVE_URL" >"$D/slo_fail.out" 2>&1
rc=$?
ok slo_fail_exit5 "exit $rc" "[ $rc -eq 5 ]"
ok slo_fail_lines "$(tail -4 "$D/slo_fail.out")" \
    "grep -qE '^  FAIL  p99<=1us  +measured [0-9.]+(us|ms)' '$D/slo_fail.out' && grep -q '^  PASS  errors<=0 ' '$D/slo_fail.out' && grep -q '^SLO FAILED: 1 of 2 objectives not met' '$D/slo_fail.out'"

# --- progress --------------------------------------------------------------
# stderr on a pseudo-terminal (script), stdout redirected to a file: the
# live view is on the terminal, the report in the file, untouched
# (test_live.sh looks at the view itself in tmux).
run_pty() { # LOG OUT ARGS...
    local log=$1 out=$2; shift 2
    # The terminal script(1) makes is one that redraws, whatever TERM this
    # suite runs with (the fresh-machine check's is dumb: plain lines).
    TERM=xterm timeout 20 script -qec "$(printf '%q ' "$PACER" "$@") >$out" "$log" </dev/null >/dev/null 2>&1
}
run_pty "$D/pty.log" "$D/pty.out" -t1 -c2 -d3s -R100 "$SERVE_URL"
n=$(tr '\r' '\n' <"$D/pty.log" | grep -cE '^\[[#.]{20}\] [0-9.]+s/3.00s  [0-9.]+s left')
ok progress_on_tty "$n progress updates: $(head -c 400 "$D/pty.log" | cat -v)" "[ $n -ge 2 ]"
ok progress_rate_shown "$(tr '\r' '\n' <"$D/pty.log" | grep -m1 'req/s' | cat -v)" \
    "tr '\r' '\n' <'$D/pty.log' | grep -qE '^req/s  (9[0-9]|10[0-9]) now  target 100 '"
ok progress_bar_fills "$(tr '\r' '\n' <"$D/pty.log" | grep '^\[' | tail -1 | cat -v)" \
    "tr '\r' '\n' <'$D/pty.log' | grep -q '^\[####################\] 3.0s/3.00s'"
# The last thing pacer wrote to the terminal erases the view: up to its
# first line, clear to the end of the screen.
ok progress_erased_on_tty "$(tail -c 200 "$D/pty.log" | cat -v)" \
    "'$PY' -c \"import re,sys; t=open(sys.argv[1],'rb').read(); i=t.rfind(b'errors 0'); sys.exit(not (i > 0 and re.search(rb'\\x1b\\[[0-9]+A\\r\\x1b\\[J', t[i:])))\" '$D/pty.log'"
ok progress_stdout_clean "$(head -3 "$D/pty.out")" \
    "grep -q '^Requests/sec:' '$D/pty.out' && ! grep -q 'req/s  p50' '$D/pty.out'"
"$PACER" -t1 -c2 -d1s -R100 "$SERVE_URL" >"$D/plain.out" 2>&1
ok progress_stdout_same_lines "$(diff <(cut -c1-14 "$D/plain.out") <(cut -c1-14 "$D/pty.out") | head -5)" \
    "[ \$(wc -l <'$D/plain.out') -eq \$(wc -l <'$D/pty.out') ]"

finish
