#!/usr/bin/env bash
# HTTP/3 over QUIC (issue 18; the CLI, report and JSON as in the HTTP/3
# contract): against Caddy (HTTP/3 on a loopback UDP port, its JSON access
# log counting requests by protocol) and ngtcp2's gtlsserver; through
# tests/tools/udprelay (loss, blackhole after the handshake) and against
# tests/tools/quicfault (silent, stateless reset, version negotiation,
# Retry) and a dead port (errors, bounded in time); the
# h2load persona and layout, suite, capacity, JSON and `pacer report`.
# The checks bounded tightly in time or rate (a constant rate within 1%, a
# 1 s stop of Caddy against the analytic percentiles, a relay's delay,
# compare's rates) are in test_h3_timing.sh, which runs alone.
# Every pacer run is bounded by timeout(1): a hang is a failure, not a stall.
. "$(dirname "$0")/lib.sh"
export LC_ALL=C
R="$T_DIR/report"

start_caddy || { fail caddy_start "Caddy did not start: $(tail -3 "$CADDY_DIR/out" 2>/dev/null)"; finish; }
start_gtlsserver || fail gtlsserver_start "gtlsserver did not start: $(tail -3 "$GTLS_DIR/out" 2>/dev/null)"
C=$CADDY_URL

j() { json_get "$T_DIR/$1" "$2" 2>/dev/null; }
# The contract's two report lines (thousands separators allowed, not required).
QP_RE='^ *QUIC datagrams: [0-9,]+ sent, [0-9,]+ received; pacer.s packets declared lost by its QUIC stack [0-9,]+ \([0-9.]+% of sent\)$'

# --- -n exact, against Caddy and gtlsserver ------------------------------------
: >"$CADDY_LOG"
run 20 --h3 -t1 -c4 -m10 -n 1000 "$C"
sleep 0.3
ok h3_n_caddy "exit $rc: $(grep -E 'Outcomes|Status' "$R"); Caddy logged $(caddy_count HTTP/3.0)" \
    "[ $rc -eq 0 ] && [ '$(completed "$R")' = 1000 ] && grep -q '^  Status codes: 200 1000\$' '$R' && [ \"\$(caddy_count HTTP/3.0)\" = 1000 ]"
if [ -n "${GTLS_URL:-}" ]; then
    run 20 --h3 -t1 -c4 -m10 -n 1000 "$GTLS_URL"
    ok h3_n_gtlsserver "exit $rc: $(grep -E 'Outcomes|Status|rror' "$R")" \
        "[ $rc -eq 0 ] && [ '$(completed "$R")' = 1000 ] && grep -q '^  Status codes: 200 1000\$' '$R' && grep -q '^  Application protocol: h3\$' '$R'"
fi

# --- refused combinations ---------------------------------------------------------
run 5 --h3 -t1 -c1 -n1 "http://127.0.0.1:$CADDY_PORT/"
ok h3_plain_http_refused "exit $rc: $(cat "$R")" "[ $rc -eq 2 ] && [ \$(wc -l <'$R') -eq 1 ] && grep -q '^pacer: ' '$R' && ! grep -q 'unknown option' '$R'"
printf '%s\n' "${C}index.html" "http://127.0.0.1:9/plain" >"$T_DIR/mixed.txt"
run 10 --h3 -t1 -c2 -n 10 --urls "$T_DIR/mixed.txt" "$C"
ok h3_urls_plain_refused "exit $rc: $(cat "$R")" "[ $rc -eq 2 ] && [ \$(wc -l <'$R') -eq 1 ] && grep -q '^pacer: --h3 needs https:// URLs .*http://127.0.0.1:9/plain' '$R'"
run 10 --alpn h3 -t1 -c2 -m4 -n 50 "$C"
ok h3_alpn_list "exit $rc: $(grep -E 'protocol|Outcomes' "$R")" \
    "[ $rc -eq 0 ] && grep -q '^  Application protocol: h3\$' '$R' && [ '$(completed "$R")' = 50 ]"

# --- the rest of pacer over HTTP/3: --urls, a Lua script, --slo, --hlog, --html
printf '%s\n' "${C}index.html" "POST ${C}post 1" "${C}k.bin?u" >"$T_DIR/urls.txt"
head -c 1000 /dev/zero >"$CADDY_DIR/www/k.bin"
cat >"$T_DIR/s.lua" <<'LUA'
-- wrk's way: each thread counts in its own state, done() sums them.
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) n = 0 end
wrk.headers["X-Pacer-Script"] = "h3"
function response(status, headers, body) if status == 200 and #body == 1024 then n = n + 1 end end
function done(summary, latency, requests)
    local t = 0
    for _, th in ipairs(threads) do t = t + th:get("n") end
    io.write("script saw ", t, " responses\n")
end
LUA
: >"$CADDY_LOG"
run 20 --h3 -t1 -c2 -m4 -n 90 --urls "$T_DIR/urls.txt" "$C"
sleep 0.3
ok h3_urls "exit $rc: $(grep -E '^  URL|Outcomes' "$R"); Caddy: $(grep -oE '"method":"[A-Z]+","host":"[^"]*","uri":"[^"]*"' "$CADDY_LOG" | sort | uniq -c | tr -s ' ' | tr '\n' ';')" \
    "[ $rc -eq 0 ] && [ '$(completed "$R")' = 90 ] && [ \$(grep -c '\"uri\":\"/index.html\"' '$CADDY_LOG') = 30 ] &&
     [ \$(grep -c '\"method\":\"POST\".*\"uri\":\"/post\"' '$CADDY_LOG') = 30 ] && [ \$(grep -c '\"uri\":\"/k.bin?u\"' '$CADDY_LOG') = 30 ]"
: >"$CADDY_LOG"
run 20 --h3 -t1 -c2 -m4 -n 40 -s "$T_DIR/s.lua" "$C"
sleep 0.3
ok h3_lua_script "exit $rc: $(grep -E 'script saw|Outcomes' "$R"); Caddy logged $(grep -c 'X-Pacer-Script' "$CADDY_LOG") with the header" \
    "[ $rc -eq 0 ] && grep -q '^script saw 40 responses\$' '$R' && [ \$(grep -c '\"X-Pacer-Script\":\[\"h3\"\]' '$CADDY_LOG') = 40 ]"
run 20 --h3 -t1 -c2 -m4 -d1s -R100 --slo 'p99<=1s,errors<=0%,rate>=99%' --hlog "$T_DIR/r.hlog" --html "$T_DIR/r.html" "$C"
ok h3_slo_hlog_html "exit $rc: $(grep -E '^(  PASS|  FAIL|SLO)' "$R")" \
    "[ $rc -eq 0 ] && [ \$(grep -c '^  PASS ' '$R') = 3 ] && grep -q 'Tag=corrected' '$T_DIR/r.hlog' && grep -qF -- '--h3' '$T_DIR/r.html'"

# --- ACKs ride on the next request (http/h3.c ack_wait_until) -----------------
# One connection at 100 req/s: a request every 10 ms, under the 20 ms an ACK
# may wait. ngtcp2 alone acknowledged the response and the MAX_STREAMS after
# it in a datagram each, 3 sent a request; now the request's packet carries
# them (the handshake's few datagrams on top).
run 20 --h3 -t1 -c1 -R100 -d2s --json "$T_DIR/acks.json" "$C"
ok h3_acks_ride_requests "exit $rc: $(grep -E 'QUIC datagrams|Outcomes' "$R")" \
    "[ $rc -eq 0 ] && [ \"\$(j acks.json \"d['requests']['completed'] >= 150 and d['quic']['packets_sent'] <= 1.3 * d['requests']['completed'] + 8\")\" = True ]"

# --- the peer's MAX_STREAMS caps -m (quic-go allows 100 a connection) ---------
run 20 --h3 -t1 -c1 -m300 -n 1000 "$C"
ok h3_max_streams_waits "exit $rc: $(grep -E 'Outcomes|rror' "$R")" \
    "[ $rc -eq 0 ] && grep -qE '^  Outcomes: 1000 scheduled = 1000 completed \+ 0 timed out \+ 0 errors' '$R'"

# --- small flow-control windows still move a 256 KiB body -------------------------
head -c 262144 /dev/zero >"$CADDY_DIR/www/big.bin"
run 20 --h3 --h3-window 16384 --h3-conn-window 65536 -t1 -c2 -m4 -n 20 --json "$T_DIR/win.json" "${C}big.bin"
ok h3_small_windows "exit $rc: $(grep -E 'Outcomes|read|rror' "$R")" \
    "[ $rc -eq 0 ] && [ '$(completed "$R")' = 20 ] && [ \"\$(j win.json \"d['bytes']['read'] >= 20 * 262144\")\" = True ]"

# --- reconnects resume the TLS session (gtlsserver closes idle connections) ---
if start_gtlsserver --timeout=300ms; then
    run 20 --h3 -t1 -c1 -R2 -d2s --json "$T_DIR/resume.json" "$GTLS_URL"
    ok h3_session_resumed "exit $rc: $(grep -E 'TLS handshakes|dropped|Outcomes' "$R"); $(j resume.json "d['connections']")" \
        "[ $rc -eq 0 ] && [ '$(completed "$R")' = 4 ] && [ \"\$(j resume.json \"d['connections']['opened'] >= 2 and d['connections']['tls_resumed'] >= 1\")\" = True ]"
fi

# --- 5 % loss each way: counted, every request accounted for, no hang -----------
if start_udprelay --to "$CADDY_PORT" --drop 0.05 --seed 1; then
    run 20 --h3 -t1 -c2 -m10 -d2s -R200 --timeout 2s --json "$T_DIR/loss.json" "https://127.0.0.1:$RELAY_PORT/"
    ok h3_loss_run "exit $rc after ${el} ms: $(grep -E 'Outcomes|QUIC' "$R")" \
        "[ $rc -eq 0 ] && [ '$(scheduled "$R")' = 400 ] && outcomes_add_up '$R' && [ $el -lt 8000 ]"
    ok h3_loss_counted "quic: $(j loss.json "d.get('quic')"); relay: $(cat "$RELAY_STATS")" \
        "[ \"\$(j loss.json \"d['quic']['packets_lost'] > 0\")\" = True ] && [ \"\$(relay_stat c2s_drop)\" -gt 0 ] && [ \"\$(relay_stat s2c_drop)\" -gt 0 ]"
    ok h3_loss_completed "$(grep Outcomes "$R")" "[ \"\$(completed '$R')\" -ge 380 ]"
    kill "$RELAY_PID" 2>/dev/null
else
    fail relay_start "udprelay did not start"
fi

# --- a blackhole once the handshake is done: stream timeouts, a clean end --------
if start_udprelay --to "$CADDY_PORT" --blackhole-after hs; then
    run 20 --h3 -t1 -c1 -m8 -d2s -R50 --timeout 500ms --json "$T_DIR/hole.json" "https://127.0.0.1:$RELAY_PORT/"
    ok h3_blackhole_ends "exit $rc after ${el} ms (-d2s --timeout 500ms): $(tail -4 "$R")" \
        "[ $rc -ne 124 ] && [ $rc -ne 137 ] && [ $el -lt 5000 ] && outcomes_add_up '$R'"
    ok h3_blackhole_timeouts "errors $(j hole.json "d['errors']"), requests $(j hole.json "d['requests']"); relay: $(cat "$RELAY_STATS")" \
        "[ \"\$(j hole.json \"d['requests']['timed_out'] > 0 and d['errors']['timeout'] > 0\")\" = True ] && [ \"\$(relay_stat c2s_hole)\" -gt 0 ]"
    kill "$RELAY_PID" 2>/dev/null
fi

# --- peers that never let a connection up: connect errors, bounded ---------------
# errs FILE: connect (and protocol) errors the JSON counts.
errs() { j "$1" "d['errors']['connect'] + d['errors']['protocol']"; }
dead=$(pick_udp_port)
run 15 --h3 -t1 -c2 -d1s --timeout 1s --connect-timeout 1s --json "$T_DIR/dead.json" "https://127.0.0.1:$dead/"
ok h3_dead_port "exit $rc after ${el} ms: $(grep -E 'rror' "$R" | head -3)" \
    "[ $rc -eq 3 ] && [ $el -lt 5000 ] && [ \"\$(j dead.json \"d['errors']['connect'] > 0\")\" = True ]"
for mode in silent reset vn retry; do
    start_quicfault $mode || { fail "quicfault_$mode" "did not start"; continue; }
    run 15 --h3 -t1 -c2 -d1s --timeout 1s --connect-timeout 1s --json "$T_DIR/$mode.json" "https://127.0.0.1:$QF_PORT/"
    ok "h3_peer_$mode" "exit $rc after ${el} ms: $(grep -E 'rror' "$R" | head -3); errors $(j "$mode.json" "d['errors']"); $(cat "$QF_STATS")" \
        "[ $rc -eq 3 ] && [ $el -lt 6000 ] && [ \"\$(errs $mode.json)\" -gt 0 ] && [ \"\$(qf_stat initials)\" -gt 0 ]"
    # By kind: Version Negotiation is named; the others are a handshake that
    # never ends (a reset without a token, a second Retry: ignored, RFC 9000).
    kind='timed out'; [ $mode = vn ] && kind='Version Negotiation'
    ok "h3_peer_${mode}_kind" "$(grep 'Errors:' "$R")" "grep -E '^  Errors: ' '$R' | grep -q '$kind'"
    # A QUIC handshake has no SYN and no accept backlog: no TCP advice.
    ok "h3_peer_${mode}_no_tcp_advice" "$(grep -iE 'SYN|backlog|Errors:' "$R")" "grep -q '^  Errors: ' '$R' && ! grep -qiE 'SYN|backlog' '$R'"
    kill "$QF_PID" 2>/dev/null
done

# --- the h2load persona and layout -------------------------------------------------
# h2load_ok FILE N: h2load's HTTP/3 layout, N requests all succeeded.
h2load_ok() {
    grep -q '^Application protocol: h3$' "$1" &&
        grep -qE "^requests: $2 total, $2 started, $2 done, $2 succeeded, 0 failed, 0 errored, 0 timeout\$" "$1" &&
        grep -qE "^status codes: $2 2xx, 0 3xx, 0 4xx, 0 5xx\$" "$1" &&
        grep -qE '^time for request: +[0-9.]+(us|ms|s) ' "$1"
}
run 20 h2load --alpn-list=h3 -n 100 -c 2 "$C"
ok h3_h2load_persona "exit $rc: $(head -12 "$R")" "[ $rc -eq 0 ] && h2load_ok '$R' 100"
run 20 h2load --npn-list h3 -n 100 -c 2 "$C"
ok h3_h2load_npn_list "exit $rc: $(head -12 "$R")" "[ $rc -eq 0 ] && h2load_ok '$R' 100"
run 20 --h3 -t1 -c2 -m4 -n 200 --format h2load "$C"
ok h3_format_h2load "exit $rc: $(head -12 "$R")" "[ $rc -eq 0 ] && h2load_ok '$R' 200"
# h2load's HTTP/3 build (nghttp2 1.52, Debian 12's version): a "UDP
# datagram: S sent, R received" line after traffic; connect time is the
# QUIC handshake's; header bytes are the HEADERS frames' (QPACK-encoded).
ok h3_h2load_udp_line "$(grep -A1 '^traffic:' "$R")" \
    "grep -A1 '^traffic:' '$R' | grep -qE '^UDP datagram: [1-9][0-9]* sent, [1-9][0-9]* received\$'"
cmin=$(awk '/^time for connect:/ { print $4; exit }' "$R")
ok h3_h2load_connect_time "$(grep '^time for connect' "$R")" "[ -n '$cmin' ] && fcmp \"\$(to_ms '$cmin')\" '>' 0"
hb=$(grep -oE 'total, [0-9.]+[KMG]?B \([0-9]+\) headers' "$R" | grep -oE '\([0-9]+\)' | tr -d '()')
ok h3_h2load_header_bytes "$(grep '^traffic:' "$R")" "[ '${hb:-0}' -gt 0 ] && ! grep -q 'space savings 100.00%' '$R'"

# --- the same Caddy over h2 and h3, side by side ------------------------------------
# the h2-vs-h3 pairing of the same Caddy is a suite (options per target).
cat >"$T_DIR/suite.txt" <<SUITE
target h2 $C --h2
target h3 $C --h3
profile rated -t1 -c2 -m4 -d1s -R200
SUITE
: >"$CADDY_LOG"
run 30 suite --json "$T_DIR/suite.json" "$T_DIR/suite.txt"
sleep 0.3
ok h3_suite_h2_vs_h3 "exit $rc: $(tail -4 "$R"); Caddy logged h2 $(caddy_count HTTP/2.0), h3 $(caddy_count HTTP/3.0)" \
    "[ $rc -eq 0 ] && [ \"\$(j suite.json \"' '.join(r['result']['protocol'] + ':' + str(r['result']['requests']['completed']) for r in d['runs'])\")\" = 'h2:200 h3:200' ] &&
     [ \"\$(caddy_count HTTP/2.0)\" = 200 ] && [ \"\$(caddy_count HTTP/3.0)\" = 200 ]"

# --- capacity over h3: each step a rated h3 run, Caddy's HTTP/3 log agrees -----------
: >"$CADDY_LOG"
run 40 capacity --slo 'p99<=500ms' --start-rate 100 --max-rate 400 --h3 -t1 -c2 -m4 -d1s \
    --json "$T_DIR/cap.json" "$C"
sleep 0.3
capsum=$(j cap.json "sum(s['result']['requests']['completed'] for s in d['steps'])" 2>/dev/null)
capproto=$(j cap.json "' '.join(sorted(set(s['result']['protocol'] for s in d['steps'])))" 2>/dev/null)
ok h3_capacity "exit $rc: $(grep -m1 '^Capacity' "$R"); steps' protocol ${capproto:-?}, completed ${capsum:-?}, Caddy h3 $(caddy_count HTTP/3.0)" \
    "[ $rc -eq 0 ] && grep -qE '^Capacity: sustains at least 400' '$R' && [ '$capproto' = h3 ] &&
     [ '${capsum:-0}' -ge 600 ] && [ \"\$(caddy_count HTTP/3.0)\" = '$capsum' ]"

# --- pacer report merges two h3 results: packets add ---------------------------------
run 20 --h3 -t1 -c2 -m4 -d1s -R100 --json "$T_DIR/a.json" "$C"
run 20 --h3 -t1 -c2 -m4 -d1s -R100 --json "$T_DIR/b.json" "$C"
run 20 report --json "$T_DIR/m.json" "$T_DIR/a.json" "$T_DIR/b.json"
sum=$("$PY" -c "import json,sys; a,b,m=(json.load(open(p))['quic'] for p in sys.argv[1:]); print(all(m[k] == a[k] + b[k] for k in ('packets_sent','packets_received','packets_lost','pto_count')))" \
    "$T_DIR/a.json" "$T_DIR/b.json" "$T_DIR/m.json" 2>&1 | tail -1)
ok h3_report_merge_adds "exit $rc, merged packets add: $sum" "[ $rc -eq 0 ] && [ '$sum' = True ] && grep -qE '$QP_RE' '$R'"
ok h3_report_keeps_protocol "$(grep protocol "$R")" "grep -q '^  Application protocol: h3\$' '$R' && [ \"\$(j m.json \"d['protocol']\")\" = h3 ]"
# An h2 result has no quic object.
run 20 --h2 -t1 -c2 -m4 -n 50 --json "$T_DIR/h2.json" "$C"
ok h2_json_no_quic "exit $rc: $(j h2.json "d.get('protocol'), 'quic' in d")" \
    "[ $rc -eq 0 ] && [ \"\$(j h2.json \"d['protocol'] == 'h2' and 'quic' not in d\")\" = True ] && ! grep -q 'QUIC' '$R'"

finish
