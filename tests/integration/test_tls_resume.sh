#!/usr/bin/env bash
# TLS session resumption, counted in nginx's own log ($ssl_session_reused
# per $connection): each persona does what its tool does (ab and hey never
# resume; h2load's and wrk's connections reconnect with their own last
# session, never another's), the real ab, hey and h2load side by side;
# pacer's own CLI resumes unless --tls-resume off, and its report says
# which it did.
. "$(dirname "$0")/lib.sh"
need_cmd ab apache2-utils && need_cmd hey hey && need_cmd h2load nghttp2-client || finish

# PS: the test's server; PK: the same, ending each connection after 5
# requests (keepalive_requests), so that h2load --h1 reconnects.
PS=$(pick_port) && PK=$(pick_port) || { fail ports "no free port"; finish; }
start_nginx "
    log_format resume '\$connection \$ssl_session_reused';
    server {
        listen 127.0.0.1:$PS ssl http2;
        access_log $T_DIR/nginx/resume.log resume;
        root $T_DIR/nginx/www;
    }
    server {
        listen 127.0.0.1:$PK ssl;
        keepalive_requests 5;
        access_log $T_DIR/nginx/resume.log resume;
        root $T_DIR/nginx/www;
    }" || { fail nginx_start "nginx did not start"; finish; }
U="https://127.0.0.1:$PS/"
LOG="$NGX_DIR/resume.log"

# measure NAME CMD...: nginx_logged with the log emptied first; sets RC,
# REQS, CONNS and RESUMED (connections whose handshake resumed a session,
# "r" in the log).
measure() {
    nginx_logged "$LOG" "$@"
    RESUMED=$(awk '$2 == "r" {print $1}' "$LOG" | sort -u | wc -l)
}

# --- the peers: a full handshake every time ------------------------------------
measure ab_real ab -n 40 -c 4 "$U"
ok ab_real_never_resumes "rc $RC, $CONNS connections, $RESUMED resumed" \
    "[ $RC -eq 0 ] && [ $CONNS -eq 40 ] && [ $RESUMED -eq 0 ]"
measure ab "$PACER" ab -n 40 -c 4 "$U"
ok ab_never_resumes "rc $RC, $CONNS connections, $RESUMED resumed: $(cat "$T_DIR/ab.err")" \
    "[ $RC -eq 0 ] && [ $CONNS -eq 40 ] && [ $RESUMED -eq 0 ]"

measure hey_real hey -n 40 -c 4 -disable-keepalive "$U"
ok hey_real_never_resumes "rc $RC, $CONNS connections, $RESUMED resumed" \
    "[ $RC -eq 0 ] && [ $CONNS -eq 40 ] && [ $RESUMED -eq 0 ]"
measure hey "$PACER" hey -n 40 -c 4 -disable-keepalive "$U"
ok hey_never_resumes "rc $RC, $CONNS connections, $RESUMED resumed: $(cat "$T_DIR/hey.err")" \
    "[ $RC -eq 0 ] && [ $CONNS -eq 40 ] && [ $RESUMED -eq 0 ]"

# h2load: one connection per client; the later clients of a thread do not
# take the earlier ones' sessions: every first handshake is a full one.
measure h2load_real h2load -n 100 -c 10 "$U"
ok h2load_real_never_resumes "rc $RC, $CONNS connections, $RESUMED resumed" \
    "[ $RC -eq 0 ] && [ $CONNS -eq 10 ] && [ $RESUMED -eq 0 ]"
measure h2load "$PACER" h2load -n 100 -c 10 "$U"
ok h2load_never_resumes "rc $RC, $CONNS connections, $RESUMED resumed: $(cat "$T_DIR/h2load.err")" \
    "[ $RC -eq 0 ] && [ $CONNS -eq 10 ] && [ $RESUMED -eq 0 ]"

# h2load --h1 reconnects when the server closes (Connection: close), with
# the session of its client's last connection: all but the first 2 resume.
measure h2load_h1_real h2load --h1 -n 40 -c 2 "https://127.0.0.1:$PK/"
ok h2load_h1_real_resumes_own "rc $RC, $CONNS connections, $RESUMED resumed" \
    "[ $RC -eq 0 ] && [ $CONNS -eq 8 ] && [ $RESUMED -eq 6 ]"
# (pacer shares -n among a thread's connections, h2load gives each client
# its own part: pacer may open one more; the rule is the same.)
measure h2load_h1 "$PACER" h2load --h1 -n 40 -c 2 "https://127.0.0.1:$PK/"
ok h2load_h1_resumes_own "rc $RC, $CONNS connections, $RESUMED resumed: $(cat "$T_DIR/h2load_h1.err")" \
    "[ $RC -eq 0 ] && [ $CONNS -ge 8 ] && [ $RESUMED -eq $((CONNS - 2)) ]"

# --- wrk reconnects with its last session: only the first handshake of each
# connection is a full one.
measure wrk "$PACER" wrk -t1 -c2 -d1s -H 'Connection: close' "$U"
ok wrk_resumes "rc $RC, $CONNS connections, $RESUMED resumed" \
    "[ $RC -eq 0 ] && [ $CONNS -gt 4 ] && [ $RESUMED -ge $((CONNS - 2)) ]"

# --- pacer's own CLI: on by default, off on request, said in the report ---------
measure native "$PACER" --no-keepalive -t1 -c2 -n 30 "$U"
ok native_resumes "rc $RC, $CONNS connections, $RESUMED resumed" \
    "[ $RC -eq 0 ] && [ $CONNS -eq 30 ] && [ $RESUMED -ge 28 ]"
ok native_reports_resumed "$(grep 'TLS handshakes' "$T_DIR/native.out")" \
    "grep -qE '^  TLS handshakes: 30 \\($RESUMED resumed\\), mean' '$T_DIR/native.out'"
measure native_off "$PACER" --tls-resume off --no-keepalive -t1 -c2 -n 30 --json "$T_DIR/off.json" "$U"
ok native_off_never_resumes "rc $RC, $CONNS connections, $RESUMED resumed" \
    "[ $RC -eq 0 ] && [ $CONNS -eq 30 ] && [ $RESUMED -eq 0 ]"
ok native_off_said "$(grep 'TLS handshakes' "$T_DIR/native_off.out")" \
    "grep -qE '^  TLS handshakes: 30 \\(0 resumed; session resumption off\\), mean' '$T_DIR/native_off.out'"
"$PACER" report "$T_DIR/off.json" >"$T_DIR/report.out" 2>&1
ok native_off_in_json "$(grep -o '"tls_resume": *[a-z]*' "$T_DIR/off.json"); $(grep TLS "$T_DIR/report.out")" \
    "grep -qE '\"tls_resume\": *false' '$T_DIR/off.json' &&
     grep -q '^  TLS handshakes: 30 (0 resumed; session resumption off)' '$T_DIR/report.out'"
"$PACER" --tls-resume maybe "$U" >"$T_DIR/bad.out" 2>"$T_DIR/bad.err"
rc=$?
ok tls_resume_bad_value "rc $rc: $(cat "$T_DIR/bad.err")" \
    "[ $rc -eq 2 ] && [ \$(wc -l <'$T_DIR/bad.err') -eq 1 ] && grep -q 'on or off' '$T_DIR/bad.err'"

finish
