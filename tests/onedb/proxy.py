"""A load balancer in miniature: each request goes to one of several servers at random.

It stands for the canary set-up an operator would run (upstream and this
service behind one endpoint, on one database).  Every answer carries
``x-onedb-backend: <name>`` so a test can say which side answered.

``Proxy({"upstream": "http://127.0.0.1:20701", "ours": "unix:/tmp/ours.sock"},
port, seed)`` serves in a thread (``start()`` / ``stop()``); ``counts`` says
how many requests each side got.  Backends are ``http://host:port`` or
``unix:/path`` (gunicorn bound to a socket).
"""
import http.client
import random
import socket
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOP_BY_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te",
              "trailers", "transfer-encoding", "upgrade", "host"}


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout):
        super().__init__("localhost", timeout=timeout)
        self.unix_path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.unix_path)


def connection(backend, timeout=120):
    if backend.startswith("unix:"):
        return _UnixConnection(backend[len("unix:"):], timeout)
    host_port = backend.split("://", 1)[-1].rstrip("/")
    return http.client.HTTPConnection(host_port, timeout=timeout)


class Proxy:
    def __init__(self, backends, port, seed=None):
        self.backends = dict(backends)
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        self.counts = Counter()
        self._random = random.Random(seed)
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", port), self._handler_class())
        self._server.daemon_threads = True
        self._thread = None

    def pick(self):
        with self._lock:
            name = self._random.choice(sorted(self.backends))
            self.counts[name] += 1
            return name

    def _handler_class(self):
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet: the servers log requests
                pass

            def _forward(self):
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else None
                name = proxy.pick()
                conn = connection(proxy.backends[name])
                try:
                    conn.putrequest(self.command, self.path, skip_host=True,
                                    skip_accept_encoding=True)
                    conn.putheader("Host", self.headers.get("host", "127.0.0.1"))
                    for key, value in self.headers.items():
                        if key.lower() not in HOP_BY_HOP:
                            conn.putheader(key, value)
                    conn.endheaders(body)
                    response = conn.getresponse()
                    payload = response.read()
                except OSError as exc:
                    self.send_error(502, f"{name}: {exc}")
                    return
                finally:
                    conn.close()
                self.send_response_only(response.status, response.reason)
                head = self.command == "HEAD"  # keeps the length a GET would have
                for key, value in response.getheaders():
                    if key.lower() not in HOP_BY_HOP and (head or key.lower() != "content-length"):
                        self.send_header(key, value)
                self.send_header("x-onedb-backend", name)
                if not head:
                    self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                if not head:
                    self.wfile.write(payload)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _forward

        return Handler

    def start(self):
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self):
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False
