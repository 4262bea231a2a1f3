#!/usr/bin/env bash
# Who limited the run (docs/methodology.md, "Who limited the run"): against
# a server with a known capacity (pacer serve --capacity 1500), ramps below
# it blame no one and their rows merge and print in every layout; a server
# that goes away mid-run is named, not the client; a server that refuses
# HTTP/2 streams is named.
# (Each row of the table on synthetic results: tests/unit/report/test_verdict.c.)
# The runs at and over the capacity (a ramp, stages, a constant rate, a
# closed loop) are in test_verdicts_timing.sh, which runs alone.
. "$(dirname "$0")/lib.sh"
D="$T_DIR/verdicts"; mkdir -p "$D"

start_serve --threads 1 --capacity 1500 || { fail serve_start "$(serve_err)"; finish; }

# --- two ramps merged: their rows add ----------------------------------------
"$PACER" -t1 -c20 -R 0..400 -d1s --json "$D/r1.json" "$SERVE_URL" >/dev/null 2>&1
"$PACER" -t1 -c20 -R 0..400 -d1s --json "$D/r2.json" "$SERVE_URL" >/dev/null 2>&1
"$PACER" report --json "$D/rm.json" "$D/r1.json" "$D/r2.json" >"$D/rm.out" 2>&1
ok ramp_rows_merge "$(json_get "$D/rm.json" "[s['requests'] for s in d['stages'][0]['steps']]" 2>&1)" \
    "[ \"\$(json_get '$D/rm.json' \"[s['requests'] for s in d['stages'][0]['steps']] == [a['requests'] + b['requests'] for a, b in zip(json.load(open('$D/r1.json'))['stages'][0]['steps'], json.load(open('$D/r2.json'))['stages'][0]['steps'])] and abs(d['stages'][0]['steps'][9]['target_rate'] - 760) < 0.01\")\" = True ]"
# The rows in every layout (h2load's, ab's and hey's print them as pacer's
# own lines) and in the HTML page's stage table.
for fm in h2load ab hey; do
    "$PACER" -t1 -c20 -R 0..400 -d1s --format $fm --html "$D/r_$fm.html" "$SERVE_URL" >"$D/r_$fm.out" 2>&1
    ok ramp_rows_format_$fm "$(grep -E '^pacer: +(Stage|1\.)' "$D/r_$fm.out" | head -4)" \
        "[ \"\$(grep -cE '^pacer: +1\.([1-9]|10) +0\.10s +[0-9]+\.\.[0-9]+ ' '$D/r_$fm.out')\" = 10 ]"
done
ok ramp_rows_html "$(grep -oE '<td class="num">1\.[0-9]+</td>' "$D/r_hey.html" | tr '\n' ' ')" \
    "[ \"\$(grep -oE '<td class=.num.>1\.([1-9]|10)</td>' '$D/r_hey.html' | wc -l)\" = 10 ]"
# (Rows below the knee blame no one: test_verdicts_timing.sh.)


# --- a server that goes away mid-run is not "the client could not keep up" --
# (gone: lib.sh)
start_serve || fail serve_start "$(serve_err)"
GONE_PID=$SERVE_PID
gone serve_killed KILL "$SERVE_URL"
"$PACER" report "$D/serve_killed.json" >"$D/serve_killed_rep.out" 2>&1
ok serve_killed_report_same "$(grep -E 'No response' "$D/serve_killed_rep.out")" \
    "[ \"\$(grep '^No response came' '$D/serve_killed_rep.out')\" = \"\$(grep '^No response came' '$D/serve_killed.out')\" ] && grep -q '^No response came' '$D/serve_killed.out'"
ok serve_killed_refused "$(grep -E 'No response' "$D/serve_killed.out")" \
    "grep -qE '^No response came after .*[0-9]+ connects failed: [^)]*Connection (refused|reset by peer)' '$D/serve_killed.out'"
start_serve || fail serve_start "$(serve_err)"
GONE_PID=$SERVE_PID
gone serve_stopped STOP "$SERVE_URL"
kill -CONT "$SERVE_PID"
ok serve_stopped_timeouts "$(grep -E 'No response' "$D/serve_stopped.out")" \
    "grep -qE '^No response came after .*no connection had room: each waited on an answer\), [0-9]+ in flight got no response \([0-9]+ timed out' '$D/serve_stopped.out'"

# --- a server that refuses HTTP/2 streams is named -------------------------
# The fault server refuses every 5th stream (REFUSED_STREAM). nginx with
# http2_max_concurrent_streams refuses only the streams opened before its
# SETTINGS arrive, a race a fresh machine lost three tries of three.
if start_h2fault --mode refuse --every 5; then
    "$PACER" h2load -n 2000 -c 2 -m 32 "$H2F_URL" >"$D/h2.out" 2>&1
    ok h2_refused_names_server "$(grep '^pacer:' "$D/h2.out")" \
        "grep -qE 'REFUSED_STREAM [1-9]' '$D/h2.out' && grep -qE '^pacer: The server, not the client, limited this run: it refused [0-9]+ streams \(REFUSED_STREAM' '$D/h2.out' && ! grep -q 'The client, not the server' '$D/h2.out' && ! grep -q 'Send lag' '$D/h2.out'"
else
    fail h2fault_start "no h2fault"
fi
# nginx killed mid-run over HTTP/2 (TLS) and HTTP/1.1: connects refused after.
for proto in h2 h1; do
    need_cmd nginx nginx-light && start_nginx || { fail "nginx_${proto}_start" "nginx did not start"; continue; }
    GONE_PID="$NGX_PID $(nginx_worker)"
    url="http://127.0.0.1:$NGX_PORT/"
    [ $proto = h2 ] && url="https://127.0.0.1:$NGX_TLS_PORT/"
    gone "nginx_${proto}_killed" KILL "$url"
done

# (HTTP/3 through the UDP relay, killed or blackholed: test_verdicts_timing.sh.)
finish
