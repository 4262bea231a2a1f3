#!/usr/bin/env bash
# `pacer hey`: hey's commands run verbatim with pacer in front, against
# nginx, and the same test as hey's: protocol, connections and requests
# counted in nginx's own log ($server_protocol, $connection), the body and
# headers as received, hey's layout (side by side with the real hey's, every
# number replaced), and the refusals (one line, exit 2).
. "$(dirname "$0")/lib.sh"
need_cmd hey hey
need_cmd curl curl

# A server of this test's own: a log line per request with what a hey run
# must match; POST /post is proxied to /ok so that nginx reads (and logs)
# the body; /r is a directory (a 301 to /r/).
P=$(pick_port) && PS=$(pick_port) || { fail ports "no free port"; finish; }
start_nginx "
    log_format hey '\$server_protocol \$connection \$request_method \$uri \$status \"\$http_accept_encoding\" \"\$content_type\" \"\$request_body\"';
    server {
        listen 127.0.0.1:$P;
        listen 127.0.0.1:$PS ssl http2;
        access_log $T_DIR/nginx/hey.log hey;
        root $T_DIR/nginx/www;
        location = /ok { access_log off; return 200 'ok'; }
        location = /post { proxy_pass http://127.0.0.1:$P/ok; }
    }" || { fail nginx_start "nginx did not start"; finish; }
mkdir -p "$NGX_DIR/www/r" && echo x >"$NGX_DIR/www/r/index.html"
U="http://127.0.0.1:$P/"
LOG="$NGX_DIR/hey.log"
R="$T_DIR/report" E="$T_DIR/stderr" H="$T_DIR/hey.txt"

# log_reset; ...; then: requests, distinct connections, protocols in the log.
log_reset() { : >"$LOG"; }
log_requests() { sleep 0.1; wc -l <"$LOG"; }
log_conns() { awk '{print $2}' "$LOG" | sort -u | wc -l; }
log_protocols() { awk '{print $1}' "$LOG" | sort -u | tr '\n' ' '; }

# hey's layout with every number as N, the bars, error messages and pacer's
# own lines gone, the two Details lines pacer does not measure as labels.
skeleton() {
    sed -e '/^pacer:/d' -e 's/|.*$/|/' -e 's/^\(  DNS-lookup:\|  req write:\).*/\1/' \
        -e 's/ *NaN/N/g' -e 's/[0-9][0-9.]*/N/g' "$1"
}

# --- hey -n 2000 -c 50 -q 20: 50 workers at 20 req/s each, 2 s ------------
log_reset
start=$(date +%s.%N)
"$PACER" hey -n 2000 -c 50 -q 20 "$U" >"$R" 2>"$E"
rc=$? secs=$(echo "$start $(date +%s.%N)" | awk '{printf "%.2f", $2 - $1}')
ok q_runs "rc $rc, stderr: $(cat "$E")" "[ $rc -eq 0 ] && [ ! -s '$E' ]"
ok q_requests_at_nginx "log: $(log_requests) requests" "[ $(log_requests) -eq 2000 ]"
ok q_connections_at_nginx "log: $(log_conns) connections" "[ $(log_conns) -eq 50 ]"
ok q_protocol "log: $(log_protocols)" "[ '$(log_protocols)' = 'HTTP/1.1 ' ]"
ok q_takes_2s "took ${secs}s, $(grep Total: "$R")" "fcmp $secs '>=' 1.9 && fcmp $secs '<' 6 &&
    grep -qE '^  Total:	(1\\.9[5-9]|2\\.0[0-9])[0-9]* secs\$' '$R'"
rps=$(awk -F'\t' '/^  Requests\/sec:/ {print $2}' "$R")
ok q_rate "Requests/sec '$rps'" "fcmp '$rps' '>' 950 && fcmp '$rps' '<' 1050"
ok q_layout "$(head -40 "$R")" "
    grep -qx 'Summary:' '$R' && grep -qx 'Response time histogram:' '$R' &&
    [ \$(grep -cE '^  [0-9]+\\.[0-9]{3} \\[[0-9]+\\]	\\|(■)*\$' '$R') -eq 11 ] &&
    [ \$(grep -cE '^  (10|25|50|75|90|95|99)% in [0-9]+\\.[0-9]{4} secs\$' '$R') -eq 7 ] &&
    grep -qx 'Details (average, fastest, slowest):' '$R' &&
    grep -qE '^  DNS\\+dialup:	[0-9.]+ secs, [0-9.]+ secs, [0-9.]+ secs\$' '$R' &&
    grep -qx '  DNS-lookup:	not measured (pacer resolves the name once, before the run)' '$R' &&
    grep -qx '  Total data:	2048000 bytes' '$R' && grep -qx '  Size/request:	1024 bytes' '$R' &&
    grep -qx '  \\[200\\]	2000 responses' '$R' &&
    grep -qE '^pacer: outcomes: 2000 scheduled = 2000 completed .* 50 connections opened \\(http/1.1\\)\$' '$R'"

# --- hey's defaults, side by side with hey: the same layout and requests ---
log_reset
hey "$U" >"$H" 2>&1
hey_headers=$(awk '{print $3, $6, $7}' "$LOG" | sort | uniq -c)
hey_conns=$(log_conns)
log_reset
"$PACER" hey "$U" >"$R" 2>"$E"
ok defaults_layout_is_heys "$(diff <(skeleton "$H") <(skeleton "$R") | head -20)" \
    "diff -q <(skeleton '$H') <(skeleton '$R') >/dev/null"
ok defaults_requests "hey: $hey_headers; pacer: $(awk '{print $3, $6, $7}' "$LOG" | sort | uniq -c)" \
    "[ '$(awk '{print $3, $6, $7}' "$LOG" | sort | uniq -c)' = '$hey_headers' ] &&
     [ $(log_requests) -eq 200 ]"
# hey's 50 workers share Go's connection pool, which now and then dials one
# more (a finished response had not yet returned its connection) or one
# fewer (a worker took a returned one): hey's count is shown, pacer's checked.
ok defaults_connections "hey $hey_conns, pacer $(log_conns)" "[ $(log_conns) -eq 50 ]"

# --- hey -m POST -d '{"a":1}' -n 200: the body arrives, as hey's does -----
log_reset
hey -m POST -d '{"a":1}' -n 200 "${U}post" >"$H" 2>&1
hey_post=$(awk '{print $1, $3, $5, $7, $8}' "$LOG" | sort | uniq -c)
log_reset
"$PACER" hey -m POST -d '{"a":1}' -n 200 "${U}post" >"$R" 2>"$E"
pacer_post=$(awk '{print $1, $3, $5, $7, $8}' "$LOG" | sort | uniq -c)
ok post_as_hey "hey: $hey_post; pacer: $pacer_post" "[ '$pacer_post' = '$hey_post' ] &&
    [ '$pacer_post' = '    200 HTTP/1.1 POST 200 \"text/html\" \"{\\x22a\\x22:1}\"' ]"
ok post_report "$(grep -E '^  \[|^pacer:' "$R")" "grep -qx '  \\[200\\]	200 responses' '$R' &&
    [ $(log_conns) -eq 50 ]"

# --- -disable-keepalive: a connection per request --------------------------
log_reset
"$PACER" hey -n 200 -c 10 -disable-keepalive "$U" >"$R" 2>"$E"
ok no_keepalive "log: $(log_requests) requests on $(log_conns) connections" \
    "[ $(log_requests) -eq 200 ] && [ $(log_conns) -eq 200 ]"

# --- -z: for a duration, -n set aside ---------------------------------------
log_reset
"$PACER" hey -z 1s -c 5 -n 10 "$U" >"$R" 2>"$E"
done_n=$(grep -oE '^pacer: outcomes: [0-9]+ scheduled = [0-9]+ completed' "$R" | awk '{print $6}')
ok z_duration "$(grep -E 'Total:|outcomes' "$R"); log $(log_requests) on $(log_conns)" \
    "grep -qE '^  Total:	(0\\.9[5-9]|1\\.0[0-9])[0-9]* secs\$' '$R' && [ '${done_n:-0}' -gt 10 ] &&
     [ $(log_requests) -eq '${done_n:-0}' ] && [ $(log_conns) -eq 5 ]"

# --- -h2: ALPN h2 over https, the workers as streams of one connection;
#     HTTP/1.1 on http://, as hey (Go negotiates h2 by ALPN only) ---------
log_reset
"$PACER" hey -h2 -n 100 -c 10 "https://127.0.0.1:$PS/" >"$R" 2>"$E"
ok h2_tls "log: $(log_protocols), $(log_requests) on $(log_conns); $(cat "$E")" \
    "[ '$(log_protocols)' = 'HTTP/2.0 ' ] && [ $(log_requests) -eq 100 ] && [ $(log_conns) -eq 1 ]"
log_reset
"$PACER" hey -h2 -n 100 -c 10 "$U" >"$R" 2>"$E"
ok h2_on_http_is_http1 "log: $(log_protocols); $(cat "$E")" \
    "[ '$(log_protocols)' = 'HTTP/1.1 ' ] && [ $(log_conns) -eq 10 ] &&
     grep -q '^pacer: note: -h2 on http:// is HTTP/1.1 in hey' '$E'"

# --- -o csv: hey's header and a row per request -----------------------------
# Every cell a number, as the real hey's (an IP address: DNS 0), offsets from
# the start of the run (never negative), and the parts adding up to the
# response time (to the rounding of four decimals), over HTTP/1.1 and h2.
csv_row='^[0-9]+\.[0-9]{4}(,[0-9]+\.[0-9]{4}){5},200,[0-9]+\.[0-9]{4}$'
csv_sums() { awk -F, 'NR > 1 { d = $1 - ($2 + $4 + $5 + $6); if (d > 0.0003 || d < -0.0003) bad++ }
    END { exit bad > 0 }' "$1"; }
hey -n 20 -c 2 -o csv "$U" >"$H" 2>"$E"
ok csv_real_hey_numbers "$(head -3 "$H")" "[ \$(grep -cE '$csv_row' '$H') -eq 20 ] && grep -qE '^[^,]*,[^,]*,0\.0000,' '$H'"
"$PACER" hey -n 20 -c 2 -o csv "$U" >"$R" 2>"$E"
ok csv_rows "$(head -3 "$R")" "
    head -1 '$R' | grep -qx 'response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset' &&
    [ \$(grep -cE '$csv_row' '$R') -eq 20 ] && [ \$(cut -d, -f3 '$R' | grep -c '^0\.0000\$') -eq 20 ] &&
    [ \$(wc -l <'$R') -eq 21 ] && grep -q '^pacer: outcomes: 20 scheduled' '$E'"
ok csv_parts_add_up "$(head -5 "$R")" csv_sums "$R"
"$PACER" hey -n 20 -c 4 -disable-keepalive -o csv "${U}ok" >"$R" 2>"$E"
ok csv_rows_no_keepalive "$(head -3 "$R")" "[ \$(grep -cE '$csv_row' '$R') -eq 20 ] && csv_sums '$R'"
"$PACER" hey -h2 -n 20 -c 2 -o csv "https://127.0.0.1:$PS/" >"$R" 2>"$E"
ok csv_rows_h2 "$(head -3 "$R"; cat "$E")" "[ \$(grep -cE '$csv_row' '$R') -eq 20 ] && csv_sums '$R'"

# --- redirects: hey follows them, pacer does not, and says so ---------------
"$PACER" hey -n 10 -c 1 "${U}r" >"$R" 2>"$E"
ok redirect_said "$(grep -E '^  \[|redirect' "$R")" "grep -qx '  \\[301\\]	10 responses' '$R' &&
    grep -q '^pacer: 10 responses were redirects (3xx): hey follows them, pacer does not' '$R'"
"$PACER" hey -n 10 -c 1 -disable-redirects "${U}r" >"$R" 2>"$E"
ok redirect_disabled "$(grep -E 'redirect' "$R")" "grep -qx '  \\[301\\]	10 responses' '$R' && ! grep -q redirects '$R'"

# --- refused: one line, exit 2, nothing sent ---------------------------------
log_reset
# each: the arguments, then what the one line must say
for t in "-x 127.0.0.1:3128|cannot send through a proxy (hey's -x)" \
    "-o json|-o takes csv" "-n 10 -c 20|-n cannot be less than -c" \
    "-o csv -z 1s|-o csv needs -n here" "-t 1.5|invalid timeout for -t: '1.5'"; do
    args=${t%%|*} want=${t#*|}
    # shellcheck disable=SC2086
    "$PACER" hey $args "$U" >"$R" 2>"$E"
    rc=$?
    ok "refused_$(echo "$args" | tr -c 'a-z0-9\n' _)" "rc $rc, stdout $(wc -c <"$R") bytes, stderr: $(cat "$E")" \
        "[ $rc -eq 2 ] && [ ! -s '$R' ] && [ \$(wc -l <'$E') -eq 1 ] && grep -qF \"pacer: \" '$E' &&
         grep -qF -- \"\$want\" '$E'"
done
ok refused_sent_nothing "log: $(log_requests)" "[ $(log_requests) -eq 0 ]"
finish
