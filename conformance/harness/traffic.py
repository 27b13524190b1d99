"""Topics, subscriptions and the threads that keep traffic flowing through a scenario, any protocol.

Every producer and consumer has its own client by default (its own connection: one handle's
redirect cannot disturb another's), or one the scenario made (a failover client), and goes
through the capture, so each send outcome, delivery and ack is a row (docs/capture.md). A slow
subscription builds a backlog (PIP-188: it must drain it on blue before it is redirected).
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import pulsar

from pulsar_conformance.wait import wait_quiet

from .deadline import CLIENT_CALL_DEADLINE_S, Hung, HungCall, within
from .handles import HandleInfo, refusal

KEYS = tuple(f"k{i}" for i in range(8))


@dataclass(frozen=True)
class Sub:
    name: str
    type: str  # Exclusive | Shared | Failover | KeyShared (pulsar.ConsumerType)
    consumers: int = 1
    delay: float = 0.0  # seconds of "processing" per message: > 1/rate builds a backlog
    must_see: bool = True
    latest: bool = False  # initial position Latest (Pulsar's default) instead of Earliest


@dataclass(frozen=True)
class TopicLoad:
    topic: str  # persistent://tenant/ns/name
    subs: tuple[Sub, ...]
    rate: float = 80.0  # messages per second from the one producer


@dataclass
class Handle(HandleInfo):
    """A live handle: its data (``HandleInfo``) and its client, thread and state."""

    client: object = None
    wrapped: object = None
    thread: threading.Thread | None = None
    received: int = 0
    closed: threading.Event = field(default_factory=threading.Event)
    client_closed: bool = False  # close() runs once (stop() and the scenario's finally both call it); a caller's client: never


class Traffic:
    """Producers and consumers of a set of topics, all started on ``cluster``."""

    def __init__(self, capture, cluster, loads: list[TopicLoad], *, send_timeout_ms: int = 15000,
                 roles: dict[str, str] | None = None):
        """``roles``: cluster name -> the scenario's role, for a scenario whose checks read the capture by role
        (PIP-188's "blue"): a handle is then recorded under its cluster's role, whatever Pulsar calls the
        cluster (an external deployment's us-east); by default under the cluster's name."""
        self.capture, self.cluster, self.loads = capture, cluster, loads
        self.send_timeout_ms = send_timeout_ms
        self.roles = dict(roles or {})
        self.handles: list[Handle] = []
        self.stop_sending = threading.Event()
        self.stop_receiving = threading.Event()
        self.hung: list[HungCall] = []  # client calls abandoned at their deadline: evidence

    def _bounded(self, seconds: float, what: str, fn):
        try:
            return within(seconds, what, fn)
        except Hung as hung:
            self.hung.append(hung.call)
            raise

    # ----- starting
    def start(self) -> None:
        for load, sub, name in handles_of(self.loads):
            if sub is None:
                self.add_producer(load.topic, name, load.rate)
            else:
                self.add_consumer(load.topic, sub, name)

    def add_producer(self, topic: str, name: str, rate: float, cluster=None, *, client=None,
                     label: str | None = None) -> Handle:
        """``client``: one the caller made and closes (e.g. configured for failover), recorded
        under ``label`` instead of a cluster's name; by default each handle gets its own."""
        handle = self._handle(name, "producer", topic, None, cluster, client, label)
        if self._attach(handle, lambda: self.capture.producer(
                handle.client, topic, name=name, cluster=handle.cluster, producer_name=name,
                send_timeout_millis=self.send_timeout_ms, block_if_queue_full=True, max_pending_messages=500,
                batching_enabled=False)):
            handle.thread = threading.Thread(target=self._produce, args=(handle, rate), name=name, daemon=True)
            handle.thread.start()
        return handle

    def add_consumer(self, topic: str, sub: Sub, name: str, cluster=None, *, client=None,
                     label: str | None = None) -> Handle:
        handle = self._handle(name, "consumer", topic, sub.name, cluster, client, label)
        if sub.must_see:
            self.capture.must_see(topic, sub.name)
        if self._attach(handle, lambda: self.capture.consumer(
                handle.client, topic, sub.name, name=name, cluster=handle.cluster,
                consumer_type=getattr(pulsar.ConsumerType, sub.type), consumer_name=name,
                receiver_queue_size=50,
                initial_position=pulsar.InitialPosition.Latest if sub.latest else pulsar.InitialPosition.Earliest)):
            handle.thread = threading.Thread(target=self._consume, args=(handle, sub.delay), name=name, daemon=True)
            handle.thread.start()
        return handle

    def _handle(self, name: str, kind: str, topic: str, subscription: str | None, cluster, client,
                label: str | None) -> Handle:
        """A new handle on a client of its own on ``cluster`` (default: the traffic's), or on the
        caller's ``client``, which the caller closes."""
        cluster = cluster or self.cluster
        handle = Handle(name, kind, topic, subscription, label or self.roles.get(cluster.name, cluster.name))
        if client is None:
            handle.client = cluster.client(operation_timeout_seconds=10)
        else:
            handle.client, handle.client_closed = client, True
        self.handles.append(handle)
        return handle

    def _attach(self, handle: Handle, create) -> bool:
        """Create the producer or consumer. A client the broker will not let attach (an old one
        on a migrated topic times out) is evidence for the verdicts, not a crash of the scenario."""
        try:
            handle.wrapped = self._bounded(CLIENT_CALL_DEADLINE_S, f"{handle.name}: create", create)
        except (pulsar.PulsarException, Hung) as error:
            handle.attach_error = f"{type(error).__name__}: {error}"
            handle.errors.append(f"attach: {handle.attach_error}")
            return False
        finally:
            handle.created_ns = time.time_ns()
        return True

    # ----- the loops
    def _produce(self, handle: Handle, rate: float) -> None:
        interval, n = 1.0 / rate, 0

        def done(result, _msg_id):
            if result != pulsar.Result.Ok:
                handle.errors.append(str(result))

        began = time.monotonic()
        while not self.stop_sending.is_set():
            try:
                handle.wrapped.send_async(b"m" * 64, done, key=KEYS[n % len(KEYS)])
            except Exception as error:  # noqa: BLE001 - the capture recorded it; keep the rate
                handle.errors.append(f"{type(error).__name__}: {error}")
            n += 1
            time.sleep(max(0.0, began + n * interval - time.monotonic()))
        try:
            self._bounded(self.send_timeout_ms / 1000 + 15, f"{handle.name}: flush()", handle.wrapped.flush)
        except Exception as error:  # noqa: BLE001 - pending sends fail with the send timeout
            handle.errors.append(f"flush: {type(error).__name__}: {error}")

    def _consume(self, handle: Handle, delay: float) -> None:
        consumer = handle.wrapped
        while not self.stop_receiving.is_set() and not handle.closed.is_set():
            try:
                message = consumer.receive(200)
            except pulsar.Timeout:
                continue
            except Exception as error:  # noqa: BLE001 - e.g. AlreadyClosed at the end
                handle.errors.append(f"{type(error).__name__}: {error}")
                time.sleep(0.2)
                continue
            handle.received += 1
            if delay and not self.stop_sending.is_set():
                # slow only while producing: enough to build a backlog, without leaving it
                # unread when the scenario ends
                time.sleep(delay)
            try:
                consumer.acknowledge(message)
            except Exception as error:  # noqa: BLE001
                handle.errors.append(f"ack: {type(error).__name__}: {error}")

    def close_consumer(self, handle: Handle) -> None:
        """Close one consumer mid-run: its subscription keeps its backlog on the broker."""
        handle.closed.set()
        if handle.thread is not None:
            handle.thread.join(timeout=5)
        if handle.wrapped is not None:
            try:
                self._bounded(CLIENT_CALL_DEADLINE_S, f"{handle.name}: consumer close()", handle.wrapped.close)
            except Exception as error:  # noqa: BLE001 - evidence, the scenario goes on
                handle.errors.append(f"close: {type(error).__name__}: {error}")

    def refusal(self, name: str) -> str:
        """Evidence text for handle ``name``: why its client could not create it, or ""."""
        return refusal(self.handles, name)

    # ----- stopping
    def stop(self, drain_seconds: float = 30.0, quiet_seconds: float = 2.5) -> None:
        """Stop sending; let consumers drain until no delivery came for ``quiet_seconds`` (or
        the deadline); then close every client."""
        self.stop_sending.set()
        for h in self.handles:
            if h.kind == "producer" and h.thread is not None:
                h.thread.join(timeout=self.send_timeout_ms / 1000 + 10)
        wait_quiet(lambda: sum(h.received for h in self.handles), quiet=quiet_seconds, timeout=drain_seconds,
                   interval=0.25)
        self.stop_receiving.set()
        for h in self.handles:
            if h.kind == "consumer" and h.thread is not None:
                h.thread.join(timeout=5)
        self.close()

    def close(self) -> None:
        self.stop_sending.set()
        self.stop_receiving.set()
        for h in self.handles:
            if h.client is None or h.client_closed:
                continue
            h.client_closed = True
            try:
                self._bounded(CLIENT_CALL_DEADLINE_S, f"{h.name}: client close()", h.client.close)
            except Hung as hung:
                h.errors.append(f"close: {hung}")
            except Exception:  # noqa: BLE001, S110 - closing a client that failed is not a finding
                pass


def handles_of(loads: list[TopicLoad]):
    """(load, subscription or None for the producer, handle name) of every handle ``loads`` start, in order:
    each topic's consumers, then its producer. Both clients' traffic names them so (the judges read the names)."""
    for load in loads:
        for sub in load.subs:
            for i in range(sub.consumers):
                yield load, sub, f"c-{_short(load.topic)}-{sub.name}-{i}"
        yield load, None, f"p-{_short(load.topic)}"


def _short(topic: str) -> str:
    """``ns-topic``: unique per scenario, short enough to read in the report."""
    return "-".join(topic.split("://", 1)[-1].split("/")[-2:])
