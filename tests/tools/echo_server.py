#!/usr/bin/env python3
"""A test server that records every request byte for byte.

    echo_server.py PORTFILE OUTFILE

Listens on 127.0.0.1 (a free port, written to PORTFILE), appends each
request's raw bytes (head and Content-Length body) to OUTFILE, and answers
"200 OK" with a 2-byte body (plus "X-Token: t0k3n" for /authenticate, as
wrk's auth.lua expects), keeping the connection open. Stops after 60 s
of inactivity or on SIGTERM.
"""
import socket
import sys
import threading

portfile, outfile = sys.argv[1], sys.argv[2]
lock = threading.Lock()


def serve(conn):
    buf = b""
    conn.settimeout(10)
    try:
        while True:
            while b"\r\n\r\n" not in buf:
                data = conn.recv(65536)
                if not data:
                    return
                buf += data
            head, _, rest = buf.partition(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            while len(rest) < length:
                data = conn.recv(65536)
                if not data:
                    return
                rest += data
            with lock, open(outfile, "ab") as f:
                f.write(head + b"\r\n\r\n" + rest[:length])
            buf = rest[length:]
            extra = b""
            if head.split(b" ")[1:2] == [b"/authenticate"]:
                extra = b"X-Token: t0k3n\r\n"
            conn.sendall(b"HTTP/1.1 200 OK\r\n" + extra + b"Content-Length: 2\r\n\r\nok")
    except (OSError, ValueError):
        pass
    finally:
        conn.close()


srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0))
srv.listen(64)
srv.settimeout(60)
with open(portfile, "w") as f:
    f.write(str(srv.getsockname()[1]))
while True:
    try:
        c, _ = srv.accept()
    except socket.timeout:
        break
    threading.Thread(target=serve, args=(c,), daemon=True).start()
