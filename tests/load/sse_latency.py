# POST /evidence/window (a change of window) -> its `state` event on an open
# /events stream, on loopback against a running antidriftd (issue 8 item 2).
# Driven by sse_latency.sh; usage: python3 sse_latency.py PORT TOKEN N
import json
import socket
import sys
import time

port, token, n = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
sse = socket.create_connection(("127.0.0.1", port))
sse.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % port)
buf = b""
def read_event():
    global buf
    while True:
        i = buf.find(b"\n\n")
        if i >= 0:
            ev, buf = buf[:i], buf[i+2:]
            if b"event: state" in ev: return ev
            continue
        buf += sse.recv(65536)
read_event()
rest = socket.create_connection(("127.0.0.1", port))
rest.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
def post(path, body):
    data = json.dumps(body).encode()
    rest.sendall(b"POST %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\nX-AntiDrift-Token: %s\r\nContent-Length: %d\r\n\r\n" % (path.encode(), port, token.encode(), len(data)) + data)
    r = b""
    while b"\r\n\r\n" not in r: r += rest.recv(65536)
    head, _, body_ = r.partition(b"\r\n\r\n")
    length = int([l for l in head.split(b"\r\n") if l.lower().startswith(b"content-length")][0].split(b":")[1])
    while len(body_) < length: body_ += rest.recv(65536)
lat = []
for i in range(n):
    t0 = time.perf_counter()
    post("/evidence/window", {"app": "code" if i % 2 else "qterminal", "title": "file %d" % i})
    read_event()
    lat.append((time.perf_counter() - t0) * 1000)
    time.sleep(0.02)
lat.sort()
print("switch (POST) -> SSE event, %d switches: p50 %.2f ms, p99 %.2f ms" % (n, lat[n//2], lat[int(n*0.99)-1]))
