"""One migration scenario: traffic on blue, a trigger, traffic through it, then the outcome
(outcome.py): the capture, each topic's state on blue and green, where each send was stored, the
clients the traffic made, blue's log lines. It judges nothing: Spark's verdict and the per-client
figures are taken after it, from what it recorded (record.py, judge.with_figures).
``save`` writes the outcome (again, after the scenario read more of the clusters into it) beside the capture.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from pulsar_conformance.fixtures.capture import Capture
from pulsar_conformance.fixtures.deploy.thread_dump import thread_dump
from pulsar_conformance.wait import wait_until

from ...harness import evidence, timeline
from ...harness import outcome as saved
from ...harness.handles import info
from ...harness.traffic import TopicLoad, Traffic
from . import observe, tls_modes
from .outcome import Outcome, TopicOutcome, TopicState, place_sends

Hook = Callable[[Traffic], "str | None"]


def run(deployment, name: str, run_dir: Path, loads: list[TopicLoad], trigger: Callable[[], str], *, seed: int,
        before_s: float = 4.0, after_s: float = 10.0, allowed=(), send_timeout_ms: int = 15000,
        on_start: Hook | None = None, before_trigger: Hook | None = None, after_trigger: Hook | None = None,
        drain_seconds: float = 40.0, blue_states: dict | None = None,
        until_blue_read: float | None = None, traffic_factory: Callable | None = None) -> Outcome:
    """Scenario ``name`` (its checks' prefix, judge.SCENARIOS): run ``loads`` on blue, call ``trigger()``
    (returns a marker label) after ``before_s``,
    keep the traffic going ``after_s`` more, drain, and gather the evidence.

    Hooks get the running traffic and may return a marker label: ``on_start`` right after the
    loads start (clients on other clusters), ``before_trigger`` just before the trigger (a
    fault), ``after_trigger`` two seconds after it (new clients through blue, a heal).
    ``blue_states``: a topic's state on blue taken by a hook, for when blue cannot say it at the
    end (after a restart it answers HTTP 500 for a migrated topic, docs/findings.md F-188-10).
    ``until_blue_read``: after ``after_s``, keep sending (for at most that many seconds more) until
    every subscription started on blue has read all blue stored, then ``SWITCH_MARGIN_S`` more.
    ``traffic_factory(capture, blue, loads, send_timeout_ms=...)``: the clients that carry the loads
    (default the Python client's ``Traffic``; harness/java_traffic.py's for the Java client's scenarios).
    One with ``evidence()`` adds what it says (its client's release) to migration.json.

    The outcome comes back with no Spark verdict (``verdict`` None): the record step takes it
    (record.judged), and adds the judge's figures to migration.json."""
    blue, green = deployment.clusters["blue"], deployment.clusters["green"]
    line = timeline.Timeline()
    with Capture(run_dir, allowed=list(allowed), scenario={"seed": seed, "loads": [vars(x) | {"subs": [vars(s) for s in x.subs]} for x in loads]}) as capture:
        # handles recorded under their role: the checks read the capture by role ("blue"), and an external
        # deployment's clusters have names of their own
        roles = {deployment.clusters[r].name: r for r in deployment.clusters}
        traffic = (traffic_factory or Traffic)(capture, blue, loads, send_timeout_ms=send_timeout_ms, roles=roles)
        try:
            traffic.start()
            line.say(f"sending on {len(loads)} topic(s) through blue")
            line.hook(on_start, traffic)
            time.sleep(before_s)
            line.hook(before_trigger, traffic)
            label = trigger()
            trigger_ns = line.mark(label)
            if after_trigger is not None:
                time.sleep(2.0)
                line.hook(after_trigger, traffic)
            time.sleep(after_s)
            if until_blue_read:
                said = _keep_sending_until_blue_read(traffic, blue, loads, until_blue_read)
                line.say(said)
                if not said.startswith("every subscription"):  # blue may have stopped answering: why, then
                    line.say(thread_dump(deployment.process("blue"),
                                         run_dir / "blue-threads.txt"))
            line.mark("producers stop")
            line.say("producers stopped; consumers draining")
            traffic.stop(drain_seconds=drain_seconds)
        finally:
            traffic.close()
    line.hung(traffic.hung)
    columns = evidence.read_capture(run_dir)
    topics = {}
    for load in loads:
        topics[load.topic] = gather(load.topic, blue, green, columns, (blue_states or {}).get(load.topic))
    sub_types = {(load.topic, sub.name): sub.type for load in loads for sub in load.subs}
    outcome = Outcome(name, run_dir, trigger_ns, topics, None, line.markers, [info(h) for h in traffic.handles],
                      [call.to_json() for call in traffic.hung], sub_types, observe.blue_log(deployment),
                      facts={"tls": tls_modes.evidence()}, columns=columns)
    doc = {"trigger_ns": trigger_ns, "topics": {t: o.to_json() for t, o in topics.items()},
           "handles": {h.name: {"kind": h.kind, "topic": h.topic, "subscription": h.subscription,
                                "errors": h.errors[:5], "error_count": len(h.errors)} for h in traffic.handles},
           "hung_calls": outcome.hung, **(traffic.evidence() if hasattr(traffic, "evidence") else {})}
    # for the report; verdict.json is written by the record step with Spark's verdict (harness/afterwards.py)
    timeline.save(run_dir, "migration", doc, line.markers, None)
    save(outcome)
    return outcome


def save(out: Outcome) -> None:
    """outcome.json (harness/outcome.py): again once the scenario has read more of the clusters into it."""
    saved.save(out, out.run_dir)


SWITCH_MARGIN_S = 4.0


def _keep_sending_until_blue_read(traffic: Traffic, blue, loads: list[TopicLoad], limit_s: float) -> str:
    """A slow consumer that finishes blue's backlog only after the producers stopped reaches green
    when nothing more is written there: a Latest subscription then reads nothing from green, and
    its switch is never observed (unknown, however the product behaved). So the producers go on
    until each subscription has read as many messages as blue stored (producers send unbatched:
    an entry is a message), and a margin for the redirect after that."""
    started = time.monotonic()

    def behind() -> list[str]:
        late = []
        for load in loads:
            stored = observe.topic_state(blue, load.topic)
            if stored.error is not None or stored.state != "Terminated":
                late.append(f"{load.topic} not terminated on blue")
                continue
            for sub in load.subs:
                read = sum(h.received for h in traffic.handles if h.topic == load.topic
                           and h.subscription == sub.name and h.kind == "consumer" and h.cluster == "blue")
                if read < (stored.entries or 0):
                    late.append(f"{sub.name} read {read} of blue's {stored.entries}")
        return late

    if not wait_until(lambda: not behind(), timeout=limit_s, interval=0.5):
        return f"producers stop although, {limit_s:.0f} s later, {'; '.join(behind())}"
    time.sleep(SWITCH_MARGIN_S)
    return (f"every subscription read what blue stored; producers went on "
            f"{time.monotonic() - started:.1f} s longer for the consumers to reach green")


def gather(topic: str, blue, green, columns, blue_state: TopicState | None = None) -> TopicOutcome:
    """What the scenario reads of ``topic``: blue's state (``blue_state`` when a hook read it while blue
    could say it), green's, and where each send acknowledged through blue was stored."""
    blue_state, green_state = blue_state or observe.topic_state(blue, topic), observe.topic_state(green, topic)
    # producers attached through blue; one writing in another region reaches blue by replication
    sends = evidence.rows(columns, kind="send_ok", topic=topic, cluster="blue")
    return TopicOutcome(topic, blue_state, green_state, place_sends(topic, sends, blue_state, green_state))
