"""A loopback web server standing in for a broker's admin API in tests that need no broker."""
from __future__ import annotations

import contextlib
import http.server
import threading
from collections.abc import Callable, Iterator


@contextlib.contextmanager
def serve(answer: Callable[[http.server.BaseHTTPRequestHandler], tuple[int, dict, bytes]]) -> Iterator[int]:
    """Serve ``GET`` (and ``PUT``, ``POST``, ``DELETE``) with ``answer(handler)`` -> (status, headers, body)
    on 127.0.0.1; yields the port (the handler gives the request's ``command``, path and headers, and
    ``body``, the bytes it sent)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's name
            self.body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            status, headers, body = answer(self)
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_PUT = do_POST = do_DELETE = do_GET  # noqa: N815 - http.server's names

        def log_message(self, *args):  # the default writes to stderr
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def admin_stub(answer: Callable[[str], tuple[int, str]]):
    """Serve ``GET path`` with ``answer(path)`` -> (status, text body) on 127.0.0.1; yields the port."""

    def answered(handler):
        status, body = answer(handler.path)
        return status, {"Content-Type": "text/plain"}, body.encode()

    return serve(answered)
