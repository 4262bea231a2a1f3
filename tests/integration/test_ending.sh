#!/usr/bin/env bash
# A -d run ends near -d whatever the server does with the SYN or the
# handshake: connections still opening when the clock should start do not
# hold it back by --connect-timeout (10 s), attempts still pending at the
# end are abandoned, and the report says what connecting was waiting for.
. "$(dirname "$0")/lib.sh"
need_cmd "$PY" python3 || finish

# start_hold MODE: tests/tools/holdport.py (noaccept: the accept queue full,
# SYNs dropped; silent: accepted, never a byte back). Sets HOLD_PORT.
start_hold() {
    local log="$T_DIR/hold.$RANDOM" line=""
    "$PY" "$(dirname "$0")/../tools/holdport.py" "$1" 60 >"$log" 2>&1 &
    T_PIDS+=($!)
    for _ in $(seq 1 100); do
        line=$(grep -m1 '^holdport: listening' "$log" 2>/dev/null)
        [ -n "$line" ] && break
        sleep 0.05
    done
    HOLD_PORT=${line##*:}
    [ -n "$line" ]
}
R="$T_DIR/out"
# -d 2 ends within -d + 3 s (the old wait was -d + --connect-timeout, 12 s).
BOUND=5000
CONN='^  Connecting: 4 attempts still pending when the run ended were abandoned'

if start_hold noaccept; then
    U="http://127.0.0.1:$HOLD_PORT/"
    run 30 -t2 -c4 -d2 --json "$T_DIR/syn.json" "$U"
    ok end_syn_dropped_closed "exit $rc after ${el} ms: $(grep -E 'Connect|Errors' "$R")" \
        "[ $el -lt $BOUND ] && grep -qE \"$CONN \\(4 with no SYN-ACK\\); 4 of 4 connections were not up when the clock started\" '$R'"
    ok end_syn_dropped_json "$(json_get "$T_DIR/syn.json" "d['connections']" 2>&1)" \
        "[ \"\$(json_get '$T_DIR/syn.json' \"(d['connections']['connects_pending_at_end'], d['connections']['not_up_at_start'])\")\" = '(4, 4)' ]"
    run 30 -t2 -c4 -d2 -R 50 "$U"
    ok end_syn_dropped_rate "exit $rc after ${el} ms: $(grep -E 'Connect|Errors|Outcomes' "$R")" \
        "[ $el -lt $BOUND ] && grep -qE \"$CONN \\(4 with no SYN-ACK\\)\" '$R' && grep -qE '^  Outcomes: 100 scheduled = 0 completed .* 100 never sent' '$R'"
else
    fail end_syn_dropped_closed "holdport noaccept did not start"
fi

if start_hold silent; then
    U="https://127.0.0.1:$HOLD_PORT/"
    run 30 -t2 -c4 -d2 "$U"
    ok end_tls_unanswered "exit $rc after ${el} ms: $(grep -E 'Connect|Errors' "$R")" \
        "[ $el -lt $BOUND ] && grep -qE \"$CONN \\(4 with the TLS handshake not finished\\)\" '$R' && ! grep -q 'backlog' '$R'"
    run 30 -t1 -c4 -d2 -R 50 "$U"
    ok end_tls_unanswered_rate "exit $rc after ${el} ms: $(grep -E 'Connect|Errors' "$R")" \
        "[ $el -lt $BOUND ] && grep -qE \"$CONN \\(4 with the TLS handshake not finished\\)\" '$R'"
    # Handshakes that time out are the server's handshake, not its backlog.
    run 30 -t1 -c4 -d3 --connect-timeout 1s --json "$T_DIR/hs.json" "$U"
    ok tls_handshake_timeouts_named "$(grep -E 'Connect|TLS|Errors' "$R")" \
        "grep -qE '^  TLS handshakes: [0-9]+ timed out \(--connect-timeout 1.00s\): the server accepted the TCP connections but did not finish the handshake\$' '$R' &&
         grep -q 'TLS handshake timed out (the TCP connection was up)' '$R' && ! grep -q 'backlog' '$R' &&
         [ \"\$(json_get '$T_DIR/hs.json' \"d['connections']['handshake_timeouts'] > 0 and d['connections']['handshake_timeouts'] == d['connections']['connect_timeouts']\")\" = True ]"
else
    fail end_tls_unanswered "holdport silent did not start"
fi

if start_quicfault silent; then
    run 30 --h3 -t2 -c4 -d2 "https://127.0.0.1:$QF_PORT/"
    ok end_quic_unanswered "exit $rc after ${el} ms: $(grep -E 'Connect|Errors|QUIC' "$R")" \
        "[ $el -lt $BOUND ] && grep -qE \"$CONN \\(4 with the QUIC handshake not finished\\)\" '$R' && ! grep -qi 'SYN' '$R'"
    kill "$QF_PID" 2>/dev/null
else
    fail end_quic_unanswered "quicfault silent did not start"
fi

# A server that answers: nothing is said about connecting.
if start_serve; then
    run 30 -t1 -c4 -d1 "$SERVE_URL"
    ok end_normal_quiet "exit $rc: $(grep -E 'Connect' "$R")" "[ $rc -eq 0 ] && ! grep -q 'Connecting:' '$R'"
fi
finish
