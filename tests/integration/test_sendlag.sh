#!/usr/bin/env bash
# serial: send lag under 1 ms at p99, a thread kept busy at 20000/s
# The client's self-certification: the send lag (first byte written - when
# the request became sendable) and the threads' busy fraction, in the wrk
# report, the JSON result, `pacer report` merges, the HTML report and
# --slo lag_*; a client made to lag is diagnosed, a normal run is not.
. "$(dirname "$0")/lib.sh"
SCHEMA="$(cd "$(dirname "$0")/../.." && pwd)/docs/pacer-result.schema.json"
D="$T_DIR/lag"; mkdir -p "$D"

# A server far slower than any scheduling noise: 10% of its latency is 2 ms.
start_serve --threads 1 --delay 20ms || { fail serve_start "$(serve_err)"; finish; }
SLOW_URL=$SERVE_URL

# --- a normal low-rate run: the line, no diagnosis ---------------------------
# On a loaded machine one run may still see a wake-up over 1 ms at p99:
# up to three tries, the first without the diagnosis counts.
for try in 1 2 3; do
    "$PACER" -t2 -c20 -d2s -R200 --json "$D/a.json" "$SLOW_URL" >"$D/a.out" 2>"$D/a.err"
    rc=$?
    grep -q "limited this run" "$D/a.out" || break
done
ok lag_normal_exit0 "exit $rc: $(cat "$D/a.err")" "[ $rc -eq 0 ]"
ok lag_line_after_transfer "$(tail -n +1 "$D/a.out" | grep -A1 '^Transfer/sec')" \
    "grep -A1 '^Transfer/sec:' '$D/a.out' | grep -qE \"^Send lag \\(pacer's own\\): p50 [0-9.]+[mun]?s p99 [0-9.]+[mun]?s max [0-9.]+[mun]?s; threads busy [0-9]+%, [0-9]+%(, waiting for a CPU [0-9]+%(, [0-9]+%)*)?; slack adaptive \\(p50 [^,]+, max [^)]+\\)\$\""
ok lag_normal_not_flagged "after $try tries: $(grep -A1 '^Send lag' "$D/a.out")" \
    "! grep -q 'limited this run' '$D/a.out'"
ok lag_json_counts "$(json_get "$D/a.json" "d['latency']['send_lag']['count'], d['requests']['completed'], d['client']")" \
    "[ \"\$(json_get '$D/a.json' \"d['latency']['send_lag']['count'] == d['requests']['completed'] > 300 and d['client']['threads_busy']['count'] == 2 and 0 < d['client']['threads_busy']['max'] < 1 and d['client']['limited'] is False\")\" = True ]"
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
for cmd in "-t1 -c4 -d300ms" "--format ab -n 100 -c 4" "--format h2load -n 100 -c 4" \
    "--format hey -n 100 -c 4" "wrk -t1 -c4 -d300ms --latency" \
    "ab -n 100 -c 4" "h2load -n 100 -c 4" "hey -n 100 -c 4"; do
    name=$(printf '%s' "$cmd" | tr -c 'a-z0-9' _)
    # shellcheck disable=SC2086 # the words of cmd are its arguments
    "$PACER" $cmd "$SLOW_URL" >"$D/cl_$name.out" 2>&1
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
ok lag_burn_flagged "$(grep -A2 '^Send lag' "$D/b.out")" \
    "grep -A1 '^Send lag' '$D/b.out' | grep -q '^The client, not the server, limited this run: .*more threads (-t), --slack'"
# With a slack in force the diagnosis says what of the lag lies beyond it
# (that part is what it weighs).
"$PACER" -t1 -c20 -d2s -R3000 --slack 100us -s "$D/burn.lua" "$SERVE_URL" >"$D/bs.out" 2>&1
ok lag_burn_beyond_slack "$(grep -A1 '^Send lag' "$D/bs.out")" \
    "grep -A1 '^Send lag' '$D/bs.out' | grep -qE '^The client, not the server, limited this run: .*\(lag p99 [0-9.]+(us|ms|s), [0-9.]+(us|ms|s) beyond the slack; latency p50 [0-9.]+(us|ms|s)\); use more threads'"
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

# --- the slack ---------------------------------------------------------------
FAST_URL=$SERVE_URL
# Low rate, adaptive: the thread is idle, so the slack stays 0 (exact).
"$PACER" -t1 -c10 -d2s -R200 --json "$D/z.json" "$FAST_URL" >"$D/z.out" 2>&1
ok slack_idle_zero "$(grep '^Send lag' "$D/z.out")" \
    "grep -qE '; slack adaptive \(p50 0[.0]*us, max 0[.0]*us\)\$' '$D/z.out' && [ \"\$(json_get '$D/z.json' \"d['config']['slack_s'] is None and d['client']['slack']['max'] == 0 and d['client']['slack']['count'] > 5\")\" = True ]"
# --slack 0: as exact as before, and said so.
"$PACER" -t1 -c10 -d2s -R1000 --slack 0 --json "$D/s0.json" "$FAST_URL" >"$D/s0.out" 2>&1
ok slack_zero_fixed "$(grep '^Send lag' "$D/s0.out")" \
    "grep -qE '; slack 0 \(--slack\)\$' '$D/s0.out' && [ \"\$(json_get '$D/s0.json' \"d['config']['slack_s'] == 0 and d['client']['slack']['max'] == 0\")\" = True ]"
# --slack 2ms at 1000/s: requests wait for company (about 1 ms on average),
# none much later than the slack; all are sent and answered.
"$PACER" -t1 -c10 -d2s -R1000 --slack 2ms --json "$D/s2.json" "$FAST_URL" >"$D/s2ms.out" 2>&1
ok slack_fixed_coalesces "$(grep '^Send lag' "$D/s2ms.out")" \
    "grep -qE '; slack 2.00ms \(--slack\)\$' '$D/s2ms.out' && [ \"\$(json_get '$D/s2.json' \"d['config']['slack_s'] == 0.002 and 300 < d['latency']['send_lag']['percentiles']['50'] < 2500 and d['requests']['completed'] == d['requests']['scheduled'] == 2000\")\" = True ]"
ok slack_fixed_bound "$(json_get "$D/s2.json" "d['latency']['send_lag']['percentiles']")" \
    "[ \"\$(json_get '$D/s2.json' \"d['latency']['send_lag']['percentiles']['90'] < 2000 + 1000\")\" = True ]"
# The lateness the slack allows is not held against the client: flagged
# only when the lag beyond it is (over a tenth of the p50 and over 20 us;
# a loaded machine's late wake-ups can be).
ok slack_fixed_not_flagged "$(grep -A1 '^Send lag' "$D/s2ms.out")" "! grep -q 'limited this run' '$D/s2ms.out' || [ \"\$(json_get '$D/s2.json' \"d['latency']['send_lag']['percentiles']['99'] - 2000 > max(0.1 * d['latency']['corrected']['percentiles']['50'], 20)\")\" = True ]"
# The bound at a second rate: --slack 500us at 5000/s.
"$PACER" -t1 -c20 -d2s -R5000 --slack 500us --json "$D/s5.json" "$FAST_URL" >"$D/s5.out" 2>&1
ok slack_bound_5000 "$(json_get "$D/s5.json" "d['latency']['send_lag']['percentiles'], d['requests']")" \
    "[ \"\$(json_get '$D/s5.json' \"60 < d['latency']['send_lag']['percentiles']['50'] < 500 + 200 and d['latency']['send_lag']['percentiles']['90'] < 500 + 1000 and d['requests']['completed'] == d['requests']['scheduled'] == 10000\")\" = True ]"
# until_slack NAME ARGS...: pacer ARGS against the fast server into
# $D/NAME.json and .out, up to three tries until the adaptive slack grew (on
# a loaded machine a starved thread reads as less busy); $try says how many.
until_slack() {
    local name=$1
    shift
    for try in 1 2 3; do
        "$PACER" "$@" --json "$D/$name.json" "$FAST_URL" >"$D/$name.out" 2>&1
        [ "$(json_get "$D/$name.json" "d['client']['slack']['max'] > 0")" = True ] && break
    done
}
# A busy thread at 20000/s: the adaptive slack grows.
until_slack h -t1 -c50 -d3s -R20000
ok slack_adapts_when_busy "after $try tries: $(grep '^Send lag' "$D/h.out")" \
    "[ \"\$(json_get '$D/h.json' \"d['client']['slack']['max'] > 0 and d['config']['slack_s'] is None\")\" = True ] && grep -qE '; slack adaptive \(p50 [0-9.]+[mun]?s, max [1-9][0-9.]*us\)\$' '$D/h.out'"
# ... but never past the time the thread takes to send an eighth of what its
# connections hold: -c8 at 40000/s is 8 requests in 200 us, so at most 25 us
# (the first step alone would be 50 us, twice the gap between sends).
until_slack c8 -t1 -c8 -d3s -R40000
ok slack_capped_by_connections "after $try tries: $(grep '^Send lag' "$D/c8.out")" \
    "[ \"\$(json_get '$D/c8.json' \"0 < d['client']['slack']['max'] <= 25.1 and d['client']['sent_early'] == 0\")\" = True ]"
# ... and never past 200 us, whatever the rate: its median lateness, half of
# it, is what it adds to the median latency. At 8000/s the first step alone
# would be 250 us (twice the gap between sends).
until_slack c50 -t1 -c50 -d3s -R8000
ok slack_at_most_200us "after $try tries: $(grep '^Send lag' "$D/c50.out")" \
    "[ \"\$(json_get '$D/c50.json' \"0 < d['client']['slack']['max'] <= 200.1 and d['client']['sent_early'] == 0\")\" = True ]"
"$PACER" report --json "$D/s2r.json" "$D/s2.json" >"$D/s2r.out" 2>&1
ok slack_round_trip "$(grep '^Send lag' "$D/s2r.out")" \
    "[ \"\$(json_get '$D/s2r.json' \"d['config']['slack_s'] == 0.002 and d['client']['slack'] == json.load(open('$D/s2.json'))['client']['slack']\")\" = True ] && grep -q '; slack 2.00ms (--slack)' '$D/s2r.out'"

# A response read late is not late: under -R over plain TCP its time is the
# kernel's receive time. --slack 50ms at 50/s against a server that answers
# in 20 ms: the thread sleeps 50 ms after each pass, whatever the sockets
# do, so each response waits about 30 ms in its socket before it is read.
# From the first byte written (uncorrected), the latency is the server's 20
# ms, never less, and not the ~50 ms at which the responses were read.
"$PACER" -t1 -c10 -d2s -R50 --slack 50ms --json "$D/rx.json" "$SLOW_URL" >"$D/rx.out" 2>&1
ok rx_time_not_read_time "$(json_get "$D/rx.json" "d['latency']['uncorrected']['min'], d['latency']['uncorrected']['percentiles'], d['requests']['completed']")" \
    "[ \"\$(json_get '$D/rx.json' \"d['requests']['completed'] >= 90 and d['latency']['uncorrected']['min'] >= 20000 and d['latency']['uncorrected']['percentiles']['90'] < 30000\")\" = True ]"
# ... which lets a thread under -R sleep from one send to the next without
# waking for the responses in between: at 2000/s with --slack 0 (each
# request sent at its time), about one voluntary context switch per request
# (the sleep to the next send), where reading each response as it comes
# takes two.
TIME=/usr/bin/time
if need_cmd "$TIME" time; then
    "$TIME" -f '%w %c' -o "$D/cs.time" "$PACER" -t1 -c20 -d2s -R2000 --slack 0 --json "$D/cs.json" \
        "$FAST_URL" >"$D/cs.out" 2>&1
    ok one_wakeup_per_send "$(cat "$D/cs.time") for $(json_get "$D/cs.json" "d['requests']['completed'], d['client']['sent_early']")" \
        "[ \"\$(json_get '$D/cs.json' \"d['requests']['completed'] == 4000 and d['client']['sent_early'] == 0 and $(tail -1 "$D/cs.time" | cut -d' ' -f1) / d['requests']['completed'] < 1.5\")\" = True ]"
fi

# Never early, whatever the slack.
ok slack_never_early "$(for f in a s0 s2 s5 h z rx; do json_get "$D/$f.json" "'$f', d['client']['sent_early'], d['requests']['completed']"; done)" \
    "for f in a s0 s2 s5 h z rx; do [ \"\$(json_get \"$D/\$f.json\" \"d['client']['sent_early'] == 0 and d['requests']['completed'] > 0\")\" = True ] || exit 1; done"

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
