"""The verdict document of ``check-capture`` (docs/spark-checks.md), whichever engine computed it."""
from __future__ import annotations

from .classes import CLASSES


def build_verdict(*, manifest: dict, events: int, sends: int, counts: dict[str, int],
                  examples: dict[str, list[dict]], engine: str) -> dict:
    allowed = set(manifest["allowed"])
    if events == 0 or sends == 0:
        # Nothing was sent, so no class can be judged: unknown, not a pass.
        valid, reason = None, "the capture holds no send events" if events else "the capture holds no events"
    else:
        valid = not any(counts[c] for c in CLASSES if c not in allowed)
        reason = None
    document = {
        "valid": valid,
        "events": events,
        "anomalies": {c: {"count": int(counts[c]), "examples": examples.get(c, [])} for c in CLASSES},
        "run_id": manifest["run_id"],
        "format": manifest["format"],
        "allowed": sorted(allowed),
        "engine": engine,
    }
    if reason:
        document["unknown_reason"] = reason
    return document


def verdict_text(document: dict) -> str:
    word = {True: "VALID", False: "INVALID", None: "UNKNOWN"}[document["valid"]]
    read = document.get("format", "?").rsplit("/", 1)[-1]
    lines = [f"{word}: {document['events']:,} events of run {document['run_id']} ({document['engine']}, capture format /{read})"]
    if document.get("unknown_reason"):
        lines.append(f"  cannot decide: {document['unknown_reason']}")
    for name, result in document["anomalies"].items():
        mark = " (allowed)" if name in document["allowed"] else ""
        lines.append(f"  {name:<22} {result['count']:>10,}{mark}")
        for example in result["examples"]:
            lines.append(f"      {example}")
    return "\n".join(lines)
