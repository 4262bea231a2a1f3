#!/usr/bin/env bash
# Self-test of the TCP delay relay (tests/tools/tcpdelay.c, the links'
# delay in test_mpi_netns.sh where the kernel has no netem), without pacer:
# a Python server behind it and a client in front, on loopback. What a
# client sends is held at least --delay, then arrives whole and in order,
# after the PROXY line naming the client; its FIN follows its data; more
# than the relay holds at once (1 MiB) still goes through; the stats say it.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TB=${TOOLS:-$ROOT/build/tools}
if ! [ -x "$TB/tcpdelay" ] || [ "$ROOT/tests/tools/tcpdelay.c" -nt "$TB/tcpdelay" ]; then
    fail build_tcpdelay "$TB/tcpdelay is missing or older than its source: make tools"
    finish
fi
need_cmd "$PY" python3 || finish

# peer.py srv PORTFILE: the server; each connection read to its end (EOF),
# then answered with "LINE|N|CRC" (its first line, the bytes after it, their
# crc32), closed. peer.py cli PORT N: the client; connect to the relay, send
# N bytes, FIN, read the answer to EOF; prints "MY_PORT|SECONDS|ANSWER|CRC"
# (the crc32 it sent).
cat >"$T_DIR/peer.py" <<'EOF'
import socket, sys, threading, time, zlib
def read_all(c):
    data = b""
    while True:
        b = c.recv(65536)
        if not b:
            return data
        data += b
def answer(c):
    line, _, rest = read_all(c).partition(b"\r\n")
    c.sendall(b"%s|%d|%d" % (line, len(rest), zlib.crc32(rest)))
    c.close()
if sys.argv[1] == "srv":
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(8)
    open(sys.argv[2], "w").write(str(s.getsockname()[1]))
    while True:
        threading.Thread(target=answer, args=(s.accept()[0],), daemon=True).start()
n = int(sys.argv[3])
body = bytes((i * 7) & 255 for i in range(n))
c = socket.create_connection(("127.0.0.1", int(sys.argv[2])), timeout=20)
t0 = time.monotonic()
c.sendall(body)
c.shutdown(socket.SHUT_WR)
ans = read_all(c)
print("%d|%.6f|%s|%d" % (c.getsockname()[1], time.monotonic() - t0, ans.decode(), zlib.crc32(body)))
EOF
"$PY" "$T_DIR/peer.py" srv "$T_DIR/srv.port" &
T_PIDS+=($!)
for _ in $(seq 1 100); do [ -s "$T_DIR/srv.port" ] && break; sleep 0.05; done
RS=$T_DIR/relay
"$TB/tcpdelay" --port 0 --to "127.0.0.1:$(cat "$T_DIR/srv.port")" --delay 100 --proxy \
    --stats "$RS.stats" --max-time 60 >"$RS.out" 2>"$RS.err" &
RPID=$!
T_PIDS+=("$RPID")
for _ in $(seq 1 100); do grep -q listening "$RS.out" 2>/dev/null && break; sleep 0.05; done
RP=$(sed -n 's/^tcpdelay: listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$RS.out")
ok relay_listens "$(cat "$RS.out" "$RS.err")" "[ -n '$RP' ]"

# a small message: held 100 ms at least, after its PROXY line, answered after its FIN
a=$(timeout 30 "$PY" "$T_DIR/peer.py" cli "$RP" 5 2>&1)
IFS='|' read -r cport secs line n got crc <<<"$a"
ok relay_holds_delay "${secs:-?} s for the answer: $a" "fcmp '${secs:-0}' '>=' 0.1"
ok relay_proxy_line "$a" "[ '$line' = 'PROXY TCP4 127.0.0.1 127.0.0.1 $cport $RP' ]"
ok relay_data_whole_after_fin "$a" "[ '$n' = 5 ] && [ '$got' = '$crc' ]"
# 3 MiB, three times what the relay holds for a connection at once
a=$(timeout 30 "$PY" "$T_DIR/peer.py" cli "$RP" 3145728 2>&1)
IFS='|' read -r cport secs line n got crc <<<"$a"
ok relay_bulk_whole "$a" "[ '$n' = 3145728 ] && [ '$got' = '$crc' ]"
kill -USR1 "$RPID" 2>/dev/null
sleep 0.2
st=$(cat "$RS.stats" 2>/dev/null)
hold=$(grep -oE 'min_hold_us=-?[0-9]+' <<<"$st" | cut -d= -f2)
ok relay_stats "$st" "grep -q '^tcpdelay: conns=2 refused=0 c2s_bytes=3145733 ' <<<'$st' && [ '${hold:--1}' -ge 100000 ]"
kill "$RPID"
for _ in $(seq 1 50); do kill -0 "$RPID" 2>/dev/null || break; sleep 0.05; done
wait "$RPID"
rc=$?
ok relay_term_exit "rc $rc: $(cat "$RS.err")" "[ $rc -eq 0 ] && [ \$(grep -c '^tcpdelay: conns=2 ' '$RS.err') -eq 1 ]"
"$TB/tcpdelay" --to nowhere >/dev/null 2>"$RS.bad"
rc=$?
ok relay_bad_option "rc $rc: $(cat "$RS.bad")" "[ $rc -eq 2 ] && grep -q 'usage: tcpdelay' '$RS.bad'"
finish
