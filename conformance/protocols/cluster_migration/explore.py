"""PIP-188 explored live (``explore --live cluster-migration``): the spec's tester actions performed on one
blue/green deployment shared by every schedule, in any order the spec allows, with clients of every
subscription type added through blue before or after the migration, topic unloads and a blue restart
between them; each schedule judged by the judge the namespace-level scenario uses (judge.namespace_migration,
keyed ``namespace-explore`` in judge.SCENARIOS), from the same ``Outcome``.

**Namespace-level, never cluster-level.** A cluster-level migration cannot be undone (blue would refuse
every later schedule), so every schedule migrates a NAMESPACE of its own: two fresh namespaces per
schedule (``mig/cmx-<hex>``, migrated at some point, and ``mig/cmx-<hex>-beside``, never migrated: R06's
"a topic outside a migrated namespace stayed"), blue's migration URL set once to green with
``migrated=false`` (namespace migration takes green's URLs from blue's cluster migration policy, as
test_namespace_level_migration sets it). No step migrates the cluster: it could only be
the last step of the last schedule, and is left out.

The spec (``cluster-migration``, auto-create: levels.deploy runs blue with automatic resource creation,
``MESSAGES`` messages, no remote region) has one producer and one subscription; live, a spec message is a
burst of ``BURST`` sends from every producer, so the tester's operations are:

- ``publish``: every producer of both topics sends a burst (keys cycling, for Key_Shared), flushed;
- ``consume``: every consumer and reader receives about one burst of every producer and acknowledges each
  message individually (a reader does not acknowledge); its acks then reach the broker (``_settle_acks``)
  before the next step, so a later unload or restart cannot be charged with acks the client never sent;
- ``admin_migrate``: the moving namespace migrated (``POST .../namespaces/{ns}/migration``, observe.
  ask_namespace_migration); the moment the call returned is the outcome's trigger.

Pulsar's actions are observed, never chosen: ``migration_task`` (blue terminates the topic),
``producer_redirect``, ``consumer_redirect`` (once a subscription has drained blue) and ``replicate``;
the tester takes them as done before its next step (explore/model.py). Faults the spec does not model,
each a tester step too:

- ``add-producer`` (at most ``MAX_ADDED`` a schedule), ``subscribe-exclusive``, ``subscribe-shared``,
  ``subscribe-failover``, ``subscribe-key-shared`` and ``reader`` (each once): a client made through blue
  wherever the step falls, before or after the migration. A subscription made after the migration call
  is not must-see (blue's messages stay on blue; its consumer lands on green: levels' late subscription);
- ``unload-blue``: the moving topic unloaded on blue (an admin call any deployment takes);
- ``restart-blue``: blue restarted, once a schedule, only where the deployment can (``restart``); after
  the migration blue's topic state is read first, while blue can still say it (F-188-10), and the step
  ends once every client reconnected (bounded);
- ``burst`` and ``drain``: a burst the spec's bounded messages do not count, and every consumer read
  until it has every acknowledged send of its topic (backlog drained; bounded). Backlog *left* at the
  migration is any schedule that migrates before consuming what it published;
- ``wait``: nothing for ``WAIT_S`` (three runs of blue's one-second migration check), so the step after it
  comes once blue has had its chance to terminate a migrated topic and create its subscriptions on green:
  the next step taken at once after the migration call and after that check are different schedules.

A schedule ends (the closing steps) with the namespace migrated if it was not, a burst from every
producer (each must reach green: its ``redirected`` row) and a drain, so every subscription reads blue
and then green: the state the judges are about. Every schedule heals itself: nothing is cut, a restart
is over when its step is. The Python client alone (``--migration-client java`` does not apply here).

While searching, each schedule's capture is checked in-process (duckdb); Spark checks every capture
afterwards (test_explore_live.judge_with_spark), and those rows are the recorded ones.
"""
from __future__ import annotations

import json
import os
import threading
import time
import uuid
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import pulsar

from pulsar_conformance.files import write_atomic
from pulsar_conformance.fixtures.capture import Capture
from pulsar_conformance.fixtures.capture.schema import PROP_UID
from pulsar_conformance.fixtures.deploy.admin import AdminError, or_refusal
from pulsar_conformance.spec.protocols.cluster_migration import ClusterMigration
from pulsar_conformance.wait import wait_until

from ...explore.model import AdapterBase, Fault, Vocabulary
from ...explore.schedule import Entry, Schedule, Step, history_json
from ...explore.steps import unload_topic
from ...harness import evidence, timeline
from ...harness import outcome as saved
from ...harness.deadline import Hung
from ...harness.handles import HandleInfo, info
from ...harness.traffic import KEYS, Handle, Sub, Traffic
from . import judge, levels, observe, record, tls_modes
from .checks import CHECKS
from .outcome import NamespaceMigrationAnswer, Outcome, TopicOutcome, TopicState
from .scenario import gather

PROTOCOL = "cluster-migration"
SCENARIO = "namespace-explore"  # the outcome's name: its checks' prefix and its judge (judge.SCENARIOS)
MESSAGES = 4  # the spec's messages: four bursts
BURST = 5  # sends per producer per spec message
MAX_ADDED = 2  # producers add-producer may add to the schedule's first
PAYLOAD = b"m" * 64
SEND_TIMEOUT_MS = 15000
CONSUME_QUIET_S, CONSUME_S = 0.5, 5.0  # consume: a burst each, or nothing for 0.5 s, at most 5 s
DRAIN_S = 45.0  # drain: every must-see subscription has every acknowledged send of its topic, at most this
ACK_SETTLE_S, ACKS_S = 0.5, 5.0  # acks reached the broker: two backlog readings 0.5 s apart agree, at most 5 s
RECEIVE_DEADLINE_S = 10.0  # a receive(50 ms) still in the client after this is hung
MIGRATED_S = 15.0  # blue's migration task runs every second (levels.deploy): the topic terminated within this
WAIT_S = 3.0  # wait: three of those checks
RECONNECT_S = 60.0  # after blue's restart every client connected again within this
SUBSCRIBE = {"subscribe-exclusive": "Exclusive", "subscribe-shared": "Shared", "subscribe-failover": "Failover",
             "subscribe-key-shared": "KeyShared"}


def _added(active: frozenset) -> int:
    return sum(1 for name in active if name.startswith("producer+"))


def _once(name: str, needs: str | None = None) -> Fault:
    return Fault(name, needs, lambda a, n=name: n not in a, lambda a, n=name: a | {n})


VOCABULARY = Vocabulary(
    operations=("publish", "consume", "admin_migrate"),
    faults=(Fault("add-producer", None, lambda a: _added(a) < MAX_ADDED, lambda a: a | {f"producer+{_added(a) + 1}"}),
            *(_once(name) for name in SUBSCRIBE),
            _once("reader"),
            Fault("unload-blue", None, lambda _a: True),
            # "restarted" is no fault's name: it only says the schedule had its restart (a start takes tens of seconds)
            Fault("restart-blue", "restart", lambda a: "restarted" not in a, lambda a: a | {"restarted"}),
            Fault("burst", None, lambda _a: True),
            Fault("drain", None, lambda _a: True),
            Fault("wait", None, lambda _a: True)),
    eventually=("migration_task", "producer_redirect", "consumer_redirect", "replicate"),
    visible=("next", "cluster_migrated", "sside", "blue_cursor", "green_cursor"))


def spec() -> ClusterMigration:
    return ClusterMigration("auto-create", MESSAGES=MESSAGES, REMOTE=0)


# the saved outcome's judge (what the recorded verdicts come from) and its checks; its capture is checked by Spark
JUDGE, CHECKS, SPARK = judge.judge, CHECKS, True


def closing_steps(tracker) -> list[Step]:
    """What reaches the judged state from where a schedule stopped: the namespace migrated, then a burst
    from every producer and a drain. Nothing when the schedule already ends so (a replay of a schedule
    carries its closing steps, and each must be one the spec allows there)."""
    steps = [] if tracker.state.cluster_migrated else [Step("admin_migrate")]
    if steps or tracker.labels[-2:] != ["burst", "drain"]:
        steps += [Step("burst", "fault"), Step("drain", "fault")]
    return steps


def outcome_of(run_dir: Path, trigger_ns: int, topics: dict[str, TopicOutcome], verdict: dict | None,
               markers: list[dict], handles: list[HandleInfo], hung: list[dict], sub_types: dict,
               blue_log: str | None, answer: NamespaceMigrationAnswer, admin: dict, facts: dict,
               columns: dict) -> Outcome:
    """The Outcome the namespace-level judge reads, from what a schedule recorded (a pure function: the
    tests build one from a made-up history). ``facts`` names the moving and the staying topic and the
    moving namespace, as levels.after_namespace_level sets them."""
    return Outcome(SCENARIO, run_dir, trigger_ns, topics, verdict, list(markers), list(handles), list(hung),
                   dict(sub_types), blue_log, {"loaded": answer}, {}, dict(admin), dict(facts), columns)


@contextmanager
def deployment(factory, certify_run):
    """Blue and green as the PIP-188 scenarios start them (levels.deploy: blue's migration task every
    second, automatic resource creation, the tenant on both), for the explore test, which runs where the
    package's module fixture is not seen; its logs collected into the bundle, closed with the test."""
    clusters = levels.deploy(factory, f"mig-explore-{os.getpid()}")
    try:
        yield clusters
    finally:
        levels.close(clusters, certify_run, "cluster-migration-explore")


def lacking(certify_run, request, clusters) -> bool:
    """True, with ``namespace-explore/namespace-level-migration`` not applicable, when the release has no
    namespace-level migration (before 3.2): no schedule could migrate anything then."""
    probe = levels.namespace(clusters, f"cmx-probe-{uuid.uuid4().hex[:6]}")
    return record.lacking(certify_run, request, clusters.clusters["blue"], probe, SCENARIO)


class _ReaderAsConsumer:
    """A Reader as the capture's consumer wrapper reads it (``receive``): its deliveries recorded like a
    consumer's, under the label the outcome gives it (a reader never acknowledges)."""

    def __init__(self, reader):
        self._reader = reader

    def receive(self, timeout_millis=None):
        return self._reader.read_next(timeout_millis)

    def __getattr__(self, attribute):
        return getattr(self._reader, attribute)


class Stepped(Traffic):
    """The harness's Traffic (a client per handle, a client that cannot attach kept as evidence, bounded
    calls, handles recorded under their role) without its threads: the tester's steps send and receive."""

    def producer(self, topic: str, name: str) -> Handle:
        handle = self._handle(name, "producer", topic, None, None, None, None)
        self._attach(handle, lambda: self.capture.producer(
            handle.client, topic, name=name, cluster=handle.cluster, producer_name=name,
            send_timeout_millis=self.send_timeout_ms, block_if_queue_full=True, max_pending_messages=500,
            batching_enabled=False))
        return handle

    def consumer(self, topic: str, sub: Sub, name: str) -> Handle:
        handle = self._handle(name, "consumer", topic, sub.name, None, None, None)
        if sub.must_see:
            self.capture.must_see(topic, sub.name)
        self._attach(handle, lambda: self.capture.consumer(
            handle.client, topic, sub.name, name=name, cluster=handle.cluster,
            consumer_type=getattr(pulsar.ConsumerType, sub.type), consumer_name=name, receiver_queue_size=50,
            initial_position=pulsar.InitialPosition.Earliest))
        return handle

    def reader(self, topic: str, label: str, name: str) -> Handle:
        handle = self._handle(name, "consumer", topic, label, None, None, None)
        self._attach(handle, lambda: self.capture.wrap_consumer(
            _ReaderAsConsumer(handle.client.create_reader(topic, pulsar.MessageId.earliest, reader_name=name,
                                                          receiver_queue_size=50)),
            name=name, subscription=label, cluster=handle.cluster))
        return handle


def _migrated_on(blue, topic: str) -> bool:
    """Blue has migrated ``topic``: its ledger terminated (levels.topic_migrated), or, after a blue restart, its
    stats refused with "already migrated" (a restarted blue answers HTTP 500 for a migrated topic: F-188-10)."""
    try:
        blue.admin().topic_internal_stats(topic)
    except AdminError as error:  # the whole answer read (topic_state keeps 200 characters of it)
        if "already migrated" in str(error):
            return True
    return levels.topic_migrated(observe.topic_state(blue, topic))


class Adapter(AdapterBase, protocol=PROTOCOL, vocabulary=VOCABULARY, spec=spec):
    def __init__(self, deployment, run_dir: Path, capabilities: frozenset):
        super().__init__(deployment, run_dir, capabilities)
        self.blue, self.green = deployment.clusters["blue"], deployment.clusters["green"]
        # namespace-level migration takes green's URLs from blue's cluster migration policy: set once, with
        # migrated=false, so that blue itself is never migrated (test_namespace_level_migration does the same)
        observe.migrate_cluster(self.blue.admin(), self.blue.name, self.green, migrated=False)

    def begin(self, name: str) -> Session:
        return Session(self, name)

    def close(self) -> None:
        """Nothing of the adapter's own: each session closes its clients and its capture."""


class Session:
    """One schedule: its two namespaces and topics, its capture, the clients its steps made through blue,
    what they were acknowledged and what they read."""

    def __init__(self, adapter: Adapter, name: str):
        d = self.d = adapter.deployment
        self.adapter, self.name = adapter, name
        self.dir = adapter.run_dir / name
        self.line = timeline.Timeline(name)
        tag = uuid.uuid4().hex[:6]
        self.moving = levels.namespace(d, f"cmx-{tag}")
        self.staying = levels.namespace(d, f"cmx-{tag}-beside")
        # the topic's short name is the schedule's: it is the <topic> segment of the rows (which schedule they judge)
        self.topic, self.beside = f"persistent://{self.moving}/{name}", f"persistent://{self.staying}/{name}-beside"
        self.capture = Capture(self.dir, scenario={"name": name, "explore": True, "moving": self.topic,
                                                   "staying": self.beside})
        self._capture_open = True
        self.traffic = Stepped(self.capture, adapter.blue, [], send_timeout_ms=SEND_TIMEOUT_MS,
                               roles={d.clusters[r].name: r for r in d.clusters})
        self.sub_types: dict[tuple[str, str], str] = {}
        self.readers: set[str] = set()  # handles that read without acknowledging
        self.must_see: set[tuple[str, str]] = set()
        self.acked: Counter = Counter()  # topic -> sends acknowledged to its producers
        self.seen: dict[tuple[str, str], set[str]] = {}  # (topic, subscription) -> uids delivered
        self.sends: Counter = Counter()  # producer -> sends so far (its key cycles)
        self.lock = threading.Lock()
        self.trigger_ns: int | None = None
        self.answer: NamespaceMigrationAnswer | None = None
        self.blue_before_restart: TopicState | None = None
        self.restart_s: float | None = None
        # the schedule's first clients, on both topics: a producer and an Exclusive subscription (a schedule that
        # cannot begin leaves no client open on the shared deployment)
        try:
            self.traffic.consumer(self.topic, self._sub("base", "Exclusive", self.topic), f"c-{name}-base")
            self.traffic.producer(self.topic, f"p-{name}-0")
            self.traffic.consumer(self.beside, self._sub("beside", "Exclusive", self.beside), f"c-{name}-beside")
            self.traffic.producer(self.beside, f"p-{name}-beside")
        except BaseException:
            self.close()
            raise
        if any(h.attach_error for h in self.traffic.handles):
            self.close()
            raise RuntimeError(f"schedule {name}: blue refused its first clients: "
                               + "; ".join(f"{h.name}: {h.attach_error}" for h in self.traffic.handles if h.attach_error))
        self.line.mark(f"namespaces {self.moving} (to migrate) and {self.staying} (beside it), a producer and a "
                       "subscription on each")

    def _sub(self, name: str, kind: str, topic: str) -> Sub:
        """A subscription made now: must-see until the migration call (after it, blue's messages are not its)."""
        sub = Sub(name, kind, must_see=self.trigger_ns is None)
        self.sub_types[(topic, name)] = kind
        if sub.must_see:
            self.must_see.add((topic, name))
        return sub

    def _live(self, kind: str) -> list[Handle]:
        return [h for h in self.traffic.handles if h.kind == kind and h.wrapped is not None]

    # ----- the steps
    def perform(self, step: Step, entry: Entry) -> None:
        action = step.action
        if action in SUBSCRIBE:
            self._subscribe(action, entry)
        else:
            getattr(self, "_" + action.replace("-", "_"))(step, entry)
        self.line.mark(f"{step.label()}: {entry.result}" + (f" ({entry.said})" if entry.said else ""), entry.invoke_ns)

    def _publish(self, step: Step, entry: Entry) -> None:
        producers = self._live("producer")
        before = sum(self.acked.values())
        failed = []
        for h in producers:
            for _ in range(BURST):
                n = self.sends[h.name]
                self.sends[h.name] += 1
                try:
                    h.wrapped.send_async(PAYLOAD, self._done(h), key=KEYS[n % len(KEYS)])
                except Exception as error:  # noqa: BLE001 - the capture recorded the failed send; the judges read it
                    h.errors.append(f"{type(error).__name__}: {error}")
        for h in producers:
            try:
                self.traffic._bounded(SEND_TIMEOUT_MS / 1000 + 15, f"{h.name}: flush()", h.wrapped.flush)
            except Exception as error:  # noqa: BLE001 - pending sends fail with the send timeout: evidence
                h.errors.append(f"flush: {type(error).__name__}: {error}")
                failed.append(h.name)
        entry.said = (f"{BURST} sends from each of {len(producers)} producers, "
                      f"{sum(self.acked.values()) - before} acknowledged" + (f"; flush failed: {failed}" if failed else ""))

    def _done(self, handle: Handle):
        def done(result, _msg_id):
            if result == pulsar.Result.Ok:
                with self.lock:
                    self.acked[handle.topic] += 1
            else:
                handle.errors.append(str(result))
        return done

    def _burst(self, step: Step, entry: Entry) -> None:
        waited = ""
        if entry.closing and self.trigger_ns is not None:
            # the closing burst is what R03's redirect is judged on: sent once blue has migrated the topic (the
            # migration task runs every second, each topic's migration is asynchronous after the call: F-188-16);
            # a burst right after the call landed wholly on blue, and R03 failed on a redirect never asked for
            began = time.monotonic()
            migrated = wait_until(lambda: _migrated_on(self.adapter.blue, self.topic), timeout=MIGRATED_S, interval=0.25)
            waited = (f"; sent {time.monotonic() - began:.2f} s after the closing steps began, once blue had migrated "
                      "the topic" if migrated else f"; blue had NOT migrated the topic within {MIGRATED_S:.0f} s")
        self._publish(step, entry)
        entry.said += waited

    def _receive(self, want: dict[str, int] | None, limit_s: float, quiet_s: float | None = None,
                 done=lambda: False) -> Counter:
        """Every consumer in turn, each message acknowledged (a reader's not): until each got ``want`` of its
        name, nothing came for ``quiet_s``, ``done()`` holds, or ``limit_s`` passed."""
        got: Counter = Counter()
        waiting = self._live("consumer")

        def give_up(h, call: str) -> None:  # a call stuck in the client: kept as evidence, the handle given up
            h.errors.append(f"{call} did not return within {RECEIVE_DEADLINE_S:g} s (abandoned)")
            h.wrapped = None
            waiting.remove(h)
        end = last = time.monotonic()
        end += limit_s
        while waiting and time.monotonic() < end and not done():
            moved = False
            for h in list(waiting):
                try:
                    # bounded: a receive(50 ms) of a consumer whose topic blue had migrated once stayed in the C++
                    # client for minutes (a live schedule, 2026-12-02); the hung call is kept as evidence, the
                    # handle is given up and the schedule goes on
                    message = self.traffic._bounded(RECEIVE_DEADLINE_S, f"{h.name}: receive()",
                                                    lambda h=h: h.wrapped.receive(50))
                except Hung:
                    give_up(h, "receive()")
                    continue
                except pulsar.Timeout:
                    continue
                except Exception as error:  # noqa: BLE001 - e.g. AlreadyClosed: evidence, the step goes on
                    h.errors.append(f"receive: {type(error).__name__}: {error}")
                    time.sleep(0.05)
                    continue
                moved = True
                got[h.name] += 1
                self.seen.setdefault((h.topic, h.subscription), set()).add(message.properties().get(PROP_UID, ""))
                if h.name not in self.readers:
                    try:  # bounded as the receive: the 20-minute run of 2026-12-02 hung in the C++ client (F-188-18)
                        self.traffic._bounded(RECEIVE_DEADLINE_S, f"{h.name}: acknowledge()",
                                              lambda h=h, m=message: h.wrapped.acknowledge(m))
                    except Hung:
                        give_up(h, "acknowledge()")
                        continue
                    except Exception as error:  # noqa: BLE001 - evidence
                        h.errors.append(f"ack: {type(error).__name__}: {error}")
                if want is not None and got[h.name] >= want.get(h.name, 0):
                    waiting.remove(h)
            now = time.monotonic()
            if moved:
                last = now
            elif quiet_s is not None and now - last >= quiet_s:
                break
        return got

    def _consume(self, step: Step, entry: Entry) -> None:
        producers = Counter(h.topic for h in self._live("producer"))
        want = {h.name: BURST * producers[h.topic] for h in self._live("consumer")}
        got = self._receive(want, CONSUME_S, CONSUME_QUIET_S)
        self._settle_acks()
        entry.said = f"received and acknowledged {dict(got) or 'nothing'}"

    def _missing(self) -> dict[str, int]:
        """Per must-see subscription, how many acknowledged sends of its topic it has not been delivered."""
        with self.lock:
            acked = dict(self.acked)
        return {f"{t.rsplit('/', 1)[-1]}/{s}": acked.get(t, 0) - len(self.seen.get((t, s), ()))
                for t, s in sorted(self.must_see) if len(self.seen.get((t, s), ())) < acked.get(t, 0)}

    def _drain(self, step: Step, entry: Entry) -> None:
        got = self._receive(None, DRAIN_S, done=lambda: not self._missing())
        self._settle_acks()
        missing = self._missing()
        entry.said = f"drained {dict(got) or 'nothing'}"
        if missing:
            # a subscription blue or green never delivered everything to: what Spark's "lost" then judges
            entry.result = "not-reached"
            entry.said += f"; after {DRAIN_S:.0f} s still not delivered: {missing}"

    def _backlogs(self) -> dict:
        out = {}
        for role, cluster in (("blue", self.adapter.blue), ("green", self.adapter.green)):
            for topic in (self.topic, self.beside):
                try:
                    subs = cluster.admin().topic_stats(topic).get("subscriptions") or {}
                    out[(role, topic)] = {s: v.get("msgBacklog") for s, v in subs.items()}
                except Exception as error:  # noqa: BLE001 - a topic green does not have yet, blue restarting
                    out[(role, topic)] = type(error).__name__
        return out

    def _settle_acks(self) -> None:
        """The client sends acknowledgements grouped and unreceipted (every 100 ms): until the subscriptions'
        backlogs stop moving (two readings ACK_SETTLE_S apart agree, at most ACKS_S), a following unload or
        restart could drop acks the broker was never sent, and a redelivery would be the suite's doing
        (the tenant-migration adapter met exactly that)."""
        seen = [self._backlogs()]

        def still() -> bool:
            seen.append(self._backlogs())
            return seen[-1] == seen[-2]
        wait_until(still, timeout=ACKS_S, interval=ACK_SETTLE_S)

    def _admin_migrate(self, step: Step, entry: Entry) -> None:
        self.answer = observe.ask_namespace_migration(self.adapter.blue.admin(), self.moving, "loaded")
        self.trigger_ns = time.time_ns()  # the moment the call returned: the outcome's trigger
        entry.said = self.answer.describe()
        if not self.answer.ok:
            entry.result = "error"

    def _add_producer(self, step: Step, entry: Entry) -> None:
        n = sum(1 for h in self.traffic.handles if h.kind == "producer" and h.topic == self.topic)
        h = self.traffic.producer(self.topic, f"p-{self.name}-{n}")
        self._attached(h, entry)

    def _subscribe(self, action: str, entry: Entry) -> None:
        kind = SUBSCRIBE[action]
        name = action.removeprefix("subscribe-")
        h = self.traffic.consumer(self.topic, self._sub(name, kind, self.topic), f"c-{self.name}-{name}")
        self._attached(h, entry)

    def _reader(self, step: Step, entry: Entry) -> None:
        self.sub_types[(self.topic, "reader")] = "Reader"  # a non-durable subscription: never must-see
        self.readers.add(f"r-{self.name}")
        h = self.traffic.reader(self.topic, "reader", f"r-{self.name}")
        self._attached(h, entry)

    def _attached(self, h: Handle, entry: Entry) -> None:
        when = "before the migration" if self.trigger_ns is None else "after the migration call"
        entry.said = f"{h.name} through blue {when}" + (f": could not attach ({h.attach_error})" if h.attach_error else "")
        if h.attach_error:
            entry.result = "error"

    def _unload_blue(self, step: Step, entry: Entry) -> None:
        refused = unload_topic(self.adapter.blue, self.topic)
        if refused is not None:
            # Pulsar's answer, not the adapter's failure: a migrated topic's unload is refused (HTTP 500
            # "already migrated" on 4.2.4), which the history keeps
            entry.result, entry.said = "refused", f"{refused}"

    def _wait(self, step: Step, entry: Entry) -> None:
        time.sleep(WAIT_S)
        entry.said = f"waited {WAIT_S:g} s (blue's migration check runs every second)"

    def _restart_blue(self, step: Step, entry: Entry) -> None:
        blue = self.adapter.blue
        if self.trigger_ns is not None:
            # a restarted blue answers HTTP 500 for a migrated topic (F-188-10): its state is read now, once blue
            # terminated the topic (its entries no longer change), as the stranded scenarios read it
            wait_until(lambda: levels.topic_migrated(observe.topic_state(blue, self.topic)), timeout=MIGRATED_S,
                       interval=0.25)
            self.blue_before_restart = observe.topic_state(blue, self.topic)
        began = time.monotonic()
        self.d.faults.restart("blue")
        self.restart_s = round(time.monotonic() - began, 1)
        handles = self._live("producer") + self._live("consumer")

        def connected() -> bool:
            return all(getattr(h.wrapped, "is_connected", lambda: True)() for h in handles)
        back = wait_until(connected, timeout=RECONNECT_S, interval=0.5)
        entry.said = f"blue restarted in {self.restart_s} s; " + (
            "every client connected again" if back else f"not every client connected again within {RECONNECT_S:.0f} s")
        if not back:
            entry.result = "not-reached"

    # ----- the end of a schedule
    def closing(self, tracker) -> list[Step]:
        return closing_steps(tracker)

    def judge(self, schedule: Schedule) -> tuple[Outcome, list]:
        """The schedule's outcome (blue's and green's state of each topic, where each send was stored, the
        clients, blue's log and answers) saved beside its capture with its history, and judge.judge's rows.
        The capture's anomaly classes come from the in-process engine here, for the search's next decision;
        the recorded verdicts are Spark's, over every schedule at the end (``JUDGE`` on the saved outcome)."""
        if self.answer is None or self.trigger_ns is None:
            raise RuntimeError(f"schedule {self.name} never migrated {self.moving}: its closing steps did not run")
        blue, green = self.adapter.blue, self.adapter.green
        self.traffic.close()  # every client gone before the clusters are read
        self._close_capture()
        self.line.hung(self.traffic.hung)
        columns = evidence.read_capture(self.dir)
        verdict = evidence.spark_verdict(self.dir, columns, engine="duckdb")
        now = observe.topic_state(blue, self.topic)
        moving_blue = self.blue_before_restart if now.error and self.blue_before_restart else now
        topics = {self.topic: gather(self.topic, blue, green, columns, moving_blue),
                  self.beside: gather(self.beside, blue, green, columns)}
        admin = ({"blue:policies": or_refusal(blue.admin().namespace_policies, self.moving),
                  "green:policies": or_refusal(green.admin().namespace_policies, self.moving)}
                 if self.answer.ok else {})
        facts = {"moving": self.topic, "staying": self.beside, "namespace": self.moving, "tls": tls_modes.evidence(),
                 "schedule": self.name, "restart_s": self.restart_s}
        out = outcome_of(self.dir, self.trigger_ns, topics, verdict, self.line.markers,
                         [info(h) for h in self.traffic.handles], [c.to_json() for c in self.traffic.hung],
                         self.sub_types, observe.blue_log(self.d), self.answer, admin, facts, columns)
        saved.save(out, self.dir)
        write_atomic(self.dir / "schedule.json", json.dumps({**schedule.to_json(), "history": history_json(schedule)},
                                                             indent=1))
        # migration.json as the scenarios write it (the report reads it), then with the judge's figures
        timeline.save(self.dir, "migration", {"trigger_ns": self.trigger_ns,
                                              "topics": {t: o.to_json() for t, o in topics.items()},
                                              "hung_calls": out.hung}, out.markers, None)
        return out, judge.judge_figured(record.figures_into_migration_json(out))

    def _close_capture(self) -> None:
        if self._capture_open:
            self._capture_open = False
            self.capture.close()

    def close(self) -> None:
        """Whatever the schedule left: its clients closed, its capture complete (a restart is over within its
        step; nothing else is a fault that could outlive the schedule)."""
        self.traffic.close()
        self._close_capture()
