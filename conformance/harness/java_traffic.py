"""A scenario's traffic through the real Java client: the Java harness's ``mode=traffic``
(harness/Harness.java, pulsar-client-original of the run's Java client release) runs the
producers, consumers and readers of ``loads`` on one cluster's service URL, each on a client of its
own, and its events join the scenario's capture like the Python traffic's (java_process.append_events).

``JavaTraffic`` has the face of traffic.py's ``Traffic`` that a scenario drives (start, add_producer,
add_consumer, stop, close, handles, hung, refusal), so PIP-188's ``scenario.run`` judges the Java client
by the same capture, Spark checks, judge and trace validation as the Python one (issue 33). A
subscription of type ``Reader`` is a Java ``Reader`` (a non-durable subscription under that name).

The JVM says what it did on stdout, one line each: ``attached NAME TS``, ``refused NAME TS ERROR``,
``ready TS``, ``flushed TS``, ``received NAME N``, ``done TS`` (``parse_line``)."""
from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from . import java_process
from .deadline import CLIENT_CALL_DEADLINE_S, HungCall
from .handles import HandleInfo, refusal
from .java_harness import harness_command
from .traffic import Sub, TopicLoad, handles_of

# compiling Harness.java and creating a score of clients take a while on two busy cores
READY_TIMEOUT_S = 180.0


@dataclass
class JavaHandle(HandleInfo):
    """A producer, consumer or reader living in the JVM: its data, and what the JVM said of it."""

    received: int = 0
    type: str = ""  # the subscription type, Reader for a reader


def spec_line(kind: str, name: str, topic: str, *, sub: Sub | None = None, rate: float = 0.0) -> str:
    """One handle as Harness.java's ``mode=traffic`` reads it (``kind key=value...``; no value holds a space)."""
    if kind == "producer":
        return f"producer name={name} topic={topic} rate={rate:g}"
    assert sub is not None
    if sub.type == "Reader":
        return f"reader name={name} topic={topic} subscription={sub.name}"
    return (f"consumer name={name} topic={topic} subscription={sub.name} type={sub.type} "
            f"delay_ms={int(sub.delay * 1000)} latest={str(sub.latest).lower()}")


def parse_line(line: str) -> tuple[str, list[str]]:
    """(word, the rest split as the harness wrote it): ``refused`` keeps its error whole."""
    word, _, rest = line.strip().partition(" ")
    if word == "refused":
        return word, rest.split(" ", 2)
    return word, rest.split()


class JavaTraffic:
    """The Java client's producers and consumers of ``loads``, all on ``cluster``, in one JVM."""

    def __init__(self, capture, cluster, loads: list[TopicLoad], *, run_dir: Path, version: str,
                 send_timeout_ms: int = 15000, max_seconds: int = 600, roles: dict[str, str] | None = None):
        self.capture, self.cluster, self.loads = capture, cluster, loads
        # the capture's cluster column: the role where the scenario names one (traffic.Traffic's ``roles``)
        self.label = (roles or {}).get(cluster.name, cluster.name)
        self.run_dir, self.version = run_dir, version
        self.send_timeout_ms, self.max_seconds = send_timeout_ms, max_seconds
        self.handles: list[JavaHandle] = []
        self.hung: list[HungCall] = []  # handles the JVM gave up creating at the deadline: evidence
        self.lines: list[str] = []
        self.errors: list[str] = []  # events that are no capture row (consumer errors, failed acks)
        self.proc: subprocess.Popen | None = None
        self.copied = False
        self._said = threading.Condition()
        self._ended = False

    @property
    def events_path(self) -> Path:
        return self.run_dir / "java-traffic-events.jsonl"

    # ----- starting
    def start(self) -> None:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        lines = [self._new(load.topic, name, sub, rate=load.rate if sub is None else 0.0)
                 for load, sub, name in handles_of(self.loads)]
        spec = self.run_dir / "java-traffic.spec"
        spec.write_text("".join(f"{line}\n" for line in lines))
        args = {"mode": "traffic", "service_url": self.cluster.service_url, "spec": spec, "events": self.events_path,
                "send_timeout_ms": self.send_timeout_ms, "create_ms": int(CLIENT_CALL_DEADLINE_S * 1000),
                "max_seconds": self.max_seconds}
        log4j = self.run_dir / "java-traffic-log4j2.xml"
        # the client's own account of its redirects (ClientCnx "is migrated to"), reconnections and refusals
        log4j.write_text(java_process.log4j_config(self.run_dir / "java-traffic-client.log",
                                                   ("ClientCnx", "ConnectionHandler", "ConsumerImpl", "ProducerImpl")))
        command = harness_command(self.version, self.run_dir, args, jvm_options=(f"-Dlog4j.configurationFile={log4j}",))
        env = {**os.environ, **java_process.auth_environment(self.cluster)}
        with (self.run_dir / "java-traffic-stderr.txt").open("w") as stderr:
            self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                         text=True, env=env)
        threading.Thread(target=self._read, name="java-traffic", daemon=True).start()
        if not self._wait(lambda: self._ended or any(x.startswith("ready ") for x in self.lines), READY_TIMEOUT_S) \
                or self._ended:
            self.kill()
            said = next((x for x in self.lines if x.startswith("error ")), "")
            tail = (self.run_dir / "java-traffic-stderr.txt").read_text()[-1500:]
            raise RuntimeError(f"the Java traffic harness did not start (exit {self.proc.returncode}): {said or tail}; "
                               f"its command line and output are in {self.run_dir}")

    def _new(self, topic: str, name: str, sub: Sub | None, rate: float = 0.0) -> str:
        kind = "producer" if sub is None else "consumer"
        self.handles.append(JavaHandle(name, kind, topic, sub.name if sub else None, self.label,
                                       type=sub.type if sub else ""))
        if sub is not None and sub.must_see:
            self.capture.must_see(topic, sub.name)
        return spec_line(kind, name, topic, sub=sub, rate=rate)

    def add_producer(self, topic: str, name: str, rate: float) -> JavaHandle:
        return self._add(self._new(topic, name, None, rate=rate), name)

    def add_consumer(self, topic: str, sub: Sub, name: str) -> JavaHandle:
        return self._add(self._new(topic, name, sub), name)

    def _add(self, line: str, name: str) -> JavaHandle:
        """One more handle, created by the JVM now; returns once it said attached or refused (the JVM
        bounds the creation by the client call deadline, this wait by a little more)."""
        handle = self._handle(name)
        try:
            self.proc.stdin.write(f"add {line}\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as error:
            handle.attach_error = f"the Java harness is gone: {type(error).__name__}"
        else:
            answered = self._wait(lambda: handle.created_ns or handle.attach_error or self._ended,
                                  CLIENT_CALL_DEADLINE_S + 15)
            if not answered or (self._ended and not handle.created_ns and not handle.attach_error):
                handle.attach_error = "the Java harness did not answer"
        if handle.attach_error:
            handle.errors.append(f"attach: {handle.attach_error}")
            handle.created_ns = handle.created_ns or time.time_ns()
        return handle

    def _handle(self, name: str) -> JavaHandle:
        return next(h for h in reversed(self.handles) if h.name == name)

    def _read(self) -> None:
        for raw in self.proc.stdout:
            line = raw.strip()
            with self._said:
                self.lines.append(line)
                self._apply(line)
                self._said.notify_all()
        with self._said:
            self._ended = True  # stdout closed: the JVM has gone or is going
            self._said.notify_all()

    def _apply(self, line: str) -> None:
        word, parts = parse_line(line)
        if word == "attached" and len(parts) == 2:
            self._handle(parts[0]).created_ns = int(parts[1])
        elif word == "refused" and len(parts) >= 2:
            handle = self._handle(parts[0])
            handle.created_ns = int(parts[1])
            handle.attach_error = parts[2] if len(parts) > 2 else "refused"
            if handle.attach_error.startswith("TimeoutException"):
                self.hung.append(HungCall(f"{handle.name}: create (Java client)", CLIENT_CALL_DEADLINE_S,
                                          "in the JVM: no Python stack", int(parts[1])))
        elif word == "received" and len(parts) == 2:
            self._handle(parts[0]).received = int(parts[1])

    def _wait(self, ready, timeout: float) -> bool:
        with self._said:
            return bool(self._said.wait_for(ready, timeout))

    def refusal(self, name: str) -> str:
        """Evidence text for handle ``name``: why its client could not create it, or ""."""
        return refusal(self.handles, name)

    # ----- stopping
    def stop(self, drain_seconds: float = 30.0, quiet_seconds: float = 2.5) -> None:
        """Stop sending; the JVM waits for pending sends, drains until no delivery came for
        ``quiet_seconds`` (at most ``drain_seconds``), closes its clients and ends; its events go
        into the capture. A JVM that does not end in time is killed, and said."""
        if self.proc is None:
            return
        try:
            self.proc.stdin.write(f"stop quiet_ms={int(quiet_seconds * 1000)} drain_ms={int(drain_seconds * 1000)}\n")
            self.proc.stdin.flush()
            self.proc.wait(timeout=self.send_timeout_ms / 1000 + drain_seconds + 60)
        except (subprocess.TimeoutExpired, BrokenPipeError, OSError) as error:
            self.errors.append(f"Java traffic harness stop: {type(error).__name__}; killed")
        self.close()
        if self.proc.returncode != 0:
            # the program bounds its drain and its clients' close and ends 0 by itself: any other end (a crash,
            # its own time limit, killed) cut the run short, and what it did not record is not Pulsar's doing
            raise RuntimeError(f"the Java traffic harness (pulsar-client-original {self.version}) did not end by itself "
                               f"(exit {self.proc.returncode}; {java_process.last_words(self.lines)}): no verdict from "
                               "this run; its command "
                               f"line, events and stderr are in {self.run_dir}")

    def close(self) -> None:
        """The JVM gone (killed if it is still there), its events in the capture, once."""
        self.kill()
        if self.proc is not None and self.proc.returncode not in (0, None):
            self.errors.append(f"Java traffic harness exited {self.proc.returncode}")
        if not self.copied:
            self.copied = True
            self.errors += copy_events(self.capture, self.events_path, {h.name: h for h in self.handles},
                                       self.label)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def evidence(self) -> dict:
        """What the scenario's migration.json keeps of the JVM: the client release (the bundle's
        identity), its last words and the events that are no capture row."""
        return {"java": {"version": self.version, "exit_code": self.proc.returncode if self.proc else None,
                         "said": [x for x in self.lines if not x.startswith(("attached ", "received "))][-10:],
                         "errors": self.errors[:10], "error_count": len(self.errors)}}


def copy_events(capture, events_path: Path, handles: dict[str, HandleInfo], cluster: str) -> list[str]:
    """The JVM's events into ``capture``, each under its handle's topic and subscription (the event's
    client names the handle) and ``cluster``, the one the handles were created through, as the
    Python traffic records them; returns the events that are no capture row."""
    if not events_path.exists():
        return [f"{events_path.name}: the Java harness wrote no events"]
    per_client: dict[str, list[str]] = {}
    for line in events_path.read_text().splitlines():
        per_client.setdefault(json.loads(line)["client"], []).append(line)
    errors = []
    for client, lines in per_client.items():
        handle = handles.get(client)
        if handle is None:
            errors.append(f"{len(lines)} events of client {client!r}, which is no handle of the traffic")
            continue
        errors += [f"{client}: {e}" for e in java_process.append_lines(
            capture, lines, handle.topic, handle.subscription, lambda _url: cluster)]
    return errors
