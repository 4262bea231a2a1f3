#!/usr/bin/env bash
# A server that ends each connection after 20 requests (nginx's
# keepalive_requests: GOAWAY over HTTP/2, Connection: close over HTTP/1.1).
# h2load's clients stop at a GOAWAY (the -n requests left are failed, as the
# real h2load counts them) and reconnect after a Connection: close; pacer
# h2load does the same, nginx's log the judge. pacer's own CLI reopens the
# connections and says how many it reopened.
. "$(dirname "$0")/lib.sh"
need_cmd h2load nghttp2-client || finish

P=$(pick_port) && PC=$(pick_port) && PS=$(pick_port) || { fail ports "no free port"; finish; }
start_nginx "
    log_format goaway '\$connection \$server_protocol';
    server {
        listen 127.0.0.1:$P;
        listen 127.0.0.1:$PC http2;
        listen 127.0.0.1:$PS ssl http2;
        keepalive_requests 20;
        access_log $T_DIR/nginx/goaway.log goaway;
        root $T_DIR/nginx/www;
    }" || { fail nginx_start "nginx did not start"; finish; }
LOG="$NGX_DIR/goaway.log"

# logged CMD...: nginx_logged into $T_DIR/run.out, .err; sets RC, REQS and
# CONNS (the requests and distinct connections nginx logged for it).
logged() { nginx_logged "$LOG" run "$@"; }
reqline() { grep '^requests: ' "$T_DIR/run.out"; }

# --- h2c and h2: the clients stop at GOAWAY ---------------------------------------
for u in "h2c http://127.0.0.1:$PC/" "h2 https://127.0.0.1:$PS/"; do
    name=${u%% *} url=${u#* }
    logged h2load -n 200 -c 2 "$url"
    real=$(reqline)
    ok "${name}_real_h2load_stops" "rc $RC, nginx $REQS: $real" \
        "[ $RC -eq 0 ] && [ $REQS -eq 40 ] &&
         [ '$real' = 'requests: 200 total, 40 started, 40 done, 40 succeeded, 160 failed, 160 errored, 0 timeout' ]"
    logged "$PACER" h2load -n 200 -c 2 "$url"
    ok "${name}_h2load_stops" "rc $RC, nginx $REQS: $(cat "$T_DIR/run.out" "$T_DIR/run.err")" \
        "[ $RC -eq 0 ] && [ $REQS -eq 40 ] && [ $CONNS -eq 2 ] && [ '$(reqline)' = '$real' ] &&
         grep -q '^pacer: 2 of 2 clients stopped at the server.s GOAWAY and were not reconnected' '$T_DIR/run.out'"
done

# -D: the clients stop, the run lasts its duration, nothing is failed.
logged "$PACER" h2load -D 1 -c 2 "http://127.0.0.1:$PC/"
ok h2load_duration_stops "rc $RC, nginx $REQS: $(reqline)" \
    "[ $RC -eq 0 ] && [ $REQS -eq 40 ] &&
     [ '$(reqline)' = 'requests: 40 total, 40 started, 40 done, 40 succeeded, 0 failed, 0 errored, 0 timeout' ]"

# --- HTTP/1.1: Connection: close, and h2load reconnects ----------------------------
logged h2load --h1 -n 200 -c 2 "http://127.0.0.1:$P/"
real=$(reqline)
logged "$PACER" h2load --h1 -n 200 -c 2 "http://127.0.0.1:$P/"
ok h1_h2load_reconnects "rc $RC, nginx $REQS: $(reqline) (h2load: $real)" \
    "[ $RC -eq 0 ] && [ $REQS -eq 200 ] && [ '$(reqline)' = '$real' ] &&
     [ '$real' = 'requests: 200 total, 200 started, 200 done, 200 succeeded, 0 failed, 0 errored, 0 timeout' ]"

# --- pacer's own CLI: reopens, and says how many ------------------------------------
# Every connection nginx logged after the first two is a reopened one; a
# reopened connection the other took the last requests from is not in the
# log (at most one per connection: -c 2).
logged "$PACER" --h2 -t1 -c2 -n 200 "http://127.0.0.1:$PC/"
n=$(sed -n "s/^  Reopened after the server's GOAWAY: \([0-9]*\) connections (h2load would stop those clients)\$/\1/p" "$T_DIR/run.out")
ok native_reopens_said "rc $RC, nginx $REQS requests on $CONNS connections, said '$n': $(cat "$T_DIR/run.out")" \
    "[ $RC -eq 0 ] && [ $REQS -eq 200 ] && [ $CONNS -ge 10 ] && [ -n '$n' ] &&
     [ '$n' -ge $((CONNS - 2)) ] && [ '$n' -le $CONNS ]"

finish
