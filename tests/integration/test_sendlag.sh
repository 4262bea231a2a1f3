#!/usr/bin/env bash
# The client's self-certification: the send lag (first byte written - when
# the request became sendable) and the threads' busy fraction, in the wrk
# report, the JSON result, `pacer report` merges, the HTML report and
# --slo lag_*; a client made to lag is diagnosed. The checks bounded
# tightly in time (a normal run not flagged, the slack's bounds) are in
# test_sendlag_timing.sh, which runs alone.
. "$(dirname "$0")/lib.sh"
SCHEMA="$(cd "$(dirname "$0")/../.." && pwd)/docs/pacer-result.schema.json"
D="$T_DIR/lag"; mkdir -p "$D"

# A server far slower than any scheduling noise: 10% of its latency is 2 ms.
start_serve --threads 1 --delay 20ms || { fail serve_start "$(serve_err)"; finish; }
SLOW_URL=$SERVE_URL

# --- a normal low-rate run: the line (test_sendlag_timing.sh: no diagnosis) ---
"$PACER" -t2 -c20 -d2s -R200 --json "$D/a.json" "$SLOW_URL" >"$D/a.out" 2>"$D/a.err"
rc=$?
ok lag_normal_exit0 "exit $rc: $(cat "$D/a.err")" "[ $rc -eq 0 ]"
ok lag_line_after_transfer "$(tail -n +1 "$D/a.out" | grep -A1 '^Transfer/sec')" \
    "grep -A1 '^Transfer/sec:' '$D/a.out' | grep -qE \"^Send lag \\(pacer's own\\): p50 [0-9.]+[mun]?s p99 [0-9.]+[mun]?s max [0-9.]+[mun]?s; threads busy [0-9]+%, [0-9]+%(, waiting for a CPU [0-9]+%(, [0-9]+%)*)?; slack adaptive \\(p50 [^,]+, max [^)]+\\)\$\""
ok lag_json_schema "$("$PY" -c "
import json,jsonschema
jsonschema.validate(json.load(open('$D/a.json')), json.load(open('$SCHEMA')))" 2>&1 | tail -1)" \
    "$PY -c \"import json,jsonschema; jsonschema.validate(json.load(open('$D/a.json')), json.load(open('$SCHEMA')))\""

# --- the ab, h2load and hey layouts: a "pacer: Send lag" line of their own ------
# After each layout's summary (ab: its Percentage table; h2load: its req/s
# row; hey: pacer's outcomes lines), with the "pacer: " prefix of pacer's
# other lines there, so what parses the peer's lines is not disturbed. Only
# under a schedule (-R, hey -q): a closed loop has nothing to be late for.
LAG_RE="^pacer: Send lag \\(pacer's own\\): p50 [0-9.]+[mun]?s p99 [0-9.]+[mun]?s max [0-9.]+[mun]?s; threads busy [0-9]+%(, [0-9]+%)*(, waiting for a CPU [0-9]+%(, [0-9]+%)*)?"
"$PACER" --format ab -n 100 -c 10 -R 200 "$SLOW_URL" >"$D/ab.out" 2>&1
ok lag_ab_line "$(tail -3 "$D/ab.out")" \
    "grep -A1 '^ 100%' '$D/ab.out' | tail -1 | grep -qE \"$LAG_RE; slack adaptive \\(p50 [^,]+, max [^)]+\\)\$\""
"$PACER" --format h2load -t1 -c10 -d1s -R200 "$SLOW_URL" >"$D/h2l.out" 2>&1
ok lag_h2load_line "$(tail -3 "$D/h2l.out")" \
    "grep -A1 '^req/s ' '$D/h2l.out' | tail -1 | grep -qE \"$LAG_RE; slack adaptive \\(p50 [^,]+, max [^)]+\\)\$\""
"$PACER" hey -n 100 -c 10 -q 20 "$SLOW_URL" >"$D/hey.out" 2>&1
ok lag_hey_line "$(grep '^pacer:' "$D/hey.out")" \
    "grep -A2 '^pacer: outcomes:' '$D/hey.out' | grep -qE \"$LAG_RE\""
# hey -o csv: stdout stays the CSV alone; the line goes with pacer's others to stderr.
"$PACER" hey -n 50 -c 5 -q 20 -o csv "$SLOW_URL" >"$D/hey.csv" 2>"$D/hey.err"
ok lag_hey_csv_stderr "$(grep -c 'Send lag' "$D/hey.csv") in the CSV; $(grep 'Send lag' "$D/hey.err")" \
    "! grep -q 'Send lag' '$D/hey.csv' && grep -qE \"$LAG_RE\" '$D/hey.err'"
# Closed loops (no -R, no -q) print no send lag, in every layout and persona:
# it would read 0.00us, noise in a mode with no schedule.
# (The h2load persona speaks h2c unless --h1: pacer serve is HTTP/1.1, and
# h2c to it failed every request and backed off for 18 s. --h1 is kept out
# of the check's name.)
for cmd in "-t1 -c4 -d300ms" "--format ab -n 100 -c 4" "--format h2load -n 100 -c 4" \
    "--format hey -n 100 -c 4" "wrk -t1 -c4 -d300ms --latency" \
    "ab -n 100 -c 4" "h2load -n 100 -c 4" "hey -n 100 -c 4"; do
    name=$(printf '%s' "$cmd" | tr -c 'a-z0-9' _)
    args=$cmd
    case $cmd in h2load\ *) args="h2load --h1 ${cmd#h2load }" ;; esac
    # shellcheck disable=SC2086 # the words of args are its arguments
    "$PACER" $args "$SLOW_URL" >"$D/cl_$name.out" 2>&1
    ok "lag_closed_loop_none_$name" "exit $?: $(grep -i 'lag' "$D/cl_$name.out")" \
        "grep -qE 'requests|Requests|Total' '$D/cl_$name.out' && ! grep -q 'Send lag' '$D/cl_$name.out'"
done

# --- --slo lag_* --------------------------------------------------------------
"$PACER" -t1 -c10 -d1s -R100 --slo 'lag_p99<=1s,lag_max<=5s' "$SLOW_URL" >"$D/s1.out" 2>&1
rc=$?
ok lag_slo_pass "exit $rc: $(grep -A3 '^SLO' "$D/s1.out")" \
    "[ $rc -eq 0 ] && grep -qE 'PASS +lag_p99<=1s' '$D/s1.out'"
"$PACER" -t1 -c10 -d1s -R100 --slo 'lag_p99<=1ns' "$SLOW_URL" >"$D/s2.out" 2>&1
rc=$?
ok lag_slo_fail "exit $rc: $(grep -A3 '^SLO' "$D/s2.out")" \
    "[ $rc -eq 5 ] && grep -qE 'FAIL +lag_p99<=1ns' '$D/s2.out'"

# --- a client made to lag: request() burns 1 ms of CPU, -R asks 3000/s ---------
printf 'function request()\n  local t = os.clock()\n  while os.clock() - t < 0.001 do end\n  return wrk.format()\nend\n' >"$D/burn.lua"
start_serve --threads 1 || { fail serve_start "$(serve_err)"; finish; }
"$PACER" -t1 -c20 -d2s -R3000 -s "$D/burn.lua" --json "$D/b.json" "$SERVE_URL" >"$D/b.out" 2>"$D/b.err"
rc=$?
ok lag_burn_exit0 "exit $rc: $(cat "$D/b.err")" "[ $rc -eq 0 ]"
# The verdict follows the send lag's lines (Send lag, then To the wire
# where the kernel stamped the sends).
ok lag_burn_flagged "$(grep -A2 '^Send lag' "$D/b.out")" \
    "grep -A2 '^Send lag' '$D/b.out' | grep -q '^The client, not the server, limited this run: .*more threads (-t), --slack'"
# With a slack in force the diagnosis says what of the lag lies beyond it
# (that part is what it weighs).
"$PACER" -t1 -c20 -d2s -R3000 --slack 100us -s "$D/burn.lua" "$SERVE_URL" >"$D/bs.out" 2>&1
ok lag_burn_beyond_slack "$(grep -A2 '^Send lag' "$D/bs.out")" \
    "grep -A2 '^Send lag' '$D/bs.out' | grep -qE '^The client, not the server, limited this run: .*\(lag p99 [0-9.]+(us|ms|s), [0-9.]+(us|ms|s) beyond the slack; latency p50 [0-9.]+(us|ms|s)\); use more threads'"
# A closed loop has no lateness: a thread that is always busy made all the
# load it could, and the line says that, not "sent late".
"$PACER" -t1 -c4 -d1s -s "$D/burn.lua" "$SERVE_URL" >"$D/bc.out" 2>&1
ok lag_burn_closed_loop "$(grep -A1 '^Transfer/sec' "$D/bc.out")" \
    "grep -A1 '^Transfer/sec' '$D/bc.out' | grep -qE '^The client, not the server, limited this run: a thread was busy( or waiting for a CPU)? [0-9]+% of the time( \(waiting [0-9]+%: a shared machine\))?, so the load was what pacer.s threads could make; use more threads \\(-t\\)'"
# A machine shared with other work: a busy loop on pacer's own core takes
# about half its time, so the thread is ready to run but has no CPU, which
# the kernel counts (schedstat) and the verdict says, rather than "busy 50%".
if need_cmd taskset util-linux; then
    timeout 20 taskset -c 0 sh -c 'while :; do :; done' &
    hog=$!
    T_PIDS+=("$hog")
    taskset -c 0 "$PACER" -t1 -c4 -d1s -s "$D/burn.lua" --json "$D/bw.json" "$SERVE_URL" >"$D/bw.out" 2>&1
    kill "$hog" 2>/dev/null
    ok lag_cpu_wait_said "$(grep 'limited this run' "$D/bw.out"); $(json_get "$D/bw.json" "d['client'].get('threads_cpu_wait', {}).get('max')")" \
        "grep -qE '^The client, not the server, limited this run: a thread was busy or waiting for a CPU (9[0-9]|100)% of the time \\(waiting [0-9]+%: a shared machine\\), so the load' '$D/bw.out' &&
         [ \"\$(json_get '$D/bw.json' \"d['client']['threads_cpu_wait']['max'] >= 0.25 and d['client']['threads_demand']['max'] >= 0.9\")\" = True ]"
fi
ok lag_burn_shortfall_blames_client "$(grep 'Requested rate' "$D/b.out")" \
    "grep -q 'Requested rate .*: the client could not keep up' '$D/b.out'"
ok lag_burn_json "$(json_get "$D/b.json" "d['client'], d['latency']['send_lag']['percentiles']['99']")" \
    "[ \"\$(json_get '$D/b.json' \"d['client']['limited'] is True and d['latency']['send_lag']['percentiles']['99'] > 1000\")\" = True ]"


FAST_URL=$SERVE_URL
# A response read late is not late (test_sendlag_timing.sh), which lets a
# thread under -R sleep from one send to the next without waking for the
# responses in between: at 2000/s with --slack 0 (each
# request sent at its time), about one voluntary context switch per request
# (the sleep to the next send), where reading each response as it comes
# takes two. (Most of the 4000 complete: on a loaded machine, or under
# ASan, the last few can still be in flight or unsent at the end.)
TIME=/usr/bin/time
if need_cmd "$TIME" time; then
    "$TIME" -f '%w %c' -o "$D/cs.time" "$PACER" -t1 -c20 -d2s -R2000 --slack 0 --json "$D/cs.json" \
        "$FAST_URL" >"$D/cs.out" 2>&1
    ok one_wakeup_per_send "$(cat "$D/cs.time") for $(json_get "$D/cs.json" "d['requests']['completed'], d['client']['sent_early']")" \
        "[ \"\$(json_get '$D/cs.json' \"d['requests']['completed'] >= 3600 and d['client']['sent_early'] == 0 and $(tail -1 "$D/cs.time" | cut -d' ' -f1) / d['requests']['completed'] < 1.5\")\" = True ]"
    # The same over TLS (nginx): its reads go through a recvmsg BIO that
    # keeps the kernel's receive time (src/net/tls.c), so they wait too.
    # OpenSSL's own socket BIO (read(2)) took about two a request.
    if start_nginx; then
        "$TIME" -f '%w %c' -o "$D/cst.time" "$PACER" -t1 -c20 -d2s -R2000 --slack 0 --json "$D/cst.json" \
            "https://127.0.0.1:$NGX_TLS_PORT/" >"$D/cst.out" 2>&1
        ok one_wakeup_per_send_tls "$(cat "$D/cst.time") for $(json_get "$D/cst.json" "d['requests']['completed'], d['client']['sent_early']")" \
            "[ \"\$(json_get '$D/cst.json' \"d['requests']['completed'] >= 3600 and d['client']['sent_early'] == 0 and $(tail -1 "$D/cst.time" | cut -d' ' -f1) / d['requests']['completed'] < 1.5\")\" = True ]"
    else
        fail nginx_start "nginx did not start"
    fi
fi

# --- --spin: the last D of each wait polled, said, and not counted as work -----
# At 1000/s a 900 us spin polls up to 90% of the thread's time; the thread's
# real work at that rate is a few per cent, so a busy figure that counted the
# spin would be well over 20% wherever the spin got a third of a CPU.
"$PACER" -t1 -c10 -d2s -R1000 --spin 900us --json "$D/sp.json" "$FAST_URL" >"$D/sp.out" 2>&1
rc=$?
ok spin_said "exit $rc: $(grep '^Send lag' "$D/sp.out")" \
    "[ $rc -eq 0 ] && grep -qE '^Send lag .*; slack adaptive \\(p50 [^)]*\\); spin 0.90ms \\(--spin\\)$' '$D/sp.out' && outcomes_add_up '$D/sp.out'"
ok spin_json "$(json_get "$D/sp.json" "d['config'].get('spin_s'), d['requests']['completed']")" \
    "[ \"\$(json_get '$D/sp.json' \"d['config']['spin_s'] == 0.0009 and d['requests']['completed'] >= 1800 and d['client']['sent_early'] == 0\")\" = True ]"
ok spin_not_busy "$(grep '^Send lag' "$D/sp.out")" \
    "[ \"\$(json_get '$D/sp.json' \"d['client']['threads_busy']['max'] < 0.2\")\" = True ]"
"$PACER" -R100 --spin 11ms "$FAST_URL" >"$D/sp2.out" 2>&1
rc=$?
ok spin_bounded "exit $rc: $(cat "$D/sp2.out")" \
    "[ $rc -eq 2 ] && grep -q -- '--spin must be at most 10ms' '$D/sp2.out'"

# --- pacer report: merged, round trip -----------------------------------------
"$PACER" report --force --json "$D/m.json" "$D/a.json" "$D/b.json" >"$D/m.out" 2>&1
rc=$?
ok lag_merge "exit $rc: $(json_get "$D/m.json" "d['latency']['send_lag']['count'], d['client']['threads_busy']['count']" 2>&1)" \
    "[ $rc -eq 0 ] && [ \"\$(json_get '$D/m.json' \"d['latency']['send_lag']['count'] == sum(json.load(open(p))['latency']['send_lag']['count'] for p in ['$D/a.json', '$D/b.json']) and d['client']['threads_busy']['count'] == 3 and d['client']['limited'] is True\")\" = True ]"
ok lag_merge_text "$(grep -A1 '^Send lag' "$D/m.out")" \
    "grep -qE \"^Send lag \\(pacer's own\\): .*threads busy [0-9]+%, [0-9]+%, [0-9]+%(, waiting for a CPU [0-9]+%(, [0-9]+%)*)?; slack adaptive\" '$D/m.out'"
"$PACER" report --json "$D/a2.json" "$D/a.json" >/dev/null 2>&1
ok lag_round_trip "$(json_get "$D/a2.json" "d['latency']['send_lag'], d['client']" 2>&1 | cut -c1-300)" \
    "[ \"\$(json_get '$D/a2.json' \"d['latency']['send_lag'] == json.load(open('$D/a.json'))['latency']['send_lag'] and d['client'] == json.load(open('$D/a.json'))['client']\")\" = True ]"
"$PACER" report --html "$D/m.html" "$D/m.json" >/dev/null 2>&1
ok lag_html "$(grep -c 'Send lag' "$D/m.html" 2>&1)" "grep -q 'Send lag (pacer' '$D/m.html'"
finish
