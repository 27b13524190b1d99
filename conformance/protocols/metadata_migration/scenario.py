"""One PIP-454 run on a Pulsar 4.2+ standalone on ZooKeeper with an Oxia server beside it.

Metadata is seeded (``nodes`` namespaces, each with a topic), traffic runs on a topic through the
whole run (captured; Spark checks it after the run, record.py), metadata writes probe the cluster every 50 ms, the phase is
polled every 50 ms over REST and in ZooKeeper's migration flag (observe.FLAG_PATH: what the
coordinator wrote, where 4.2.4's status stops at COPYING: F-454-10), and the migration is started
over REST. Then, by ``fault``:
  - none: the migration runs to its end (the status or the flag says COMPLETED); both stores are
    read and compared, a conditional write is made on the cutover store, and the broker is
    restarted on ``oxia://`` (what an operator does after COMPLETED) to see every accepted write
    and the traffic's topic there;
  - oxia: the Oxia server is killed as soon as COPYING shows; the run waits for FAILED, checks
    writes are back on ZooKeeper, restarts Oxia and starts the migration again (how many
    participants are waited for the second time);
  - coordinator: the broker (coordinator and participant) is killed as soon as PREPARATION shows,
    then started again; the phase and writes are watched after;
  - participant (a cluster topology only): a bookie, a participant that is not the coordinator, is paused
    just before the start call, so PREPARATION must wait for it; after ``HOLD_S`` (its metadata session
    still alive) it is killed and started again at once, as a supervisor would (whether it registered as a
    bookie again is recorded); the run then goes on as with none, every broker and bookie registered in
    the source at the end expected live in the target.

A run records and judges nothing (issue 49): the outcome holds what it read (the source's ephemeral paths
too, which the judge counts the registered participants from) with no Spark verdict; the record step
(record.py) takes that verdict and hands the outcome to the judge.
"""
from __future__ import annotations

import re
import time
from dataclasses import asdict
from pathlib import Path

from pulsar_conformance.fixtures.capture import Capture

from ...harness import outcome as saved
from ...harness import timeline
from ...harness.traffic import Sub, TopicLoad, Traffic
from . import observe, site, stores
from .outcome import Outcome, Plan

TENANT = "mm"
BASE = "base"
DATA_TOPIC = f"persistent://{TENANT}/{BASE}/data"
COORDINATOR = "/pulsar/migration-coordinator"
PARTICIPANTS = f"{COORDINATOR}/participants"
HOLD_S = 6.0  # the participant paused after the start: well inside a bookie's 30 s session (bookie.py)
# the participant's and coordinator's own log lines, in the order the PIP requires them
# (regular expressions: 4.2.4 logs "Found 3 local ephemeral nodes to recreate", 5.0.0-M1 "Found local
# ephemeral nodes to recreate" with the count as an attribute: DualMetadataStore in each release)
LOG_MARKS = {"ephemerals": r"Found (\d+ )?local ephemeral nodes to recreate", "participants_ready": "All migration participants ready",
             "copy": "Starting persistent data copy", "copied": "All data copied",
             "completed": "=== Metadata Migration Complete ===", "failed": "=== Metadata Migration Failed ==="}


def _flag(zookeeper: str) -> str | None:
    """The migration flag as ZooKeeper holds it (what a broker reads when it starts); its parent,
    COORDINATOR, holds nothing (4.2.4's coordinator-killed run that read it there recorded '')."""
    try:
        with stores.zookeeper_client(zookeeper, 10) as zk:
            value, _ = zk.get(observe.FLAG_PATH)
            return (value or b"").decode(errors="replace")[:300]
    except Exception as error:  # noqa: BLE001 - said as the evidence
        return f"unreadable: {type(error).__name__}"


def _participants(zookeeper: str) -> int | None:
    try:
        with stores.zookeeper_client(zookeeper, 10) as zk:
            return len(zk.get_children(PARTICIPANTS)) if zk.exists(PARTICIPANTS) else 0
    except Exception:  # noqa: BLE001 - unknown, said as None
        return None


def seed(admin, cluster: str, nodes: int, line: timeline.Timeline) -> None:
    admin.put_tenant(TENANT, [cluster])
    observe.call(admin, "PUT", admin.namespace_path(f"{TENANT}/{BASE}"))
    began = time.monotonic()
    for i in range(nodes):
        observe.call(admin, "PUT", admin.namespace_path(f"{TENANT}/seed{i}"))
        observe.call(admin, "PUT", admin.topic_path(f"persistent://{TENANT}/seed{i}/t"))
    line.say(f"seeded {nodes} namespaces with a topic each in {time.monotonic() - began:.1f} s")


def _log_marks(log: str) -> dict[str, int | None]:
    return {key: _log_marks_of(log, needle) for key, needle in LOG_MARKS.items()}


def run(deployment, run_dir: Path, name: str, plan: Plan, judged: tuple[str, ...] = ()) -> Outcome:
    """One migration by ``plan``; ``judged``: the checks the outcome is to be judged by (judge.judge)."""
    cluster_name = next(iter(deployment.clusters))
    cluster = deployment.clusters[cluster_name]
    admin = cluster.admin()
    where = site.of(deployment, cluster_name)
    line = timeline.Timeline(name)
    seed(admin, cluster.name, plan.nodes, line)
    log_from = len(deployment.broker_log(cluster_name).splitlines())
    before = _participants(where.zookeeper)
    prober = observe.Prober(admin, TENANT, BASE)
    phases = observe.Phases(admin)
    flag = observe.ZooKeeperFlag(where.zookeeper)  # the phase the coordinator wrote (4.2.4's status stops: F-454-10)
    loads = [TopicLoad(DATA_TOPIC, (Sub("s", "Shared"),), rate=plan.rate)] if plan.rate else []
    with Capture(run_dir, allowed=["redelivered_after_ack", "duplicate"], scenario={"name": name, **asdict(plan)}) as capture:
        traffic = Traffic(capture, cluster, loads)
        try:
            traffic.start()
            phases.begin()
            flag.begin()
            prober.begin()
            time.sleep(1.5)
            if plan.fault == "participant":
                held = _participant(deployment, cluster_name)
                deployment.faults.pause(cluster_name, component=held)
                line.mark(f"{held} (a participant) paused")
            start_call = time.monotonic()
            started = observe.start(admin, plan.target or where.target_url)
            line.mark(f"migration start -> {started.status}")
            fault = {}
            if started.ok:
                fault = _fault(deployment, where, plan, phases, line)
                # a broker that did not start again: on a standalone nobody is left to end the migration, on a
                # cluster topology the other brokers are, so the run watches as long as it would have
                if not fault.get("restart_error") or deployment.components(cluster_name):
                    observe.wait_for_end(phases, flag, plan.timeout_s)
                if fault:
                    fault["watched_s"] = round(time.monotonic() - start_call, 1)
                line.mark(f"status {phases.current()} ({' -> '.join(p['phase'] for p in phases.seen)}); "
                          f"ZooKeeper's flag {flag.current()} ({' -> '.join(p['phase'] for p in flag.seen)})")
            time.sleep(3.0)  # writes after the end: accepted again?
            prober.end()
            line.mark("metadata writes stop; producers stop")
            traffic.stop(drain_seconds=20)
        finally:
            prober.end()
            phases.end()
            flag.end()
            traffic.close()
    line.hung(traffic.hung)
    out = Outcome(name, plan, run_dir, started.__dict__ | {"ok": started.ok}, phases.seen,
                  [w.to_json() for w in prober.writes], before, zookeeper_flag=flag.to_json(), fault=fault,
                  judged=tuple(judged))
    out.log_marks = _log_marks("\n".join(deployment.broker_log(cluster_name).splitlines()[log_from:]))
    if plan.fault == "participant":  # did the restarted bookie become a bookie again (F-454-13)?
        out.fault["registered_after_restart"] = _registered_bookie(deployment, where, out.fault["participant"])
    out.kept = observe.kept(admin, TENANT, BASE, prober.writes)
    if "COMPLETED" in (phases.current(), flag.current()):  # the flag says so where the status does not (F-454-10)
        _after_cutover(deployment, where, out, prober, line)
    elif plan.fault == "oxia" and phases.current() == "FAILED":
        out.retry = _retry(deployment, where, line)
    out.target_broken = where.target_problem()
    if out.target_broken:
        line.say(out.target_broken)
    out.markers = line.markers
    # the record, not a verdict: Spark's is the record step's (record.py), and verdict.json with it
    timeline.save(run_dir, "metadata-migration", out.to_json(), line.markers, None)
    saved.save(out, run_dir)
    return out


def _participant(deployment, cluster_name: str) -> str:
    """The participant the participant fault holds: the topology's last bookie (not the coordinator, a broker,
    and not the only bookie)."""
    return [c.name for c in deployment.components(cluster_name, "bookie")][-1]


def _registered_bookie(deployment, where, name: str) -> bool | None:
    """Whether bookie ``name`` is registered (``/ledgers/available/<host:port>``) in the source store: a
    JVM that runs is not a bookie that serves (4.2.4's bookie whose registration is refused stays alive)."""
    port = deployment.record["clusters"][where.cluster]["components"][name]["bookie"]
    try:
        with stores.zookeeper_client(where.zookeeper, 10) as zk:
            return zk.exists(f"/ledgers/available/127.0.0.1:{port}") is not None
    except Exception:  # noqa: BLE001 - not known, said as None
        return None


def _held(deployment, where, phases: observe.Phases, line: timeline.Timeline) -> dict:
    """The paused participant held for HOLD_S: which phases the status showed meanwhile, and how many
    participants ZooKeeper still listed at its end (the paused one's node lives with its session), then
    the participant killed and started again. A coordinator that waits shows PREPARATION throughout."""
    cluster_name = where.cluster
    name = _participant(deployment, cluster_name)
    began = time.time_ns()
    time.sleep(HOLD_S)
    registered = _participants(where.zookeeper)
    while_held = sorted({p["phase"] for p in phases.seen if p["ns"] >= began} | {phases.current() or "?"})
    deployment.faults.kill(cluster_name, component=name)
    line.mark(f"{name} killed after {HOLD_S:.0f} s paused (phases meanwhile: {', '.join(while_held)}; "
              f"{registered} participant node(s) left)")
    fault = {"injected_in": phases.current(), "participant": name, "held_s": HOLD_S,
             "phases_while_held": while_held, "participants_at_hold_end": registered}
    try:
        # not healthy: every broker's health check writes metadata, which PREPARATION refuses
        deployment.faults.start(cluster_name, component=name, ready_timeout=120, healthy=False)
        line.mark(f"{name} started again (listening)")
    except (RuntimeError, TimeoutError) as error:  # evidence: the run goes on without it
        fault["participant_restart_error"] = f"{type(error).__name__}: {str(error).splitlines()[0]}"
        line.mark(f"{name} did not start again")
    return fault


def _fault(deployment, where, plan: Plan, phases: observe.Phases, line: timeline.Timeline) -> dict:
    cluster_name = where.cluster
    if plan.fault == "participant":
        return _held(deployment, where, phases, line)
    if plan.fault == "oxia":  # during the copy: the participants have acknowledged by then
        seen = phases.wait_for(("COPYING",) + observe.DONE, 60)
        where.kill_target()
        line.mark(f"Oxia killed (phase {seen})")
        return {"injected_in": seen}
    if plan.fault == "coordinator":
        seen = phases.wait_for(observe.READ_ONLY + observe.DONE, 30)
        if deployment.components(cluster_name):
            # a cluster topology: the coordinator is broker-1 (the admin calls reach it first); killing
            # the whole cluster would take the source ZooKeeper and the bookies down with it
            deployment.faults.kill(cluster_name, component="broker-1")
        else:
            deployment.faults.kill(cluster_name)  # a standalone: the one process is broker and coordinator
        line.mark(f"broker (coordinator) killed (phase {seen})")
        try:
            deployment.faults.start(cluster_name, ready_timeout=120)
        except (RuntimeError, TimeoutError) as error:
            line.mark("the broker did not start again")
            time.sleep(5.0)  # anyone left to set FAILED has had time to
            return {"injected_in": seen, "restart_error": f"{type(error).__name__}: {str(error).splitlines()[0]}",
                    "broker_log": _errors(deployment.broker_log(cluster_name)),
                    "flag_in_zookeeper": _flag(where.zookeeper)}
        line.mark("broker started again")
        return {"injected_in": seen}
    return {}


def _after_cutover(deployment, where, out: Outcome, prober: observe.Prober, line) -> None:
    cluster_name = where.cluster
    source = stores.zookeeper(where.zookeeper)
    if deployment.components(cluster_name) or where.external:  # several brokers and bookies: which serve (R03)
        out.source_ephemerals = stores.ephemerals(source)  # the judge counts the registrations among them
    target = stores.oxia(where.dump_tool(), where.oxia_address)
    out.metadata_nodes = sum(1 for n in source.values() if not n.ephemeral)
    out.metadata_bytes = sum(n.size for n in source.values() if not n.ephemeral)
    out.target_server = where.target_version()
    out.comparison = stores.compare(source, target).to_json()
    out.oxia_ephemerals = stores.ephemerals(target)
    line.say(f"compared {out.comparison['compared']} persistent paths: {out.comparison['same']} the same, "
             f"{out.comparison['missing']} missing in Oxia, {out.comparison['version_changed']} with another version")
    admin = deployment.clusters[cluster_name].admin()
    cas = observe.call(admin, "POST", admin.retention_path(f"{TENANT}/seed0"),
                       json={"retentionTimeInMinutes": 77, "retentionSizeInMB": 77})
    read = observe.call(admin, "GET", admin.retention_path(f"{TENANT}/seed0"))
    out.cas_after = {"update": cas.status, "update_body": cas.body if not cas.ok else None,
                     "read_back": read.body if read.ok else read.status}
    restart_error = None
    began = time.monotonic()
    try:
        where.cut_over(ready_timeout=90)
        line.mark("broker restarted on oxia://")
    except (RuntimeError, TimeoutError) as error:  # evidence: what the restarted broker says
        restart_error = {"error": f"{type(error).__name__}: {str(error).splitlines()[0]}",
                         "broker_log": _errors(deployment.broker_log(cluster_name))}
        line.mark("broker on oxia:// not healthy")
    admin = deployment.clusters[cluster_name].admin()
    kept = observe.kept(admin, TENANT, BASE, prober.writes)
    topic = observe.call(admin, "GET", admin.topic_path(f"persistent://{TENANT}/{BASE}/data") + "/stats")
    created = observe.call(admin, "PUT", admin.namespace_path(f"{TENANT}/after-restart"))
    out.restarted_on_oxia = {"metadata_url": where.metadata_url(), "kept": kept,
                             "restart_error": restart_error, "healthy_after_s": round(time.monotonic() - began, 1),
                             "data_topic_stats": topic.status, "namespace_created": created.status,
                             "retention_seed0": observe.call(admin, "GET", admin.retention_path(f"{TENANT}/seed0")).body}


def _errors(log: str, limit: int = 4) -> list[str]:
    """The last distinct ERROR and Caused-by lines of a broker log (evidence, not the whole log)."""
    found: list[str] = []
    for text in reversed(log.splitlines()):
        if (" ERROR " in text or text.startswith("Caused by")) and text[24:200] not in [f[24:200] for f in found]:
            found.append(text.strip()[:300])
        if len(found) >= limit:
            break
    return found[::-1]


def _retry(deployment, where, line) -> dict:
    """After FAILED: Oxia back, the migration started again. The PIP's coordinator waits for every
    participant; 5.0.0-M1's participants registered once, when their store was created."""
    cluster_name = where.cluster
    where.start_target()
    line.mark("Oxia started again")
    admin = deployment.clusters[cluster_name].admin()
    waiting = _participants(where.zookeeper)
    log_from = len(deployment.broker_log(cluster_name).splitlines())
    phases = observe.Phases(admin).begin()
    try:
        answer = observe.start(admin, where.target_url)
        end = None
        if answer.ok and phases.wait_for(("NOT_STARTED",) + observe.READ_ONLY + ("COMPLETED",), 15):
            # 5.0.0-M1's retry copies within ~8 s and then answers PREPARATION for good (F-454-2)
            end = phases.wait_for(observe.DONE, 25)
    finally:
        seen = phases.end()
    log = "\n".join(deployment.broker_log(cluster_name).splitlines()[log_from:])
    marks = _log_marks(log) | {"participant_failed": _log_marks_of(log, "Failed during migration preparation")}
    line.mark(f"retry: start -> {answer.status}, phases {' -> '.join(p['phase'] for p in seen)}")
    return {"participants_registered": waiting, "start": answer.status, "start_body": answer.body if not answer.ok else None,
            "phases": seen, "end": end, "log_marks": marks,
            "participant_errors": [x for x in _errors(log, 6) if "participants" in x or "preparation" in x]}


def _log_marks_of(log: str, pattern: str) -> int | None:
    found = re.compile(pattern)
    return next((i for i, text in enumerate(log.splitlines()) if found.search(text)), None)


