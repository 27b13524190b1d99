"""Servers on loopback, in the test process, that the forked cases talk to: an OAuth2 issuer that fails in
every way an identity provider can (issue 48), beside a stand-in of a broker's admin API and service port.

One ``ThreadingHTTPServer`` on 127.0.0.1 (port 0) plays both: an issuer URL ``http://127.0.0.1:PORT/m/MODE``
picks how the issuer answers (``MODES``), ``/admin/v2/...`` answers what ``up``/``status`` ask of a cluster,
and the same port takes the TCP connection a ``pulsar://`` service URL check makes. So a deployment document
whose clusters are this server gets past every check but the issuer's: the refusal is the issuer's doing (the
``ok`` mode is the control, accepted end to end). The server runs in a daemon thread of the test process; each
case's forked child only connects to it (a fork copies the calling thread alone, and the server thread sits
idle in ``select`` between cases, holding no lock the child could need).
"""
from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

WELL_KNOWN = ("/.well-known/openid-configuration", "/.well-known/oauth-authorization-server")
_SERVER: list[ThreadingHTTPServer] = []
_CLOSED: list[socket.socket] = []

# mode -> (what the discovery answers, what the token endpoint answers); "ok" is the control.
# Each entry: (status, content type, body) or a marker the handler builds per request.
HTML = "text/html; charset=utf-8", b"<!doctype html><html><body>Sign in to continue</body></html>"
MODES = {
    "ok": "a working issuer (the control)",
    "discovery-401": "401 to the discovery document",
    "discovery-403": "403 to the discovery document",
    "discovery-404": "404: not an issuer's base URL",
    "discovery-500": "a server error",
    "discovery-302": "a redirect to a host off loopback (must not be followed with the secret)",
    "discovery-html": "an HTML login page with 200",
    "discovery-empty": "{} with 200: no token endpoint",
    "discovery-list": "a JSON list",
    "discovery-text": "plain text",
    "discovery-deep": "JSON nested 100,000 levels",
    "discovery-binary": "bytes that are not UTF-8",
    "endpoint-relative": "a token_endpoint that is no URL",
    "endpoint-number": "a token_endpoint that is a number",
    "endpoint-down": "a token_endpoint nobody listens on",
    "endpoint-file": "a token_endpoint file:// URL",
    "token-401": "invalid_client",
    "token-400-echo": "an error that quotes the client secret back",
    "token-500-html": "an HTML error page",
    "token-html": "an HTML page with 200",
    "token-empty": "{} with 200: no access_token",
    "token-number": "an access_token that is a number",
    "token-newline": "an access_token with a line break",
    "token-list": "a JSON list with 200",
}


def closed_port() -> int:
    """A loopback port bound and never listening: a connection is refused at once (the issuer that is down)."""
    if not _CLOSED:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        _CLOSED.append(sock)
    return _CLOSED[0].getsockname()[1]


def port() -> int:
    """The server's port, started on first use."""
    if not _SERVER:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, name="fuzz-loopback", daemon=True).start()
        _SERVER.append(server)
    return _SERVER[0].server_address[1]


def issuer_url(mode: str) -> str:
    return f"http://127.0.0.1:{closed_port()}/m/ok" if mode == "down" else f"http://127.0.0.1:{port()}/m/{mode}"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args) -> None:  # nothing on the test's stderr
        pass

    def _send(self, status: int, body: bytes | str | object, kind: str = "application/json",
              headers: dict | None = None) -> None:
        data = body if isinstance(body, bytes) else (body if isinstance(body, str) else json.dumps(body)).encode()
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _mode(self) -> tuple[str, str]:
        path = self.path.split("?", 1)[0]
        parts = path.split("/")
        if len(parts) > 2 and parts[1] == "m":
            return parts[2], "/" + "/".join(parts[3:])
        return "", path

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        mode, rest = self._mode()
        if not mode:
            return self._admin(rest)
        if rest not in WELL_KNOWN:
            return self._send(404, {"error": "not_found"})
        base = f"http://127.0.0.1:{port()}/m/{mode}"
        endpoint = {"endpoint-relative": "/oauth/token", "endpoint-number": 5,
                    "endpoint-down": f"http://127.0.0.1:{closed_port()}/oauth/token",
                    "endpoint-file": "file:///etc/passwd"}.get(mode, base + "/oauth/token")
        answers = {
            "discovery-401": (401, {"error": "unauthorized"}),
            "discovery-403": (403, "forbidden"),
            "discovery-404": (404, {"error": "not_found"}),
            "discovery-500": (500, "internal error"),
            "discovery-html": (200, HTML[1], HTML[0]),
            "discovery-empty": (200, {}),
            "discovery-list": (200, [base + "/oauth/token"]),
            "discovery-text": (200, "token_endpoint=" + base + "/oauth/token", "text/plain"),
            "discovery-deep": (200, "[" * 100_000 + "]" * 100_000),
            "discovery-binary": (200, b"\xff\xfe{\x00", "application/json"),
        }
        if mode == "discovery-302":
            return self._send(302, "", "text/plain", {"Location": "http://issuer.example.com/.well-known/x"})
        if mode in answers:
            return self._send(*answers[mode])
        self._send(200, {"issuer": base, "token_endpoint": endpoint})

    def do_POST(self) -> None:  # noqa: N802
        mode, rest = self._mode()
        length = min(int(self.headers.get("Content-Length") or 0), 64 * 1024)
        form = self.rfile.read(length).decode("utf-8", "replace")
        if rest != "/oauth/token":
            return self._send(404, {"error": "not_found"})
        secret = next((v for k, _, v in (p.partition("=") for p in form.split("&")) if k == "client_secret"), "")
        answers = {
            "token-401": (401, {"error": "invalid_client"}),
            "token-400-echo": (400, {"error": secret, "error_description": f"wrong secret {secret}"}),
            "token-500-html": (500, HTML[1], HTML[0]),
            "token-html": (200, HTML[1], HTML[0]),
            "token-empty": (200, {}),
            "token-number": (200, {"access_token": 5, "expires_in": 300}),
            "token-newline": (200, {"access_token": "eyJ.a\nb.c", "expires_in": 300}),
            "token-list": (200, ["eyJ.a.b"]),
        }
        if mode in answers:
            return self._send(*answers[mode])
        self._send(200, {"access_token": "eyJhbGciOiJub25lIn0.eyJzdWIiOiJmdXp6In0.c2ln", "token_type": "Bearer",
                         "expires_in": 300})

    def _admin(self, path: str) -> None:
        """What ``up``'s reachability check and ``status`` ask of a cluster's admin API (no auth checked)."""
        if path.startswith("/admin/v2/clusters"):
            return self._send(200, ["blue", "green"])
        if path.startswith("/admin/v2/brokers/version"):
            return self._send(200, "4.2.4", "text/plain")
        if path.startswith("/admin/v2/brokers/"):
            return self._send(200, "ok", "text/plain")
        self._send(404, {"error": "not_found"})
