#!/usr/bin/env bash
# serial: Lua loops that spin both threads, runs that must end within 1 s
# test_hostile.sh's checks bounded tightly in time, which need the machine
# to themselves (the rest of test_hostile.sh holds on a loaded one): HTTP/2
# connection errors ended at once, huge rates whose never-sent requests sit
# at their latency, Lua scripts that never return still stopped by SIGINT
# within 1 s, SIGTERM while connections are opening.
. "$(dirname "$0")/lib.sh"
R="$T_DIR/report"
J="$T_DIR/run.json"

# --- HTTP/2 connection errors that nghttp2 ends itself: at once, with why --
# (the connection stays open and silent after the bad frame: waiting for it
# would turn every stream into a timeout)
h2_conn_error() { # NAME MODE PATTERN
    local name=$1 mode=$2 pattern=$3 start
    start_h2fault --mode "$mode" || { fail "${name}_start" "no h2fault"; return; }
    start=$SECONDS
    "$PACER" -t1 -c2 -d1s --h2 --json "$J" "$H2F_URL" >"$R" 2>&1
    ok "$name" "took $((SECONDS - start)) s: $(grep -E 'Errors|Socket|Reconnects' "$R")" "
        [ $((SECONDS - start)) -le 2 ] && outcomes_add_up '$R' &&
        grep -qE '^  Errors: protocol [1-9][0-9]* \\($pattern' '$R' && ! grep -q 'timeout [1-9]' '$R'"
    ok "${name}_backs_off" "$(grep -E 'Reconnects' "$R"), opened $(json_get "$J" "d['connections']['opened']")" "
        grep -qE '^  Reconnects backed off [1-9][0-9]* times' '$R' &&
        [ \"\$(json_get '$J' \"d['connections']['opened']\")\" -le 40 ]"
}
h2_conn_error h2_window_update_0 winupdate0 'HTTP/2 connection error by the server: invalid WINDOW_UPDATE frame: .*\(PROTOCOL_ERROR\)\)'
h2_conn_error h2_frame_too_large bigframe 'HTTP/2 connection error by the server: .*\(FRAME_SIZE_ERROR\)\)'
h2_conn_error h2c_server_speaks_http1 http1 'the server answered in HTTP/1.1: it does not speak h2c'
# --- huge rates: the never-sent backlog is counted in bulk; every run ends --
start_serve --delay 100ms
start=$SECONDS
"$PACER" -t2 -c2 -R 1G -d1s --json "$J" "$SERVE_URL" >"$R" 2>&1
rc=$?
read -r sch ns cnt p50 mx < <(json_get "$J" "d['requests']['scheduled'], d['requests']['never_sent'], d['latency']['corrected']['count'], d['latency']['corrected']['percentiles']['50'], d['latency']['corrected']['max']")
ok huge_rate_ends "exit $rc in $((SECONDS - start)) s: $(grep Outcomes "$R")" "
    [ $rc -eq 0 ] && [ $((SECONDS - start)) -le 3 ] && outcomes_add_up '$R' && [ '$sch' = 1000000000 ] && ! grep -q 'internal error' '$R'"
# Each never-sent request is in the histogram at the latency it reached:
# uniform over the second, so p50 ~ 0.5 s, one sample each (the max is a
# request answered after waiting the whole second: ~1.1 s).
ok huge_rate_never_sent_latency "count $cnt of $sch, p50 ${p50}us, max ${mx}us" "
    [ '$cnt' = '$sch' ] && fcmp '$p50' '>' 480000 && fcmp '$p50' '<' 520000 && fcmp '$mx' '>' 990000 && fcmp '$mx' '<' 1200000"
"$PACER" -t1 -c1 -R 1G -d 20s "$SERVE_URL" >"$R" 2>&1 &
pid=$!
sleep 1
start=$SECONDS
kill -INT $pid
for _ in $(seq 1 50); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
kill -0 $pid 2>/dev/null && { kill -9 $pid; fail huge_rate_sigint "still running 5 s after SIGINT"; } || {
    wait $pid; rc=$?
    ok huge_rate_sigint "exit $rc $((SECONDS - start)) s after SIGINT" "[ $rc -eq 130 ] && [ $((SECONDS - start)) -le 3 ] && outcomes_add_up '$R'"; }
"$PACER" -R 2G -d1s "$SERVE_URL" >"$R" 2>&1
ok rate_above_schedule_refused "exit $?: $(cat "$R")" "grep -q '^pacer: -R/--rate must be at most 1G requests/s' '$R'"
# --- a Lua script that never returns still stops on SIGINT ----------------
# LuaJIT runs no hooks in compiled code, so both a compiled loop and an
# interpreted one (jit.off()) are tried, in init() and in request().
start_serve
mkdir -p "$T_DIR/lua"
printf 'function init(args) local i = 0 while true do i = i + 1 end end\n' >"$T_DIR/lua/init_jit.lua"
printf 'function init(args) jit.off() local i = 0 while true do i = i + 1 end end\n' >"$T_DIR/lua/init_interp.lua"
for mode in jit interp; do
    {
        [ $mode = interp ] && echo 'jit.off()'
        echo 'local n = 0'
        echo 'function request() n = n + 1 if n > 50 then local i = 0 while true do i = i + 1 end end return wrk.format() end'
    } >"$T_DIR/lua/request_$mode.lua"
done
# sigint_script NAME SCRIPT WANT_RC MAX_S [SECOND]: SIGINT after 1 s (and a
# second one 0.2 s later with SECOND): the run must end within MAX_S.
sigint_script() {
    local name=$1 script=$2 want=$3 max=$4 second=${5:-} t0 rc
    "$PACER" -t2 -c2 -d 20s -s "$script" "$SERVE_URL" >"$R" 2>&1 &
    local pid=$!
    sleep 1
    t0=$(date +%s%N)
    kill -INT $pid
    [ -n "$second" ] && { sleep 0.2; kill -INT $pid 2>/dev/null; }
    for _ in $(seq 1 60); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
    if kill -0 $pid 2>/dev/null; then
        kill -9 $pid; wait $pid 2>/dev/null
        fail "$name" "still running 6 s after SIGINT"; return
    fi
    wait $pid; rc=$?
    local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    ok "$name" "exit $rc after ${ms} ms: $(tail -2 "$R")" "[ $rc -eq $want ] && [ $ms -le $max ]"
}
sigint_script script_init_loop_jit "$T_DIR/lua/init_jit.lua" 130 2500
sigint_script script_init_loop_interp "$T_DIR/lua/init_interp.lua" 130 1000
sigint_script script_init_loop_second_sigint "$T_DIR/lua/init_jit.lua" 130 900 second
sigint_script script_request_loop_jit "$T_DIR/lua/request_jit.lua" 4 2500
ok script_request_loop_jit_report "$(grep -E 'Outcomes|given up' "$R")" \
    "outcomes_add_up '$R' && grep -q 'interrupted' '$R' && grep -q 'its thread was given up' '$R'"
sigint_script script_request_loop_interp "$T_DIR/lua/request_interp.lua" 4 1000
ok script_request_loop_interp_report "$(grep -E 'Outcomes|interrupted by' "$R")" \
    "outcomes_add_up '$R' && grep -q 'interrupted by a signal' '$R'"
# No signal at all: a response() that never returns ends the run anyway.
printf 'local n = 0\nfunction response(s, h, b) n = n + 1 if n > 20 then while true do end end end\n' >"$T_DIR/lua/response.lua"
start=$SECONDS
"$PACER" -t1 -c1 -d1s --timeout 500ms -s "$T_DIR/lua/response.lua" "$SERVE_URL" >"$R" 2>&1
rc=$?
ok script_response_loop_ends "exit $rc after $((SECONDS - start)) s: $(grep -E 'Outcomes|given up' "$R")" \
    "[ $rc -eq 4 ] && [ $((SECONDS - start)) -le 7 ] && outcomes_add_up '$R' && grep -q 'its thread was given up' '$R'"
# --- SIGTERM while connections are still opening ends the run at once ------
# (a listener that never accepts, with a full backlog: the connects would
# wait for --connect-timeout, 10 s)
"$PY" -c "
import socket, sys, time
s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(0)
open(sys.argv[1], 'w').write(str(s.getsockname()[1])); time.sleep(20)" "$T_DIR/bl.port" &
T_PIDS+=($!)
for _ in $(seq 1 50); do [ -s "$T_DIR/bl.port" ] && break; sleep 0.1; done
"$PACER" -t1 -c20 -d5s "http://127.0.0.1:$(cat "$T_DIR/bl.port")/" >"$R" 2>&1 &
pid=$!
sleep 0.5
t0=$(date +%s%N)
kill -TERM $pid
for _ in $(seq 1 50); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
kill -0 $pid 2>/dev/null && kill -9 $pid
wait $pid; rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
ok sigterm_during_connect "exit $rc after ${ms} ms: $(tail -2 "$R")" \
    "[ $rc -eq 143 ] && [ $ms -le 1000 ] && outcomes_add_up '$R' && grep -q 'Stopped early by SIGTERM' '$R'"
finish
