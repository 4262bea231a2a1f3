#!/usr/bin/env bash
# ab-style runs and request shaping: -n, --no-keepalive, methods, bodies,
# cookies, auth, --urls, --format ab and its -g / -e files, side by side
# with ApacheBench against the same nginx.
. "$(dirname "$0")/lib.sh"
need_cmd ab apache2-utils
need_cmd curl curl

start_nginx || { fail nginx_start "nginx did not start"; finish; }
U="http://127.0.0.1:$NGX_PORT/"
R="$T_DIR/report"
A="$T_DIR/ab.txt"

abfield() { awk -F: -v k="$2" '$1 == k { gsub(/^ +| bytes$/, "", $2); print $2; exit }' "$1"; }

# --- the same load as ab, the same numbers ---------------------------------
ab -k -c20 -n20000 "$U" >"$A" 2>&1
"$PACER" -t2 -c20 -n20000 -k --format ab "$U" >"$R" 2>&1
for k in "Complete requests" "Document Length" "Total transferred" "HTML transferred" "Failed requests" "Keep-Alive requests"; do
    a=$(abfield "$A" "$k") p=$(abfield "$R" "$k")
    ok "ab_same_$(echo "$k" | tr 'A-Z ' 'a-z_')" "ab '$a', pacer '$p'" "[ -n '$a' ] && [ '$a' = '$p' ]"
done
ok ab_layout "$(head -30 "$R")" "
    grep -qE '^Time taken for tests:   [0-9]+\\.[0-9]{3} seconds\$' '$R' &&
    grep -qE '^Requests per second:    [0-9]+\\.[0-9]{2} \\[#/sec\\] \\(mean\\)\$' '$R' &&
    grep -qE '^Time per request:       [0-9]+\\.[0-9]{3} \\[ms\\] \\(mean, across all concurrent requests\\)\$' '$R' &&
    grep -q '^              min  mean\\[+/-sd\\] median   max\$' '$R' &&
    grep -qE '^Total:      +[0-9]+ +[0-9]+ +[0-9]+\\.[0-9] +[0-9]+ +[0-9]+\$' '$R' &&
    grep -qE '^ 100% +[0-9]+ \\(longest request\\)\$' '$R'"

# --- -n is exact, whatever the connections or the rate ----------------------
"$PACER" -t2 -c50 -n77 "$U" >"$R" 2>&1
ok n_more_conns_than_requests "$(grep Outcomes "$R")" "grep -qE '^  Outcomes: 77 scheduled = 77 completed \\+ 0 timed out' '$R'"
start=$SECONDS
"$PACER" -t2 -c4 -n300 -R200 "$U" >"$R" 2>&1
ok n_at_rate "$(grep -E 'Outcomes|requests in' "$R")" "grep -qE '^  Outcomes: 300 scheduled = 300 completed' '$R' && grep -qE '^  300 requests in 1\\.[0-9]{2}s' '$R'"
"$PACER" -t2 -c4 -n100000 -d1s "$U" >"$R" 2>&1
ok n_duration_upper_bound "$(grep Outcomes "$R")" "grep -qE '^  [0-9]+ requests in 1\\.0[0-9]s' '$R' && outcomes_add_up '$R'"
"$PACER" -t1 -c2 -n40 --h2 "http://127.0.0.1:$NGX_H2C_PORT/" >"$R" 2>&1
ok n_over_h2 "$(grep -E 'Outcomes|protocol' "$R")" "grep -qE '^  Outcomes: 40 scheduled = 40 completed' '$R' && grep -q 'Application protocol: h2' '$R'"

# --- --no-keepalive: a connection per request, counted at the server -------
before=$(curl -s "${U}stub" | awk 'NR == 3 {print $1}')
"$PACER" -t1 -c4 -n200 --no-keepalive "$U" >"$R" 2>&1
after=$(curl -s "${U}stub" | awk 'NR == 3 {print $1}')
ok no_keepalive_conn_per_request "accepts $before -> $after (want +201 with the stub request)" "[ \$(( $after - $before )) -eq 201 ] && grep -q 'Outcomes: 200 scheduled = 200 completed' '$R'"
"$PACER" -t1 -c2 -n50 --no-keepalive --format ab "$U" >"$R" 2>&1
ok no_keepalive_connect_times "$(grep -E 'Keep-Alive|Connect:' "$R")" "! grep -q 'Keep-Alive requests' '$R' && grep -qE '^Connect: ' '$R'"

# --- methods, bodies, cookies, auth, Content-Type arrive byte for byte ------
"$PY" "$(dirname "$0")/../tools/echo_server.py" "$T_DIR/echo.port" "$T_DIR/echo.out" &
T_PIDS+=($!)
for _ in $(seq 1 100); do [ -s "$T_DIR/echo.port" ] && break; sleep 0.05; done
EP=$(cat "$T_DIR/echo.port")
printf 'line1\nline2\x00bin' >"$T_DIR/body.bin"
"$PACER" -t1 -c1 -n1 -X PUT -p "$T_DIR/body.bin" -T application/octet-stream -C a=1 -C b=two \
    -A user:secret "http://127.0.0.1:$EP/up?x=1" >"$R" 2>&1
printf 'PUT /up?x=1 HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nContent-Type: application/octet-stream\r\nCookie: a=1; b=two\r\nAuthorization: Basic dXNlcjpzZWNyZXQ=\r\nContent-Length: 15\r\n\r\nline1\nline2\x00bin' "$EP" >"$T_DIR/expect.bin"
ok request_bytes_exact "$(od -c "$T_DIR/echo.out" | head -8)" "cmp -s '$T_DIR/echo.out' '$T_DIR/expect.bin'"
: >"$T_DIR/echo.out"
"$PACER" -t1 -c1 -n1 --body 'a=1&b=2' --host example.test "http://127.0.0.1:$EP/form" >"$R" 2>&1
ok post_body_and_host "$(cat "$T_DIR/echo.out")" "grep -q '^POST /form HTTP/1.1' '$T_DIR/echo.out' && grep -q '^Host: example.test' '$T_DIR/echo.out' && tail -c 7 '$T_DIR/echo.out' | grep -q '^a=1&b=2\$'"
: >"$T_DIR/echo.out"
"$PACER" -t1 -c1 -n1 --connect-to "127.0.0.1:$EP" "http://svc.invalid:8080/x" >"$R" 2>&1
ok connect_to_keeps_host "$(head -2 "$T_DIR/echo.out")" "grep -q '^GET /x HTTP/1.1' '$T_DIR/echo.out' && grep -q '^Host: svc.invalid:8080' '$T_DIR/echo.out'"
: >"$NGX_DIR/access.log"
"$PACER" -t1 -c1 -n3 -i "$U" >"$R" 2>&1
sleep 0.2
ok head_requests "$(head -3 "$NGX_DIR/access.log")" "[ \$(grep -c '^HEAD / HTTP/1.1' '$NGX_DIR/access.log') -eq 3 ] && grep -q 'Outcomes: 3 scheduled = 3 completed' '$R'"

# --- --urls: each URL in the right proportion ------------------------------
printf 'a' >"$NGX_DIR/www/a.txt"; printf 'bb' >"$NGX_DIR/www/b.txt"; printf 'ccc' >"$NGX_DIR/www/c.txt"
cat >"$T_DIR/urls.txt" <<URLS
# path, optional weight
${U}a.txt 3
GET ${U}b.txt 1
HEAD ${U}c.txt
URLS
: >"$NGX_DIR/access.log"
"$PACER" -t2 -c4 -n3000 --urls "$T_DIR/urls.txt" >"$R" 2>&1
sleep 0.2
na=$(grep -c '^GET /a.txt' "$NGX_DIR/access.log"); nb=$(grep -c '^GET /b.txt' "$NGX_DIR/access.log"); nc=$(grep -c '^HEAD /c.txt' "$NGX_DIR/access.log")
ok urls_roundrobin "a=$na b=$nb c=$nc" "[ $na -eq 1000 ] && [ $nb -eq 1000 ] && [ $nc -eq 1000 ]"
ok urls_per_url_report "$(grep -E '^  URL' "$R")" "[ \$(grep -cE '^  URL [123]: ' '$R') -eq 3 ] && grep -qE '^  URL 3: HEAD ${U}c.txt: 1000 requests' '$R'"
: >"$NGX_DIR/access.log"
"$PACER" -t2 -c4 -n4000 --urls "$T_DIR/urls.txt" --mix random --json "$T_DIR/u.json" >"$R" 2>&1
sleep 0.2
na=$(grep -c '^GET /a.txt' "$NGX_DIR/access.log"); nb=$(grep -c '^GET /b.txt' "$NGX_DIR/access.log"); nc=$(grep -c '^HEAD /c.txt' "$NGX_DIR/access.log")
ok urls_weighted_random "a=$na b=$nb c=$nc (want 2400/800/800 within 10%)" \
    "[ $na -ge 2160 ] && [ $na -le 2640 ] && [ $nb -ge 720 ] && [ $nb -le 880 ] && [ $nc -ge 720 ] && [ $nc -le 880 ] && [ \$(( na + nb + nc )) -eq 4000 ]"
ok urls_json "$(json_get "$T_DIR/u.json" "[(u['url'], u['requests']) for u in d['urls']]")" \
    "[ \"\$(json_get '$T_DIR/u.json' \"sum(u['requests'] for u in d['urls']) == 4000 and d['urls'][0]['requests'] == $na\")\" = True ]"

# --- ab's -g and -e files ------------------------------------------------------
"$PACER" -t2 -c4 -n500 -g "$T_DIR/g.tsv" -e "$T_DIR/e.csv" "$U" >"$R" 2>&1
ok gnuplot_file "$(head -2 "$T_DIR/g.tsv")" "[ \$(wc -l <'$T_DIR/g.tsv') -eq 501 ] && head -1 '$T_DIR/g.tsv' | grep -q \$'^starttime\\tseconds\\tctime\\tdtime\\tttime\\twait\$' && awk -F'\\t' 'NR > 1 && NF != 6 {exit 1}' '$T_DIR/g.tsv'"
ok percentage_csv "$(head -3 "$T_DIR/e.csv")" "[ \$(wc -l <'$T_DIR/e.csv') -eq 102 ] && head -1 '$T_DIR/e.csv' | grep -q '^Percentage served,Time in ms\$' && grep -qE '^100,[0-9]+\\.[0-9]{3}\$' '$T_DIR/e.csv'"

# --- bad input ---------------------------------------------------------------
printf 'GET %sa.txt\nGET http://no-such-host.invalid/ 1\n' "$U" >"$T_DIR/two.txt"
"$PACER" -n1 -c2 -t1 --urls "$T_DIR/two.txt" >/dev/null 2>"$T_DIR/err"; rc=$?
ok urls_unresolvable_origin "exit $rc: $(cat "$T_DIR/err")" "[ $rc -eq 1 ] && grep -q \"cannot resolve 'no-such-host.invalid'\" '$T_DIR/err'"
printf 'GET %sa.txt\nGET https://127.0.0.1:%s/b.txt\n' "$U" "$NGX_TLS_PORT" >"$T_DIR/two.txt"
"$PACER" -n4 -c2 -t2 --urls "$T_DIR/two.txt" >/dev/null 2>"$T_DIR/err"; rc=$?
ok urls_origins_need_connections "exit $rc: $(cat "$T_DIR/err")" "[ $rc -eq 1 ] && grep -q 'need -c of at least 4' '$T_DIR/err'"

# --- several origins: a connection pool each --------------------------------
: >"$NGX_DIR/access.log"
"$PACER" -t2 -c4 -n2000 --urls "$T_DIR/two.txt" >"$R" 2>&1
sleep 0.2
na=$(grep -c '^GET /a.txt' "$NGX_DIR/access.log"); nb=$(grep -c '^GET /b.txt' "$NGX_DIR/access.log")
# Closed loop: each pool sends as fast as its origin answers.
ok origins_closed_loop "a=$na b=$nb: $(grep -E 'Outcomes|TLS|URL' "$R")" \
    "[ \$(( na + nb )) -eq 2000 ] && [ $na -gt 0 ] && [ $nb -gt 0 ] && grep -q 'Outcomes: 2000 scheduled = 2000 completed' '$R' && grep -qE '^  TLS handshakes: 2 ' '$R'"
# At a rate the schedule assigns requests round-robin: exact proportions.
: >"$NGX_DIR/access.log"
"$PACER" -t2 -c4 -n2000 -R4000 --urls "$T_DIR/two.txt" >"$R" 2>&1
sleep 0.2
na=$(grep -c '^GET /a.txt' "$NGX_DIR/access.log"); nb=$(grep -c '^GET /b.txt' "$NGX_DIR/access.log")
ok origins_roundrobin_exact "a=$na b=$nb: $(grep -E 'Outcomes' "$R")" "[ $na -eq 1000 ] && [ $nb -eq 1000 ] && grep -q 'Outcomes: 2000 scheduled = 2000 completed' '$R'"
: >"$NGX_DIR/access.log"
"$PACER" -t2 -c4 -d2s -R400 --urls "$T_DIR/two.txt" --mix random >"$R" 2>&1
sleep 0.2
na=$(grep -c '^GET /a.txt' "$NGX_DIR/access.log"); nb=$(grep -c '^GET /b.txt' "$NGX_DIR/access.log")
ok origins_at_rate "a=$na b=$nb: $(grep -E 'Outcomes' "$R")" \
    "grep -qE '^  Outcomes: 800 scheduled = 800 completed' '$R' && [ \$(( na + nb )) -eq 800 ] && [ $na -ge 320 ] && [ $nb -ge 320 ]"
# One origin refuses every connection: under -n each refused connect costs
# one of ITS requests (its own queue), never the other origin's, and the
# run ends; at -R the round robin still gives each origin exactly half.
DEAD=$(pick_port)
printf 'GET %sa.txt\nGET http://127.0.0.1:%s/dead\n' "$U" "$DEAD" >"$T_DIR/dead.txt"
for shape in "" "-R2000"; do
    : >"$NGX_DIR/access.log"
    # shellcheck disable=SC2086
    timeout 20 "$PACER" -t1 -c2 -n400 $shape --urls "$T_DIR/dead.txt" --json "$T_DIR/d.json" >"$R" 2>&1
    rc=$?
    sleep 0.2
    na=$(grep -c '^GET /a.txt' "$NGX_DIR/access.log")
    read -r ua ea ud ed < <(json_get "$T_DIR/d.json" "' '.join(str(x) for u in d['urls'] for x in (u['requests'], u['errors']))")
    ok "origins_one_refuses${shape:+_rate}" "exit $rc; a=$na; a.txt $ua/$ea, dead $ud/$ed: $(grep -E 'Outcomes' "$R")" "
        [ $rc -eq 0 ] && [ '$ea' = 0 ] && [ '$ud' = 0 ] && [ \$(( na + ed )) -eq 400 ] && [ '$ua' = $na ] &&
        { [ -z '$shape' ] || [ $na -eq 200 ]; } && outcomes_add_up '$R'"
done
printf 'GET %s x3\n' "$U" >"$T_DIR/bad.txt"
"$PACER" -n1 --urls "$T_DIR/bad.txt" >/dev/null 2>"$T_DIR/err"; rc=$?
ok urls_bad_line "exit $rc: $(cat "$T_DIR/err")" "[ $rc -eq 2 ] && grep -q 'bad.txt:1: invalid weight' '$T_DIR/err'"
"$PACER" -n1 -p "$T_DIR/nope.bin" "$U" >/dev/null 2>"$T_DIR/err"; rc=$?
ok missing_body_file "exit $rc: $(cat "$T_DIR/err")" "[ $rc -eq 2 ] && grep -q 'cannot read body file' '$T_DIR/err'"

finish
