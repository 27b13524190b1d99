"""Keeping credentials out of everything the suite prints, logs and writes.

Two tools, used everywhere (error messages, deployment descriptions, bundle files):

- ``redact_url`` / ``redact_text`` mask what a URL itself can carry: the userinfo
  (``http://admin:TOKEN@host``) and query or fragment parameters whose name says secret
  (``?token=``, ``password=``, ``client_secret=``...). They need no list of secrets, so they also
  protect a URL the suite has never seen before, e.g. one quoted in a broker's error.
- ``document_secrets`` lists every credential value a deployment document gives (inline values,
  the contents of the files and environment variables it points at, URL passwords), so a bundle
  can be scanned for them byte for byte as a last line of defence (``redact_tree``).

Paths to key or credential files may be shown; their contents never.
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import unquote

MASK = "[REDACTED]"

# Parameter and field names that hold a credential. Matched on the last word of the name
# (``client_secret``, ``auth_token``, ``issuerPrivateKey``), case-insensitively.
_SECRET_NAME = re.compile(
    r"(?i)(token|password|passwd|pwd|secret|private_?key|privatekey|credentials?|api_?key|apikey|"
    r"auth_?params|signature|sig|session|access_?key|passphrase)$")
# Fields that name a file (or an environment variable) whose content is a credential.
_SECRET_FILE = re.compile(r"(?i)(token|password|secret|key|credentials?)_?(file|path)$")
# Fields that name an environment variable holding a credential (``token_env``); not every
# ``*_env`` field (a ``java_env: JAVA_HOME`` is no secret, and masking its value would maul a bundle).
_SECRET_ENV = re.compile(r"(?i)(token|password|passwd|secret|key|credentials?|auth)_?env$")
# Anything that looks like scheme://..., up to whitespace or a quote/bracket that ends it in prose.
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s'\"<>`]+")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://")
_PARAM = re.compile(r"([?&;#])([^=&;#\s]+)=([^&;#\s]*)")

# Credentials recognisable by their shape alone, wherever they stand in a text, so that one the run was never
# told about is masked too (a fault command's argv with an ``Authorization: Bearer ...`` header, a JWT a tool
# printed): an HTTP authorization scheme's credentials, a JWT (three base64url parts, the first a JSON header
# "eyJ..."), and ``--token=...`` / ``client_secret=...`` assignments whose name says secret.
_AUTH_SCHEME = re.compile(r"\b([Bb]earer|[Bb]asic|BEARER|BASIC)( +)(?=[A-Za-z0-9._~+/=-]*[0-9._~+/=-])"
                          r"([A-Za-z0-9._~+/=-]{8,})")
_JWT = re.compile(r"eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*")
# the two patterns that scan word by word run on texts up to this size: messages, argv, plans and evidence are
# far smaller; a broker log of 64 MiB gets the given secrets, URLs and JWTs masked (literal-led, fast) only
_SHAPES_MAX = 1 << 20
_ASSIGNMENT = re.compile(r"(?<![\w.-])(-{0,2}[A-Za-z][A-Za-z0-9_.-]{0,63})=([^\s'\"&;,]{4,})")

# Values shorter than this are not scanned for byte for byte: replacing a 3-letter password
# everywhere would maul a bundle, and URL-shaped occurrences are masked by structure anyway.
MIN_SECRET_LENGTH = 8
_MAX_SECRET_FILE = 1 << 20


def redact_url(url: str) -> str:
    """``url`` with its userinfo and secret parameters masked; unchanged when it carries none.

    Works on URLs ``urllib.parse`` rejects or misreads too (``http://u:p@[::1:80``, a password
    with a raw ``/``): a malformed URL is exactly the one an error message quotes. Everything
    between ``//`` and the last ``@`` before the query is taken for userinfo, which over-masks
    an ``@`` in a path (rare in these URLs; hiding a path in a message costs nothing).
    """
    span = _userinfo_span(url)
    if span:
        url = f"{url[:span[0]]}{MASK}{url[span[1]:]}"
    return _mask_params(url)


def without_userinfo(url: str) -> str:
    """``url`` with its userinfo removed (not masked): for a URL the suite hands on to Pulsar, e.g.
    a peer cluster's metadata, where a password would be stored and shown to anyone who reads it."""
    span = _userinfo_span(url)
    return f"{url[:span[0]]}{url[span[1] + 1:]}" if span else url


def _userinfo_span(url: str) -> tuple[int, int] | None:
    """(start, end) of what may be a URL's userinfo, or None."""
    scheme = _SCHEME.match(url)
    if not scheme:
        return None
    start = scheme.end()
    end = len(url)
    for stop in ("?", "#"):
        found = url.find(stop, start)
        if found >= 0:
            end = min(end, found)
    at = url.rfind("@", start, end)
    return (start, at) if at >= start else None


def _mask_params(url: str) -> str:
    def mask(match: re.Match) -> str:
        separator, name, value = match.groups()
        if value and _is_secret_name(unquote(name)):
            return f"{separator}{name}={MASK}"
        return match.group(0)

    if "=" not in url:
        return url
    return _PARAM.sub(mask, url)


def _is_secret_name(name: str) -> bool:
    return bool(_SECRET_NAME.search(name.replace("-", "_")))


def redact_text(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every URL redacted, every given secret value masked, and every credential recognisable
    by its shape (``Bearer ...``, a JWT, ``--password=...``) masked too."""
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        text = text.replace(secret, MASK)
    text = redact_shapes(text)
    if "://" not in text:
        return text
    return _URL.sub(lambda m: redact_url(m.group(0)), text)


def redact_shapes(text: str) -> str:
    """``text`` with the credentials recognisable by shape alone masked (see ``_AUTH_SCHEME``, ``_JWT``,
    ``_ASSIGNMENT``). Each pattern runs only when a cheap test says it may match, the word-by-word ones on
    texts up to ``_SHAPES_MAX``: a broker log of 64 MiB passes through here."""
    if "eyJ" in text:
        text = _JWT.sub(MASK, text)
    if len(text) > _SHAPES_MAX:
        return text
    if "=" in text:
        text = _ASSIGNMENT.sub(_mask_assignment, text)
    if any(word in text for word in ("earer ", "EARER ", "asic ", "ASIC ")):
        text = _AUTH_SCHEME.sub(lambda m: m.group(0) if m.group(3) == MASK else f"{m.group(1)}{m.group(2)}{MASK}",
                                text)
    return text


def shaped_secrets(text: str) -> list[str]:
    """The credentials ``redact_text`` recognises by their shape in ``text`` (a bearer's token, a JWT, a
    ``--password=`` value, a URL's password), as values: found in one place of a document (a fault command's
    ``Authorization: Bearer X``), they are masked wherever else they appear (the same X in another argument)."""
    found = list(_JWT.findall(text)) if "eyJ" in text else []
    found += [m.group(3) for m in _AUTH_SCHEME.finditer(text)]
    found += [m.group(2) for m in _ASSIGNMENT.finditer(text) if _is_secret_name(m.group(1).lstrip("-"))]
    for url in _URL.findall(text):
        found += url_secrets(url)
    return [s for s in found if len(s) >= MIN_SECRET_LENGTH and s != MASK]


def is_secret_name(name: str) -> bool:
    """Whether a field, parameter or variable of this name holds a credential (``token``, ``client_secret``...)."""
    return _is_secret_name(name)


def _mask_assignment(match: re.Match) -> str:
    name, value = match.groups()
    if value.startswith(MASK) or not _is_secret_name(name.lstrip("-")):
        return match.group(0)
    return f"{name}={MASK}"


def url_secrets(url: str) -> list[str]:
    """The credential values a URL carries (user, password, secret parameters), decoded and raw."""
    found: list[str] = []
    span = _userinfo_span(url)
    if span:
        userinfo = url[span[0]:span[1]]
        found += [userinfo, unquote(userinfo)]
        for part in userinfo.split(":", 1):
            found += [part, unquote(part)]
    for _, name, value in _PARAM.findall(url):
        if value and _is_secret_name(unquote(name)):
            found += [value, unquote(value)]
    return [s for s in found if s]


def document_secrets(document, *, environ: dict | None = None) -> list[str]:
    """Every credential a (parsed) deployment document gives, wherever it sits in the tree.

    Inline values of secret-named fields (``token``, ``client_secret``, ``password``...), the
    contents of files named by ``*_file``/``*_path`` fields of that kind or by a ``file://`` URL in
    a secret field (OAuth2's ``private_key: file:///creds.json``) with every line and JSON string
    of those files, ``*_env`` variables, and the credentials of every URL.
    """
    environ = os.environ if environ is None else environ
    found: list[str] = []

    def walk(node, name: str = "") -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, str(key))
            return
        if isinstance(node, list):
            for item in node:
                walk(item, name)
            return
        if not isinstance(node, str) or not node:
            return
        found.extend(url_secrets(node))
        if _SECRET_FILE.search(name):
            found.extend(file_secrets(node))
        elif _SECRET_ENV.search(name) and environ.get(node):
            found.append(environ[node].strip())
        elif _is_secret_name(name):
            # OAuth2's private_key is often a file:// URL or a path: then its content is the secret
            if node.startswith("file://"):
                found.extend(file_secrets(unquote(node[len("file://"):])))
            elif node.startswith("/") and Path(node).is_file():
                found.extend(file_secrets(node))
            else:
                found.append(node.strip())

    walk(document)
    return sorted({s for s in found if len(s) >= MIN_SECRET_LENGTH}, key=len, reverse=True)


def file_secrets(path: str) -> list[str]:
    """A credential file's content, each of its lines (a PEM key's base64 body) and, for a JSON
    credentials file, each string in it: a log that prints one line of a key leaks it too."""
    try:
        file = Path(path)
        if not file.is_file() or file.stat().st_size > _MAX_SECRET_FILE:
            return []
        text = file.read_text(errors="replace")
    except (OSError, ValueError):
        return []
    found = [text.strip()]
    found += [line.strip() for line in text.splitlines() if not line.startswith("-----")]
    try:
        found += _json_strings(json.loads(text))
    except ValueError:
        pass
    return [s for s in found if s]


def _json_strings(node) -> list[str]:
    if isinstance(node, dict):
        return [s for value in node.values() for s in _json_strings(value)]
    if isinstance(node, list):
        return [s for value in node for s in _json_strings(value)]
    return [node] if isinstance(node, str) else []


def redact_tree(root: Path, secret_values: Iterable[str]) -> list[str]:
    """Mask the given secrets (bytes, every file) and URL credentials (text files) under ``root``;
    the files touched, relative to ``root``. The last line of defence for a bundle."""
    needles = [s.encode() for s in sorted(set(secret_values), key=len, reverse=True) if s]
    touched = []
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        data = original = path.read_bytes()
        for needle in needles:
            data = data.replace(needle, MASK.encode())
        if b"://" in data:
            try:
                data = redact_text(data.decode("utf-8")).encode("utf-8")
            except UnicodeDecodeError:
                pass  # binary (Parquet): only the byte-for-byte scan above applies
        if data != original:
            path.write_bytes(data)
            touched.append(str(path.relative_to(root)))
    return touched
