#!/usr/bin/env bash
# HTTP/2 (h2 over TLS with ALPN, h2c with prior knowledge) against nginx.
# The rate within 1% and the stall are in test_h2_timing.sh, which runs alone.
. "$(dirname "$0")/lib.sh"

start_nginx || { fail nginx_start "nginx did not start"; finish; }
H2="https://127.0.0.1:$NGX_TLS_PORT/"
H2C="http://127.0.0.1:$NGX_H2C_PORT/"
R="$T_DIR/report"

# --- closed loop, exact accounting at the server ---------------------------
for kind in h2 h2c; do
    url=$H2; [ $kind = h2c ] && url=$H2C
    : >"$NGX_DIR/access.log"
    "$PACER" -t2 -c4 -m10 -d1s --h2 "$url" >"$R" 2>"$R.err"
    rc=$?
    sleep 0.2
    n=$(completed "$R")
    logged=$(grep -c '^GET / HTTP/2.0' "$NGX_DIR/access.log")
    ok ${kind}_closed_loop "exit $rc, completed ${n:-?}: $(tail -3 "$R") $(cat "$R.err")" \
        "[ $rc -eq 0 ] && [ \"\${n:-0}\" -gt 100 ] && outcomes_add_up '$R' && ! grep -qE 'Socket errors|Errors:' '$R'"
    ok ${kind}_protocol_named "$(grep -i protocol "$R")" "grep -q '^  Application protocol: h2\$' '$R'"
    ok ${kind}_server_agrees "server logged $logged, pacer completed $n" "[ '$logged' = '$n' ]"
done

# --- the h2load layout ------------------------------------------------------
"$PACER" -t1 -c2 -m4 -d500ms --h2 --format h2load "$H2C" >"$R" 2>&1
ok h2load_format "$(head -12 "$R")" "
    grep -q '^Application protocol: h2c\$' '$R' &&
    grep -qE '^finished in [0-9.]+(us|ms|s), [0-9.]+ req/s, [0-9.]+[KMG]?B/s\$' '$R' &&
    grep -qE '^requests: [0-9]+ total, [0-9]+ started, [0-9]+ done, [0-9]+ succeeded, 0 failed, 0 errored, 0 timeout\$' '$R' &&
    grep -qE '^status codes: [0-9]+ 2xx, 0 3xx, 0 4xx, 0 5xx\$' '$R' &&
    grep -qE '^traffic: .* headers \(space savings [0-9.]+%\), .* data\$' '$R' &&
    grep -q '^                     min         max         mean         sd        +/- sd      median         p95         p99\$' '$R' &&
    grep -qE '^time for request: +[0-9.]+(us|ms|s) ' '$R' &&
    grep -qE '^req/s           : +[0-9.]+ ' '$R'"
savings=$(grep -oE 'space savings [0-9.]+' "$R" | grep -oE '[0-9.]+$')
ok hpack_savings "savings $savings%" "awk -v s='$savings' 'BEGIN { exit !(s > 10 && s < 100) }'"

# --- ALPN: a server without h2 -------------------------------------------------
"$PACER" -t1 -c2 -d300ms --h2 "https://127.0.0.1:$NGX_TLS1_PORT/" >"$R" 2>&1
rc=$?
ok h2_refused_by_server "exit $rc: $(grep Errors "$R")" "[ $rc -eq 3 ] && grep -q 'server refused h2 (' '$R'"
"$PACER" -t1 -c2 -d300ms --alpn h2,http/1.1 "https://127.0.0.1:$NGX_TLS1_PORT/" >"$R" 2>&1
ok alpn_fallback "$(tail -4 "$R")" "grep -q 'Status codes: 200' '$R' && ! grep -q 'Application protocol: h2' '$R'"
"$PACER" -t1 -c2 -d300ms --alpn h2,http/1.1 "$H2" >"$R" 2>&1
ok alpn_picks_h2 "$(grep protocol "$R")" "grep -q '^  Application protocol: h2\$' '$R'"

# --- JSON names the protocol ---------------------------------------------------
"$PACER" -t1 -c2 -m4 -d300ms --h2 --json "$T_DIR/h2.json" "$H2" >/dev/null 2>&1
ok h2_json "$(json_get "$T_DIR/h2.json" "d['protocol'], d['http2']")" \
    "[ \"\$(json_get '$T_DIR/h2.json' \"d['protocol'] == 'h2' and d['http2']['connections'] == 2 and d['headers']['space_savings'] > 0\")\" = True ]"
# Every handshake took time: OpenSSL may finish one inside a single call
# when the server's answers are already there, which read as 0 ns once.
ok tls_handshake_timed "$(json_get "$T_DIR/h2.json" "d['latency']['tls_handshake']['min'], d['latency']['tls_handshake']['count']")" \
    "[ \"\$(json_get '$T_DIR/h2.json' \"d['latency']['tls_handshake']['count'] == 2 and d['latency']['tls_handshake']['min'] > 0\")\" = True ]"
# pacer report keeps the protocol and the HTTP/2 counters of a JSON result.
"$PACER" report "$T_DIR/h2.json" >"$T_DIR/h2.report" 2>&1
ok h2_report_from_json "$(grep -A1 'Application protocol' "$T_DIR/h2.report")" \
    "grep -q '^  Application protocol: h2\$' '$T_DIR/h2.report' && grep -q '^  HTTP/2: headers ' '$T_DIR/h2.report'"

# --batch-latency over HTTP/2: one sample per group of streams in flight, and
# its uncorrected latency measured from the group's first HEADERS (it used to
# be 0: the batch's send time was only set by HTTP/1.1).
"$PACER" -t1 -c2 -m4 -d500ms --h2 -B -U --json "$T_DIR/h2b.json" "$H2C" >"$R" 2>&1
ok h2_batch_latency "$(grep -A3 'Uncorrected' "$R" | head -4; cat "$R" | grep note)" \
    "! grep -q 'has no effect' '$R' && [ \"\$(json_get '$T_DIR/h2b.json' \"d['latency']['uncorrected']['min'] > 0 and d['latency']['uncorrected']['count'] > 0\")\" = True ]"

finish
