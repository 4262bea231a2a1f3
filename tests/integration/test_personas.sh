#!/usr/bin/env bash
# Other tools' commands run verbatim with `pacer` in front (personas): each
# against nginx, checked on nginx's side (the protocol of every logged
# request, connections accepted by stub_status, requests in the access
# log) and by the signature lines of that tool's report layout. Then the
# flags a persona refuses (exit 2, one line naming the flag), a link named
# after the tool (argv[0]), and make install-personas.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
need_cmd curl curl || finish
NGX_LOG_EXTRA=' $connection $content_type' start_nginx || { fail nginx_start "nginx did not start"; finish; }
U="http://127.0.0.1:$NGX_PORT/"
UTLS="https://127.0.0.1:$NGX_TLS_PORT/"
LOG="$NGX_DIR/access.log"

accepts() { curl -s "${U}stub" | awk 'NR == 3 {print $1}'; }

# run NAME ARGS...: `pacer ARGS` into $T_DIR/NAME.out/.err; sets RC, CONNS
# (connections nginx accepted for it), REQS (requests it logged, the stub
# requests left out) and PROTOS (the distinct protocols logged).
run() {
    local name=$1 a0 l0
    shift
    a0=$(accepts)
    l0=$(wc -l <"$LOG")
    timeout 30 "$PACER" "$@" >"$T_DIR/$name.out" 2>"$T_DIR/$name.err"
    RC=$?
    CONNS=$(( $(accepts) - a0 - 1 )) # the second stub request's own connection
    tail -n +"$((l0 + 1))" "$LOG" | grep -v ' /stub ' >"$T_DIR/$name.log"
    REQS=$(wc -l <"$T_DIR/$name.log")
    PROTOS=$(awk '{print $3}' "$T_DIR/$name.log" | sort -u | tr '\n' ' ')
}

# has NAME LINE...: every LINE (a fixed string) is in NAME's stdout.
has() {
    local f="$T_DIR/$1.out" l
    shift
    for l in "$@"; do grep -qF -- "$l" "$f" || return 1; done
}

# wrk's "N requests in": what pacer counted; nginx logged at least that
# many and at most one per connection more (those in flight at the end).
wrk_count() { grep -oE '^ *[0-9]+ requests in' "$T_DIR/$1.out" | grep -oE '[0-9]+'; }
between() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }

# --- wrk2 -t2 -c100 -d3s -R2000 --latency URL --------------------------------
check_wrk2() {
    local name=$1 n
    n=$(wrk_count "$name")
    ok "${name}_exit" "exit $RC: $(head -c 300 "$T_DIR/$name.err")" "[ $RC -eq 0 ]"
    ok "${name}_protocol" "protocols: $PROTOS" "[ '$PROTOS' = 'HTTP/1.1 ' ]"
    ok "${name}_connections" "nginx accepted $CONNS" "[ $CONNS -eq 100 ]"
    ok "${name}_requests" "nginx logged $REQS, pacer counted ${n:-?} (want ~6000 at 2000/s for 3s)" \
        "[ -n '$n' ] && between $REQS $n $((n + 100)) && between $n 5400 6100"
    ok "${name}_layout" "$(head -c 600 "$T_DIR/$name.out")" has "$name" \
        "Running 3s test @ $U" "  2 threads and 100 connections" \
        "  Latency Distribution (HdrHistogram - Recorded Latency)" " 99.999%" \
        "#[Mean    =" "Requests/sec:" "Transfer/sec:"
}
run wrk2 wrk2 -t2 -c100 -d3s -R2000 --latency "$U"
check_wrk2 wrk2

# The same command as blog posts print it (an en dash): read as --latency.
run wrk2_endash wrk2 -t2 -c100 -d3s -R2000 –latency "$U"
check_wrk2 wrk2_endash
ok wrk2_endash_note "$(cat "$T_DIR/wrk2_endash.err")" \
    grep -qF "pacer: note: '–latency' read as '--latency'" "$T_DIR/wrk2_endash.err"

# --- wrk -t12 -c1000 -d3s URL --------------------------------------------------
run wrk wrk -t12 -c1000 -d3s "$U"
n=$(wrk_count wrk)
ok wrk_exit "exit $RC: $(head -c 300 "$T_DIR/wrk.err")" "[ $RC -eq 0 ]"
ok wrk_protocol "protocols: $PROTOS" "[ '$PROTOS' = 'HTTP/1.1 ' ]"
# Each connection once, and once more for each reopen pacer counted and
# said ("Connections: N opened for -c 1000; M reopened: ...": wrk's 2 s
# --timeout closes its connection, a server close, an error) and each
# connect that failed and was tried again (the server may have accepted it
# late): one nginx worker on a busy 2-core machine can leave a few of 1000
# connections unanswered that long.
m=$(sed -nE 's/^  Connections: [0-9]+ opened for -c 1000; ([0-9]+) reopened: .*/\1/p' "$T_DIR/wrk.out")
ce=$(sed -nE 's/^  Socket errors: connect ([0-9]+), .*/\1/p' "$T_DIR/wrk.out")
ok wrk_connections "nginx accepted $CONNS; pacer said ${m:-0} reopened, ${ce:-0} connects failed: $(grep -E '^  (Connections|Socket errors):' "$T_DIR/wrk.out")" \
    "[ $CONNS -ge 1000 ] && [ $CONNS -le $((1000 + ${m:-0} + ${ce:-0})) ]"
ok wrk_requests "nginx logged $REQS, pacer counted ${n:-?}" \
    "[ -n '$n' ] && [ $n -gt 1000 ] && between $REQS $n $((n + 1000))"
ok wrk_layout "$(head -c 600 "$T_DIR/wrk.out")" has wrk "Running 3s test @ $U" \
    "  12 threads and 1000 connections" "  Thread Stats   Avg      Stdev     Max   +/- Stdev" \
    "Requests/sec:"
ok wrk_closed_loop "a closed-loop run has no HdrHistogram block" \
    "! grep -q 'HdrHistogram' '$T_DIR/wrk.out'"

# --- wrk -v -c50 -t8 -d3s "URL?w=100&h=100&g=1" --------------------------------
run wrk_v wrk -v -c50 -t8 -d3s "${U}?w=100&h=100&g=1"
n=$(wrk_count wrk_v)
ok wrk_v_exit "exit $RC: $(head -c 300 "$T_DIR/wrk_v.err")" "[ $RC -eq 0 ]"
ok wrk_v_protocol "protocols: $PROTOS" "[ '$PROTOS' = 'HTTP/1.1 ' ]"
ok wrk_v_connections "nginx accepted $CONNS" "[ $CONNS -eq 50 ]"
ok wrk_v_requests "nginx logged $REQS, pacer counted ${n:-?}; paths: $(awk '{print $2}' "$T_DIR/wrk_v.log" | sort -u | head -3)" \
    "[ -n '$n' ] && [ $n -gt 100 ] && between $REQS $n $((n + 50)) && [ \"\$(awk '{print \$2}' '$T_DIR/wrk_v.log' | sort -u)\" = '/?w=100&h=100&g=1' ]"
ok wrk_v_layout "$(head -c 600 "$T_DIR/wrk_v.out")" has wrk_v "pacer 0.1.0 [epoll]" \
    "Running 3s test @ ${U}?w=100&h=100&g=1" "  8 threads and 50 connections" "Requests/sec:"

# --- ab -c100 -n100000 -k URL (the real size) ----------------------------------
run ab_k ab -c100 -n100000 -k "$U"
ok ab_k_exit "exit $RC: $(head -c 300 "$T_DIR/ab_k.err")" "[ $RC -eq 0 ]"
ok ab_k_protocol "protocols: $PROTOS" "[ '$PROTOS' = 'HTTP/1.1 ' ]"
ok ab_k_connections "nginx accepted $CONNS (keep-alive: want 100)" "[ $CONNS -eq 100 ]"
ok ab_k_requests "nginx logged $REQS" "[ $REQS -eq 100000 ]"
ok ab_k_layout "$(head -c 900 "$T_DIR/ab_k.out")" has ab_k "Benchmarking 127.0.0.1 (be patient)" \
    "Concurrency Level:      100" "Complete requests:      100000" "Failed requests:        0" \
    "Keep-Alive requests:    100000" "Requests per second:" "Connection Times (ms)" \
    "Percentage of the requests served within a certain time (ms)" "(longest request)"
ok ab_k_progress "stderr: $(head -c 300 "$T_DIR/ab_k.err")" \
    "[ \"\$(grep -c '^Completed [0-9]* requests\$' '$T_DIR/ab_k.err')\" -eq 10 ] && grep -qx 'Completed 10000 requests' '$T_DIR/ab_k.err' && grep -qx 'Completed 100000 requests' '$T_DIR/ab_k.err'"

# --- ab -n 2000 -c 20 URL: ab's default is a connection per request ----------
run ab ab -n 2000 -c 20 "$U"
ok ab_exit "exit $RC: $(head -c 300 "$T_DIR/ab.err")" "[ $RC -eq 0 ]"
ok ab_protocol "protocols: $PROTOS" "[ '$PROTOS' = 'HTTP/1.1 ' ]"
ok ab_connections "nginx accepted $CONNS (want 2000: one per request)" "[ $CONNS -eq 2000 ]"
ok ab_requests "nginx logged $REQS" "[ $REQS -eq 2000 ]"
ok ab_layout "$(head -c 900 "$T_DIR/ab.out")" has ab "Concurrency Level:      20" \
    "Complete requests:      2000" "Failed requests:        0" "Document Length:        1024 bytes"
ok ab_no_keepalive_line "no Keep-Alive requests line" "! grep -q 'Keep-Alive requests' '$T_DIR/ab.out'"

# --- ab -n 500 -c 10 -p body.json -T application/json URL ---------------------
printf '{"a":1}' >"$T_DIR/body.json"
run ab_post ab -n 500 -c 10 -p "$T_DIR/body.json" -T application/json "$U"
ok ab_post_exit "exit $RC: $(head -c 300 "$T_DIR/ab_post.err")" "[ $RC -eq 0 ]"
ok ab_post_protocol "protocols: $PROTOS" "[ '$PROTOS' = 'HTTP/1.1 ' ]"
ok ab_post_connections "nginx accepted $CONNS" "[ $CONNS -eq 500 ]"
ok ab_post_requests "nginx logged $REQS; $(head -1 "$T_DIR/ab_post.log")" \
    "[ $REQS -eq 500 ] && [ \$(grep -c '^POST / HTTP/1.1 .* application/json\$' '$T_DIR/ab_post.log') -eq 500 ]"
# nginx answers 405 to a POST on a static file: ab counts those as Non-2xx.
ok ab_post_layout "$(head -c 900 "$T_DIR/ab_post.out")" has ab_post "Complete requests:      500" \
    "Non-2xx responses:      500"

# --- h2load -n100000 -c100 -m80 https://... -------------------------------------
run h2load h2load -n100000 -c100 -m80 "$UTLS"
ok h2load_exit "exit $RC: $(head -c 300 "$T_DIR/h2load.err")" "[ $RC -eq 0 ]"
ok h2load_protocol "protocols: $PROTOS" "[ '$PROTOS' = 'HTTP/2.0 ' ]"
ok h2load_connections "nginx accepted $CONNS" "[ $CONNS -eq 100 ]"
ok h2load_requests "nginx logged $REQS" "[ $REQS -eq 100000 ]"
ok h2load_layout "$(head -c 900 "$T_DIR/h2load.out")" has h2load "starting benchmark..." \
    "spawning thread #0: 100 total client(s). 100000 total requests" "Application protocol: h2" \
    "finished in " "requests: 100000 total, 100000 started, 100000 done, 100000 succeeded, 0 failed" \
    "status codes: 100000 2xx" "time for request: " "time for connect: " "req/s           : "

# --- h2load -n 5000 -c 10 -m 10 --h1 http://... ---------------------------------
run h2load_h1 h2load -n 5000 -c 10 -m 10 --h1 "$U"
ok h2load_h1_exit "exit $RC: $(head -c 300 "$T_DIR/h2load_h1.err")" "[ $RC -eq 0 ]"
ok h2load_h1_protocol "protocols: $PROTOS" "[ '$PROTOS' = 'HTTP/1.1 ' ]"
ok h2load_h1_connections "nginx accepted $CONNS" "[ $CONNS -eq 10 ]"
ok h2load_h1_requests "nginx logged $REQS" "[ $REQS -eq 5000 ]"
ok h2load_h1_layout "$(head -c 900 "$T_DIR/h2load_h1.out")" has h2load_h1 \
    "Application protocol: http/1.1" "requests: 5000 total, 5000 started, 5000 done, 5000 succeeded"

# h2load over http:// speaks HTTP/2 with prior knowledge by default.
run h2load_h2c h2load -n 200 -c 2 -m 4 "http://127.0.0.1:$NGX_H2C_PORT/"
# (The message also names the connections that carried the logged requests:
# once, a fresh machine counted 3 accepted for -c 2, and it did not say
# whether pacer had reconnected.)
ok h2load_h2c "exit $RC, protocols $PROTOS, $CONNS connections accepted, $(awk '{print $6}' "$T_DIR/h2load_h2c.log" | sort -u | wc -l) carried the $REQS requests: $(head -c 300 "$T_DIR/h2load_h2c.err")" \
    "[ $RC -eq 0 ] && [ '$PROTOS' = 'HTTP/2.0 ' ] && [ $CONNS -eq 2 ] && [ $REQS -eq 200 ] && has h2load_h2c 'Application protocol: h2c'"

# --rps is per client: 2 clients x 50/s for 2 s is ~200 requests, and the
# uncorrected row is shown next to the corrected one.
run h2load_rps h2load -c 2 --rps 50 -D 2 "http://127.0.0.1:$NGX_H2C_PORT/"
ok h2load_rps "exit $RC, $REQS requests: $(grep -E 'spawning|time for|uncorrected' "$T_DIR/h2load_rps.out")" \
    "[ $RC -eq 0 ] && between $REQS 180 202 && has h2load_rps '100.00 requests/s' '  (uncorrected) : '"

# --- refusals: one line naming the flag, exit 2, nothing run -------------------
refused() {
    local name=$1 rc
    R_PAT=$2
    shift 2
    "$PACER" "$@" >"$T_DIR/r.out" 2>"$T_DIR/r.err"
    rc=$?
    ok "refuses_$name" "exit $rc: $(head -c 300 "$T_DIR/r.err")" \
        "[ $rc -eq 2 ] && [ \$(wc -l <'$T_DIR/r.err') -eq 1 ] && grep -q -- \"^pacer: \$R_PAT\" '$T_DIR/r.err' && [ ! -s '$T_DIR/r.out' ]"
}
refused ab_proxy "-X 10.0.0.1:3128: ab's proxy" ab -X 10.0.0.1:3128 -n 10 "$U"
refused ab_proxy_auth "-P u:p: ab's proxy authentication" ab -P u:p -n 10 "$U"
refused ab_html "-w: ab's HTML tables" ab -w -n 10 "$U"
refused ab_tls_version "-f TLS1.2: .*pin" ab -f TLS1.2 -n 10 "$U"
refused ab_verbosity "-v 2: .*verbosity" ab -v 2 -n 10 "$U"
refused ab_concurrency "cannot use concurrency level greater" ab -n 5 -c 10 "$U"
refused h2load_rate "-r/--rate 10: h2load's connections-per-period" h2load -r 10 -c 10 "$U"
refused h2load_active_timeout "-T/--connection-active-timeout 5" h2load -T 5 "$U"
refused h2load_inactivity_timeout "-N/--connection-inactivity-timeout 5" h2load -N 5 "$U"
refused h2load_n_below_c "-n, -c: the number of requests" h2load -n 1 -c 2 "$U"
refused wrk2_needs_rate "wrk2: Throughput MUST be specified with the --rate or -R option" \
    wrk2 -t1 -c1 -d1s "$U"
# pacer's own -T is ab's Content-Type: wrk's -T (a timeout) gets a hint
# naming the persona that reads it so; under `pacer wrk` it is the timeout.
refused native_wrk_timeout "invalid content type for -T: '2s' .*run it as .pacer wrk" -T 2s "$U"
refused native_ab_timeout "cannot read script '30'.*run it as .pacer ab" -s 30 "$U"
refused native_hey_method "invalid number for -m/--streams: 'POST'.*run it as .pacer hey" -m POST "$U"
before=$(wc -l <"$LOG")
ok refusals_sent_nothing "nginx logged $(( $(wc -l <"$LOG") - before )) after the refusals" \
    "[ \$(wc -l <'$LOG') -eq $before ]"

# ab -t is a time limit (not threads), ab -s the timeout (not a script).
run ab_t ab -t 1 -s 5 -c 2 -q "$U"
ok ab_time_limit "exit $RC, $REQS requests: $(grep -E 'Time taken|Complete' "$T_DIR/ab_t.out")" \
    "[ $RC -eq 0 ] && [ $REQS -gt 10 ] && grep -qE '^Time taken for tests: +1\.0[0-9]* seconds' '$T_DIR/ab_t.out' && [ ! -s '$T_DIR/ab_t.err' ]"

run wrk_T wrk -t1 -c1 -d1s -T 3s --json "$T_DIR/wrk_T.json" "$U"
t=$(json_get "$T_DIR/wrk_T.json" "d['config']['timeout_s']" 2>&1)
ok wrk_T_is_timeout "exit $RC, timeout in the result: $t" "[ $RC -eq 0 ] && [ '$t' = 3 ]"

# pacer --help names the personas and the guide to the report (the file
# where it exists beside the binary, else man pacer: the ASan build's
# build-san/pacer has no docs/ beside it).
"$PACER" --help >"$T_DIR/help.out" 2>&1
ok help_lists_personas "$(grep -A5 'pacer TOOL' "$T_DIR/help.out")" \
    "grep -qE '^ +wrk2 ' '$T_DIR/help.out' && grep -qE '^ +ab ' '$T_DIR/help.out' && grep -qE '^ +h2load ' '$T_DIR/help.out' && grep -qE 'Reading the report, line by line: (.*/docs/reading-the-report\.md \(and man pacer\)|man pacer)' '$T_DIR/help.out'"
"$PACER" h2load --help >"$T_DIR/h2help.out" 2>&1
ok h2load_help "$(head -3 "$T_DIR/h2help.out")" \
    "grep -q '^Usage: pacer h2load ' '$T_DIR/h2help.out' && grep -qE '^ +-m, --max-concurrent-streams' '$T_DIR/h2help.out' && grep -q -- '--h1' '$T_DIR/h2help.out'"

# --- a link named after the tool (argv[0], as busybox) -------------------------
mkdir -p "$T_DIR/bin"
ln -s "$PACER" "$T_DIR/bin/ab"
a0=$(accepts)
"$T_DIR/bin/ab" -n 20 -c 2 "$U" >"$T_DIR/link.out" 2>"$T_DIR/link.err"
rc=$?
c=$(( $(accepts) - a0 - 1 ))
ok argv0_ab "exit $rc, $c connections: $(head -c 300 "$T_DIR/link.err")" \
    "[ $rc -eq 0 ] && [ $c -eq 20 ] && grep -qF 'Complete requests:      20' '$T_DIR/link.out'"
"$T_DIR/bin/ab" -h >"$T_DIR/link_help.out" 2>&1
ok argv0_ab_help "$(head -3 "$T_DIR/link_help.out")" \
    "grep -q '^Usage: pacer ab ' '$T_DIR/link_help.out' && grep -q '^    -k ' '$T_DIR/link_help.out'"

# --- make install-personas / uninstall ------------------------------------------
mk() {
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u SAN -u CFLAGS -u LDFLAGS -u LDLIBS \
        -u PREFIX -u DESTDIR -u BINDIR -u MANDIR -u DOCDIR make -C "$ROOT" --no-print-directory "$@"
}
KEEP=""
[ -x "$ROOT/pacer" ] && KEEP="-o pacer"
D="$T_DIR/destdir"
mk install $KEEP DESTDIR="$D" PREFIX=/usr >"$T_DIR/install.log" 2>&1
ok install_makes_no_links "$(ls "$D/usr/bin" 2>&1 | tr '\n' ' ')" "[ \"\$(ls '$D/usr/bin')\" = pacer ]"
mkdir -p "$D/usr/bin" && : >"$D/usr/bin/wrk" # a real wrk stays
mk install-personas $KEEP DESTDIR="$D" PREFIX=/usr >"$T_DIR/install-p.log" 2>&1
rc=$?
links=$(cd "$D/usr/bin" && for f in *; do [ -L "$f" ] && echo "$f->$(readlink "$f")"; done | sort | tr '\n' ' ')
ok install_personas "exit $rc, links: $links $(tail -2 "$T_DIR/install-p.log")" \
    "[ $rc -eq 0 ] && [ '$links' = 'ab->pacer h2load->pacer hey->pacer wrk2->pacer ' ] && [ ! -L '$D/usr/bin/wrk' ] && grep -q 'wrk exists and is not a link to pacer' '$T_DIR/install-p.log'"
out=$("$D/usr/bin/h2load" --version 2>&1)
ok installed_link_runs "$out" "[ '$out' = 'pacer 0.1.0 [epoll] HTTP load generator' ]"
mk uninstall DESTDIR="$D" PREFIX=/usr >"$T_DIR/uninstall.log" 2>&1
left=$(cd "$D" && find . ! -type d | sort | tr '\n' ' ')
ok uninstall_removes_links "left: $left" "[ '$left' = './usr/bin/wrk ' ]"

finish
