"""One failover scenario: a producer and a consumer through one failover client, faults on the
clusters at chosen moments, and what it observed (the capture, where the client was attached, the
fault events with their times), saved as an outcome nothing has judged yet: Spark's check of the
capture and the spec's validation of the events come afterwards, in record.py, before the judge.

A fault's time is when the client's probe could first see it: a killed broker's port closes at
the SIGKILL; a restarted one's port opens somewhere between the last refused and the first
accepted connect of a watcher that tries every 5 ms, and the earlier moment is taken (it can only
make the spec more permissive, never reject a correct client). A paused (SIGSTOP) broker keeps
its port open: its probe still succeeds, so no event is observed at all (PIP121-R07).
"""
from __future__ import annotations

import bisect
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

from pulsar_conformance.fixtures.capture import Capture
from pulsar_conformance.wait import wait_until

from ...harness import evidence, java_process, timeline
from ...harness import outcome as saved
from ...harness.traffic import Sub, Traffic
from . import observe
from .client import FailoverClient, client_url
from .java_client import JavaFailoverClient
from .outcome import Event, FailoverConfig, Outcome

# a consumer that moves reads its subscription on the new cluster from its start: duplicates and
# order across the switch are figures here, losing an acknowledged message is the finding
ALLOWED = ("duplicate", "redelivered_after_ack", "nonmonotonic")


@dataclass
class Faults:
    """What a step may do to the clusters; each call records the event the probe would see."""

    deployment: object
    line: timeline.Timeline = field(default_factory=timeline.Timeline)
    events: list[Event] = field(default_factory=list)
    client: FailoverClient | None = None
    marks: dict[str, int] = field(default_factory=dict)  # instants a step notes for the judge (Outcome.marks)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def mark(self, label: str) -> None:
        self.line.mark(label)

    def _record(self, event: Event) -> None:
        """Keep the events in time order: a step's follow-up (``start(then=...)``) may act before the
        start it follows has returned."""
        with self._lock:
            bisect.insort(self.events, event, key=lambda e: e.at_ns)

    def kill(self, cluster: str) -> None:
        at = time.time_ns()
        self.signal("kill", cluster)
        self._record(Event(at, "down", cluster))
        self.mark(f"{cluster} killed (SIGKILL)")

    def signal(self, verb: str, cluster: str) -> None:
        """``verb`` (kill, pause, resume) on what the cluster's clients reach: a standalone's one process; on a
        cluster topology its brokers and the Pulsar proxy in front of them, never its ZooKeeper or bookies. A
        bookie killed with its ZooKeeper and started again within its old session's 30 s finds its registration
        still there and exits ("Couldn't register bookie with zookeeper, shutting down": a client-failover
        exploration on 3.0.0's cluster topology, 2026-12-02, whose kill and start came every 7 s), so the cluster
        never came back; an outage a client sees is its brokers gone."""
        act = getattr(self.deployment.faults, verb)  # verb: one of the three above, never user text
        serving = [c for c in self.deployment.components(cluster) if c.kind in ("broker", "proxy")]
        if not serving:
            act(cluster)
            return
        # a component already gone (a broker that exited while starting) is not signalled: nothing to stop there
        running = [c for c in serving if c.process() is not None]
        if not running:
            raise RuntimeError(f"{cluster}: none of {', '.join(c.name for c in serving)} is running")
        for c in running:
            act(cluster, c.name)

    def start(self, cluster: str, then: Step | None = None) -> None:
        """Start ``cluster``; it is up (for the probe) when its port opens. ``then=(seconds, action)``
        runs ``action`` that long after the port opened, whenever the start returns: the start waits
        until the broker is ready, which on a loaded machine may take longer than a client's delay,
        so an action timed against the probe cannot wait for it. The follow-up may kill the cluster before
        it is ready (a step timed against the client's switch, not the broker's health check): that start
        ends there, with no error."""
        # every broker of the cluster is watched: the client's probe may reach any of them, so the
        # cluster is up when the first one listens (a standalone has one); through a Pulsar proxy, the proxy
        watched = [({}, address) for address in _addresses(client_url(self.deployment, cluster))]
        watchers = [threading.Thread(target=_watch_port, args=(*address, opened), daemon=True)
                    for opened, address in watched]
        for watcher in watchers:
            watcher.start()
        failed: list[BaseException] = []
        follow = threading.Thread(target=self._follow, args=(watched, then, failed), daemon=True) if then else None
        if follow:
            follow.start()
        begun, refused = time.time_ns(), None
        try:
            self.deployment.faults.start(cluster)
        except Exception as error:  # judged below, once the follow-up has said whether it killed the cluster
            refused = error
        finally:
            for watcher in watchers:
                watcher.join(5)
            if follow:
                follow.join(60)
        if failed:
            raise failed[0]
        if refused and not any(e.kind == "down" and e.cluster == cluster and e.at_ns >= begun for e in self.events):
            raise refused
        opened = min((o for o, _ in watched), key=lambda o: o.get("open_ns", float("inf")))
        # the port's opening; if the watcher's first try found it open already, when it did
        at = opened.get("last_refused_ns") or opened.get("open_ns") or time.time_ns()
        self._record(Event(at, "up", cluster))
        self.mark(f"{cluster} started; its port opened +{(opened.get('open_ns', at) - at) / 1e6:.0f} ms after the last refusal")

    def _follow(self, watched: list, then: Step, failed: list) -> None:
        delay, action = then
        if not wait_until(lambda: any("open_ns" in o for o, _ in watched), timeout=300, interval=0.005):
            return  # never opened: the start fails and says so
        first = min((o for o, _ in watched if "open_ns" in o), key=lambda o: o["open_ns"])
        up = first.get("last_refused_ns") or first["open_ns"]
        time.sleep(max(0.0, (up + delay * 1_000_000_000 - time.time_ns()) / 1e9))
        try:
            action(self)
        except BaseException as error:  # the step fails with it, in the scenario's thread
            failed.append(error)

    def pause(self, cluster: str) -> None:
        self.signal("pause", cluster)
        self.mark(f"{cluster} paused (SIGSTOP: port open, nothing served)")

    def resume(self, cluster: str) -> None:
        self.signal("resume", cluster)
        self.mark(f"{cluster} resumed")

    def await_switch(self, cluster: str, timeout: float) -> int | None:
        """Wait until the client moves to ``cluster`` after the last fault; when it did, or None.
        (The Java client says so as it happens; a step can act on the switch at once.)"""
        return self.client.wait_for_switch(cluster, self.events[-1].at_ns, timeout)

    def point_to(self, cluster: str) -> None:
        at = time.time_ns()
        self.client.point_to(cluster)
        self._record(Event(at, "point", cluster))
        self.mark(f"provider points the client to {cluster}")


Step = tuple[float, Callable[[Faults], None]]  # (seconds to wait first, what to do)


def run(deployment, run_dir: Path, name: str, config: FailoverConfig, topic: str, steps: list[Step], *,
        seed: int, rate: float = 50.0, controlled: bool = False, drain_seconds: float = 45.0) -> Outcome:
    faults = Faults(deployment, timeline.Timeline(name))
    with Capture(run_dir, allowed=list(ALLOWED), scenario={"seed": seed, "name": name, **config.to_json()}) as capture:
        client = FailoverClient(deployment, config, controlled=controlled)
        faults.client = client
        traffic = Traffic(capture, deployment.clusters[config.primary], [])
        hung: list[str] = []
        try:
            traffic.add_consumer(topic, Sub("reader", "Exclusive"), "c-reader", client=client.client, label="failover")
            traffic.add_producer(topic, "p-writer", rate, client=client.client, label="failover")
            start_ns = client.attached[0].at_ns
            faults.line.say(f"sending {rate:.0f} msg/s through a failover client attached to {client.current()}")
            for wait, act in steps:
                time.sleep(wait)
                act(faults)
            faults.line.say("producer stopped; consumer draining")
            traffic.stop(drain_seconds=drain_seconds, quiet_seconds=4.0)
        finally:
            traffic.close()
            hung += [str(h) for h in traffic.hung]
            closing = client.close()
            if closing:
                hung.append(closing)
    return _outcome(name, run_dir, config, faults, client, start_ns,
                    [e for h in traffic.handles for e in h.errors], hung, controlled,
                    backlogs=observe.backlogs(deployment, topic, "reader", (config.primary, *config.secondaries)))


def run_java(deployment, run_dir: Path, name: str, config: FailoverConfig, topic: str, steps: list[Step], *,
             seed: int, rate: float = 50.0, controlled: bool = False, drain_seconds: float = 45.0,
             tokens: dict[str, str] | None = None) -> Outcome:
    """The same scenario through the real Java client (java_client.py): its producer and consumer
    run in the JVM, their events become this capture's rows when it ends. ``tokens``: per cluster,
    the credentials the URL provider hands over with that cluster (controlled only)."""
    faults = Faults(deployment, timeline.Timeline(name))
    with Capture(run_dir, allowed=list(ALLOWED), scenario={"seed": seed, "name": name, "client": "java",
                                                           **config.to_json()}) as capture:
        capture.must_see(topic, "reader")
        client = JavaFailoverClient(deployment, config, run_dir, topic, controlled=controlled, rate=rate,
                                    drain_seconds=drain_seconds, tokens=tokens)
        faults.client = client
        hung: list[str] = []
        try:
            client.start()
            start_ns = client.attached[0].at_ns
            faults.line.say(f"sending {rate:.0f} msg/s through a Java {client.version} failover client attached to "
                            f"{client.current()}")
            for wait, act in steps:
                time.sleep(wait)
                act(faults)
            faults.line.say("producer stopped; Java consumer draining")
            stopped = client.stop()
            if stopped:
                hung.append(stopped)
        finally:
            client.kill()
        errors = client.copy_into(capture)
    if client.drained() is None:
        # the JVM ended before its drain (a crash, its own time limit, a classpath that does not run): what
        # it never received is not Pulsar losing it, so no verdict is drawn from this run
        raise RuntimeError(f"the Java failover client (pulsar-client-original {client.version}) did not drain to its "
                           f"end ({'; '.join(hung) or 'no drained line'}; its last words: "
                           f"{java_process.last_words(client.lines)}); its command line and stderr are in {run_dir}")
    return _outcome(name, run_dir, config, faults, client, start_ns, errors, hung, controlled,
                    java={"version": client.version, "failed_probes": client.failed_probes(),
                          "switch_log": client.switch_log(),
                          "provider_polls": client.provider.polls if client.provider else None,
                          "drained": client.drained()},
                    backlogs=observe.backlogs(deployment, topic, "reader", (config.primary, *config.secondaries)), drain_complete=True)


def _outcome(name, run_dir, config, faults, client, start_ns, errors, hung, controlled, java=None, *,
             backlogs=None, drain_complete=False) -> Outcome:
    """What the scenario observed, saved: the capture's rows read back, the faults and the client's switches
    as one time-ordered list of events. Nothing judged yet (``verdict`` and ``validation`` None): record.py's
    ``recorded`` adds Spark's verdict and the spec's validation, and saves the outcome again."""
    columns = evidence.read_capture(run_dir)
    switches = [Event(at, "switch", to, origin) for at, origin, to in client.switches()]
    events = sorted(faults.events + switches, key=lambda e: e.at_ns)
    outcome = Outcome(name, run_dir, config, start_ns, events, faults.line.markers, None,
                      columns["kind"].count("send_ok"), errors, hung, java=java, backlogs=backlogs,
                      drain_complete=drain_complete, controlled=controlled, marks=dict(faults.marks), columns=columns)
    save(outcome)
    return outcome


def save(out: Outcome) -> None:
    """outcome.json (harness/outcome.py), and failover.json, markers.json, verdict.json for the report; saved
    by the scenario with nothing judged, again by record.py with Spark's verdict and the trace's validation."""
    saved.save(out, out.run_dir)
    v = out.validation
    doc = {"config": out.config.to_json(), "start_ns": out.start_ns,
           "events": [vars(e) for e in out.events], "markers": out.markers, "sends_ok": out.sends_ok,
           "errors": out.errors[:20], "hung": out.hung, "java": out.java,
           "backlogs": out.backlogs, "drain_complete": out.drain_complete,
           "trace": None if v is None else {"ok": v.ok, "problem": v.problem, "hidden_steps": v.hidden_steps,
                                            "labels": v.labels}}
    switches = [{"ts_ns": e.at_ns, "label": f"client {e.origin} -> {e.cluster}"} for e in out.switches()]
    # timeline.save writes verdict.json too: None ("null") until record.py's afterwards.spark_verdict writes Spark's
    timeline.save(out.run_dir, "failover", doc, out.markers + switches, out.verdict)


def _addresses(service_url: str) -> list[tuple[str, int]]:
    """Every broker of ``service_url``: a cluster of several brokers lists them all
    (``pulsar://h1:p1,h2:p2``), which urllib cannot read as one port."""
    scheme, _, rest = service_url.partition("://")
    return [(parsed.hostname, parsed.port) for parsed in (urlparse(f"{scheme}://{host}") for host in rest.split(","))]


def _watch_port(host: str, port: int, out: dict, timeout: float = 300.0) -> None:
    """``out["open_ns"]``: when the port first took a connection; ``out["last_refused_ns"]``: the last refusal."""
    def opened() -> bool:
        tried = time.time_ns()
        try:
            with socket.create_connection((host, port), timeout=0.5):
                out["open_ns"] = time.time_ns()
                return True
        except OSError:
            out["last_refused_ns"] = tried
            return False

    wait_until(opened, timeout=timeout, interval=0.005)
