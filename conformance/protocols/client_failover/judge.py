"""Pure judges of a recorded failover outcome (no cluster access, no recording)."""
from __future__ import annotations


def acknowledged_lost(columns: dict[str, list], backlogs: dict[str, dict] | None, final_cluster: str, *,
                      drain_complete: bool) -> tuple[bool | None, str, dict]:
    """PIP121-R11: every acknowledged send was delivered, or is still stored somewhere.

    ``columns``: the capture (``kind``, ``uid``); ``backlogs``: observe.backlogs after the client
    ended; ``final_cluster``: where the client was attached at the end; ``drain_complete``: the
    client's drain waited for every acknowledged uid (the Java harness) rather than for a quiet
    spell (the Python traffic), so a uid still in the attached cluster's backlog was not delivered
    by a consumer that had every chance to.

    - *gone*: acknowledged, never delivered, in no backlog: lost (fail);
    - *stranded elsewhere*: in the backlog of a cluster the client had left: stored, not lost (the
      PIP promises consuming on B, not that B has A's unreplicated data);
    - *stranded on the attached cluster*: the consumer did not resume reading it: fail after a
      complete drain, unknown after a quiet-spell drain (the harness may have stopped reading too soon).
    """
    sent = {u for k, u in zip(columns["kind"], columns["uid"], strict=True) if k == "send_ok" and u}
    delivered = {u for k, u in zip(columns["kind"], columns["uid"], strict=True) if k == "receive" and u}
    missing = sent - delivered
    figures: dict = {"acknowledged": len(sent), "not_delivered": len(missing)}
    if not missing:
        return True, f"all {len(sent)} acknowledged sends were delivered", figures
    if backlogs is None:
        return False, (f"{len(missing)} of {len(sent)} acknowledged sends never delivered (clusters' backlogs not "
                       "read)"), figures
    where: dict[str, set] = {}
    unreadable = []
    for cluster, backlog in backlogs.items():
        if "error" in backlog or not backlog.get("complete", False):
            unreadable.append(f"{cluster} ({backlog.get('error') or 'backlog larger than read'})")
        where[cluster] = missing & set(backlog.get("uids") or ())
    stranded = set().union(*where.values()) if where else set()
    gone = missing - stranded
    on_attached = where.get(final_cluster, set())
    figures.update(gone=len(gone), stranded={c: len(u) for c, u in where.items() if u},
                   backlog={c: b.get("msg_backlog") for c, b in backlogs.items()},
                   gone_sample=sorted(gone)[:5])
    per = ", ".join(f"{len(u)} in {c}'s backlog" for c, u in sorted(where.items()) if u) or "none in any backlog"
    said = (f"{len(missing)} of {len(sent)} acknowledged sends not delivered to the failover consumer: {per}; "
            f"{len(gone)} in no cluster's backlog")
    if gone and not unreadable:
        return False, said + f" (lost, e.g. {', '.join(sorted(gone)[:3])})", figures
    if gone:
        return None, said + f"; could not read every backlog: {'; '.join(unreadable)}", figures
    if on_attached:
        if drain_complete:
            return False, said + (f"; {len(on_attached)} stay in the backlog of {final_cluster}, where the client "
                                  "is attached, after a drain that waited for every acknowledged send"), figures
        return None, said + (f"; {len(on_attached)} stay in the backlog of {final_cluster}, where the client is "
                             "attached: the drain stopped on a quiet spell, so not judged"), figures
    return True, said + " (stored on a cluster the client had left: not lost)", figures

