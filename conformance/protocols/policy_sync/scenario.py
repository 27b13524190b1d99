"""A policy-sync scenario on real clusters: a fresh namespace, a list of steps (writes, held and
released replication links, frozen or skewed broker clocks, redeliveries), quiescence, and what
every cluster holds then, with the events each one consumed and each cluster's value over time (and,
where a scenario asks, what a cluster's store holds after a restart). It judges nothing: the outcome
it saves is what record.py hands to the judge."""
from __future__ import annotations

import threading
import time
import uuid
from dataclasses import asdict
from pathlib import Path

from pulsar_conformance.fixtures.deploy import clocks
from pulsar_conformance.fixtures.deploy.admin import Admin, AdminError
from pulsar_conformance.fixtures.deploy.metadata_sync import SUBSCRIPTION, TOPIC
from pulsar_conformance.wait import wait_quiet, wait_until

from ...harness import outcome as saved
from ...harness import timeline
from . import observe
from .outcome import Outcome, Step


def _stats(deployment, cluster: str) -> dict:
    """The sync topic's stats on ``cluster`` ({} while it does not answer)."""
    try:
        return deployment.admin(cluster).request("GET", Admin.topic_path(TOPIC) + "/stats", timeout=5) or {}
    except AdminError:
        return {}


def _unsent(stats: dict, to: str | None = None) -> int:
    """Events still to send to ``to`` (to all peers if None)."""
    replication = stats.get("replication") or {}
    return sum(int(r.get("replicationBacklog") or 0) for peer, r in replication.items() if to in (None, peer))


def _unconsumed(stats: dict) -> int:
    """Events the cluster's own synchronizer has not consumed yet."""
    return int(((stats.get("subscriptions") or {}).get(SUBSCRIPTION) or {}).get("msgBacklog") or 0)


def _still_pending(deployment, clusters: list[str]) -> str:
    """Evidence of a scenario that did not settle: per cluster, the sync subscription's backlog and its
    unacknowledged count, and what is still to send to each peer."""
    said = []
    for c in clusters:
        stats = _stats(deployment, c)
        sub = (stats.get("subscriptions") or {}).get(SUBSCRIPTION) or {}
        peers = {peer: int(r.get("replicationBacklog") or 0) for peer, r in (stats.get("replication") or {}).items()}
        said.append(f"{c}: backlog {sub.get('msgBacklog')}, unacknowledged {sub.get('unackedMessages')}, to send {peers}")
    return "; ".join(said)


def pending(deployment, cluster: str) -> int:
    stats = _stats(deployment, cluster)
    return _unsent(stats) + _unconsumed(stats)


class Runner:
    def __init__(self, deployment, clusters: list[str], line: timeline.Timeline):
        self.d, self.clusters, self.line = deployment, clusters, line
        self.held: set[tuple[str, str]] = set()
        self.moved = False  # a clock was frozen or skewed: unwind lines them up again
        self.base_ms = 0

    def clock_base(self) -> int:
        """A base time ahead of every broker's clock (a frozen clock never moves backwards)."""
        if not self.base_ms:
            latest = max(self.d.faults.clock(c).shows() for c in self.clusters)
            self.base_ms = (latest // 1000 + 5) * 1000
        return self.base_ms

    def execute(self, step: Step, policy: observe.Policy) -> dict:
        d = self.d
        result = {"step": step.show(), "ok": True, "at_ns": time.time_ns()}
        try:
            if step.op == "write":
                policy.write(d.admin(step.cluster), step.value)
            elif step.op == "writes":
                result["errors"] = self._together([(lambda a, v=v: policy.write(a, v), c) for c, v in step.together])
                result["ok"] = not result["errors"]
            elif step.op == "delete-and-write":
                result["errors"] = self._together([(policy.delete, step.cluster),
                                                   (lambda a: policy.write(a, step.value), step.to)])
                result["ok"] = not result["errors"]
            elif step.op == "delete":
                policy.delete(d.admin(step.cluster))
            elif step.op == "hold":
                d.faults.cut(step.cluster, step.to, one_way=True)
                self.held.add((step.cluster, step.to))
            elif step.op == "release":
                d.faults.heal(step.cluster, step.to, one_way=True)
                self.held.discard((step.cluster, step.to))
                # delivered: the link's backlog is sent and the receiver has consumed it
                # replication stats name the peer by its Pulsar cluster name, not the role
                wait_until(lambda: _unsent(_stats(d, step.cluster), d.clusters[step.to].name) == 0
                           and _unconsumed(_stats(d, step.to)) == 0,
                           timeout=30, interval=0.1, what=f"events of {step.cluster} consumed at {step.to}")
            elif step.op == "freeze":
                base = self.clock_base()
                for cluster, ms in step.clocks:
                    d.faults.clock(cluster).freeze(base + int(ms))
                    # set as each one is: a later clock that cannot be frozen (an external deployment's
                    # command: FaultUnsupported) leaves the ones before it for unwind to line up again
                    self.moved = True
                clocks.settle()
            elif step.op == "skew":
                others = max(d.faults.clock(c).shows() for c in self.clusters if c != step.cluster)
                d.faults.clock(step.cluster).offset(others - clocks.now_ms() + int(step.seconds * 1000))
                self.moved = True
                clocks.settle()
            elif step.op == "redeliver":
                self._redeliver(step.cluster)
            elif step.op == "break-sync-topic":
                d.admin(step.cluster).request("POST", Admin.topic_path(TOPIC) + "/terminate")
            elif step.op == "pause":
                time.sleep(step.seconds)
            else:
                raise ValueError(f"unknown step {step.op!r}")
        except AdminError as error:
            result.update(ok=False, error=str(error)[:300], status=error.status)
        self.line.mark(step.show() + ("" if result["ok"] else f" (refused: {result.get('status')})"),
                       at_ns=result["at_ns"])
        return result

    def _together(self, calls: list) -> list[str]:
        """Each ``(call, cluster)`` run with the cluster's admin, all released at once."""
        barrier = threading.Barrier(len(calls))
        errors: list[str] = []

        def send(call, cluster):
            admin = self.d.admin(cluster)
            barrier.wait()
            try:
                call(admin)
            except AdminError as error:
                errors.append(f"{cluster}: {error}"[:300])

        threads = [threading.Thread(target=send, args=pair) for pair in calls]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=30)
        return errors

    def _redeliver(self, cluster: str) -> None:
        self.d.admin(cluster).request(
            "POST", f"{Admin.topic_path(TOPIC)}/subscription/{SUBSCRIPTION}/resetcursor/0")

    def align(self) -> None:
        """Every clock runs again, together, from past the latest any of them showed (never back)."""
        if self.moved:
            latest = max(self.d.faults.clock(c).shows() for c in self.clusters) + 1000
            for cluster in self.clusters:
                self.d.faults.clock(cluster).resume_from(latest)
            self.moved = False
            clocks.settle()

    def unwind(self) -> None:
        """Whatever a step left held or frozen is let go: the next scenario starts clean."""
        for src, dst in sorted(self.held):
            self.d.faults.heal(src, dst, one_way=True)
        self.held.clear()
        self.align()


def run(deployment, run_dir: Path, name: str, clusters: list[str], steps: list[Step], *,
        quiet: float = 2.0, timeout: float = 45.0, setup: list[Step] | None = None,
        judged: tuple[str, ...] = (), counterexample: dict | None = None,
        replicated_to_first: bool = False, read_after_restart: str | None = None) -> Outcome:
    """Run ``steps`` on a fresh namespace created at ``clusters[0]``; ``setup`` steps run once it is
    on every cluster, before ``steps`` (e.g. links held and clocks frozen from the start).
    ``judged``: the checks to judge the outcome by (judge.JUDGES); ``counterexample``: the spec trace
    the steps replay (trace.py), kept in the outcome for the judge. ``replicated_to_first``: the namespace's
    replication clusters are ``clusters[0]`` alone (its policies still reach every cluster through the sync),
    so that it can be deleted there (observe.Policy.delete). ``read_after_restart``: a cluster restarted once the
    run settled, and its value read again (``Outcome.stored_after_restart``: what its store holds, not what its
    metadata cache served; publish-before-write); a deployment that cannot restart raises FaultUnsupported, and
    the scenario is unknown, as without that reading it would judge the cache."""
    run_dir.mkdir(parents=True, exist_ok=True)
    line = timeline.Timeline(name)
    runner = Runner(deployment, clusters, line)
    policy = observe.Policy(f"ps-{uuid.uuid4().hex[:6]}", "pol")
    results: list[dict] = []
    names = [deployment.clusters[c].name for c in clusters]
    policy.create(deployment.admin(clusters[0]), names, names[:1] if replicated_to_first else None)
    for cluster in clusters:  # the namespace itself reaches every cluster through the sync
        admin = deployment.admin(cluster)
        wait_until(lambda a=admin: exists(a, policy), timeout=30, interval=0.1,
                   what=f"namespace {policy.tenant}/{policy.namespace} synced to {cluster}")
    line.mark(f"namespace {policy.tenant}/{policy.namespace} on every cluster")
    try:
        with observe.Sampler(deployment, clusters, policy) as sampler:
            for step in setup or []:
                results.append(runner.execute(step, policy))
            for step in steps:
                results.append(runner.execute(step, policy))
            runner.unwind()
            quiesced = _quiesce(deployment, clusters, sampler, quiet, timeout)
            line.mark("quiescent" if quiesced else f"not quiescent after {timeout:.0f} s: " + _still_pending(deployment, clusters))
            final = sampler.sample()
    finally:
        runner.unwind()
    events = {c: observe.events(deployment, c, policy.store_path) for c in clusters}
    stored = None
    if read_after_restart:
        deployment.faults.restart(read_after_restart)
        stored = policy.read(deployment.admin(read_after_restart))
    for cluster, points in sampler.series.items():
        for at_ns, value in points:
            line.markers.append({"ts_ns": at_ns, "label": f"{cluster} holds {value}", "cluster": cluster,
                                 "value": value})
    out = Outcome(name, run_dir, clusters, policy, list(steps), results, final, quiesced,
                  sampler.series, events, line.markers, runner.base_ms, tuple(judged), stored, counterexample,
                  dict(zip(clusters, names, strict=True)))
    saved.save(out, run_dir)
    timeline.save(run_dir, "policy-sync", {
        "name": name, "clusters": clusters, "policy": asdict(policy), "steps": [asdict(s) for s in steps],
        "results": results, "final": final, "quiesced": quiesced, "base_ms": runner.base_ms,
        "series": sampler.series, "events": {c: [e.to_json() for e in es] for c, es in events.items()},
    }, line.markers, {})  # no capture: nothing for Spark to judge ({})
    return out


def exists(admin, policy: observe.Policy) -> bool:
    """Whether ``policy`` can be read at ``admin``'s cluster (the scenarios and the explore adapter wait for it)."""
    try:
        admin.request("GET", policy.rest, timeout=5)
        return True
    except AdminError:
        return False


def _quiesce(deployment, clusters, sampler: observe.Sampler, quiet: float, timeout: float) -> bool:
    """Nothing left to send or consume anywhere, and no value changed for ``quiet`` seconds."""
    return wait_quiet(sampler.current, quiet=quiet, timeout=timeout, interval=0.2,
                      settled=lambda: all(pending(deployment, c) == 0 for c in clusters))
