"""A loopback web server standing in for a broker's admin API in tests that need no broker."""
from __future__ import annotations

import contextlib
import http.server
import threading
from collections.abc import Callable, Iterator


@contextlib.contextmanager
def admin_stub(answer: Callable[[str], tuple[int, str]]) -> Iterator[int]:
    """Serve ``GET path`` with ``answer(path)`` -> (status, text body) on 127.0.0.1; yields the port."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's name
            status, body = answer(self.path)
            self.send_response(status)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *args):  # the default writes to stderr
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
