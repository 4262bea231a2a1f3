#!/usr/bin/env bash
# serial: errors<=0 at 200/s for 1 s (one request left unsent at the end fails it)
# --slo (PASS/FAIL lines, exit 5, bad expressions) and the live progress
# line (under a pseudo-terminal made by script(1), forced, silenced).
. "$(dirname "$0")/lib.sh"
D=$T_DIR

start_serve --threads 1 || { fail serve_start "$(serve_err)"; finish; }
start_nginx || { fail nginx_start "nginx did not start"; finish; }
FAST_URL=$SERVE_URL
start_serve --threads 1 --capacity 100 || { fail serve_slow_start "$(serve_err)"; finish; }
SERVE_SLOW_URL=$SERVE_URL SERVE_URL=$FAST_URL

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

# Non-2xx responses are failures for errors<=: nginx answers 404 here.
"$PACER" -t1 -c2 -n 50 --slo 'errors<=10%' "http://127.0.0.1:$NGX_PORT/missing" >"$D/slo_404.out" 2>&1
rc=$?
ok slo_404_counts_as_error "exit $rc: $(grep errors "$D/slo_404.out")" \
    "[ $rc -eq 5 ] && grep -qE 'FAIL  errors<=10%  +measured 100% \(50 of 50\): 50 non-2xx/3xx responses$' '$D/slo_404.out'"

# Never-sent requests fail errors<= too, and its line says that is what they
# were (no error table lists them): a server that serves 100 req/s, at 400.
"$PACER" -t1 -c2 -d1s -R400 --slo 'errors<=0.1%' "$SERVE_SLOW_URL" >"$D/slo_unsent.out" 2>&1
ok slo_errors_names_never_sent "$(grep 'errors<=' "$D/slo_unsent.out")" \
    "grep -qE 'FAIL  errors<=0.1%  +measured [0-9.]+% \(([0-9]+) of [0-9]+\): \1 never sent \(still queued' '$D/slo_unsent.out'"

# A dead target: no response at all is exit 3 even with an SLO.
"$PACER" -t1 -c1 -d300ms --slo 'errors<=0' "http://127.0.0.1:1/" >"$D/slo_dead.out" 2>&1
rc=$?
ok slo_no_response_exit3 "exit $rc" "[ $rc -eq 3 ] && grep -q 'FAIL  errors<=0' '$D/slo_dead.out'"

# rate as a share needs -R: a usage error before any load is sent.
"$PACER" -t1 -c2 -d300ms --slo 'rate>=50%' "$SERVE_URL" >"$D/slo_cl.out" 2>&1
rc=$?
ok slo_rate_share_needs_R "exit $rc: $(grep rate "$D/slo_cl.out")" \
    "[ $rc -eq 2 ] && grep -q 'needs -R' '$D/slo_cl.out' && ! grep -q 'Requests/sec' '$D/slo_cl.out'"

# pacer report --slo judges saved results the same way.
"$PACER" -t1 -c4 -d1s -R200 --json "$D/r.json" --slo 'p99<=500ms' "$SERVE_URL" >"$D/r.out" 2>&1
"$PACER" report --slo 'p99<=500ms' "$D/r.json" >"$D/rep.out" 2>&1
rc=$?
ok report_slo_pass "exit $rc: $(tail -3 "$D/rep.out")" \
    "[ $rc -eq 0 ] && [ \"\$(grep 'PASS  p99<=500ms' '$D/rep.out')\" = \"\$(grep 'PASS  p99<=500ms' '$D/r.out')\" ]"
"$PACER" report --slo 'p99<=1us' "$D/r.json" >"$D/rep2.out" 2>&1
rc=$?
ok report_slo_fail_exit5 "exit $rc" "[ $rc -eq 5 ] && grep -q '^SLO FAILED' '$D/rep2.out'"
"$PACER" report --slo 'p99<=1' "$D/r.json" >"$D/rep3.out" 2>&1
rc=$?
ok report_slo_bad_exit2 "exit $rc: $(cat "$D/rep3.out")" "[ $rc -eq 2 ] && grep -q 'latency needs a unit' '$D/rep3.out'"

bad_slo() {
    local name=$1 expr=$2 want=$3
    "$PACER" --slo "$expr" "$SERVE_URL" >"$D/bad.out" 2>"$D/bad.err"
    local rc=$?
    ok "$name" "exit $rc: $(cat "$D/bad.err")" \
        "[ $rc -eq 2 ] && [ \$(wc -l <'$D/bad.err') -eq 1 ] && grep -q -- '$want' '$D/bad.err' && [ ! -s '$D/bad.out' ]"
}
bad_slo slo_bad_no_unit 'p99<=100' 'latency needs a unit'
bad_slo slo_bad_metric 'q99<=1ms' "unknown --slo metric .q99."
bad_slo slo_bad_pct 'p101<=1ms' 'invalid --slo percentile'
bad_slo slo_bad_op 'p99=1ms' 'expected e.g. p99<=100ms'
bad_slo slo_bad_number 'errors<=lots' "bad number .lots."
bad_slo slo_bad_empty ',' 'empty objective'
bad_slo slo_bad_share 'rate>=120%' "bad number .120%."

# --- progress --------------------------------------------------------------
# stderr on a pseudo-terminal (script), stdout redirected to a file: the
# live view is on the terminal, the report in the file, untouched
# (test_live.sh looks at the view itself in tmux).
run_pty() { # LOG OUT ARGS...
    local log=$1 out=$2; shift 2
    timeout 20 script -qec "$(printf '%q ' "$PACER" "$@") >$out" "$log" </dev/null >/dev/null 2>&1
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

run_pty "$D/warm.log" "$D/warm.out" -t1 -c2 -d1s -R100 --warmup 1s "$SERVE_URL"
ok progress_warmup_said "$(tr '\r' '\n' <"$D/warm.log" | head -3 | cat -v)" \
    "tr '\r' '\n' <'$D/warm.log' | grep -q '^connecting 2 connections\.\.\., then warming up for 1.00s' && tr '\r' '\n' <'$D/warm.log' | grep -q '^\[####################\] 1.0s/1.00s'"

run_pty "$D/quiet.log" "$D/quiet.out" -t1 -c2 -d1s -R100 --quiet "$SERVE_URL"
ok progress_quiet "$(cat -v "$D/quiet.log" | head -3)" "! grep -q 'req/s' '$D/quiet.log' && grep -q '^Requests/sec' '$D/quiet.out'"

# Not a terminal: nothing unless --progress, then one line per interval.
ok progress_off_without_tty "$(grep -c 'req/s  p50' "$D/plain.out")" "! grep -q 'req/s  p50' '$D/plain.out'"
"$PACER" -t1 -c2 -n 300 -R200 --progress --interval 500ms "$SERVE_URL" >"$D/forced.out" 2>"$D/forced.err"
n=$(grep -cE '^\[[#.]{20}\] [0-9]+/300 req  ' "$D/forced.err")
ok progress_forced_lines "$n lines: $(head -2 "$D/forced.err")" "[ $n -ge 2 ] && ! grep -q \$'\r' '$D/forced.err'"
ok progress_forced_reaches_total "$(tail -1 "$D/forced.err")" "grep -q '^\[####################\] 300/300 req' '$D/forced.err'"

finish
