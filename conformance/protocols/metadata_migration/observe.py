"""What a PIP-454 run watches while the migration goes: the phase over REST, the migration flag in
ZooKeeper (the phase the coordinator wrote), and metadata writes probing whether the cluster refuses
them (three threads, timestamps on one clock: time.time_ns)."""
from __future__ import annotations

import json
import threading
import time
from contextlib import ExitStack
from dataclasses import asdict, dataclass

from pulsar_conformance.fixtures.deploy.admin import Admin, AdminError
from pulsar_conformance.wait import wait_until

from . import stores

STATUS = Admin.METADATA_MIGRATION_STATUS
START = Admin.METADATA_MIGRATION_START
DONE = ("COMPLETED", "FAILED")
READ_ONLY = ("PREPARATION", "COPYING")  # the PIP's phases in which every metadata write is refused
# MigrationState.MIGRATION_FLAG_PATH (4.2.4 and 5.0.0-M1): the coordinator writes the phase there, in
# the source store, as MigrationState's JSON ({"phase": ..., "targetUrl": ...}); every participant
# watches it. No node: NOT_STARTED (MetadataMigrationBase.getStatus answers so too).
FLAG_PATH = "/pulsar/migration-coordinator/migration"
# how long the run waits for the status to show an end phase ZooKeeper's flag already holds (4.2.4's
# status never does, F-454-10; a status a poll or two behind the flag is not stuck)
STATUS_GRACE_S = 10.0


@dataclass(frozen=True)
class Answer:
    """One REST call and what came back (status None: no answer at all)."""

    sent_ns: int
    answered_ns: int
    status: int | None
    body: object

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


def call(admin, method: str, path: str, **options) -> Answer:
    sent = time.time_ns()
    try:
        body = admin.request(method, path, ok=tuple(range(200, 300)), timeout=15, **options)
        return Answer(sent, time.time_ns(), 200, body)
    except AdminError as error:
        return Answer(sent, time.time_ns(), error.status, error.body[:300])


def start(admin, target: str) -> Answer:
    """5.0.0-M1 takes the target as a query parameter (the PIP shows a JSON body; both are tried)."""
    answer = call(admin, "POST", START, params={"target": target})
    if answer.status in (400, 415) and "target" in str(answer.body).lower():
        return call(admin, "POST", START, json={"targetUrl": target})
    return answer


class _Series:
    """A phase polled every ``interval`` seconds by a thread; ``seen`` holds each change
    ({"ns", "phase", "target"}, ns when the answer came), ``errors`` the polls that gave none."""

    def __init__(self, interval: float = 0.05):
        self.interval = interval
        self.seen: list[dict] = []
        self.errors = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=type(self).__name__, daemon=True)

    def read(self) -> dict | None:
        """{"phase", "target", ...} now (and "ns" when the answer came, if not now), or None when
        there is no answer."""
        raise NotImplementedError

    def begin(self):
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            state = self.read()
            if state is None:
                self.errors += 1
            elif not self.seen or self.seen[-1]["phase"] != state["phase"]:
                self.seen.append({"ns": time.time_ns(), **state})
            time.sleep(self.interval)

    def wait_for(self, phases: tuple[str, ...], timeout: float) -> str | None:
        """The first of ``phases`` the series showed within ``timeout`` seconds, else None."""
        def reached() -> str | None:
            phase = self.current()
            return phase if phase in phases else None

        return wait_until(reached, timeout=timeout, interval=0.02)

    def current(self) -> str | None:
        return self.seen[-1]["phase"] if self.seen else None

    def end(self) -> list[dict]:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(20)
        self.close()
        return self.seen

    def close(self) -> None:
        """Release what ``read`` holds (after the thread stopped)."""


class Phases(_Series):
    """Every phase change the status endpoint showed; answers without a phase: "?"."""

    def __init__(self, admin, interval: float = 0.05):
        super().__init__(interval)
        self.admin = admin

    def read(self) -> dict | None:
        answer = call(self.admin, "GET", STATUS)
        if not answer.ok:
            return None
        body = answer.body if isinstance(answer.body, dict) else {}
        return {"ns": answer.answered_ns, "phase": body.get("phase", "?"), "target": body.get("targetUrl")}


def flag_state(value: bytes | None, version: int | None) -> dict:
    """The flag node's value as the series records it: MigrationState's JSON read as Jackson wrote it;
    no node is NOT_STARTED; a value that is not that JSON is "?" with its first bytes."""
    if value is None:
        return {"phase": "NOT_STARTED", "target": None, "version": None}
    try:
        doc = json.loads(value)
    except ValueError:
        doc = None
    if not isinstance(doc, dict) or not isinstance(doc.get("phase"), str):
        return {"phase": "?", "target": None, "version": version, "raw": value[:200].decode(errors="replace")}
    return {"phase": doc["phase"], "target": doc.get("targetUrl"), "version": version}


def read_flag(zk, path: str = FLAG_PATH) -> dict:
    """The migration flag's state read with an open kazoo client (no node: NOT_STARTED)."""
    # lazy: kazoo is the pulsar extra's, loaded where a store is read
    from kazoo.exceptions import NoNodeError

    try:
        value, stat = zk.get(path)
    except NoNodeError:
        return flag_state(None, None)
    return flag_state(value or b"", stat.version)


class ZooKeeperFlag(_Series):
    """Every change of the migration flag in the source ZooKeeper (``FLAG_PATH``, read with kazoo
    outside Pulsar): the phase the coordinator wrote, whatever the status endpoint answers (4.2.4's
    status reads the flag through the dual store, from the target's copy once COMPLETED: F-454-10)."""

    def __init__(self, hosts: str, interval: float = 0.05, path: str = FLAG_PATH):
        super().__init__(interval)
        self.hosts, self.path = hosts, path
        self._zk = None
        self._opened = ExitStack()  # the series' one client (a poll every 50 ms), stopped by close()

    def read(self) -> dict | None:
        try:
            if self._zk is None:
                self._zk = self._opened.enter_context(stores.zookeeper_client(self.hosts, 10))
            return read_flag(self._zk, self.path)
        except Exception:  # noqa: BLE001 - a poll without an answer is counted, the next one tries again
            self.close()
            return None

    def close(self) -> None:
        self._zk = None
        try:
            self._opened.close()
        except Exception:  # noqa: BLE001, S110 - closing a client whose server is gone
            pass

    def to_json(self) -> dict:
        return {"path": self.path, "seen": self.seen, "errors": self.errors}


def wait_for_end(status: Phases, flag: ZooKeeperFlag, timeout: float,
                 grace: float = STATUS_GRACE_S) -> tuple[str | None, str | None]:
    """The end phase the status showed and the one ZooKeeper's flag holds: waits up to ``timeout``
    seconds for either, then up to ``grace`` more for the status to say what the flag says."""
    def ended() -> bool:
        return status.current() in DONE or flag.current() in DONE

    wait_until(ended, timeout=timeout, interval=0.02)
    if flag.current() in DONE and status.current() not in DONE:
        status.wait_for(DONE, grace)
    return (status.current() if status.current() in DONE else None,
            flag.current() if flag.current() in DONE else None)


@dataclass(frozen=True)
class Write:
    kind: str  # namespace | policy | topic
    target: str  # the namespace or topic created, or the policy's value
    answer: Answer

    def to_json(self) -> dict:
        return {"kind": self.kind, "target": self.target, **asdict(self.answer), "ok": self.answer.ok}


class Prober:
    """Metadata writes every ``interval`` seconds, in turn: a namespace created, a namespace policy
    updated (a conditional write on its policies node), a topic created."""

    KINDS = ("namespace", "policy", "topic")

    def __init__(self, admin, tenant: str, namespace: str, *, interval: float = 0.05, prefix: str = "w"):
        self.admin, self.tenant, self.namespace, self.interval, self.prefix = admin, tenant, namespace, interval, prefix
        self.writes: list[Write] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="prober", daemon=True)

    def begin(self) -> Prober:
        self._thread.start()
        return self

    def write(self, i: int) -> Write:
        kind = self.KINDS[i % len(self.KINDS)]
        name = f"{self.prefix}{i}"
        if kind == "namespace":
            target = f"{self.tenant}/{name}"
            answer = call(self.admin, "PUT", self.admin.namespace_path(target))
        elif kind == "policy":
            target = str(i)
            answer = call(self.admin, "POST", self.admin.retention_path(f"{self.tenant}/{self.namespace}"),
                          json={"retentionTimeInMinutes": i, "retentionSizeInMB": i})
        else:
            target = f"persistent://{self.tenant}/{self.namespace}/{name}"
            answer = call(self.admin, "PUT", self.admin.topic_path(target))
        return Write(kind, target, answer)

    def _run(self) -> None:
        i = 0
        while not self._stop.is_set():
            self.writes.append(self.write(i))
            i += 1
            time.sleep(self.interval)

    def end(self) -> list[Write]:
        self._stop.set()
        self._thread.join(30)
        return self.writes


def kept(admin, tenant: str, namespace: str, writes: list[Write]) -> dict[str, bool]:
    """For every accepted write: is it there now (the namespace listed, the topic listed, the
    retention holding the last accepted policy's value)?"""
    namespaces = set(call(admin, "GET", admin.namespace_path(tenant)).body or [])
    topics = set(call(admin, "GET", admin.topics_path(f"{tenant}/{namespace}")).body or [])
    retention = call(admin, "GET", admin.retention_path(f"{tenant}/{namespace}")).body
    accepted_policies = [w for w in writes if w.kind == "policy" and w.answer.ok]
    last_policy = accepted_policies[-1].target if accepted_policies else None
    found = {}
    for w in writes:
        if not w.answer.ok:
            continue
        if w.kind == "namespace":
            found[w.target] = w.target in namespaces
        elif w.kind == "topic":
            found[w.target] = w.target in topics
        elif w.target == last_policy:
            found[f"retention={w.target}"] = isinstance(retention, dict) and \
                str(retention.get("retentionTimeInMinutes")) == w.target
    return found
