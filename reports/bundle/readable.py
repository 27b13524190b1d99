"""Evidence as a reader takes it in: a check's evidence quotes what a broker answered, and an HTTP error body is
JSON whose string escapes a Java stack trace (``{"reason":"\\n --- An unexpected error occurred in the server
---\\n\\nMessage: ...\\n\\nStacktrace:\\n\\norg.apache...``). ``evidence_text`` decodes such a JSON string in place
and, for Pulsar's server-error banner, keeps its message and the stack trace's first line, so ``results`` (and the
report, where it uses this) shows ``reason: server error: Expected target metadata store to be Oxia
(org.apache.pulsar.metadata.api.MetadataStoreException: ...)`` instead of escapes. The evidence is cut by its judge,
so the JSON is often unterminated: a string is read up to its closing quote or the end of the text.
"""
from __future__ import annotations

import json
import re

# the start of a JSON member whose value is a string: "reason":"
_MEMBER = re.compile(r'"(\w+)"\s*:\s*"')
_ESCAPES = ("\\n", '\\"', "\\t", "\\\\")
_BANNER = re.compile(r"-{2,}\s*An unexpected error occurred in the server\s*-{2,}", re.I)


def _unescape(raw: str) -> str:
    try:
        return json.loads(f'"{raw}"')
    except json.JSONDecodeError:  # a string cut inside an escape
        return raw.replace("\\n", "\n").replace("\\t", "\t").replace('\\"', '"').replace("\\\\", "\\")


def _server_error(text: str) -> str:
    """Pulsar's REST error page (``RestException``): its message and the first line of its stack trace."""
    message = re.search(r"Message:\s*(.+)", text)
    trace = re.search(r"Stacktrace:\s*\n\s*(\S[^\n]*)", text)
    said = message.group(1).strip() if message else "no message"
    return f"server error: {said}" + (f" ({trace.group(1).strip()})" if trace else "")


def _plain(text: str) -> str:
    text = _server_error(text) if _BANNER.search(text) else text
    return " ".join(text.split())


def _string_end(text: str, start: int) -> tuple[int, bool]:
    """Where the JSON string from ``start`` ends (its closing quote's index, or the text's end) and whether it closed."""
    j = start
    while j < len(text):
        if text[j] == "\\":
            j += 2
            continue
        if text[j] == '"':
            return j, True
        j += 1
    return len(text), False


def evidence_text(evidence: str) -> str:
    """``evidence`` with each JSON string member decoded (``"reason":"\\n..."`` -> ``reason: ...``); other text as is.

    A string the judge cut has no closing quote of its own: the quote found is the next object's (``{"``) or there
    is none. Its text then ends at the first ``; `` after its last escape, where the judge's own words resume.
    """
    if not isinstance(evidence, str) or not any(e in evidence for e in _ESCAPES):
        return evidence
    out, pos = [], 0
    while True:
        match = _MEMBER.search(evidence, pos)
        if not match:
            out.append(evidence[pos:])
            return "".join(out)
        begin = match.end()
        end, closed = _string_end(evidence, begin)
        raw, resume = evidence[begin:end], end + 1 if closed else end
        if not closed or evidence[end - 1] == "{":  # cut: the judge's words follow the string's last escape
            last = max(raw.rfind(e) for e in _ESCAPES)
            cut = raw.find("; ", last + 1 if last >= 0 else 0)
            if cut >= 0:
                raw, resume = raw[:cut], begin + cut
            out.append(f"{evidence[pos:match.start()]}{match.group(1)}: {_plain(_unescape(raw))}…")
        else:
            out.append(f"{evidence[pos:match.start()]}{match.group(1)}: {_plain(_unescape(raw))}")
        pos = resume
