#!/usr/bin/env bash
# Self-test of the UDP fault tools (tests/tools/udprelay.c, quicfault.c) and
# of lib.sh's HTTP/3 servers, without pacer: ngtcp2's example client
# (gtlsclient, which exits 0 even when it fetched nothing, so the files it
# downloads are what counts) fetches through the relay from gtlsserver and
# Caddy, and a raw Python UDP client checks the relay's loss, delay, queue
# bound and blackhole, and quicfault's packets byte by byte.
. "$(dirname "$0")/lib.sh"
export LC_ALL=C
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TB=${TOOLS:-$ROOT/build/tools}
for t in udprelay quicfault; do
    if ! [ -x "$TB/$t" ] || [ "$ROOT/tests/tools/$t.c" -nt "$TB/$t" ]; then
        fail "build_$t" "$TB/$t is missing or older than its source: make tools"
        finish
    fi
done
need_cmd gtlsclient ngtcp2-client && need_cmd "$PY" python3 || finish

GC_OUT=$T_DIR/gc
# gc PORT N [ARGS...]: gtlsclient fetches /index.html N times (streams of
# one connection) from 127.0.0.1:PORT, into $T_DIR/dl.PORT; 10 s at most.
gc() {
    local port=$1 n=$2
    shift 2
    rm -rf "$T_DIR/dl.$port"
    mkdir -p "$T_DIR/dl.$port"
    timeout 10 gtlsclient -q --exit-on-all-streams-close --download="$T_DIR/dl.$port" -n "$n" "$@" \
        127.0.0.1 "$port" "https://127.0.0.1:$port/index.html" >"$GC_OUT" 2>&1
}
got_file() { [ "$(wc -c <"$T_DIR/dl.$1/index.html" 2>/dev/null)" = 1024 ]; }
# rs KEY: a relay counter from its stats file (refreshed by SIGUSR1 while it runs).
rs() { relay_stat "$1"; }
stop_relay() { # true if it exits 0 on SIGTERM with one stats line on stderr
    local rc
    kill "$RELAY_PID" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$RELAY_PID" 2>/dev/null || break; sleep 0.05; done
    wait "$RELAY_PID"
    rc=$?
    [ $rc -eq 0 ] && [ "$(grep -cE '^udprelay: flows=[0-9]+ c2s_in=[0-9]+ .* overflow=[0-9]+$' "${RELAY_STATS%.stats}.err")" = 1 ]
}

# ---- the servers, directly ----------------------------------------------------
if start_gtlsserver; then
    gc "$GTLS_PORT" 3
    ok gtlsserver_direct "gtlsclient rc $?: $(tail -c 300 "$GC_OUT")" got_file "$GTLS_PORT"
else
    fail gtlsserver_start "$(tail -5 "$GTLS_DIR/out" 2>/dev/null)"
fi
if start_caddy; then
    gc "$CADDY_PORT" 4
    rc=$?
    sleep 0.2
    ok caddy_direct "gtlsclient rc $rc: $(tail -c 300 "$GC_OUT")" got_file "$CADDY_PORT"
    ok caddy_logs_h3 "logged HTTP/3.0: $(caddy_count HTTP/3.0)" '[ "$(caddy_count HTTP/3.0)" = 4 ]'
    code=$(timeout 5 curl -sk -o /dev/null -w '%{http_code} %{http_version}' --http2 "$CADDY_URL" 2>&1)
    ok caddy_tcp_h2 "curl: $code" '[ "$code" = "200 2" ] && [ "$(caddy_count HTTP/2.0)" = 1 ]'
    ok caddy_writes_in_t_dir "$(ls "$CADDY_DIR/config/caddy" 2>&1)" '[ -f "$CADDY_DIR/config/caddy/autosave.json" ]'
else
    fail caddy_start "$(tail -5 "$CADDY_DIR/out" 2>/dev/null)"
fi

# ---- the relay in front of them ----------------------------------------------
if [ -n "${GTLS_PORT:-}" ] && start_udprelay --to "$GTLS_PORT"; then
    gc "$RELAY_PORT" 20
    ok relay_gtls_fetch "gtlsclient rc $?: $(tail -c 300 "$GC_OUT")" got_file "$RELAY_PORT"
    # Counters compared with each other are read once it has stopped (the
    # server may still send while they are read one by one).
    ok relay_exit "$(cat "${RELAY_STATS%.stats}.err")" stop_relay
    ok relay_gtls_counts "$(cat "$RELAY_STATS")" \
        '[ "$(rs flows)" = 1 ] && [ "$(rs c2s_in)" -gt 3 ] && [ "$(rs c2s_in)" = "$(rs c2s_fwd)" ] &&
         [ "$(rs s2c_in)" -gt 3 ] && [ "$(rs s2c_in)" = "$(rs s2c_fwd)" ] && [ "$(rs c2s_drop)" = 0 ]'
else
    fail relay_start "no listening line: $(cat "$T_DIR"/udprelay.*.err 2>/dev/null | tail -3)"
fi
if [ -n "${CADDY_PORT:-}" ] && start_udprelay --to "$CADDY_PORT" --drop 0.15 --seed 7; then
    : >"$CADDY_LOG"
    gc "$RELAY_PORT" 30
    rc=$?
    sleep 0.2
    ok relay_caddy_lossy_fetch "gtlsclient rc $rc: $(tail -c 300 "$GC_OUT")" \
        '[ $rc -eq 0 ] && got_file "$RELAY_PORT" && [ "$(caddy_count HTTP/3.0)" = 30 ]'
    stop_relay
    ok relay_caddy_drops "$(cat "$RELAY_STATS")" \
        '[ "$(rs c2s_drop)" -gt 0 ] && [ "$(rs s2c_drop)" -gt 0 ] &&
         [ $(($(rs c2s_fwd) + $(rs c2s_drop))) = "$(rs c2s_in)" ] && [ $(($(rs s2c_fwd) + $(rs s2c_drop))) = "$(rs s2c_in)" ]'
fi
if [ -n "${GTLS_PORT:-}" ] && start_udprelay --to "$GTLS_PORT" --blackhole-after hs; then
    t0=$SECONDS
    gc "$RELAY_PORT" 2 --timeout=1s
    rc=$?
    ok relay_hs_blackhole "gtlsclient rc $rc after $((SECONDS - t0)) s, $(cat "$RELAY_STATS")" \
        '[ $rc -ne 124 ] && ! got_file "$RELAY_PORT" &&
         [ "$(rs c2s_fwd)" -ge 1 ] && [ "$(rs s2c_fwd)" -ge 1 ] && [ "$(rs c2s_hole)" -ge 1 ]'
    kill "$RELAY_PID"
fi

# ---- loss, delay, queue and blackhole, datagram by datagram -------------------
# A UDP echo server, then a client that sends N numbered datagrams one at a
# time and prints which came back.
"$PY" - "$T_DIR/echo.port" <<'EOF' >/dev/null 2>&1 &
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
s.settimeout(60)
while True:
    d, a = s.recvfrom(65536)
    s.sendto(d, a)
EOF
T_PIDS+=($!)
for _ in $(seq 1 100); do [ -s "$T_DIR/echo.port" ] && break; sleep 0.05; done
ECHO_PORT=$(cat "$T_DIR/echo.port" 2>/dev/null)
# send PORT N WAIT_MS [burst]: one line: the numbers that came back, then
# the largest round trip in ms. With burst, all N go out at once first.
send() {
    timeout 20 "$PY" - "$@" <<'EOF'
import socket, sys, time
port, n, wait = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]) / 1000
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.connect(("127.0.0.1", port))
back, rtt = [], 0.0
def drain(until):
    global rtt
    while True:
        left = until - time.monotonic()
        if left <= 0: return
        s.settimeout(left)
        try: d = s.recv(2000)
        except (socket.timeout, ConnectionRefusedError): return
        i, t = d.decode().split()
        back.append(int(i)); rtt = max(rtt, time.monotonic() - float(t))
if len(sys.argv) > 4:
    for i in range(n): s.send(b"%d %.6f" % (i, time.monotonic()))
    drain(time.monotonic() + wait)
else:
    for i in range(n):
        s.send(b"%d %.6f" % (i, time.monotonic()))
        drain(time.monotonic() + wait)
print(",".join(map(str, sorted(back))), "%.1f" % (rtt * 1000))
EOF
}
if [ -n "$ECHO_PORT" ]; then
    for run in a b c; do
        seed=5; [ $run = c ] && seed=6
        start_udprelay --to "$ECHO_PORT" --drop 0.3 --seed $seed || fail "relay_start_$run" "no listening line"
        out=$(send "$RELAY_PORT" 200 15)
        eval "got_$run=\${out%% *}"
        eval "st_$run=\"\$(rs c2s_drop) \$(rs s2c_drop)\""
        kill "$RELAY_PID"
    done
    n_a=$(echo "$got_a" | tr ',' '\n' | grep -c .)
    # 200 x 0.7 x 0.7 = 98 expected back; 6 sigma is about 42
    ok drop_fraction "came back: $n_a of 200; drops c2s s2c: $st_a" '[ "$n_a" -gt 56 ] && [ "$n_a" -lt 140 ]'
    ok drop_seed_repeats "seed 5 twice: $got_a vs $got_b" '[ "$got_a" = "$got_b" ] && [ "$st_a" = "$st_b" ]'
    ok drop_seed_differs "seed 5 and 6 alike: $got_a" '[ "$got_a" != "$got_c" ]'

    start_udprelay --to "$ECHO_PORT" --delay 100
    out=$(send "$RELAY_PORT" 3 400)
    rtt=${out##* }
    ok delay_both_ways "echo: $out" '[ "${out%% *}" = 0,1,2 ] && fcmp "$rtt" ">=" 195 && fcmp "$rtt" "<" 400'
    kill "$RELAY_PID"

    start_udprelay --to "$ECHO_PORT" --delay 300 --queue 5
    out=$(send "$RELAY_PORT" 20 900 burst)
    ok delay_queue_bounded "echo: $out; $(cat "$RELAY_STATS")" \
        '[ "${out%% *}" = 0,1,2,3,4 ] && [ "$(rs overflow)" = 15 ] && [ "$(rs s2c_fwd)" = 5 ]'
    kill "$RELAY_PID"

    start_udprelay --to "$ECHO_PORT" --blackhole-after 3
    out=$(send "$RELAY_PORT" 10 15)
    ok blackhole_after_n "echo: $out; $(cat "$RELAY_STATS")" \
        '[ "${out%% *}" = 0,1,2 ] && [ "$(rs c2s_fwd)" = 3 ] && [ "$(rs c2s_hole)" = 7 ] && [ "$(rs s2c_fwd)" = 3 ]'
    ok relay_sigterm "$(cat "${RELAY_STATS%.stats}.err")" stop_relay

    # Reorder, duplicate, corrupt: 200 datagrams 2 ms apart; what came back,
    # in arrival order. got: datagrams back; ids: distinct intact ones;
    # bad: not as sent; inv: an intact one after a later-numbered one.
    fate() {
        timeout 20 "$PY" - "$@" <<'EOF2'
import socket, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.connect(("127.0.0.1", port))
got, bad, inv, last, ids = 0, 0, 0, -1, set()
def take(until):
    global got, bad, inv, last
    while True:
        left = until - time.monotonic()
        if left <= 0: return
        s.settimeout(left)
        try: d = s.recv(2000)
        except (socket.timeout, ConnectionRefusedError): return
        got += 1
        if len(d) == 40 and d[:4].isdigit() and d[4:] == b"-" * 36:
            i = int(d[:4]); ids.add(i)
            if i < last: inv += 1
            last = max(last, i)
        else: bad += 1
for i in range(n):
    s.send(b"%04d" % i + b"-" * 36)
    take(time.monotonic() + 0.002)
take(time.monotonic() + 0.3)
print("got=%d ids=%d bad=%d inv=%d" % (got, len(ids), bad, inv))
EOF2
    }
    fv() { echo "$out" | grep -oE "$1=[0-9]+" | cut -d= -f2; }
    start_udprelay --to "$ECHO_PORT" --reorder 0.2 --seed 3
    out=$(fate "$RELAY_PORT" 200)
    ok reorder_swaps "$out; $(cat "$RELAY_STATS")" \
        '[ "$(fv got)" = 200 ] && [ "$(fv ids)" = 200 ] && [ "$(fv bad)" = 0 ] && [ "$(fv inv)" -gt 5 ] &&
         [ "$(rs c2s_reorder)" -gt 10 ] && [ "$(rs s2c_reorder)" -gt 10 ] && [ "$(rs c2s_drop)" = 0 ]'
    ok reorder_exit "$(cat "${RELAY_STATS%.stats}.err")" stop_relay
    start_udprelay --to "$ECHO_PORT" --dup 0.2 --seed 3
    out=$(fate "$RELAY_PORT" 200)
    ok stop_dup "$(cat "${RELAY_STATS%.stats}.err")" stop_relay
    # Every copy the relay sent back came back: s2c_fwd of them.
    ok dup_copies "$out; $(cat "$RELAY_STATS")" \
        '[ "$(fv ids)" = 200 ] && [ "$(fv bad)" = 0 ] && [ "$(rs c2s_dup)" -gt 10 ] && [ "$(rs s2c_dup)" -gt 10 ] &&
         [ "$(rs c2s_fwd)" = $((200 + $(rs c2s_dup))) ] && [ "$(fv got)" = "$(rs s2c_fwd)" ] &&
         [ "$(rs s2c_fwd)" = $(($(rs s2c_in) + $(rs s2c_dup))) ]'
    start_udprelay --to "$ECHO_PORT" --corrupt 0.2 --seed 3
    out=$(fate "$RELAY_PORT" 200)
    ok stop_corrupt "$(cat "${RELAY_STATS%.stats}.err")" stop_relay
    # A datagram corrupted both ways may come back as sent (the same byte
    # flipped twice): bad is at most the corruptions, and most of them.
    ok corrupt_flips "$out; $(cat "$RELAY_STATS")" \
        '[ "$(fv got)" = 200 ] && c=$(($(rs c2s_corrupt) + $(rs s2c_corrupt))) && [ "$(rs c2s_corrupt)" -gt 10 ] &&
         [ "$(rs s2c_corrupt)" -gt 10 ] && [ "$(fv bad)" -le "$c" ] && [ "$(fv bad)" -ge $((c * 3 / 4)) ] &&
         [ $(($(fv ids) + $(fv bad))) = 200 ]'
else
    fail echo_start "the UDP echo server did not start"
fi
start_udprelay --to 9 --max-time 1
sleep 1.6
ok relay_max_time "still running after --max-time 1" '! kill -0 "$RELAY_PID" 2>/dev/null'
ok relay_bad_args "accepted --drop 2" '! "$TB/udprelay" --to 9 --drop 2 >/dev/null 2>&1 && ! "$TB/udprelay" --drop 0.1 >/dev/null 2>&1 &&
    ! "$TB/udprelay" --to 9 --reorder 1.5 >/dev/null 2>&1 && ! "$TB/udprelay" --to 9 --dup x >/dev/null 2>&1 &&
    ! "$TB/udprelay" --to 9 --corrupt -1 >/dev/null 2>&1'

# ---- quicfault --------------------------------------------------------------------
# initial PORT: send a client Initial-shaped datagram (long header, version
# 1, DCID 0102..08, SCID a1a2a3a4, padded to 1200) and print the answer in
# hex, or "none" after 300 ms.
initial() {
    timeout 5 "$PY" - "$1" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.connect(("127.0.0.1", int(sys.argv[1])))
p = bytes([0xc3, 0, 0, 0, 1, 8]) + bytes(range(1, 9)) + bytes([4, 0xa1, 0xa2, 0xa3, 0xa4])
s.send(p + bytes(1200 - len(p)))
s.settimeout(0.3)
try: print(s.recv(2000).hex())
except socket.timeout: print("none")
EOF
}
if start_quicfault vn; then
    a=$(initial "$QF_PORT")
    # 1 random-bit byte | version 0 | DCID = our SCID | SCID = our DCID | versions
    ok qf_vn_packet "answer: $a" '[[ $a =~ ^[89a-f][0-9a-f]0000000004a1a2a3a4080102030405060708(1a2a3a4a5a6a7a8a)$ ]]'
    gc "$QF_PORT" 1 --handshake-timeout=2s
    ok qf_vn_gtlsclient "gtlsclient: $(tail -c 300 "$GC_OUT")" 'grep -q ERR_RECV_VERSION_NEGOTIATION "$GC_OUT"'
    ok qf_vn_stats "$(cat "$QF_STATS")" '[ "$(qf_stat answered)" = 2 ] && [ "$(qf_stat initials)" = 2 ]'
    kill "$QF_PID"
else
    fail qf_vn_start "no listening line"
fi
if start_quicfault reset; then
    a=$(initial "$QF_PORT")
    ok qf_reset_packet "answer: $a" '[ ${#a} = 86 ] && [[ $a =~ ^[4-7] ]]'
    t0=$SECONDS
    gc "$QF_PORT" 1 --handshake-timeout=1s
    rc=$?
    ok qf_reset_gtlsclient "rc $rc after $((SECONDS - t0)) s: $(tail -c 200 "$GC_OUT")" \
        '[ $rc -ne 124 ] && grep -q ERR_HANDSHAKE_TIMEOUT "$GC_OUT" && ! got_file "$QF_PORT" && [ "$(qf_stat answered)" -ge 2 ]'
    kill "$QF_PID"
fi
if start_quicfault retry; then
    a=$(initial "$QF_PORT")
    # type Retry | version 1 | DCID = our SCID | an 8-byte SCID | 16-byte token | 16-byte tag
    ok qf_retry_packet "answer: $a" '[[ $a =~ ^f[0-9a-f]0000000104a1a2a3a408[0-9a-f]{80}$ ]]'
    timeout 5 gtlsclient --handshake-timeout=1s 127.0.0.1 "$QF_PORT" "https://127.0.0.1:$QF_PORT/" >"$GC_OUT" 2>&1
    # ngtcp2 takes a Retry only if its integrity tag verifies: its next
    # Initial then goes to the Retry's SCID.
    rscid=$(grep -m1 -oE 'pkt rx .* scid=0x[0-9a-f]+ version=0x00000001 type=Retry' "$GC_OUT" | grep -oE 'scid=0x[0-9a-f]+' | cut -d= -f2)
    ok qf_retry_taken "Retry SCID ${rscid:-none}: $(grep -E 'pkt (tx|rx)' "$GC_OUT" | head -4 | cut -c 1-150)" \
        '[ -n "$rscid" ] && grep -qE "pkt tx .* dcid=$rscid .*type=Initial" "$GC_OUT" && grep -q ERR_HANDSHAKE_TIMEOUT "$GC_OUT"'
    kill "$QF_PID"
fi
if start_quicfault silent; then
    a=$(initial "$QF_PORT")
    ok qf_silent "answer: $a; $(cat "$QF_STATS")" '[ "$a" = none ] && [ "$(qf_stat datagrams)" = 1 ] && [ "$(qf_stat answered)" = 0 ]'
    kill "$QF_PID"
    for _ in $(seq 1 50); do kill -0 "$QF_PID" 2>/dev/null || break; sleep 0.05; done
    wait "$QF_PID"
    ok qf_sigterm "exit $?: $(cat "${QF_STATS%.stats}.err")" \
        'grep -qE "^quicfault: datagrams=1 initials=1 answered=0$" "${QF_STATS%.stats}.err"'
fi
ok qf_bad_mode "accepted --mode nope" '! "$TB/quicfault" --mode nope >/dev/null 2>&1'

finish
