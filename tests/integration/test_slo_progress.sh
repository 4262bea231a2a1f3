#!/usr/bin/env bash
# --slo (PASS/FAIL lines, exit 5, bad expressions) and the live progress
# line (under a pseudo-terminal made by script(1), forced, silenced). The
# checks bounded tightly in time or rate (--slo at 200/s, the progress
# line's rate) are in test_slo_progress_timing.sh, which runs alone.
. "$(dirname "$0")/lib.sh"
D=$T_DIR

start_serve --threads 1 || { fail serve_start "$(serve_err)"; finish; }
start_nginx || { fail nginx_start "nginx did not start"; finish; }
FAST_URL=$SERVE_URL
start_serve --threads 1 --capacity 100 || { fail serve_slow_start "$(serve_err)"; finish; }
SERVE_SLOW_URL=$SERVE_URL SERVE_URL=$FAST_URL

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
# stderr on a pseudo-terminal (script), stdout redirected to a file (a 3 s
# run's view and report: test_slo_progress_timing.sh; test_live.sh looks at
# the view itself in tmux).
run_pty() { # LOG OUT ARGS...
    local log=$1 out=$2; shift 2
    # The terminal script(1) makes is one that redraws, whatever TERM this
    # suite runs with (the fresh-machine check's is dumb: plain lines).
    TERM=xterm timeout 20 script -qec "$(printf '%q ' "$PACER" "$@") >$out" "$log" </dev/null >/dev/null 2>&1
}

run_pty "$D/warm.log" "$D/warm.out" -t1 -c2 -d1s -R100 --warmup 1s "$SERVE_URL"
ok progress_warmup_said "$(tr '\r' '\n' <"$D/warm.log" | head -3 | cat -v)" \
    "tr '\r' '\n' <'$D/warm.log' | grep -q '^connecting 2 connections\.\.\., then warming up for 1.00s' && tr '\r' '\n' <'$D/warm.log' | grep -q '^\[####################\] 1.0s/1.00s'"

run_pty "$D/quiet.log" "$D/quiet.out" -t1 -c2 -d1s -R100 --quiet "$SERVE_URL"
ok progress_quiet "$(cat -v "$D/quiet.log" | head -3)" "! grep -q 'req/s' '$D/quiet.log' && grep -q '^Requests/sec' '$D/quiet.out'"

# Not a terminal: nothing unless --progress, then one line per interval.
"$PACER" -t1 -c2 -d1s -R100 "$SERVE_URL" >"$D/plain.out" 2>&1
ok progress_off_without_tty "$(grep -c 'req/s  p50' "$D/plain.out")" "! grep -q 'req/s  p50' '$D/plain.out'"
"$PACER" -t1 -c2 -n 300 -R200 --progress --interval 500ms "$SERVE_URL" >"$D/forced.out" 2>"$D/forced.err"
n=$(grep -cE '^\[[#.]{20}\] [0-9]+/300 req  ' "$D/forced.err")
ok progress_forced_lines "$n lines: $(head -2 "$D/forced.err")" "[ $n -ge 2 ] && ! grep -q \$'\r' '$D/forced.err'"
ok progress_forced_reaches_total "$(tail -1 "$D/forced.err")" "grep -q '^\[####################\] 300/300 req' '$D/forced.err'"

finish
