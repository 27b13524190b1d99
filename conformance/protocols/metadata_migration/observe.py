"""What a PIP-454 run watches while the migration goes: the phase over REST, and metadata writes
probing whether the cluster refuses them (both threads, timestamps on one clock: time.time_ns)."""
from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass, field

from pulsar_conformance.fixtures.deploy.admin import Admin, AdminError
from pulsar_conformance.wait import wait_until

STATUS = Admin.METADATA_MIGRATION_STATUS
START = Admin.METADATA_MIGRATION_START
DONE = ("COMPLETED", "FAILED")
READ_ONLY = ("PREPARATION", "COPYING")  # the PIP's phases in which every metadata write is refused


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


@dataclass
class Phases:
    """Every phase change the status endpoint showed, polled every ``interval`` seconds."""

    admin: object
    interval: float = 0.05
    seen: list[dict] = field(default_factory=list)  # {"ns", "phase", "target"}; answers without a phase: "?"
    errors: int = 0

    def __post_init__(self):
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="phases", daemon=True)

    def begin(self) -> Phases:
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            answer = call(self.admin, "GET", STATUS)
            phase = answer.body.get("phase", "?") if answer.ok and isinstance(answer.body, dict) else None
            if phase is None:
                self.errors += 1
            elif not self.seen or self.seen[-1]["phase"] != phase:
                self.seen.append({"ns": answer.answered_ns, "phase": phase,
                                  "target": answer.body.get("targetUrl") if isinstance(answer.body, dict) else None})
            time.sleep(self.interval)

    def wait_for(self, phases: tuple[str, ...], timeout: float) -> str | None:
        """The first of ``phases`` the status showed within ``timeout`` seconds, else None."""
        def reached() -> str | None:
            phase = self.current()
            return phase if phase in phases else None

        return wait_until(reached, timeout=timeout, interval=0.02)

    def current(self) -> str | None:
        return self.seen[-1]["phase"] if self.seen else None

    def end(self) -> list[dict]:
        self._stop.set()
        self._thread.join(20)
        return self.seen


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
