#!/usr/bin/env bash
# Keep-alive notes count what happened (issue 25, item 13): how many
# connections the server closed, after how many responses each, and why;
# the EOF (or TLS close_notify) that follows an announced close is not an
# idle close. Against nginx with a low keepalive_requests, plain and TLS,
# and against tests/tools/h1fault.c for each kind of close.
. "$(dirname "$0")/lib.sh"
R="$T_DIR/report"
J="$T_DIR/run.json"
LIMIT=10

closes() { json_get "$J" "d['connections']['server_closes']"; }
idle() { json_get "$J" "d['connections']['idle_closes']"; }

# --- nginx closes each connection after its LIMIT-th response -------------
# Each of the -c4 connections is closed after LIMIT responses and reopened,
# so the closes are the completed responses over LIMIT, less at most one
# unfinished connection's worth each (exact counts: no timing involved).
if NGX_KEEPALIVE_REQUESTS=$LIMIT start_nginx; then
    for scheme in http https; do
        port=$NGX_PORT
        [ "$scheme" = https ] && port=$NGX_TLS1_PORT
        "$PACER" -t1 -c4 -d1s -k --json "$J" "$scheme://127.0.0.1:$port/" >"$R" 2>&1
        n=$(completed "$R") c=$(closes)
        line=$(grep 'Server closed' "$R")
        ok "nginx_limit_${scheme}_wording" "$line" \
            "[ \"\$line\" = '  Server closed $c connections after $LIMIT responses each (the last response said Connection: close: a limit of requests per connection; keep-alive until then)' ]"
        ok "nginx_limit_${scheme}_count" "$c closes, ${n:-?} completed over 4 connections" \
            "[ -n '$n' ] && [ $(( ${c:-0} * LIMIT )) -le ${n:-0} ] && [ ${n:-0} -le $(( ${c:-0} * LIMIT + 4 * (LIMIT - 1) )) ] && [ ${c:-0} -ge 4 ]"
        # Each close reopened its connection, and the report says so: the
        # connections opened are -c's 4 and one per reopen (nothing failed),
        # less those still connecting when the run ended (at most one each).
        o=$(json_get "$J" "d['connections']['opened']") ro=$(json_get "$J" "d['connections']['reopened']")
        rs=$(json_get "$J" "d['connections']['reopened_server_closed']")
        ok "nginx_limit_${scheme}_reopens" "opened $o, reopened $ro ($rs after a server close), $c closes: $(grep '^  Connections:' "$R")" \
            "[ -n '$ro' ] && [ '$ro' = '$rs' ] && [ \$((4 + ${ro:-0})) -ge ${o:-0} ] && [ \$((4 + ${ro:-0})) -le \$((${o:-0} + 4)) ] && [ ${rs:-0} -ge \$((c - 4)) ] && [ ${rs:-0} -le ${c:-0} ] && grep -qx '  Connections: $o opened for -c 4; $ro reopened: $rs after the server closed one' '$R'"
        ok "nginx_limit_${scheme}_no_idle_close" "$(grep -E 'Idle' "$R"), json idle_closes $(idle)" \
            "! grep -q 'Idle keep-alive' '$R' && [ \"\$(idle)\" = 0 ]"
    done
    # HTTP/2: nginx ends each connection with a GOAWAY after LIMIT streams,
    # then closes it; that close was announced, not an idle one.
    "$PACER" -t1 -c4 -d1s -k --h2 --json "$J" "https://127.0.0.1:$NGX_TLS_PORT/" >"$R" 2>&1
    g=$(json_get "$J" "d['http2']['goaway']")
    ok nginx_limit_h2_goaway_no_idle_close "$(grep -E 'Idle|HTTP/2:' "$R"), json idle_closes $(idle)" \
        "[ \${g:-0} -ge 4 ] && ! grep -q 'Idle keep-alive' '$R' && [ \"\$(idle)\" = 0 ]"
fi

# --- a timeout closes its connection, which is opened again: said --------
# pacer serve answers in 300 ms, --timeout is 100 ms: every request times
# out, and each -c2 connection is reopened after its timeout.
if start_serve --delay 300ms; then
    "$PACER" -t1 -c2 -d1s --timeout 100ms --json "$J" "$SERVE_URL" >"$R" 2>&1
    t=$(json_get "$J" "d['connections']['reopened_timeout']") ro=$(json_get "$J" "d['connections']['reopened']")
    to=$(json_get "$J" "d['errors']['timeout']" 2>/dev/null)
    ok timeout_reopens "reopened $ro, $t after a timeout, ${to:-?} timeouts: $(grep -E '^  Connections:' "$R")" \
        "[ \${t:-0} -ge 4 ] && [ '$t' = '$ro' ] && grep -qE '^  Connections: [0-9]+ opened for -c 2; $ro reopened: $t after a request timed out \\(a timeout closes its connection\\)\$' '$R'"
else
    fail serve_start "pacer serve did not start"
fi

# --- h1fault: each kind of close, plain and TLS -------------------------
# conn-close: Connection: close on every response, then FIN (TLS: close_notify
# first); http10-close: HTTP/1.0 without keep-alive; silent-close: a normal
# keep-alive response, then FIN: the one close pacer calls idle (at -R 20
# the connections wait between requests, so the FIN finds them idle).
for tls in "" --tls; do
    sfx=${tls:+_tls}
    if start_h1fault --mode conn-close $tls; then
        "$PACER" -t1 -c2 -d500ms -R 40 -k --json "$J" "$H1F_URL" >"$R" 2>&1
        n=$(completed "$R") c=$(closes)
        ok "conn_close${sfx}_wording" "$(grep -E 'Server closed|Idle' "$R")" \
            "grep -qx '  Server closed $n connections after their first response (the last response said Connection: close: no keep-alive)' '$R' && [ '${c:-x}' = '$n' ]"
        ok "conn_close${sfx}_no_idle_close" "$(grep Idle "$R"), json idle_closes $(idle)" \
            "! grep -q 'Idle keep-alive' '$R' && [ \"\$(idle)\" = 0 ]"
    else
        fail "conn_close${sfx}_start" "h1fault did not start"
    fi
    if start_h1fault --mode http10-close $tls; then
        "$PACER" -t1 -c2 -d500ms -R 40 -k --json "$J" "$H1F_URL" >"$R" 2>&1
        n=$(completed "$R")
        ok "http10_close${sfx}_wording" "$(grep -E 'Server closed|Idle' "$R")" \
            "grep -qx '  Server closed $n connections after their first response (HTTP/1.0 responses without keep-alive: no keep-alive)' '$R' && [ \"\$(idle)\" = 0 ] && [ \"\$(json_get '$J' \"d['connections']['server_closes_http10']\")\" = '$n' ]"
    else
        fail "http10_close${sfx}_start" "h1fault did not start"
    fi
    if start_h1fault --mode silent-close --every 2 $tls; then
        "$PACER" -t1 -c2 -d1s -R 20 -k --json "$J" "$H1F_URL" >"$R" 2>&1
        i=$(idle)
        ok "silent_close${sfx}_is_idle_close" "$(grep -E 'Server closed|Idle|Re-sent' "$R")" \
            "[ \${i:-0} -ge 1 ] && grep -qx '  Idle keep-alive connections closed by the server unannounced: $i' '$R' && ! grep -q 'Server closed' '$R'"
    else
        fail "silent_close${sfx}_start" "h1fault did not start"
    fi
done
finish
