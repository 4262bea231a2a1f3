#!/usr/bin/env bash
# Self-test of tests/tools/h1fault (the misbehaving HTTP/1.1 server): every
# mode against curl and raw sockets (Python), with the exact bytes checked
# where they are fixed. Every wait is bounded.
. "$(dirname "$0")/lib.sh"
need_cmd curl curl && need_cmd "$PY" python3 || finish

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SRC=$ROOT/tests/tools/h1fault.c
H1F=${BUILD_DIR:-$ROOT/build}/tools/h1fault
if [ ! -x "$H1F" ] || [ "$SRC" -nt "$H1F" ]; then
    H1F=$T_DIR/h1fault
    if ! gcc -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra "$SRC" -lssl -lcrypto -o "$H1F" \
        >"$T_DIR/build.log" 2>&1; then
        fail h1fault_build "$(tail -5 "$T_DIR/build.log")"
        finish
    fi
fi

# raw PORT REQUEST MAX_BYTES TIMEOUT_S OUTFILE: connect, send REQUEST (Python
# escapes such as \r\n are decoded), read until EOF, MAX_BYTES or the
# timeout; the bytes go to OUTFILE, and one word to stdout: eof, max,
# timeout or reset (the bytes read before a reset are kept).
cat >"$T_DIR/raw.py" <<'PY'
import codecs, socket, sys, time
port, req, maxb, tmo, path = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
req = codecs.escape_decode(req.encode())[0]
buf, status = bytearray(), "max"
end = time.monotonic() + tmo
try:
    s = socket.create_connection(("127.0.0.1", port), timeout=tmo)
    s.sendall(req)
    while len(buf) < maxb:
        left = end - time.monotonic()
        if left <= 0:
            status = "timeout"
            break
        s.settimeout(left)
        d = s.recv(min(65536, maxb - len(buf)))
        if not d:
            status = "eof"
            break
        buf += d
except socket.timeout:
    status = "timeout"
except (ConnectionResetError, BrokenPipeError):
    status = "reset"
open(path, "wb").write(buf)
print(status)
PY
raw() { "$PY" "$T_DIR/raw.py" "$@"; }

# expect FILE FORMAT [ARGS]: FILE holds exactly printf FORMAT ARGS.
expect() { local f=$1; shift; printf "$@" >"$f.want"; cmp -s "$f" "$f.want"; }
A100=$(head -c 100 /dev/zero | tr '\0' a)
A50=${A100:0:50}
HEAD100='HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n'
show() { head -c 300 "$1" | od -c | head -8 | tr '\n' ' '; }

H1F_N=0
# start_h1f ARGS...: h1fault --port 0 --stats FILE ARGS; sets H1F_PID,
# H1F_URL, H1F_PORT, H1F_OUT (prefix of its .out/.err/.stats files).
start_h1f() {
    local line=""
    H1F_N=$((H1F_N + 1))
    H1F_OUT=$T_DIR/h1f.$H1F_N
    "$H1F" --port 0 --stats "$H1F_OUT.stats" "$@" >"$H1F_OUT.out" 2>"$H1F_OUT.err" &
    H1F_PID=$!
    T_PIDS+=("$H1F_PID")
    for _ in $(seq 1 100); do
        line=$(head -n1 "$H1F_OUT.out" 2>/dev/null)
        [ -n "$line" ] && break
        kill -0 "$H1F_PID" 2>/dev/null || break
        sleep 0.05
    done
    H1F_URL=${line##* }
    H1F_PORT=${H1F_URL##*:}
    H1F_PORT=${H1F_PORT%/}
    [[ $line =~ ^h1fault:\ listening\ on\ https?://127\.0\.0\.1:[0-9]+/$ ]]
}
# stop_h1f: SIGTERM, bounded wait; sets H1F_RC (137 if it had to be killed).
# A server that did not exit 0 with just the stats line on stderr is noted
# in H1F_BAD.
H1F_BAD=""
stop_h1f() {
    kill -TERM "$H1F_PID" 2>/dev/null
    for _ in $(seq 1 100); do kill -0 "$H1F_PID" 2>/dev/null || break; sleep 0.05; done
    kill -9 "$H1F_PID" 2>/dev/null
    wait "$H1F_PID" 2>/dev/null
    H1F_RC=$?
    if [ $H1F_RC -ne 0 ] || ! [[ $(cat "$H1F_OUT.err") =~ ^h1fault:\ requests=[0-9]+\ connections=[0-9]+$ ]]; then
        H1F_BAD+="[$(sed -n 1p "$H1F_OUT.out"): rc $H1F_RC, $(head -c 300 "$H1F_OUT.err")] "
    fi
}
# stats_is TEXT: the --stats file says TEXT within 2 s.
stats_is() {
    for _ in $(seq 1 40); do
        [ "$(cat "$H1F_OUT.stats" 2>/dev/null)" = "$1" ] && return 0
        sleep 0.05
    done
    return 1
}
# cu ARGS...: curl -s -m 3 -o $T_DIR/body -D $T_DIR/hdr; sets CU_RC and CU
# (the -w output: "code size time_total" unless -w is given).
cu() {
    CU=$(curl -s -m 3 -o "$T_DIR/body" -D "$T_DIR/hdr" -w '%{http_code} %{size_download} %{time_total}' "$@")
    CU_RC=$?
}
start_or_fail() { # NAME ARGS...
    local name=$1; shift
    start_h1f "$@" && return 0
    fail "${name}_start" "$(cat "$H1F_OUT.out" "$H1F_OUT.err" 2>/dev/null | head -5)"
    return 1
}

# --- arguments ---------------------------------------------------------------
timeout 5 "$H1F" --port 0 --mode bogus >/dev/null 2>&1
rc1=$?
timeout 5 "$H1F" --port 0 >/dev/null 2>&1
rc2=$?
ok bad_args "unknown mode -> $rc1, no mode -> $rc2 (want 2)" "[ $rc1 -eq 2 ] && [ $rc2 -eq 2 ]"

# --- ok --------------------------------------------------------------------------
if start_or_fail ok --mode ok; then
    pass ok_listening_line
    ok ok_stats_at_start "$(cat "$H1F_OUT.stats" 2>&1)" stats_is "requests=0 connections=0"
    cu "$H1F_URL"
    ok ok_200 "rc $CU_RC, $CU" "[ $CU_RC -eq 0 ] && [ '${CU% *}' = '200 100' ] && [ \"\$(cat '$T_DIR/body')\" = '$A100' ]"
    ok ok_headers "$(cat "$T_DIR/hdr")" "grep -q '^Content-Type: text/plain' '$T_DIR/hdr' && grep -q '^Content-Length: 100' '$T_DIR/hdr'"
    curl -sv -m 3 -o /dev/null -o /dev/null "$H1F_URL" "$H1F_URL" 2>"$T_DIR/v"
    rc=$?
    ok ok_keepalive "rc $rc: $(grep -i connect "$T_DIR/v" | head -5)" "[ $rc -eq 0 ] && grep -q 'Re-using existing connection' '$T_DIR/v'"
    ok ok_stats_keepalive "$(cat "$H1F_OUT.stats")" stats_is "requests=3 connections=2"

    # pipelining: three requests in one write; the last asks for close
    st=$(raw "$H1F_PORT" 'GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\nGET /3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' 100000 3 "$T_DIR/r")
    ok ok_pipelining "$st: $(show "$T_DIR/r")" "[ $st = eof ] && expect '$T_DIR/r' '$HEAD100\r\n$A100$HEAD100\r\n$A100${HEAD100}Connection: close\r\n\r\n$A100'"
    # a flood of pipelined requests (more than the 64 KiB input buffer)
    "$PY" - "$H1F_PORT" >"$T_DIR/flood" 2>&1 <<'PY'
import socket, sys, threading
n = 3000
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
reqs = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" * (n - 1) + b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n"
threading.Thread(target=s.sendall, args=(reqs,), daemon=True).start()
buf = bytearray()
while True:
    d = s.recv(1 << 16)
    if not d:
        break
    buf += d
print(buf.count(b"HTTP/1.1 200 OK\r\n"), len(buf))
PY
    ok ok_pipeline_flood "$(tail -3 "$T_DIR/flood")" "[ \"\$(cat '$T_DIR/flood')\" = '3000 498019' ]"
    # HEAD: no body, and the connection stays usable
    st=$(raw "$H1F_PORT" 'HEAD / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' 100000 3 "$T_DIR/r")
    ok ok_head "$st: $(show "$T_DIR/r")" "[ $st = eof ] && expect '$T_DIR/r' '$HEAD100\r\n${HEAD100}Connection: close\r\n\r\n$A100'"
    # HTTP/1.0: Connection: close and FIN; with keep-alive it stays open
    st=$(raw "$H1F_PORT" 'GET / HTTP/1.0\r\n\r\n' 100000 3 "$T_DIR/r")
    ok ok_http10_client "$st: $(show "$T_DIR/r")" "[ $st = eof ] && expect '$T_DIR/r' '${HEAD100}Connection: close\r\n\r\n$A100'"
    st=$(raw "$H1F_PORT" 'GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n' 100000 0.5 "$T_DIR/r")
    ok ok_http10_keepalive "$st: $(show "$T_DIR/r")" "[ $st = timeout ] && expect '$T_DIR/r' '${HEAD100}Connection: keep-alive\r\n\r\n$A100'"
    # request bodies are read and discarded; Expect: 100-continue is honoured
    head -c 5000 /dev/zero >"$T_DIR/post"
    cu --data-binary @"$T_DIR/post" "$H1F_URL"
    ok ok_post_body "rc $CU_RC, $CU" "[ $CU_RC -eq 0 ] && [ '${CU% *}' = '200 100' ]"
    cu -H 'Expect: 100-continue' --data-binary @"$T_DIR/post" "$H1F_URL"
    ok ok_expect_100 "rc $CU_RC, $CU (curl waits 1 s without a 100)" "[ $CU_RC -eq 0 ] && [ '${CU% *}' = '200 100' ] && fcmp '${CU##* }' '<' 0.8"
    # bad requests
    st=$(raw "$H1F_PORT" 'garbage\r\n\r\n' 100000 3 "$T_DIR/r")
    ok ok_bad_request "$st: $(show "$T_DIR/r")" "[ $st = eof ] && expect '$T_DIR/r' 'HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'"
    st=$(raw "$H1F_PORT" "GET / HTTP/1.1\\r\\nX-Big: $(head -c 70000 /dev/zero | tr '\0' b)\\r\\n\\r\\n" 100000 3 "$T_DIR/r")
    ok ok_head_too_big "$st: $(show "$T_DIR/r")" "[ $st = eof ] && head -c 40 '$T_DIR/r' | grep -q '^HTTP/1.1 431 '"
    st=$(raw "$H1F_PORT" 'POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n' 100000 3 "$T_DIR/r")
    ok ok_chunked_request_refused "$st: $(show "$T_DIR/r")" "[ $st = eof ] && head -c 40 '$T_DIR/r' | grep -q '^HTTP/1.1 501 '"
    # rude clients: connect and go, half a head then go, a reset mid-body
    "$PY" - "$H1F_PORT" <<'PY'
import socket, struct, sys
p = int(sys.argv[1])
for req in (b"", b"GET / HTTP/1.1\r\nHost:", b"POST / HTTP/1.1\r\nContent-Length: 100000\r\n\r\nabc"):
    s = socket.create_connection(("127.0.0.1", p), timeout=2)
    s.sendall(req)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()
PY
    # many connections at once, each with one request
    "$PY" - "$H1F_PORT" >"$T_DIR/many" 2>&1 <<'PY'
import socket, sys, time
p, n = int(sys.argv[1]), 500
ss = [socket.create_connection(("127.0.0.1", p), timeout=5) for _ in range(n)]
for s in ss:
    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
good = 0
for s in ss:
    buf = b""
    while len(buf) < 166:
        d = s.recv(4096)
        if not d:
            break
        buf += d
    good += buf.startswith(b"HTTP/1.1 200 OK\r\n") and len(buf) == 166
print(good)
PY
    ok ok_500_connections "$(tail -3 "$T_DIR/many")" "[ \"\$(cat '$T_DIR/many')\" = 500 ]"
    cu "$H1F_URL"
    ok ok_alive_after_abuse "rc $CU_RC, $CU" "[ $CU_RC -eq 0 ] && [ '${CU% *}' = '200 100' ]"
    stop_h1f
    line=$(tail -n1 "$H1F_OUT.err")
    ok ok_exit "rc $H1F_RC, stderr: $(cat "$H1F_OUT.err")" "[ $H1F_RC -eq 0 ] && [[ '$line' =~ ^h1fault:\ requests=[0-9]+\ connections=[0-9]+\$ ]]"
    ok ok_stats_at_exit "stats '$(cat "$H1F_OUT.stats")', stderr '$line'" "[ 'h1fault: '\"\$(cat '$H1F_OUT.stats')\" = '$line' ]"
fi

# --- stall ---------------------------------------------------------------------
if start_or_fail stall --mode stall --every 2 --delay 500; then
    t=$(curl -s -m 3 -o /dev/null -o /dev/null -w '%{time_total}\n' "$H1F_URL" "$H1F_URL")
    rc=$?
    t1=$(echo "$t" | sed -n 1p) t2=$(echo "$t" | sed -n 2p)
    ok stall_every_2 "rc $rc, times $t1 $t2" "[ $rc -eq 0 ] && fcmp '$t1' '<' 0.4 && fcmp '$t2' '>=' 0.45"
    stop_h1f
fi
if start_or_fail stall_others --mode stall --every 2 --delay 1500; then
    curl -s -m 3 -o /dev/null "$H1F_URL"
    curl -s -m 3 -o /dev/null -w '%{time_total}' "$H1F_URL" >"$T_DIR/bg" &
    bg=$!
    stats_is "requests=2 connections=2"
    cu "$H1F_URL"
    kill -0 $bg 2>/dev/null
    alive=$?
    wait $bg
    ok stall_others_served "rc $CU_RC, $CU while the stalled one ran ($alive), which took $(cat "$T_DIR/bg")" \
        "[ $CU_RC -eq 0 ] && [ $alive -eq 0 ] && fcmp '${CU##* }' '<' 0.5 && fcmp '$(cat "$T_DIR/bg")' '>=' 1.5"
    stop_h1f
fi

# --- slow-body -------------------------------------------------------------------
if start_or_fail slow_body --mode slow-body --size 5 --delay 100; then
    cu -w '%{http_code} %{size_download} %{time_starttransfer} %{time_total}' "$H1F_URL"
    read -r code size ttfb total <<<"$CU"
    ok slow_body "rc $CU_RC, $CU" "[ $CU_RC -eq 0 ] && [ '$code $size' = '200 5' ] && fcmp '$total' '>=' 0.4"
    stop_h1f
fi
if start_or_fail slow_body_head --mode slow-body --size 1 --delay 600; then
    cu -w '%{http_code} %{size_download} %{time_starttransfer} %{time_total}' "$H1F_URL"
    read -r code size ttfb total <<<"$CU"
    ok slow_body_head_at_once "rc $CU_RC, $CU" "[ $CU_RC -eq 0 ] && [ '$code $size' = '200 1' ] && fcmp '$ttfb' '<' 0.4 && fcmp '$total' '>=' 0.6"
    stop_h1f
fi

# --- reset-after-headers -----------------------------------------------------------
if start_or_fail reset --mode reset-after-headers; then
    cu "$H1F_URL"
    ok reset_curl_56 "rc $CU_RC, $CU, $(head -1 "$T_DIR/hdr")" "[ $CU_RC -eq 56 ] && head -1 '$T_DIR/hdr' | grep -q '^HTTP/1.1 200 OK'"
    st=$(raw "$H1F_PORT" 'GET / HTTP/1.1\r\nHost: x\r\n\r\n' 100000 3 "$T_DIR/r")
    ok reset_raw "$st: $(show "$T_DIR/r")" "[ $st = reset ] && expect '$T_DIR/r' '$HEAD100\r\n'"
    stop_h1f
fi

# --- close-mid-body ------------------------------------------------------------------
if start_or_fail close_mid --mode close-mid-body; then
    cu "$H1F_URL"
    ok close_mid_curl_18 "rc $CU_RC, $CU" "[ $CU_RC -eq 18 ] && [ '${CU% *}' = '200 50' ]"
    st=$(raw "$H1F_PORT" 'GET / HTTP/1.1\r\nHost: x\r\n\r\n' 100000 3 "$T_DIR/r")
    ok close_mid_raw "$st: $(show "$T_DIR/r")" "[ $st = eof ] && expect '$T_DIR/r' '$HEAD100\r\n$A50'"
    stop_h1f
fi

# --- garbage-status --------------------------------------------------------------------
if start_or_fail garbage --mode garbage-status; then
    cu "$H1F_URL"
    ok garbage_curl "rc $CU_RC (want 1 or 8)" "[ $CU_RC -eq 1 ] || [ $CU_RC -eq 8 ]"
    st=$(raw "$H1F_PORT" 'GET / HTTP/1.1\r\nHost: x\r\n\r\n' 100000 3 "$T_DIR/r")
    ok garbage_raw "$st: $(show "$T_DIR/r")" "[ $st = eof ] && expect '$T_DIR/r' 'HTTX/9.9 abc nonsense\r\n\r\n'"
    stop_h1f
fi

# --- huge-headers ------------------------------------------------------------------------
if start_or_fail huge --mode huge-headers; then
    cu "$H1F_URL"
    ok huge_curl_fails "rc $CU_RC, $CU" "[ $CU_RC -ne 0 ] && [ $CU_RC -ne 28 ]"
    st=$(raw "$H1F_PORT" 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' 1153434 5 "$T_DIR/r")
    "$PY" - "$T_DIR/r" >"$T_DIR/huge" 2>&1 <<'PY'
import sys
want = (b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\nConnection: close\r\n"
        + (b"X-Pad: " + b"a" * 1015 + b"\r\n") * 1024 + b"\r\n" + b"a" * 100)
got = open(sys.argv[1], "rb").read()
print("ok" if got == want else "got %d bytes, head end at %d" % (len(got), got.find(b"\r\n\r\n")))
PY
    ok huge_raw "$st: $(cat "$T_DIR/huge")" "[ $st = eof ] && [ \"\$(cat '$T_DIR/huge')\" = ok ]"
    stop_h1f
fi

# --- endless-chunked -------------------------------------------------------------------------
if start_or_fail endless --mode endless-chunked; then
    CU=$(curl -s -m 1 -o "$T_DIR/body" -w '%{http_code} %{size_download}' "$H1F_URL")
    rc=$?
    ok endless_curl_28 "rc $rc, $CU" "[ $rc -eq 28 ] && [ \"\${CU#* }\" -gt 0 ]"
    st=$(raw "$H1F_PORT" 'GET / HTTP/1.1\r\nHost: x\r\n\r\n' 391 2 "$T_DIR/r")
    ok endless_raw "$st: $(show "$T_DIR/r")" \
        "[ $st = max ] && expect '$T_DIR/r' 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n64\r\n$A100\r\n64\r\n$A100\r\n64\r\n$A100\r\n'"
    stop_h1f
fi
# --delay 0 against a client that reads nothing: bounded memory, no spinning
if start_or_fail endless_fast --mode endless-chunked --delay 0 --size 8192; then
    raw "$H1F_PORT" 'GET / HTTP/1.1\r\nHost: x\r\n\r\n' 1 3 "$T_DIR/r1" >/dev/null &
    r1=$!
    "$PY" -c '
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
time.sleep(2.5)' "$H1F_PORT" &
    r2=$!
    sleep 1
    ticks() { awk '{print $14 + $15}' "/proc/$H1F_PID/stat"; }
    t0=$(ticks)
    sleep 1
    t1=$(ticks)
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/$H1F_PID/status")
    ok endless_bounded "RSS ${rss} kB, CPU ticks in 1 s: $((t1 - t0))" "[ '$rss' -lt 65536 ] && [ $((t1 - t0)) -le 20 ]"
    cu -m 1 "$H1F_URL"
    ok endless_fast_streams "rc $CU_RC, $CU" "[ $CU_RC -eq 28 ] && [ \"\$(echo '$CU' | cut -d' ' -f2)\" -gt 100000 ]"
    wait $r1 $r2
    stop_h1f
fi

# --- bad-chunk ---------------------------------------------------------------------------------
if start_or_fail bad_chunk --mode bad-chunk; then
    cu "$H1F_URL"
    ok bad_chunk_curl_56 "rc $CU_RC, $CU" "[ $CU_RC -eq 56 ] && fcmp '${CU##* }' '<' 2"
    st=$(raw "$H1F_PORT" 'GET / HTTP/1.1\r\nHost: x\r\n\r\n' 100000 0.5 "$T_DIR/r")
    ok bad_chunk_raw "$st: $(show "$T_DIR/r")" \
        "[ $st = timeout ] && expect '$T_DIR/r' 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'"
    stop_h1f
fi

# --- cl-long -------------------------------------------------------------------------------------
if start_or_fail cl_long --mode cl-long; then
    CU=$(curl -s -m 1 -o "$T_DIR/body" -w '%{http_code} %{size_download}' "$H1F_URL")
    rc=$?
    ok cl_long_curl_28 "rc $rc, $CU" "[ $rc -eq 28 ] && [ '$CU' = '200 100' ]"
    st=$(raw "$H1F_PORT" 'GET / HTTP/1.1\r\nHost: x\r\n\r\n' 100000 0.5 "$T_DIR/r")
    ok cl_long_raw "$st: $(show "$T_DIR/r")" \
        "[ $st = timeout ] && expect '$T_DIR/r' 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 200\r\n\r\n$A100'"
    stop_h1f
fi

# --- cl-short --------------------------------------------------------------------------------------
if start_or_fail cl_short --mode cl-short; then
    cu "$H1F_URL"
    ok cl_short_curl "rc $CU_RC, $CU" "[ '${CU% *}' = '200 50' ] && [ \"\$(cat '$T_DIR/body')\" = '$A50' ]"
    st=$(raw "$H1F_PORT" 'GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' 100000 3 "$T_DIR/r")
    H50='HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 50\r\n'
    ok cl_short_raw "$st: $(show "$T_DIR/r")" "[ $st = eof ] && expect '$T_DIR/r' '$H50\r\n$A100${H50}Connection: close\r\n\r\n$A100'"
    stop_h1f
fi

# --- chunked-cl: Transfer-Encoding: chunked and Content-Length, kept open --------------------------
if start_or_fail chunked_cl --mode chunked-cl; then
    cu "$H1F_URL"
    ok chunked_cl_curl "rc $CU_RC, $CU" "[ '${CU% *}' = '200 100' ] && [ \"\$(cat '$T_DIR/body')\" = '$A100' ]"
    st=$(raw "$H1F_PORT" 'GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' 100000 3 "$T_DIR/r")
    HC='HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nContent-Length: 50\r\n'
    ok chunked_cl_raw "$st: $(show "$T_DIR/r")" \
        "[ $st = eof ] && expect '$T_DIR/r' '$HC\r\n64\r\n$A100\r\n0\r\n\r\n${HC}Connection: close\r\n\r\n64\r\n$A100\r\n0\r\n\r\n'"
    stop_h1f
fi

# --- http10-close ------------------------------------------------------------------------------------
if start_or_fail http10 --mode http10-close; then
    cu -w '%{http_code} %{size_download} %{http_version}' "$H1F_URL"
    ok http10_curl "rc $CU_RC, $CU" "[ $CU_RC -eq 0 ] && { [ '$CU' = '200 100 1' ] || [ '$CU' = '200 100 1.0' ]; }"
    st=$(raw "$H1F_PORT" 'GET / HTTP/1.1\r\nHost: x\r\n\r\n' 100000 3 "$T_DIR/r")
    ok http10_raw "$st: $(show "$T_DIR/r")" "[ $st = eof ] && expect '$T_DIR/r' 'HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n$A100'"
    stop_h1f
fi

# --- conn-close ----------------------------------------------------------------------------------------
if start_or_fail conn_close --mode conn-close; then
    curl -s -m 3 -o /dev/null -o /dev/null -D "$T_DIR/hdr" "$H1F_URL" "$H1F_URL"
    rc=$?
    ok conn_close_curl "rc $rc, $(tr -d '\r' <"$T_DIR/hdr" | tr '\n' '|')" \
        "[ $rc -eq 0 ] && [ \"\$(grep -c '^Connection: close' '$T_DIR/hdr')\" = 2 ] && stats_is 'requests=2 connections=2'"
    st=$(raw "$H1F_PORT" 'GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n' 100000 3 "$T_DIR/r")
    ok conn_close_raw "$st: $(show "$T_DIR/r")" "[ $st = eof ] && expect '$T_DIR/r' '${HEAD100}Connection: close\r\n\r\n$A100'"
    stop_h1f
fi

# --- continue ----------------------------------------------------------------------------------------------
if start_or_fail continue --mode continue; then
    cu "$H1F_URL"
    ok continue_curl "rc $CU_RC, $CU" "[ $CU_RC -eq 0 ] && [ '${CU% *}' = '200 100' ]"
    st=$(raw "$H1F_PORT" 'GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' 100000 3 "$T_DIR/r")
    ok continue_raw "$st: $(show "$T_DIR/r")" \
        "[ $st = eof ] && expect '$T_DIR/r' 'HTTP/1.1 100 Continue\r\n\r\n$HEAD100\r\n${A100}HTTP/1.1 100 Continue\r\n\r\n${HEAD100}Connection: close\r\n\r\n$A100'"
    stop_h1f
fi

# --- tls-fail ------------------------------------------------------------------------------------------------
if start_or_fail tls_fail --mode tls-fail; then
    ok tls_fail_https_line "$H1F_URL" "[[ '$H1F_URL' == https://* ]]"
    cu -k "$H1F_URL"
    ok tls_fail_curl_35 "rc $CU_RC, $CU" "[ $CU_RC -eq 35 ]"
    st=$(raw "$H1F_PORT" '\x16\x03\x01\x00\x05hello' 100000 3 "$T_DIR/r")
    ok tls_fail_raw "$st: $(show "$T_DIR/r")" "[ $st = eof ] && expect '$T_DIR/r' 'h1fault: this is not a TLS ServerHello\r\n'"
    stop_h1f
fi
if start_or_fail tls_fail_every --mode tls-fail --every 2; then
    cu -k "$H1F_URL"
    a="$CU_RC $CU"
    cu -k "$H1F_URL"
    ok tls_fail_every_2 "1st: $a, 2nd: rc $CU_RC" "[ '${a% *}' = '0 200 100' ] && [ $CU_RC -eq 35 ]"
    stop_h1f
fi

# --- tls-ok (and --tls with another mode) ------------------------------------------------------------------------
if start_or_fail tls_ok --mode tls-ok; then
    ok tls_ok_https_line "$H1F_URL" "[[ '$H1F_URL' == https://* ]]"
    curl -skv -m 3 -o "$T_DIR/body" -o /dev/null "$H1F_URL" "$H1F_URL" 2>"$T_DIR/v"
    rc=$?
    ok tls_ok_curl "rc $rc: $(grep -iE 'ALPN|subject|Re-using|HTTP/1.1 ' "$T_DIR/v" | head -8 | tr '\n' '|')" \
        "[ $rc -eq 0 ] && [ \"\$(cat '$T_DIR/body')\" = '$A100' ] && grep -q 'ALPN: server accepted http/1.1' '$T_DIR/v' &&
         grep -q 'CN=localhost' '$T_DIR/v' && grep -q 'Re-using existing connection' '$T_DIR/v'"
    ok tls_ok_stats "$(cat "$H1F_OUT.stats")" stats_is "requests=2 connections=1"
    stop_h1f
    ok tls_ok_exit "rc $H1F_RC" "[ $H1F_RC -eq 0 ]"
fi
if start_or_fail tls_mid_body --mode close-mid-body --tls; then
    cu -k "$H1F_URL"
    ok tls_close_mid_body "rc $CU_RC, $CU" "[ $CU_RC -eq 18 ] && [ '${CU% *}' = '200 50' ]"
    stop_h1f
fi

ok all_servers_exited_cleanly "$H1F_BAD" '[ -z "$H1F_BAD" ]'
finish
