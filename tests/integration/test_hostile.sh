#!/usr/bin/env bash
# Hostile and broken servers (issue 13): every request has exactly one
# outcome that matches what happened on the wire, every error is charged to
# its cause, every run ends.
. "$(dirname "$0")/lib.sh"
R="$T_DIR/report"
J="$T_DIR/run.json"

# h1f_sent: the responses the fault server sent so far (silent-close sends
# one whole response per request it reads).
h1f_sent() { sleep 0.3; grep -oE 'requests=[0-9]+' "$H1F_STATS" | cut -d= -f2; }
completed() { awk '/^  Outcomes:/ {print $5}' "$1"; }

# --- a server that closes after each response without saying so ---------
# The next request is already in flight; the parser still holds the previous
# (counted) response: it must not be counted again.
H1F_STATS="$T_DIR/h1f.stats"
start_h1fault --mode silent-close --stats "$H1F_STATS" || fail h1fault_start "no h1fault"
for shape in "-n 20" "-d 1s" "-d 1s --pipeline 8" "-d 1s -R 500"; do
    name=silent_close_$(echo "$shape" | tr -c 'a-z0-9' _ | sed 's/_*$//')
    before=$(h1f_sent)
    # shellcheck disable=SC2086
    "$PACER" -t1 -c1 $shape "$H1F_URL" >"$R" 2>&1
    sent=$(( $(h1f_sent) - before ))
    n=$(completed "$R")
    ok "$name" "server sent $sent, pacer completed ${n:-?}: $(grep -E 'Outcomes|Errors|Server closed' "$R")" "
        [ '${n:-x}' = '$sent' ] && outcomes_add_up '$R' &&
        ! grep -q 'Server closed the connection after' '$R' &&
        { [ '${n:-x}' = \"\$(awk '/^  Outcomes:/ {print \$2}' '$R')\" ] ||
          grep -q '^  Errors: read [1-9][0-9]* (connection closed by the server before the response)' '$R'; }"
done

# --- --verify / --cacert check an IP-literal URL against the IP SANs ------
start_nginx || { fail nginx_start "nginx did not start"; finish; }
"$PACER" -t1 -c1 -d300ms --cacert "$NGX_DIR/cert.pem" "https://127.0.0.1:$NGX_TLS_PORT/" >"$R" 2>&1
ok verify_ip_san_ok "$(grep -E 'Errors|Status' "$R")" "grep -q 'Status codes: 200' '$R' && ! grep -q 'Socket errors' '$R'"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -keyout "$T_DIR/ex.key" -out "$T_DIR/ex.pem" -subj /CN=example.com \
    -addext subjectAltName=DNS:example.com >/dev/null 2>&1
P=$(pick_port)
openssl s_server -quiet -www -accept "127.0.0.1:$P" -cert "$T_DIR/ex.pem" -key "$T_DIR/ex.key" \
    >/dev/null 2>&1 </dev/null &
T_PIDS+=($!)
wait_port 127.0.0.1 "$P" || fail s_server_start "openssl s_server did not start"
"$PACER" -t1 -c1 -d300ms --cacert "$T_DIR/ex.pem" "https://127.0.0.1:$P/" >"$R" 2>&1
rc=$?
ok verify_ip_literal_name_mismatch "exit $rc: $(grep -E 'Errors|Status' "$R")" \
    "[ $rc -eq 3 ] && grep -qE '^  Errors: connect [1-9][0-9]* \\(127\\.0\\.0\\.1:$P: .*certificate verify failed' '$R' && ! grep -q 'Status codes' '$R'"
"$PACER" -t1 -c1 -d300ms --cacert "$T_DIR/ex.pem" --host example.com "https://127.0.0.1:$P/" >"$R" 2>&1
ok verify_host_name_ok "$(grep -E 'Errors|Status' "$R")" "grep -q 'Status codes: 200' '$R'"
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

# --- a server that refuses everything is not hammered --------------------
P=$(pick_port)
"$PACER" -t1 -c50 -d2s --json "$J" "http://127.0.0.1:$P/" >"$R" 2>&1
n=$(json_get "$J" "d['errors']['connect']")
ok refused_connects_back_off "connect errors ${n:-?} in 2 s from 50 connections: $(grep -E 'Errors|Reconnects' "$R")" "
    [ '${n:-0}' -ge 50 ] && [ '${n:-9999}' -le 500 ] && grep -qE '^  Reconnects backed off [1-9]' '$R'"
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
finish
