#!/usr/bin/env bash
# Labels that match the run: what a report, a note or a JSON field says
# about how the run went must be what happened (issue 12).
. "$(dirname "$0")/lib.sh"

R="$T_DIR/report"
J="$T_DIR/run.json"
start_serve || { fail serve_start "no serve: $(serve_err)"; finish; }
URL=$SERVE_URL

# --- -m N is h2load's: HTTP/2 with N streams, never a silent HTTP/1.1 run ---
NGX_LISTEN_OPTS=" backlog=2" start_nginx || { fail nginx_start "nginx did not start"; finish; }
for kind in h2 h2c; do
    url="https://127.0.0.1:$NGX_TLS_PORT/"; [ $kind = h2c ] && url="http://127.0.0.1:$NGX_H2C_PORT/"
    : >"$NGX_DIR/access.log"
    "$PACER" -n 500 -c 10 -m 10 "$url" >"$R" 2>"$R.err"
    rc=$?
    sleep 0.2
    logged=$(grep -c '^GET / HTTP/2.0' "$NGX_DIR/access.log")
    ok m_implies_h2_$kind "exit $rc, nginx logged $logged HTTP/2 requests: $(head -3 "$R") $(cat "$R.err")" "
        [ $rc -eq 0 ] && [ '$logged' = 500 ] &&
        grep -q '^  2 threads and 10 connections (HTTP/2, 10 streams each)\$' '$R' &&
        grep -q '^  Application protocol: h2\$' '$R' &&
        grep -q '^pacer: note: -m 10 means 10 concurrent HTTP/2 streams' '$R.err'"
done
"$PACER" -n 100 -c 2 -m 4 --format h2load "http://127.0.0.1:$NGX_H2C_PORT/" >"$R" 2>&1
ok m_implies_h2_h2load_layout "$(head -5 "$R")" "grep -q '^Application protocol: h2c\$' '$R'"

"$PACER" --h2 --pipeline 4 -d1s "$URL" >"$R" 2>"$R.err"
rc=$?
ok pipeline_with_h2_refused "exit $rc: $(cat "$R.err")" \
    "[ $rc -eq 2 ] && [ \$(wc -l <'$R.err') -eq 1 ] && grep -q -- '-m N' '$R.err' && [ ! -s '$R' ]"
"$PACER" -m 4 --pipeline 4 -d1s "$URL" >"$R" 2>"$R.err"
rc=$?
ok pipeline_with_m_refused "exit $rc: $(cat "$R.err")" "[ $rc -eq 2 ] && grep -q '^pacer: --pipeline is HTTP/1.1 pipelining' '$R.err'"

# --- a -n run says it is one, in every layout -------------------------------
"$PACER" -t1 -c2 -n 200 "$URL" >"$R" 2>&1
ok n_header_wrk "$(head -1 "$R")" "head -1 '$R' | grep -qx 'Running 200 requests @ $URL'"
"$PACER" -t1 -c2 -n 200 -d 5s "$URL" >"$R" 2>&1
ok n_header_wrk_with_d "$(head -1 "$R")" "head -1 '$R' | grep -qx 'Running 200 requests (at most 5s) @ $URL'"
"$PACER" -t2 -c2 -n 201 --format h2load "$URL" >"$R" 2>&1
ok n_header_h2load "$(head -3 "$R")" "
    grep -qx 'spawning thread #0: 1 total client(s). 101 total requests' '$R' &&
    grep -qx 'spawning thread #1: 1 total client(s). 100 total requests' '$R' &&
    ! grep -q 'closed loop\|86400' '$R'"
"$PACER" -t1 -c2 -d 1s --warmup 200ms --format h2load "$URL" >"$R" 2>&1
ok d_header_h2load "$(head -2 "$R")" \
    "grep -qx 'spawning thread #0: 2 total client(s). Timing-based test with 0.2s of warm-up time and 1s of main duration for measurements.' '$R'"
"$PACER" compare --rounds 1 -t1 -c1 -n 50 "$URL" "$URL" >"$R" 2>&1
ok n_header_compare "$(head -1 "$R")" "head -1 '$R' | grep -q '1 round of 50 requests closed loop' && ! grep -q '1440' '$R'"

# --- -n cut short by -d says so, and so does the JSON -----------------------
start_serve --delay 10ms
SLOW=$SERVE_URL
"$PACER" -t1 -c1 -n 1000 -d 300ms --json "$J" "$SLOW" >"$R" 2>&1
by=$(json_get "$J" "d['stopped_by']")
ok n_cut_by_d "stopped_by=$by: $(tail -3 "$R")" "
    grep -qE '^  Stopped by -d 300.00ms after [0-9]+ of 1000 requests \(-n\)\$' '$R' && [ '$by' = duration ]"
"$PACER" -t1 -c1 -n 1000 -d 300ms --format ab "$SLOW" >"$R" 2>&1
ok n_cut_by_d_ab "$(tail -2 "$R")" "grep -qE '^pacer: Stopped by -d 300.00ms after [0-9]+ of 1000 requests' '$R'"
"$PACER" -t1 -c1 -n 20 -d 5s --json "$J" "$SLOW" >"$R" 2>&1
by=$(json_get "$J" "d['stopped_by']")
ok n_completed_stopped_by_requests "stopped_by=$by" "[ '$by' = requests ] && ! grep -q 'Stopped by' '$R'"
"$PACER" -t1 -c1 -d 200ms --json "$J" "$SLOW" >"$R" 2>&1
by=$(json_get "$J" "d['stopped_by']")
ok d_stopped_by_duration "stopped_by=$by" "[ '$by' = duration ] && ! grep -q 'Stopped by' '$R'"

# --- closed loop: requests and duration describe the same period ------------
# 200 connections on a 50 ms server: each in-flight request at the stop is
# answered in the drain. Counted over -d alone the rate would be 200 / (1 s
# x 4000/s) = 5 % high; by Little's law it must equal c / mean latency.
start_serve --delay 50ms --threads 2
"$PACER" -t2 -c200 -d1s --json "$J" "$SERVE_URL" >"$R" 2>&1
read -r n dur lat < <(json_get "$J" "d['requests']['completed'], d['duration_s'], d['latency']['uncorrected']['mean']")
rps=$(field "$R" '^Requests/sec:')
# The period runs past -d by the drain (at most about one latency, plus the
# responses' own spread), the rate is requests over that period, and it is
# the steady one within the end effects (Little: 6 % at L/d = 5 %; counted
# over -d alone the rate would be 5 % high with a period of exactly 1 s).
ok closed_loop_period "completed $n in ${dur}s, Requests/sec $rps, mean latency ${lat}us" "
    fcmp '$dur' '>' 1.0 && fcmp '$dur' '<' 1.3 && awk -v n='$n' -v d='$dur' -v r='$rps' -v l='$lat' 'BEGIN {
        little = 200 / (l / 1e6); exit !((r / little - 1)^2 < 0.06^2 && (n / d / r - 1)^2 < 0.001^2) }'"

# --- Req/Sec of a run shorter than a sample: measured, never zeros ----------
"$PACER" -t1 -c1 -d 30ms --json "$J" "$URL" >"$R" 2>&1
row=$(grep '^    Req/Sec' "$R")
mx=$(json_get "$J" "d['thread_rate']['max']")
ok short_run_req_sec "$row (max $mx)" "! echo '$row' | grep -q '0.00 *0.00 *0.00' && [ '$mx' -gt 0 ]"

# --- connects have their own timeout; SYN retransmits are diagnosed --------
# nginx listens with backlog=2 and its worker is stopped for 0.6 s: connects
# past the accept queue lose their SYN and get in on the kernel's retransmit
# after 1 s. The request timeout (300 ms) must not cut them off.
W=$(nginx_worker)
kill -STOP "$W"
( sleep 0.6; kill -CONT "$W" ) &
"$PACER" -t1 -c8 -d300ms --timeout 300ms --json "$J" "http://127.0.0.1:$NGX_PORT/" >"$R" 2>&1
rc=$?
kill -CONT "$W" 2>/dev/null
rt=$(json_get "$J" "d['connections']['syn_retransmitted']")
ok connect_timeout_separate "exit $rc: $(grep -E 'Socket errors|Errors|Connects' "$R")" \
    "[ $rc -eq 0 ] && ! grep -q 'connect timed out' '$R' && [ \"\$(json_get '$J' \"d['errors']['connect']\")\" = 0 ]"
ok syn_retransmit_diagnosed "syn_retransmitted=$rt: $(grep Connects "$R")" "
    [ '${rt:-0}' -ge 1 ] && grep -qE '^  Connects: [0-9]+ of 8 needed a SYN retransmit, 0 timed out \(--connect-timeout 10.00s\): the server.s accept backlog overflowed .*connect time p50 .*, p99 .*, max [0-9.]+(ms|s)\$' '$R'"
kill -STOP "$W"
"$PACER" -t1 -c8 -d300ms --connect-timeout 400ms --json "$J" "http://127.0.0.1:$NGX_PORT/" >"$R" 2>&1
kill -CONT "$W"
cto=$(json_get "$J" "d['connections']['connect_timeouts']")
ok connect_timeout_flag "connect_timeouts=$cto: $(grep -E 'Errors|Connects' "$R")" \
    "[ '${cto:-0}' -ge 1 ] && grep -qE '^  Connects: .*[1-9][0-9]* timed out \(--connect-timeout 400.00ms\)' '$R'"

# --- a name whose first address refuses: a fallback, not a connect error ---
# (a fresh Debian's /etc/hosts has "::1 localhost" first; many servers listen
# on 127.0.0.1 only). Where localhost is not that, a private mount namespace
# gives a name two addresses.
P=${URL##*:}; P=${P%/}
fallback_check() {
    ok address_fallback_not_an_error "$(grep -E 'Socket|Errors|Address' "$R")" "
        ! grep -q 'Socket errors' '$R' && grep -q 'Status codes: 200' '$R' &&
        grep -qE '^  Address fallback: [1-9][0-9]* connects failed on one of the name.s addresses .*first: \\[::1\\]:$P: Connection refused\\)' '$R' &&
        [ \"\$(json_get '$J' \"d['connections']['address_fallbacks']\")\" -ge 1 ]"
}
printf '::1 multi.test\n127.0.0.1 multi.test\n' >"$T_DIR/hosts"
if [ "$(getent ahosts localhost | awk '{print $1}' | uniq | head -n2 | tr '\n' ' ')" = "::1 127.0.0.1 " ]; then
    "$PACER" -t1 -c2 -d300ms --json "$J" "http://localhost:$P/" >"$R" 2>&1
    fallback_check
elif ! need_cmd unshare util-linux || ! need_cmd mount mount; then
    :
elif unshare -m sh -c "mount --bind '$T_DIR/hosts' /etc/hosts" 2>/dev/null; then
    unshare -m sh -c "mount --bind '$T_DIR/hosts' /etc/hosts && exec '$PACER' -t1 -c2 -d300ms --json '$J' http://multi.test:$P/" >"$R" 2>&1
    fallback_check
else
    skip address_fallback_not_an_error "localhost is not ::1 then 127.0.0.1 here, and this platform allows no private mount namespace (unshare -m)"
fi

# --- usage: things that cannot be judged or do not exist -------------------
"$PACER" --slo 'rate>=99%' -d1s "$URL" >"$R" 2>"$R.err"
rc=$?
ok slo_rate_share_needs_R "exit $rc: $(cat "$R.err")" "[ $rc -eq 2 ] && grep -q 'needs -R' '$R.err' && [ ! -s '$R' ]"
"$PACER" --slo 'rate>=10' -t1 -c1 -d200ms "$URL" >"$R" 2>&1
ok slo_rate_absolute_without_R "exit $?" "grep -q 'PASS' '$R'"
"$PACER" --no-such-flag=3 "$URL" >"$R" 2>"$R.err"
rc=$?
ok unknown_long_with_value "exit $rc: $(cat "$R.err")" "[ $rc -eq 2 ] && grep -qx \"pacer: unknown option '--no-such-flag' (see pacer --help)\" '$R.err'"
"$PACER" --latency=yes "$URL" >"$R" 2>"$R.err"
ok known_flag_with_value "$(cat "$R.err")" "grep -qx \"pacer: option '--latency' takes no value\" '$R.err'"
"$PACER" help >"$R" 2>&1
ok help_word "exit $?" "grep -q '^Usage: pacer' '$R'"
"$PACER" --version >"$R" 2>&1
ok version_only "$(cat "$R")" "[ \$(wc -l <'$R') -eq 1 ] && grep -qE '^pacer [0-9]+\.[0-9]+\.[0-9]+ ' '$R'"

# --- the recorded command line keeps credentials out of result files -----
"$PACER" -t1 -c1 -d100ms -A user:s3cret -C sid=t0ken -H 'Authorization: Bearer k3y' -H 'X-Keep: v1' \
    --json "$J" "$URL" >/dev/null 2>&1
cmd=$(json_get "$J" "d['config']['cmdline']")
hdrs=$(json_get "$J" "d['config']['headers']")
ok cmdline_redacts_credentials "$cmd | $hdrs" "
    ! grep -qE 's3cret|t0ken|k3y' '$J' && echo '$cmd' | grep -q -- '-A REDACTED -C REDACTED' &&
    echo '$cmd' | grep -q 'X-Keep: v1' && echo '$hdrs' | grep -q 'Authorization: REDACTED'"

# --- -c 1 with the default two threads: one thread, said so ---------------
"$PACER" -c1 -d200ms "$URL" >"$R" 2>"$R.err"
rc=$?
ok c1_one_thread "exit $rc: $(head -2 "$R") $(cat "$R.err")" "
    [ $rc -eq 0 ] && grep -q '^  1 threads and 1 connections\$' '$R' &&
    grep -qx 'pacer: note: 1 connection: using 1 thread, not 2' '$R.err'"
finish
