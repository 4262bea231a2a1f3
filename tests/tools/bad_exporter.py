# bad_exporter.py MODE SECONDS: an exporter that fails pacer's sampler
# (--server-metrics), listening on 127.0.0.1 (a port the kernel picks,
# printed as "bad_exporter: listening on 127.0.0.1:PORT"):
#   slow     reads the request and answers nothing for 30 s
#   garbage  answers 200 with a page that is not the text format
#   huge     answers 200 with an endless page (metric lines, no length)
#   404      answers 404
#   count    answers a good process-exporter page (group "fake", its CPU
#            growing 0.5 s a reading), printing "hit" for each request
# (The page is #-comment free on purpose: the parser needs no TYPE line.)
# Each connection is served by a thread of its own; exits after SECONDS.
import socket, sys, threading, time

mode, secs = sys.argv[1], float(sys.argv[2])
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(128)
print("bad_exporter: listening on 127.0.0.1:%d" % s.getsockname()[1], flush=True)


hits = [0]
lock = threading.Lock()


def serve(c):
    try:
        c.settimeout(5)
        c.recv(4096)
        if mode == "slow":
            time.sleep(30)
        elif mode == "garbage":
            body = b"# HELP x y\nthis is {not a metrics page\n"
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
        elif mode == "huge":
            c.sendall(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
            line = b"node_cpu_seconds_total{cpu=\"0\",mode=\"user\"} 1\n" * 1000
            end = time.time() + 10
            while time.time() < end:
                c.sendall(line)
        elif mode == "count":
            with lock:
                hits[0] += 1
                n = hits[0]
                print("hit", flush=True)
            body = (b'namedprocess_namegroup_cpu_seconds_total{groupname="fake",mode="user"} %.1f\n'
                    b'namedprocess_namegroup_memory_bytes{groupname="fake",memtype="resident"} 1e+06\n'
                    % (n * 0.5))
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
        elif mode == "404":
            c.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
    except OSError:
        pass
    finally:
        c.close()


end = time.time() + secs
s.settimeout(0.2)
while time.time() < end:
    try:
        c, _ = s.accept()
    except socket.timeout:
        continue
    threading.Thread(target=serve, args=(c,), daemon=True).start()
