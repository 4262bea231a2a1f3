#!/usr/bin/env bash
# test_h2fault_selftest.sh - self-test of the h2fault test server
# (tests/tools/h2fault.c): start it in each mode on a port it picks itself,
# drive it with h2load, nghttp and python3 and check what the clients saw and
# the stats line it prints at exit.
#
# Uses $BUILD_DIR/tools/h2fault or build/tools/h2fault when it is at least as
# new as its source, else builds the file standalone into $T_DIR. Prints
# "PASS name" / "FAIL name: why" lines; exits 1 on failure.
. "$(dirname "$0")/lib.sh"
export LC_ALL=C
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SRC=$ROOT/tests/tools/h2fault.c

H2FAULT=
for b in "${BUILD_DIR:-$ROOT/build}/tools/h2fault" "$ROOT/build/tools/h2fault"; do
    if [ -x "$b" ] && ! [ "$SRC" -nt "$b" ]; then H2FAULT=$b; break; fi
done
if [ -z "$H2FAULT" ]; then
    H2FAULT=$T_DIR/h2fault
    if ! gcc -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
        "$SRC" -lnghttp2 -o "$H2FAULT" >"$T_DIR/build.log" 2>&1; then
        fail build "standalone build of h2fault.c failed: $(head -c 500 "$T_DIR/build.log")"
        finish
    fi
fi
need_cmd h2load nghttp2-client && need_cmd nghttp nghttp2-client && need_cmd "$PY" python3 || finish

# start_hf NAME ARGS...: start h2fault --port 0 --stats $T_DIR/NAME.stats ARGS
# and wait (5 s at most) for its first stdout line. Sets HF_PID, HF_URL.
start_hf() {
    local name=$1 line=""
    shift
    "$H2FAULT" --port 0 --stats "$T_DIR/$name.stats" "$@" >"$T_DIR/$name.out" 2>"$T_DIR/$name.err" &
    HF_PID=$!
    T_PIDS+=("$HF_PID")
    for _ in $(seq 1 100); do
        line=$(head -n1 "$T_DIR/$name.out" 2>/dev/null)
        [ -n "$line" ] && break
        kill -0 "$HF_PID" 2>/dev/null || break
        sleep 0.05
    done
    HF_URL=${line##* }
    [[ $line =~ ^h2fault:\ listening\ on\ http://127\.0\.0\.1:[0-9]+/$ ]]
}

# stop_hf NAME [SIGNAL]: signal it (TERM), wait (5 s at most); true if it
# exited 0 and printed one well-formed stats line to stderr.
stop_hf() {
    local name=$1 sig=${2:-TERM} rc
    kill -"$sig" "$HF_PID" 2>/dev/null
    for _ in $(seq 1 100); do kill -0 "$HF_PID" 2>/dev/null || break; sleep 0.05; done
    kill -0 "$HF_PID" 2>/dev/null && { kill -9 "$HF_PID"; wait "$HF_PID" 2>/dev/null; return 1; }
    wait "$HF_PID"
    rc=$?
    [ "$rc" -eq 0 ] && [ "$(grep -cE "$STATS_RE" "$T_DIR/$name.err")" -eq 1 ]
}
STATS_RE='^h2fault: requests=[0-9]+ connections=[0-9]+ max_concurrent=[0-9]+ violations=[0-9]+ goaways=[0-9]+ rsts=[0-9]+ refused=[0-9]+$'

# st NAME KEY: KEY's value in the final stats line (stderr).
st() { grep -E "$STATS_RE" "$T_DIR/$1.err" | grep -oE " $2=[0-9]+" | cut -d= -f2; }
# live NAME KEY: KEY's value in the --stats file (while it runs).
live() { grep -oE " $2=[0-9]+" "$T_DIR/$1.stats" 2>/dev/null | cut -d= -f2; }
# h2n FILE WORD: the number before WORD on h2load's "requests:" line.
h2n() { grep -m1 '^requests:' "$1" | grep -oE "[0-9]+ $2" | cut -d' ' -f1; }
h2() { local out=$1; shift; timeout 30 h2load "$@" >"$out" 2>&1; }
# stats_file_final NAME: the --stats file holds the same line as stderr.
stats_file_final() { [ "$(cat "$T_DIR/$1.stats")" = "$(grep -E "$STATS_RE" "$T_DIR/$1.err")" ]; }

# ---- ok ----
if start_hf ok; then
    pass ok.start
    h2 "$T_DIR/ok.h2" -c2 -m5 -n100 "$HF_URL"
    ok ok.h2load "h2load: $(grep '^requests:' "$T_DIR/ok.h2")" '[ "$(h2n "$T_DIR/ok.h2" succeeded)" = 100 ]'
    ok ok.body "expected 100 x 100 body bytes: $(grep '^traffic:' "$T_DIR/ok.h2")" \
        'grep -q "^traffic:.* (10000) data" "$T_DIR/ok.h2"'
    for _ in $(seq 1 40); do [ "$(live ok requests)" = 100 ] && break; sleep 0.05; done
    ok ok.stats_file_live "stats file: $(cat "$T_DIR/ok.stats" 2>/dev/null)" '[ "$(live ok requests)" = 100 ]'
    timeout 10 nghttp -v "${HF_URL}some/path?q=1" >"$T_DIR/ok.nghttp" 2>&1
    ok ok.nghttp "nghttp: $(tail -n 3 "$T_DIR/ok.nghttp")" \
        'grep -q ":status: 200" "$T_DIR/ok.nghttp" && grep -q "content-length: 100" "$T_DIR/ok.nghttp" && grep -q "recv DATA frame <length=100, flags=0x01" "$T_DIR/ok.nghttp"'
    ok ok.exit "no clean exit / stats line: $(cat "$T_DIR/ok.err")" stop_hf ok
    # h2load's 100 requests on 2 connections, then nghttp's 1 on a third
    ok ok.stats "$(cat "$T_DIR/ok.err")" \
        '[ "$(st ok requests)" = 101 ] && [ "$(st ok connections)" = 3 ] &&
         [ "$(st ok max_concurrent)" -ge 2 ] && [ "$(st ok max_concurrent)" -le 5 ] &&
         [ "$(st ok violations)" = 0 ] && [ "$(st ok goaways)" = 0 ] && [ "$(st ok rsts)" = 0 ] &&
         [ "$(st ok refused)" = 0 ]'
    ok ok.stats_file_final "file: $(cat "$T_DIR/ok.stats"); stderr: $(cat "$T_DIR/ok.err")" stats_file_final ok
else
    fail ok.start "no listening line: $(cat "$T_DIR/ok.out" "$T_DIR/ok.err")"
fi

# ---- max1 (SIGINT ends it) ----
if start_hf max1 --mode max1; then
    h2 "$T_DIR/max1.h2" -c1 -m10 -n50 "$HF_URL"
    ok max1.h2load "h2load: $(grep '^requests:' "$T_DIR/max1.h2")" '[ "$(h2n "$T_DIR/max1.h2" succeeded)" -ge 1 ]'
    # A client that ignores the limit: ACKs our SETTINGS, then opens 3 streams.
    port=${HF_URL##*:}
    "$PY" - "${port%/}" >"$T_DIR/max1.py" 2>&1 <<'EOF'
import socket, sys, time
port = int(sys.argv[1])
def frame(t, f, sid, p): return len(p).to_bytes(3, "big") + bytes([t, f]) + sid.to_bytes(4, "big") + p
req = bytes([0x82, 0x86, 0x84, 0x41, 0x01, ord("a")])  # GET http / authority a
s = socket.create_connection(("127.0.0.1", port), timeout=3)
s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4, 0, 0, b""))
s.recv(1000)  # the server's SETTINGS
s.sendall(frame(4, 1, 0, b""))  # ACK them
time.sleep(0.2)
s.sendall(frame(1, 5, 1, req) + frame(1, 5, 3, req) + frame(1, 5, 5, req))
time.sleep(0.3)
print("sent")
EOF
    for _ in $(seq 1 40); do [ "$(live max1 violations)" = 1 ] && break; sleep 0.05; done
    ok max1.violation_counted "stats file: $(cat "$T_DIR/max1.stats"); client: $(cat "$T_DIR/max1.py")" \
        '[ "$(live max1 violations)" = 1 ]'
    ok max1.exit "no clean exit on SIGINT: $(cat "$T_DIR/max1.err")" stop_hf max1 INT
    ok max1.stats "$(cat "$T_DIR/max1.err")" \
        '[ "$(st max1 max_concurrent)" = 1 ] && [ "$(st max1 violations)" = 1 ] && [ "$(st max1 goaways)" = 1 ]'
else
    fail max1.start "no listening line: $(cat "$T_DIR/max1.err")"
fi

# ---- rst: every 3rd request (counted over all connections) ----
if start_hf rst --mode rst; then
    h2 "$T_DIR/rst.h2" -c1 -m4 -n30 "$HF_URL"
    ok rst.h2load "h2load: $(grep '^requests:' "$T_DIR/rst.h2")" \
        '[ "$(h2n "$T_DIR/rst.h2" errored)" = 10 ] && [ "$(h2n "$T_DIR/rst.h2" succeeded)" = 20 ]'
    ok rst.exit "$(cat "$T_DIR/rst.err")" stop_hf rst
    ok rst.stats "$(cat "$T_DIR/rst.err")" '[ "$(st rst rsts)" = 10 ] && [ "$(st rst refused)" = 0 ] && [ "$(st rst requests)" = 30 ]'
else
    fail rst.start "no listening line: $(cat "$T_DIR/rst.err")"
fi

# ---- refuse: every 5th request ----
if start_hf refuse --mode refuse --every 5; then
    h2 "$T_DIR/refuse.h2" -c1 -m4 -n30 "$HF_URL"
    ok refuse.h2load "h2load: $(grep '^requests:' "$T_DIR/refuse.h2")" \
        '[ "$(h2n "$T_DIR/refuse.h2" succeeded)" = 24 ]'
    ok refuse.exit "$(cat "$T_DIR/refuse.err")" stop_hf refuse
    ok refuse.stats "$(cat "$T_DIR/refuse.err")" '[ "$(st refuse refused)" = 6 ] && [ "$(st refuse rsts)" = 0 ]'
else
    fail refuse.start "no listening line: $(cat "$T_DIR/refuse.err")"
fi

# ---- goaway after 10 requests per connection ----
if start_hf goaway --mode goaway; then
    h2 "$T_DIR/goaway.h2" -c1 -m4 -n30 "$HF_URL"
    ok goaway.h2load "h2load: $(grep '^requests:' "$T_DIR/goaway.h2")" \
        '[ "$(h2n "$T_DIR/goaway.h2" succeeded)" -ge 10 ] && [ "$(h2n "$T_DIR/goaway.h2" succeeded)" -lt 30 ]'
    timeout 10 nghttp -nv -m 12 "$HF_URL" >"$T_DIR/goaway.nghttp" 2>&1
    ok goaway.frame "nghttp: $(grep -A1 GOAWAY "$T_DIR/goaway.nghttp")" \
        'grep -q "last_stream_id=[0-9]*, error_code=NO_ERROR" "$T_DIR/goaway.nghttp" &&
         [ "$(grep -c "recv DATA frame <length=100, flags=0x01" "$T_DIR/goaway.nghttp")" = 10 ]'
    ok goaway.exit "$(cat "$T_DIR/goaway.err")" stop_hf goaway
    ok goaway.stats "$(cat "$T_DIR/goaway.err")" '[ "$(st goaway goaways)" -ge 1 ]'
else
    fail goaway.start "no listening line: $(cat "$T_DIR/goaway.err")"
fi

# ---- stall: 200 ms before each response ----
if start_hf stall --mode stall --delay 200; then
    t0=$(date +%s%N)
    h2 "$T_DIR/stall.h2" -c1 -m1 -n2 "$HF_URL"
    t1=$(date +%s%N)
    min=$(awk '/^time for request:/ { print $4; exit }' "$T_DIR/stall.h2")
    ok stall.delay "h2load: $(grep -E '^(requests|time for request):' "$T_DIR/stall.h2"); wall $(((t1 - t0) / 1000000)) ms" \
        '[ "$(h2n "$T_DIR/stall.h2" succeeded)" = 2 ] && fcmp "$(to_ms "$min")" ">=" 200 && [ $(((t1 - t0) / 1000000)) -ge 400 ]'
    ok stall.exit "$(cat "$T_DIR/stall.err")" stop_hf stall
else
    fail stall.start "no listening line: $(cat "$T_DIR/stall.err")"
fi

# ---- nowindow: response HEADERS, never DATA; initial window 0 ----
if start_hf nowindow --mode nowindow; then
    timeout 2 h2load -c1 -m2 -n2 "$HF_URL" >"$T_DIR/nowindow.h2" 2>&1
    rc=$?
    ok nowindow.hangs "h2load finished (rc $rc): $(grep '^requests:' "$T_DIR/nowindow.h2")" '[ $rc -eq 124 ]'
    timeout 1 nghttp -v "$HF_URL" >"$T_DIR/nowindow.nghttp" 2>&1
    ok nowindow.frames "nghttp: $(grep -E 'recv' "$T_DIR/nowindow.nghttp" | head -n 8)" \
        'grep -q "SETTINGS_INITIAL_WINDOW_SIZE(0x04):0" "$T_DIR/nowindow.nghttp" &&
         grep -q ":status: 200" "$T_DIR/nowindow.nghttp" && ! grep -q "recv DATA" "$T_DIR/nowindow.nghttp"'
    ok nowindow.exit "$(cat "$T_DIR/nowindow.err")" stop_hf nowindow
    ok nowindow.stats "$(cat "$T_DIR/nowindow.err")" '[ "$(st nowindow requests)" -ge 2 ]'
else
    fail nowindow.start "no listening line: $(cat "$T_DIR/nowindow.err")"
fi

# ---- malformed responses and GOAWAY(0): what goes on the wire ----
# frames URL: a raw client (one GET on stream 1) that prints each frame the
# server sends for 0.5 s as "TYPE LENGTH FLAGS STREAM [GOAWAY: LAST CODE]".
frames() {
    local port=${1##*:}
    "$PY" - "${port%/}" <<'EOF2'
import socket, sys, time
def frame(t, f, sid, p): return len(p).to_bytes(3, "big") + bytes([t, f]) + sid.to_bytes(4, "big") + p
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=3)
s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4, 0, 0, b"") + frame(4, 1, 0, b"") +
          frame(1, 5, 1, bytes([0x82, 0x86, 0x84, 0x41, 0x01, ord("a")])))
buf, end = b"", time.time() + 0.5
s.settimeout(0.1)
while time.time() < end:
    try:
        d = s.recv(65536)
    except socket.timeout:
        continue
    if not d: break
    buf += d
while len(buf) >= 9:
    n = int.from_bytes(buf[:3], "big"); t, f = buf[3], buf[4]
    sid = int.from_bytes(buf[5:9], "big") & 0x7fffffff; p = buf[9:9 + n]; buf = buf[9 + n:]
    extra = " %d %d" % (int.from_bytes(p[:4], "big"), int.from_bytes(p[4:8], "big")) if t == 7 else ""
    print("%d %d %d %d%s" % (t, n, f, sid, extra))
EOF2
}
for m in nostatus clen-short clen-long badclen badname; do
    if start_hf "$m" --mode "$m"; then
        timeout 5 nghttp -v "$HF_URL" >"$T_DIR/$m.nghttp" 2>&1
        frames "$HF_URL" >"$T_DIR/$m.frames" 2>&1
        ok "$m.exit" "$(cat "$T_DIR/$m.err")" stop_hf "$m"
    else
        fail "$m.start" "no listening line: $(cat "$T_DIR/$m.err")"
    fi
done
# nghttp (nghttp2) rejects each response itself: RST_STREAM(PROTOCOL_ERROR).
for m in nostatus clen-short clen-long badclen badname; do
    ok "$m.client_resets" "nghttp: $(grep -E 'recv|RST|error' "$T_DIR/$m.nghttp" | head -n 8)" \
        "grep -q 'send RST_STREAM frame' '$T_DIR/$m.nghttp' && grep -q 'error_code=PROTOCOL_ERROR' '$T_DIR/$m.nghttp'"
done
ok nostatus.headers "nghttp: $(grep recv "$T_DIR/nostatus.nghttp")" \
    "grep -q 'recv (stream_id=13) content-length: 100' '$T_DIR/nostatus.nghttp' && ! grep -q ':status' '$T_DIR/nostatus.nghttp'"
# HEADERS (type 1) then DATA (type 0) with END_STREAM: 20 bytes for 100 declared; 100 for 20
ok clen-short.wire "nghttp: $(grep 'content-length' "$T_DIR/clen-short.nghttp"); frames: $(tr '\n' ';' <"$T_DIR/clen-short.frames")" \
    "grep -q 'recv (stream_id=13) content-length: 100' '$T_DIR/clen-short.nghttp' && grep -qx '0 20 1 1' '$T_DIR/clen-short.frames'"
ok clen-long.wire "nghttp: $(grep 'content-length' "$T_DIR/clen-long.nghttp"); frames: $(tr '\n' ';' <"$T_DIR/clen-long.frames")" \
    "grep -q 'recv (stream_id=13) content-length: 20' '$T_DIR/clen-long.nghttp' && grep -qx '0 100 1 1' '$T_DIR/clen-long.frames'"
ok badclen.headers "nghttp: $(grep -E 'recv|INVALID' "$T_DIR/badclen.nghttp")" \
    "grep -q 'INVALID; error=Invalid HTTP header field' '$T_DIR/badclen.nghttp'"
ok badname.headers "nghttp: $(grep -E 'recv|INVALID' "$T_DIR/badname.nghttp" | cat -v)" \
    "grep -q 'recv (stream_id=13) :status: 200' '$T_DIR/badname.nghttp' && grep -q 'INVALID; error=Invalid HTTP header field' '$T_DIR/badname.nghttp'"
for code in "" 11; do
    name=goaway0${code:+_$code}
    if start_hf "$name" --mode goaway0 ${code:+--rst-code $code}; then
        frames "$HF_URL" >"$T_DIR/$name.frames" 2>&1
        timeout 5 h2load -c1 -m1 -n5 "$HF_URL" >"$T_DIR/$name.h2" 2>&1
        ok "$name.frame" "frames: $(tr '\n' ';' <"$T_DIR/$name.frames")" \
            "grep -qx '7 8 0 0 0 ${code:-0}' '$T_DIR/$name.frames' && ! grep -qE '^(0|1) ' '$T_DIR/$name.frames'"
        ok "$name.h2load" "h2load: $(grep '^requests:' "$T_DIR/$name.h2")" "[ \"\$(h2n '$T_DIR/$name.h2' succeeded)\" = 0 ]"
        ok "$name.exit" "$(cat "$T_DIR/$name.err")" stop_hf "$name"
        ok "$name.stats" "$(cat "$T_DIR/$name.err")" "[ \"\$(st $name goaways)\" -ge 2 ] && [ \"\$(st $name refused)\" = 0 ]"
    else
        fail "$name.start" "no listening line: $(cat "$T_DIR/$name.err")"
    fi
done

# ---- bad arguments ----
ok args.bad_mode "accepted --mode nope" '! "$H2FAULT" --port 0 --mode nope >/dev/null 2>&1'

finish
