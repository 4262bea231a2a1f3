#!/usr/bin/env bash
# The core engine against real servers: nginx (HTTP/1.1, HTTPS) and
# `pacer serve`. Each check prints PASS/FAIL; see lib.sh.
. "$(dirname "$0")/lib.sh"

start_nginx || { fail nginx_start "nginx did not start"; finish; }
U="http://127.0.0.1:$NGX_PORT/"
US="https://127.0.0.1:$NGX_TLS_PORT/"
R="$T_DIR/report"

# --- closed loop against nginx: exact accounting -------------------------
"$PACER" -t2 -c10 -d1s "$U" >"$R" 2>"$R.err"
rc=$?
ok closed_loop_exit0 "exit $rc: $(cat "$R.err")" [ "$rc" -eq 0 ]
n=$(awk '/^  Outcomes:/ {print $5}' "$R")
ok closed_loop_outcomes_add_up "$(grep Outcomes "$R")" outcomes_add_up "$R"
ok closed_loop_has_requests "no requests: $(cat "$R")" fcmp "${n:-0}" ">" 100
ok closed_loop_all_200 "$(grep 'Status codes' "$R")" grep -qE "^  Status codes: 200 ${n}\$" "$R"
ok closed_loop_no_errors "$(grep -E 'errors|Errors' "$R")" "! grep -qE 'Socket errors|Errors:' '$R'"
ok closed_loop_no_internal_error "$(cat "$R.err")" "! grep -q 'internal error' '$R.err'"
ok closed_loop_layout "wrk layout lines missing" "
    grep -q '^Running 1s test @ $U\$' '$R' &&
    grep -q '^  2 threads and 10 connections\$' '$R' &&
    grep -q '^  Thread Stats   Avg      Stdev     Max   +/- Stdev\$' '$R' &&
    grep -qE '^    Latency +[0-9.]+(us|ms|s) ' '$R' &&
    grep -qE '^    Req/Sec +[0-9.]+k? ' '$R' &&
    grep -qE '^Requests/sec: +[0-9]+\.[0-9]{2}\$' '$R' &&
    grep -qE '^Transfer/sec: +[0-9.]+[KMG]?B\$' '$R' &&
    ! grep -q nan '$R'"
# nginx's access log must count exactly the completed requests.
sleep 0.2
logged=$(grep -c '^GET / HTTP/1.1' "$NGX_DIR/access.log")
completed=$(awk '/^  Outcomes:/ {print $5}' "$R")
ok closed_loop_server_agrees "server logged $logged, pacer completed $completed" [ "$logged" = "$completed" ]

# --- 404s are counted as Non-2xx ------------------------------------------
"$PACER" -t1 -c2 -d500ms "${U}nope" >"$R" 2>&1
non2xx=$(field "$R" 'Non-2xx or 3xx responses:')
completed=$(awk '/^  Outcomes:/ {print $5}' "$R")
ok non2xx_counted "non2xx=$non2xx completed=$completed" "[ -n '$non2xx' ] && [ '$non2xx' = '$completed' ] && grep -q 'Status codes: 404 ' '$R'"

# --- a refused port: connect errors, clean exit ---------------------------
dead=$(pick_port)
start=$SECONDS
"$PACER" -t1 -c4 -d1s --timeout 500ms "http://127.0.0.1:$dead/" >"$R" 2>&1
rc=$?
ok refused_exit3 "exit $rc" [ "$rc" -eq 3 ]
ok refused_connect_errors "$(grep -E 'Socket|Errors' "$R")" "grep -qE '^  Socket errors: connect [1-9][0-9]*, read 0, write 0, timeout 0\$' '$R' && grep -q 'Connection refused' '$R'"
ok refused_bounded_time "took $((SECONDS - start)) s" [ $((SECONDS - start)) -le 4 ]
"$PACER" -t1 -c4 -d1s -R100 --timeout 500ms "http://127.0.0.1:$dead/" >"$R" 2>&1
ok refused_rate_never_sent "$(grep Outcomes "$R")" "grep -qE '^  Outcomes: 100 scheduled = 0 completed \+ 0 timed out \+ 0 errors \+ 100 never sent' '$R'"

# --- HTTPS -------------------------------------------------------------------
"$PACER" -t1 -c4 -d1s "$US" >"$R" 2>"$R.err"
rc=$?
ok https_exit0 "exit $rc $(cat "$R.err")" [ "$rc" -eq 0 ]
ok https_no_errors "$(grep -E 'rrors' "$R")" "! grep -qE 'Socket errors|Errors:' '$R'"
ok https_handshakes "$(grep TLS "$R")" grep -qE '^  TLS handshakes: 4 ' "$R"
"$PACER" -t1 -c2 -d500ms --verify "$US" >"$R" 2>&1
ok https_verify_fails_self_signed "$(grep -E 'Errors: connect' "$R")" grep -q 'Errors: connect .*certificate verify failed' "$R"
"$PACER" -t1 -c2 -d500ms --cacert "$NGX_DIR/cert.pem" "https://localhost:$NGX_TLS_PORT/" >"$R" 2>&1
ok https_cacert_ok "$(tail -5 "$R")" "! grep -qE 'Socket errors' '$R' && grep -q 'Status codes: 200' '$R'"
# TLS to a plain port: a handshake error with its cause.
"$PACER" -t1 -c1 -d300ms "https://127.0.0.1:$NGX_PORT/" >"$R" 2>&1
ok https_to_plain_port "$(grep -E 'Errors' "$R")" grep -qE 'Errors: connect [0-9]+ \(127\.0\.0\.1:[0-9]+: TLS' "$R"

# TLS sessions are resumed when a connection is reopened.
"$PACER" -t1 -c2 -d500ms -H "Connection: close" "$US" >"$R" 2>&1
ok https_resumption "$(grep -E 'TLS|Errors' "$R")" "grep -qE '^  TLS handshakes: [0-9]+ \([1-9][0-9]* resumed\)' '$R'"

# --- a server without keep-alive: closes are explained, not errors -------
start_serve --threads 1 || fail serve_start "pacer serve did not start"
"$PACER" -t1 -c4 -d500ms -H "Connection: close" "$SERVE_URL" >"$R" 2>&1
ok no_keepalive_no_errors "$(grep -E 'rrors|closed' "$R")" "! grep -q 'Socket errors' '$R' && grep -q 'Server closed [0-9]* connection' '$R'"

# --- pipelining ---------------------------------------------------------------
"$PACER" -t1 -c2 -d500ms --pipeline 8 "$SERVE_URL" >"$R" 2>&1
ok pipeline_ok "$(tail -4 "$R")" "! grep -q 'Socket errors' '$R' && grep -q 'Status codes: 200' '$R'"
"$PACER" -t1 -c2 -d500ms --pipeline 4 -B -U "$SERVE_URL" >"$R" 2>&1
total=$(grep -m1 -oE 'Total count    = +[0-9]+' "$R" | grep -oE '[0-9]+$')
completed=$(awk '/^  Outcomes:/ {print $5}' "$R")
# Closed loop, 2 connections x batches of 4: one latency sample per batch.
ok batch_latency_per_batch "batches $total, requests $completed" fcmp "$(( ${total:-0} * 4 ))" "==" "${completed:-1}"

# --- a rate the connections cannot carry is explained ------------------------
start_serve --delay 50ms || fail serve_start "pacer serve did not start"
"$PACER" -t1 -c10 -d1s -R2000 "$SERVE_URL" >"$R" 2>&1
# The diagnosis, and its arithmetic: about rate x mean latency in flight
# (the mean is 50 ms or more: on a loaded machine, more).
raise=$(sed -nE 's/^  Requested rate 2000.00 req\/s but achieved [0-9.]+ \([0-9.]+%\): at the observed mean latency of ([0-9.]+)ms, 2000 req\/s needs about ([0-9]+) requests in flight, but -c 10 allows 10 \(raise -c\)$/\1 \2/p' "$R")
ok shortfall_slow_server_raise_c "$(grep -E 'Requested' "$R")" \
    "[ -n '$raise' ] && awk -v m='${raise% *}' -v n='${raise#* }' 'BEGIN { exit !(m >= 50 && n >= m * 2 * 0.95 && n <= m * 2 * 1.05 + 1) }'"

# A server that answers a third of the rate, with a timeout shorter than its
# queue: the connections wait on answers that never come, and the note blames
# the timeouts, not -c (the Little's-law rule would say "raise -c").
start_serve --threads 1 --capacity 300 || fail serve_start "pacer serve did not start"
"$PACER" -t1 -c50 -d2s -R1000 --timeout 100ms "$SERVE_URL" >"$R" 2>&1
ok shortfall_timeouts_first "$(grep -E 'Requested|Outcomes' "$R")" "grep -qE '^  Requested rate 1000.00 req/s but achieved [0-9.]+ \([0-9.]+%\): [0-9]+ of [0-9]+ requests failed or timed out \(see Errors\)\$' '$R' && outcomes_add_up '$R'"

# The server goes away a second into the run: the requests left waited for
# connections that could not be opened, which the note says, with when the
# responses stopped (it used to blame the client, or the one request that
# failed).
start_serve || fail serve_start "pacer serve did not start"
"$PACER" -t1 -c10 -d3s -R1000 "$SERVE_URL" >"$R" 2>&1 &
pid=$!
sleep 1
kill "$SERVE_PID"
wait "$pid"
ok shortfall_server_gone "$(grep -E 'Requested|Outcomes' "$R")" "grep -qE '^  Requested rate 1000.00 req/s but achieved [0-9.]+ \([0-9.]+%\): responses stopped at [0-9.]+s: [0-9]+ requests could not be sent \([0-9]+ connects failed: ' '$R' && outcomes_add_up '$R'"

# --- timeouts --------------------------------------------------------------------
start_serve --delay 3s || fail serve_start "pacer serve did not start"
start=$SECONDS
"$PACER" -t1 -c2 -d1s --timeout 300ms "$SERVE_URL" >"$R" 2>&1
ok timeout_counted "$(grep -E 'Socket|Outcomes' "$R")" "grep -qE 'Socket errors: connect 0, read 0, write 0, timeout [1-9]' '$R' && outcomes_add_up '$R'"
ok timeout_bounded "took $((SECONDS - start)) s" [ $((SECONDS - start)) -le 4 ]
ok timeout_exit3 "no response expected" "grep -q '0 completed' '$R'"

# --- headers arrive; Host is the URL's ---------------------------------------
: >"$NGX_DIR/access.log"
"$PACER" -t1 -c1 -d200ms -H "X-Pacer:hello-1" "${U}index.html?q=1&r=%20" >"$R" 2>&1
sleep 0.2
ok header_sent "$(head -2 "$NGX_DIR/access.log")" grep -q "^GET /index.html?q=1&r=%20 HTTP/1.1 hello-1 127.0.0.1:$NGX_PORT\$" "$NGX_DIR/access.log"

# --- warm-up ---------------------------------------------------------------------
"$PACER" -t1 -c2 -d1s -R200 --warmup 500ms --latency "$U" >"$R" 2>&1
ok warmup_reported "$(grep -E 'Warm-up|Outcomes' "$R")" "grep -qE '^  Warm-up: 0.50s first, [0-9]+ requests not counted above' '$R' && grep -qE '^  Outcomes: 200 scheduled' '$R'"
total=$(grep -m1 -oE 'Total count    = +[0-9]+' "$R" | grep -oE '[0-9]+$')
ok warmup_histogram_measured_only "histogram total $total" "[ '$total' = 200 ]"

# --- SIGINT: a partial report and exit 130 --------------------------------
"$PACER" -t1 -c2 -d20s "$U" >"$R" 2>&1 &
pid=$!
sleep 1
kill -INT "$pid"
start=$SECONDS
wait "$pid"
rc=$?
ok sigint_exit130 "exit $rc" [ "$rc" -eq 130 ]
ok sigint_report "$(tail -3 "$R")" "grep -q '^Requests/sec:' '$R' && grep -q 'Stopped early by SIGINT' '$R'"
ok sigint_prompt "took $((SECONDS - start)) s" [ $((SECONDS - start)) -le 3 ]

# --- SIGTERM: the same, exit 143 ------------------------------------------
"$PACER" -t1 -c2 -d20s -R100 --json "$T_DIR/term.json" "$U" >"$R" 2>&1 &
pid=$!
sleep 1
kill -TERM "$pid"
wait "$pid"
rc=$?
ok sigterm_exit143 "exit $rc: $(tail -2 "$R")" "[ $rc -eq 143 ] && grep -q 'Stopped early by SIGTERM' '$R' && outcomes_add_up '$R' && [ \"\$(json_get '$T_DIR/term.json' \"d['stopped_by']\")\" = SIGTERM ]"

# --- IPv6 literal and Unix socket (pacer serve) ------------------------------
if ! need_cmd ip iproute2; then
    :
elif (exec 3<>/dev/null) && ip -6 addr show lo 2>/dev/null | grep -q '::1'; then
    start_serve --bind ::1 || fail serve6_start "no serve on ::1"
    "$PACER" -t1 -c2 -d300ms "$SERVE_URL" >"$R" 2>&1
    ok ipv6_literal "$SERVE_URL: $(tail -3 "$R")" grep -q 'Status codes: 200' "$R"
else
    skip ipv6_literal "no ::1 on this machine"
fi
sock="$T_DIR/serve.sock"
start_serve --unix "$sock" || fail serve_unix_start "no serve on unix socket"
"$PACER" -t1 -c2 -d300ms --unix "$sock" "http://localhost/" >"$R" 2>&1
ok unix_socket "$(tail -3 "$R")" grep -q 'Status codes: 200' "$R"

finish
