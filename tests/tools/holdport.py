# holdport.py MODE SECONDS: a TCP listener on 127.0.0.1 (a port the kernel
# picks, printed as "holdport: listening on 127.0.0.1:PORT") that
#   noaccept  never accepts, its accept queue (backlog 0) already full with
#             a connection of its own: every SYN after is dropped
#   silent    accepts every connection and never sends a byte (a TLS
#             server that does not answer the ClientHello)
# for at most SECONDS, then exits.
import socket, sys, time
mode, secs = sys.argv[1], float(sys.argv[2])
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(0 if mode == "noaccept" else 128)
port = s.getsockname()[1]
keep = []
if mode == "noaccept":
    c = socket.socket()
    c.connect(("127.0.0.1", port))
    keep.append(c)
print("holdport: listening on 127.0.0.1:%d" % port, flush=True)
end = time.time() + secs
s.settimeout(0.2)
while time.time() < end:
    if mode == "noaccept":
        time.sleep(0.2)
        continue
    try:
        keep.append(s.accept()[0])
    except socket.timeout:
        pass
