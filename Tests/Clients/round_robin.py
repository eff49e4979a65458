"""A round-robin HTTP forwarder for tests: every request goes to the next
backend in turn (A, B, A, ...), whatever connection it came on, so two
`cql serve` processes answer one client's requests alternately.

    round_robin.py http://127.0.0.1:PORT_A http://127.0.0.1:PORT_B

It prints `listening on <port>` once it accepts connections, then one line
per request on stdout: `<backend index> <method> <path> <status>`. The Host
header is passed on unchanged, so URLs the servers answer (a file's
`upload_url`) point back at the forwarder.
"""
import http.client
import http.server
import itertools
import sys
import threading
import urllib.parse

BACKENDS = [urllib.parse.urlsplit(u) for u in sys.argv[1:]]
NEXT = itertools.cycle(range(len(BACKENDS)))
LOCK = threading.Lock()
HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection"}


class Forwarder(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def forward(self):
        with LOCK:
            index = next(NEXT)
        backend = BACKENDS[index]
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
        conn = http.client.HTTPConnection(backend.hostname, backend.port, timeout=60)
        try:
            conn.request(self.command, self.path, body=body, headers=headers)
            answer = conn.getresponse()
            data = answer.read()
            self.send_response(answer.status, answer.reason)
            for k, v in answer.getheaders():
                if k.lower() not in HOP and k.lower() != "content-length":
                    self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
            with LOCK:
                print(index, self.command, self.path.split("?")[0], answer.status, flush=True)
        finally:
            conn.close()

    do_GET = do_POST = do_PUT = do_DELETE = do_OPTIONS = do_HEAD = do_PATCH = forward

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Forwarder)
print("listening on", server.server_address[1], flush=True)
server.serve_forever()
