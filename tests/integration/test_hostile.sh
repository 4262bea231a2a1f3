#!/usr/bin/env bash
# Hostile and broken servers (issue 13): every request has exactly one
# outcome that matches what happened on the wire, every error is charged to
# its cause, every run ends. The checks bounded tightly in time (runs that
# must end within 1-2 s, Lua loops that spin both threads) are in
# test_hostile_timing.sh, which runs alone.
. "$(dirname "$0")/lib.sh"
R="$T_DIR/report"
J="$T_DIR/run.json"

# h1f_sent: the responses the fault server sent so far (silent-close sends
# one whole response per request it reads).
h1f_sent() { sleep 0.3; grep -oE 'requests=[0-9]+' "$H1F_STATS" | cut -d= -f2; }

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
        ! grep -q 'Server closed [0-9]* connection' '$R' &&
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
    "[ $rc -eq 3 ] && grep -qE '^  Errors: connect [1-9][0-9]* \\(127\\.0\\.0\\.1:$P: TLS: certificate verify failed: IP address mismatch \\(not for this name: URL host, --host NAME\\)\\)' '$R' && ! grep -q 'Status codes' '$R'"
# ... and says which check failed: a self-signed certificate without --cacert.
"$PACER" -t1 -c1 -d300ms --verify --host example.com "https://127.0.0.1:$P/" >"$R" 2>&1
ok verify_says_self_signed "$(grep -E 'Errors' "$R")" \
    "grep -qE '^  Errors: connect [1-9][0-9]* \\(127\\.0\\.0\\.1:$P: TLS: certificate verify failed: self-signed certificate \\(no trusted CA signed it: --cacert FILE, or drop --verify\\)\\)' '$R'"
"$PACER" -t1 -c1 -d300ms --cacert "$T_DIR/ex.pem" --host example.com "https://127.0.0.1:$P/" >"$R" 2>&1
ok verify_host_name_ok "$(grep -E 'Errors|Status' "$R")" "grep -q 'Status codes: 200' '$R'"
# --- a server that chose h2 (ALPN) and speaks HTTP/1.1: said so ----------
start_h1fault --mode ok --tls --alpn-h2 || fail h1fault_start "no h1fault"
"$PACER" -t1 -c1 -d300ms --h2 "$H1F_URL" >"$R" 2>&1
ok alpn_h2_server_speaks_http1 "$(grep -E 'Errors' "$R")" \
    "grep -qE '^  Errors: protocol [1-9][0-9]* \\(the server answered in HTTP/1.1 after choosing h2 \\(ALPN\\)\\)' '$R' && outcomes_add_up '$R'"

# --- a server that refuses everything is not hammered --------------------
P=$(pick_port)
"$PACER" -t1 -c50 -d2s --json "$J" "http://127.0.0.1:$P/" >"$R" 2>&1
n=$(json_get "$J" "d['errors']['connect']")
ok refused_connects_back_off "connect errors ${n:-?} in 2 s from 50 connections: $(grep -E 'Errors|Reconnects' "$R")" "
    [ '${n:-0}' -ge 50 ] && [ '${n:-9999}' -le 500 ] && grep -qE '^  Reconnects backed off [1-9]' '$R'"
# With -n a request is an attempt (ab, h2load, hey): refused connects cost
# the requests they were opened for, and the run ends after N of them
# instead of retrying for the day -n alone allows.
for shape in "-c4" "-c4 -R2000"; do
    start=$SECONDS
    # shellcheck disable=SC2086
    timeout 20 "$PACER" -t2 $shape -n 200 "http://127.0.0.1:$P/" >"$R" 2>&1
    rc=$?
    ok "refused_n_attempts_${shape// /_}" "exit $rc in $((SECONDS - start)) s: $(grep -E 'Outcomes|Errors' "$R")" "
        [ $rc -eq 3 ] && [ $((SECONDS - start)) -le 5 ] &&
        grep -qE '^  Outcomes: 200 scheduled = 0 completed \+ 0 timed out \+ 200 errors \+ 0 never sent' '$R' &&
        outcomes_add_up '$R'"
done
# -n below -t: a thread with no share of -n had no count to stop at (it ran
# until killed); the threads are lowered to -n instead.
start=$SECONDS
timeout 20 "$PACER" -n 1 "http://127.0.0.1:$P/" >"$R" 2>&1
rc=$?
ok refused_n_below_threads "exit $rc in $((SECONDS - start)) s: $(grep -E 'note|Outcomes' "$R")" "
    [ $rc -eq 3 ] && grep -q '^pacer: note: 1 request: using 1 thread, not 2' '$R' &&
    grep -qE '^  Outcomes: 1 scheduled = 0 completed \+ 0 timed out \+ 1 errors' '$R'"
# --- an RST_STREAM code is printed as it came, an unknown one as its number -
start_h2fault --mode rst --every 2 --rst-code 255 || fail h2fault_start "no h2fault"
"$PACER" -t1 -c1 -d300ms --h2 "$H2F_URL" >"$R" 2>&1
ok h2_unknown_rst_code "$(grep Errors "$R")" \
    "grep -qE '^  Errors: read [1-9][0-9]* \(stream reset by the server \(RST_STREAM 0xff, an unknown code\)\)' '$R' && grep -q 'Status codes: 200' '$R'"
# --- outputs are checked before the run; the report is an output too ------
start_serve
"$PACER" -t1 -c1 -d100ms --json "$T_DIR/same" --csv "$T_DIR/same" "$SERVE_URL" >"$R" 2>"$R.err"
rc=$?
ok outputs_same_file_refused "exit $rc: $(cat "$R.err")" \
    "[ $rc -eq 2 ] && grep -qx \"pacer: --json and --csv both write '$T_DIR/same': give each its own file\" '$R.err' && [ ! -s '$R' ]"
ln -s "$T_DIR/same.json" "$T_DIR/alias.json"; : >"$T_DIR/same.json"
"$PACER" -t1 -c1 -d100ms --json "$T_DIR/same.json" --html "$T_DIR/alias.json" "$SERVE_URL" >"$R" 2>"$R.err"
ok outputs_same_inode_refused "exit $?: $(cat "$R.err")" "grep -q 'both write' '$R.err'"
if [ -w /dev/full ]; then
    "$PACER" -t1 -c1 -d100ms "$SERVE_URL" >/dev/full 2>"$R.err"
    rc=$?
    ok report_write_error "exit $rc: $(cat "$R.err")" \
        "[ $rc -eq 1 ] && grep -q '^pacer: cannot write the report to stdout: No space left on device' '$R.err'"
else
    skip report_write_error "this platform has no writable /dev/full"
fi
# --- memory is bounded by what was asked, not by the size of an input ------
# Under ASan, RSS holds its shadow memory and quarantine, not pacer's own
# memory: the plain build measures it, the ASan build checks the rest.
rss_ok() { # RSS_KB LIMIT_KB
    case "$PACER" in *build-san*) return 0 ;; esac
    [ "${1:-999999999}" -lt "$2" ]
}
case "$PACER" in *build-san*) skip rss_limits "an ASan build's RSS is ASan's shadow memory, not pacer's (the plain build checks the limits)" ;; esac
start_serve
for i in $(seq 1 10000); do echo "${SERVE_URL}p$i"; done >"$T_DIR/urls10k"
/usr/bin/time -f 'maxrss %M' -o "$T_DIR/rss" "$PACER" -t2 -c10 -d500ms --urls "$T_DIR/urls10k" \
    --json "$J" >"$R" 2>&1
rss=$(awk '/maxrss/ {print $2}' "$T_DIR/rss")
read -r nurls lat < <(json_get "$J" "len(d['urls']), d['urls'][0]['latency']")
ok urls_10k_bounded_memory "max RSS ${rss:-?} KB, $(wc -l <"$R") report lines, $nurls URLs in the JSON (latency $lat)" "
    rss_ok '$rss' 102400 && [ \$(grep -c '^  URL ' '$R') -eq 20 ] && [ '$nurls' = 100 ] && [ '$lat' = None ] &&
    grep -q '^  ... and 9980 more URLs (--json: the busiest 100 in urls, the rest summed in urls_other); per-URL latency is kept for at most 1000 URLs' '$R'"
head -n 50 "$T_DIR/urls10k" >"$T_DIR/urls50"
"$PACER" -t1 -c2 -d300ms --urls "$T_DIR/urls50" --json "$J" >"$R" 2>&1
ok urls_50_keep_latency "$(grep -m1 '^  URL 1:' "$R")" \
    "grep -qE '^  URL 1: GET .*p1: [0-9]+ requests, 0 errors, p50 .*, p99 ' '$R' && [ \"\$(json_get '$J' \"d['urls'][0]['latency']['count'] > 0\")\" = True ]"
# A script's response() buffers are capped over all connections (256 MiB):
# 400 connections of 1 MiB bodies took 420 MB, now at most ~256 MB.
start_serve --size 1M
printf 'function response(status, headers, body) end\n' >"$T_DIR/resp.lua"
/usr/bin/time -f 'maxrss %M' -o "$T_DIR/rss" "$PACER" -t1 -c400 -d1s -s "$T_DIR/resp.lua" "$SERVE_URL" >"$R" 2>&1
rss=$(awk '/maxrss/ {print $2}' "$T_DIR/rss")
ok response_buffers_bounded "max RSS ${rss:-?} KB: $(grep Outcomes "$R")" \
    "rss_ok '$rss' 307200 && grep -q 'Status codes: 200' '$R' && outcomes_add_up '$R'"
# --- messages say what happened -------------------------------------------
# A status code outside 100..599 is processed as a 5xx (RFC 9110 15), kept as
# it came; not a protocol error, not an interim response to wait past.
for code in 600 099; do
    start_h1fault --mode ok --status $code || fail h1fault_start "no h1fault"
    "$PACER" -t1 -c1 -d200ms --json "$J" "$H1F_URL" >"$R" 2>&1
    n=$((10#$code))
    ok status_${code}_as_5xx "$(grep -E 'Status|Non-2xx|Errors' "$R")" "
        grep -qE '^  Status codes: $n [1-9][0-9]*\$' '$R' && grep -q 'Non-2xx or 3xx responses' '$R' &&
        ! grep -qE 'Errors|timeout [1-9]' '$R' && \"\$PY\" -c \"import json; d=json.load(open('$J')); assert d['status_codes']['$n'] > 0\""
    "$PACER" -t1 -c1 -d200ms --format h2load "$H1F_URL" >"$R" 2>&1
    ok status_${code}_h2load_5xx "$(grep 'status codes' "$R")" "grep -qE '^status codes: 0 2xx, 0 3xx, 0 4xx, [1-9][0-9]* 5xx\$' '$R'"
done
# Inputs that are directories say so.
"$PACER" -d100ms -p "$T_DIR" "$SERVE_URL" >"$R" 2>&1
ok body_file_is_directory "$(cat "$R")" "grep -qx \"pacer: cannot read body file '$T_DIR': Is a directory\" '$R'"
"$PACER" -d100ms --urls "$T_DIR" >"$R" 2>&1
ok urls_file_is_directory "$(cat "$R")" "grep -qx \"pacer: cannot read --urls file '$T_DIR': Is a directory\" '$R'"
"$PACER" report "$T_DIR" >"$R" 2>&1
ok report_input_is_directory "$(cat "$R")" "grep -q \"cannot read '$T_DIR': Is a directory\" '$R'"
# A request the server never read is not "no response within --timeout".
"$PY" -c "
import socket, sys, time
s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(8)
open(sys.argv[1], 'w').write(str(s.getsockname()[1]))
held = []
s.settimeout(15)
try:
    while True:
        held.append(s.accept()[0])
except Exception:
    pass" "$T_DIR/nr.port" &
T_PIDS+=($!)
for _ in $(seq 1 50); do [ -s "$T_DIR/nr.port" ] && break; sleep 0.1; done
head -c 8000000 /dev/zero >"$T_DIR/big.bin"
"$PACER" -t1 -c1 -d500ms --timeout 500ms -p "$T_DIR/big.bin" "http://127.0.0.1:$(cat "$T_DIR/nr.port")/" >"$R" 2>&1
ok timeout_request_not_written "$(grep -E 'Errors' "$R")" \
    "grep -qx '  Errors: timeout 1 (request not fully written within --timeout (the server stopped reading))' '$R'"
finish
