#!/usr/bin/env bash
# A hostile or broken server never crashes or hangs pacer, and every request
# is accounted for: for each misbehaviour of tests/tools/h1fault.c, pacer
# exits by itself within duration + timeout + 2 s, its memory stays
# bounded, the outcomes add up, and the failures are of the right kind.
. "$(dirname "$0")/lib.sh"
R="$T_DIR/report"
TIME=/usr/bin/time
need_cmd "$TIME" time || TIME=""

# scenario NAME MODE-ARGS -- PACER-ARGS -- CHECK
# Runs pacer for 1 s with a 500 ms timeout against the mode, then checks
# the common properties and the scenario's own condition (a shell string).
scenario() {
    local name=$1; shift
    local mode=() args=() check start rc rss
    while [ "$1" != -- ]; do mode+=("$1"); shift; done; shift
    while [ "$1" != -- ]; do args+=("$1"); shift; done; shift
    check=$1
    start_h1fault "${mode[@]}" || { fail "${name}_start" "h1fault did not start"; return; }
    start=$SECONDS
    if [ -n "$TIME" ]; then
        $TIME -f 'maxrss %M' -o "$T_DIR/rss" "$PACER" -t1 -c4 -d1s --timeout 500ms \
            --json "$T_DIR/f.json" --hlog "$T_DIR/f.hlog" "${args[@]}" "$H1F_URL" >"$R" 2>&1
    else
        "$PACER" -t1 -c4 -d1s --timeout 500ms --json "$T_DIR/f.json" --hlog "$T_DIR/f.hlog" \
            "${args[@]}" "$H1F_URL" >"$R" 2>&1
    fi
    rc=$?
    rss=$(awk '/maxrss/ {print $2}' "$T_DIR/rss" 2>/dev/null)
    ok "${name}_ends_in_time" "took $((SECONDS - start)) s, exit $rc" "[ $((SECONDS - start)) -le 4 ] && [ $rc -lt 4 ]"
    ok "${name}_bounded_memory" "max RSS ${rss:-?} KB" "[ -n '$rss' ] && [ '$rss' -lt 65536 ]"
    ok "${name}_accounted" "$(grep -E 'Outcomes|internal' "$R")" "outcomes_add_up '$R' && ! grep -q 'internal error' '$R' && grep -q '^Requests/sec:' '$R'"
    ok "${name}_files_complete" "$(ls "$T_DIR" | grep '^f\.')" "'$PY' -c \"import json; json.load(open('$T_DIR/f.json'))\" && '$PACER' report '$T_DIR/f.hlog' >/dev/null 2>&1 && mv '$T_DIR/f.json' '$T_DIR/last.json' && rm -f '$T_DIR/f.hlog'"
    ok "${name}_kind" "$(grep -E 'Socket|Errors|Status|Server closed|Outcomes' "$R" | head -6)" "$check"
}

scenario stall --mode stall --every 5 --delay 800 -- -R 100 -- \
    "grep -qE 'Socket errors: connect 0, read 0, write 0, timeout [1-9]' '$R' && grep -q 'Status codes: 200' '$R'"
scenario slow_body --mode slow-body --size 50 --delay 100 -- -- \
    "grep -qE 'Socket errors: connect 0, read 0, write 0, timeout [1-9]' '$R' && grep -q '0 completed' '$R'"
scenario reset_after_headers --mode reset-after-headers -- -- \
    "grep -qE '^  Errors: read [1-9][0-9]* \\(' '$R' && grep -q '0 completed' '$R'"
scenario close_mid_body --mode close-mid-body -- -- \
    "grep -qE '^  Errors: read [1-9][0-9]* \\(connection closed by the server in the middle of a response\\)' '$R'"
# The same three with bodies large enough that pacer drops them unread
# (MSG_TRUNC, engine/conn.c conn_readable): framing errors are found as
# when the bytes are read.
scenario close_mid_body_big --mode close-mid-body --size 1048576 -- -- \
    "grep -qE '^  Errors: read [1-9][0-9]* \\(connection closed by the server in the middle of a response\\)' '$R'"
scenario cl_long_big --mode cl-long --size 262144 -- -R 50 -- \
    "grep -qE 'timeout [1-9]' '$R' && grep -q '0 completed' '$R'"
scenario cl_short_big --mode cl-short --size 262144 -- -- \
    "grep -qE '^  Errors: protocol [1-9]|^  Connections dropped with no request in flight: [1-9][0-9]* \\(server sent data with no request outstanding\\)' '$R' && grep -q 'Status codes: 200' '$R'"
scenario garbage_status --mode garbage-status -- -- \
    "grep -qE '^  Errors: protocol [1-9][0-9]* \\(malformed status line\\)' '$R'"
scenario huge_headers --mode huge-headers -- -- \
    "grep -qE '^  Errors: protocol [1-9][0-9]* \\(' '$R' && grep -q '0 completed' '$R'"
scenario endless_chunked --mode endless-chunked --delay 0 -- -- \
    "grep -qE 'timeout [1-9]' '$R' && grep -q '0 completed' '$R'"
scenario bad_chunk --mode bad-chunk -- -- \
    "grep -qE '^  Errors: protocol [1-9][0-9]* \\(' '$R'"
scenario cl_long --mode cl-long -- -R 50 -- \
    "grep -qE 'timeout [1-9]' '$R' && grep -q '0 completed' '$R'"
scenario cl_short --mode cl-short -- -- \
    "grep -qE '^  Errors: protocol [1-9]|^  Connections dropped with no request in flight: [1-9][0-9]* \\(server sent data with no request outstanding\\)' '$R' && grep -q 'Status codes: 200' '$R'"
scenario http10_close --mode http10-close -- -- \
    "! grep -q 'Socket errors' '$R' && grep -q 'Status codes: 200' '$R' && grep -q 'Server closed [0-9]* connection' '$R'"
scenario conn_close --mode conn-close -- -R 200 -- \
    "! grep -q 'Socket errors' '$R' && grep -qE 'Outcomes: 200 scheduled = 200 completed' '$R'"
# Chunked and a Content-Length (a request-smuggling shape): read as chunked
# (100 bytes each, not the 50 the length says), counted and named, and the
# connection closed after each by pacer (not counted as the server's close).
# Each request needs a new connection: on a loaded machine the last few of
# the second may still wait for one when it ends (never sent), so the
# checks hold for every response that came, most of the 200.
scenario chunked_cl --mode chunked-cl -- -R 200 -- \
    "! grep -q 'Socket errors' '$R' && n=\$(sed -nE 's/^  Outcomes: 200 scheduled = ([0-9]+) completed .*/\\1/p' '$R') && [ \"\$n\" -ge 150 ] &&
     grep -qx \"  \$n responses had both Transfer-Encoding: chunked and Content-Length (a request-smuggling shape; read as chunked, RFC 9112 6.3) and the connection was closed after each\" '$R' &&
     ! grep -q 'Server closed' '$R'"
c=$(json_get "$T_DIR/last.json" "' '.join(str(x) for x in (d['connections']['closed_chunked_with_length'] == d['requests']['completed'] >= 150, d['connections']['server_closes'], d['connections']['opened'] >= d['requests']['completed'], d['bytes']['body'] == 100 * d['requests']['completed']))" 2>&1)
ok chunked_cl_json "chunked+length closes = completed >= 150, server_closes, opened >= completed, body bytes = 100 x completed: $c" "[ '$c' = 'True 0 True True' ]"
scenario continue --mode continue -- -- \
    "! grep -q 'Socket errors' '$R' && grep -q 'Status codes: 200' '$R'"
scenario tls_fail --mode tls-fail -- -- \
    "grep -qE '^  Errors: connect [1-9][0-9]* \\(127\\.0\\.0\\.1:[0-9]+: TLS' '$R'"
scenario tls_ok --mode tls-ok -- -- \
    "! grep -q 'Socket errors' '$R' && grep -q 'Status codes: 200' '$R'"

# --- accounting at the edges ----------------------------------------------
start_serve --threads 1 || fail serve_start "no serve"
"$PACER" -t1 -c1 -d1s -R300 "$SERVE_URL" >"$R" 2>&1
ok edge_one_connection "$(grep Outcomes "$R")" "grep -qE 'Outcomes: 300 scheduled = 300 completed' '$R'"
"$PACER" -t4 -c4 -d2s -R2 "$SERVE_URL" >"$R" 2>&1
ok edge_rate_below_threads "$(grep Outcomes "$R")" "grep -qE 'Outcomes: 4 scheduled = 4 completed' '$R'"
"$PACER" -t2 -c100 -n10 "$SERVE_URL" >"$R" 2>&1
ok edge_more_connections_than_requests "$(grep Outcomes "$R")" "grep -qE 'Outcomes: 10 scheduled = 10 completed' '$R'"
start_serve --threads 1 --delay 50ms || fail serve_start "no serve"
"$PACER" -t1 -c2 -d1s -R500 "$SERVE_URL" >"$R" 2>&1
ok edge_rate_above_capacity "$(grep -E 'Outcomes|Requested' "$R")" "outcomes_add_up '$R' && grep -qE 'never sent' '$R' && grep -q 'Requested rate 500.00 req/s but achieved' '$R'"

# --- port exhaustion is reported (a network namespace with 2 local ports) --
if ! need_cmd ip iproute2; then
    :
elif unshare -n true 2>/dev/null; then
    unshare -n bash -c '
        ip link set lo up 2>/dev/null || exit 9
        echo "40000 40001" >/proc/sys/net/ipv4/ip_local_port_range || exit 9
        "$0" serve --port 0 >"$1/px.out" 2>&1 &
        srv=$!
        for _ in $(seq 1 100); do grep -q listening "$1/px.out" && break; sleep 0.05; done
        url=$(sed -n "s/.*listening on //p" "$1/px.out")
        "$0" -t1 -c10 -d1s --timeout 500ms "$url" >"$1/px.report" 2>&1
        kill $srv' "$PACER" "$T_DIR"
    if [ $? -eq 9 ]; then
        skip port_exhaustion "cannot set the local port range in a network namespace"
    else
        ok port_exhaustion "$(grep -E 'Errors|Outcomes' "$T_DIR/px.report")" \
            "grep -qE '^  Errors: connect [1-9][0-9]* \\(127\\.0\\.0\\.1:[0-9]+: no free local port \\(port exhaustion\\)\\)' '$T_DIR/px.report' && outcomes_add_up '$T_DIR/px.report'"
    fi
else
    skip port_exhaustion "no network namespaces here (unshare -n)"
fi

finish
