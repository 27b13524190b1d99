"""The real Java client in the PIP-121 scenarios: Harness.java on ``pulsar-client-original`` of a
chosen release (java_release.py resolves it from Maven Central), run with the JDK's single-file
source launcher; its own log is read by java_log.py.

The JVM writes one JSON line per client event; they become
capture rows (format /2) through the capture writer, so Spark checks the Java client exactly as
it checks the Python one. Where the client is attached comes over its stdout as it changes; the
client's own log (its failed probes, its switches) is kept beside the capture, with times.
"""
from __future__ import annotations

import json
import os
import subprocess
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from pulsar_conformance.fixtures.deploy import auth_plugins

from ...harness import java_process
from ...harness.java_harness import harness_command
from ...harness.java_release import wanted_version
from . import java_log
from .client import Attachment, client_url
from .outcome import FailoverConfig

# between the secondary clusters' service URLs (Harness.java splits on it): never inside a URL,
# where a comma is (a cluster of several brokers is a host list)
SECONDARY_SEPARATOR = " "
# compiling Harness.java and connecting take a few seconds on two busy cores
READY_TIMEOUT_S = 90.0




class UrlProvider:
    """The HTTP URL provider ControlledClusterFailover polls, on loopback: it answers
    ``{"serviceUrl": ...}`` with whatever the scenario points it to."""

    def __init__(self, answer: dict):
        self.answer = answer
        self.polls = 0
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - the http.server hook
                provider.polls += 1
                body = json.dumps(provider.answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/pulsar"
        threading.Thread(target=self.server.serve_forever, name="url-provider", daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@dataclass
class JavaFailoverClient:
    """One Harness.java process: started, told to stop, and always gone afterwards."""

    deployment: object
    config: FailoverConfig
    run_dir: Path
    topic: str
    controlled: bool = False
    rate: float = 50.0
    drain_seconds: float = 45.0
    start_seconds: int = 30  # to create the producer and the consumer
    version: str = ""
    # per cluster, the token ControlledClusterFailover is handed with that cluster's URL (PIP121-R06);
    # the first cluster's also goes to the client builder
    tokens: dict[str, str] | None = field(default=None, repr=False)
    attached: list[Attachment] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    def __post_init__(self):
        names = (self.config.primary, *self.config.secondaries)
        self.urls = {name: client_url(self.deployment, name) for name in names}
        self.by_url = {url: name for name, url in self.urls.items()}
        self.version = self.version or wanted_version(self.deployment)
        self.provider = UrlProvider(self._answer(self.config.primary)) if self.controlled else None
        self._changed = threading.Condition()
        self.proc = None
        self.ended = False

    @property
    def events_path(self) -> Path:
        return self.run_dir / "java-events.jsonl"

    @property
    def log_path(self) -> Path:
        return self.run_dir / "java-client.log"

    def arguments(self) -> dict:
        """The harness's key=value arguments. The secondaries are separated by SECONDARY_SEPARATOR:
        a cluster of several brokers is itself a comma-separated host list (pulsar://h:p1,h:p2)."""
        c = self.config
        return {"mode": "controlled" if self.controlled else "auto", "primary": self.urls[c.primary],
                "secondaries": SECONDARY_SEPARATOR.join(self.urls[s] for s in c.secondaries),
                "interval_ms": c.interval_ms, "failover_delay_ms": c.failover_delay_ms,
                "switch_back_delay_ms": c.switch_back_delay_ms, "provider": self.provider.url if self.provider else "",
                "topic": self.topic, "subscription": "reader", "producer": "p-writer", "consumer": "c-reader",
                "rate": self.rate, "events": self.events_path, "drain_ms": int(self.drain_seconds * 1000),
                "start_seconds": self.start_seconds, "max_seconds": 600}

    def start(self) -> None:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        log4j = self.run_dir / "java-log4j2.xml"
        # the client's probe failures and switches, as it logs them
        log4j.write_text(java_process.log4j_config(self.log_path, ("AutoClusterFailover", "ControlledClusterFailover")))
        command = harness_command(self.version, self.run_dir, self.arguments(),
                                  jvm_options=(f"-Dlog4j.configurationFile={log4j}",))
        stderr = (self.run_dir / "java-stderr.txt").open("w")
        env = {**os.environ, **self.auth_environment()}
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, text=True,
                                     env=env)
        stderr.close()
        threading.Thread(target=self._read, name="java-harness", daemon=True).start()
        if not self._wait(lambda: any(line.startswith("ready") for line in self.lines) or self.ended,
                          READY_TIMEOUT_S) or self.ended:
            self.kill()
            said = next((line for line in self.lines if line.startswith("error ")), "")
            tail = (self.run_dir / "java-stderr.txt").read_text()[-1500:]
            raise RuntimeError(f"the Java harness did not start (exit {self.proc.returncode}): {said or tail}")

    def _read(self) -> None:
        for line in self.proc.stdout:
            line = line.strip()
            with self._changed:
                self.lines.append(line)
                if line.startswith("attached "):
                    _, at, url = line.split(" ", 2)
                    self.attached.append(Attachment(int(at), self.by_url.get(url, url)))
                self._changed.notify_all()
        with self._changed:
            self.ended = True  # stdout closed: the JVM has gone or is going
            self._changed.notify_all()

    def _wait(self, ready, timeout: float) -> bool:
        with self._changed:
            return self._changed.wait_for(ready, timeout)

    def current(self) -> str:
        return self.attached[-1].cluster

    def wait_for_switch(self, cluster: str, since_ns: int, timeout: float) -> int | None:
        """When the client moved to ``cluster`` after ``since_ns`` (waiting up to ``timeout``), or None."""
        def moved():
            return next((a.at_ns for a in self.attached if a.cluster == cluster and a.at_ns >= since_ns), None)
        self._wait(lambda: moved() is not None, timeout)
        return moved()

    def _auth(self, cluster: str) -> tuple[str, str] | None:
        """(plugin, parameters) the Java client authenticates to ``cluster`` with: the scenario's own token
        for it, else the cluster's credentials (an external deployment's token, OAuth2 or certificate)."""
        if self.tokens is not None:
            return (auth_plugins.TOKEN, f"token:{self.tokens[cluster]}") if self.tokens.get(cluster) else None
        return self.deployment.clusters[cluster].java_auth()

    def auth_environment(self) -> dict[str, str]:
        """What the harness reads its credentials from: by environment, never argv, which any process may
        read. The primary's go to the client builder; a secondary's that differ go to AutoClusterFailover's
        secondaryAuthentication (one ``url TAB plugin TAB params`` line each); the CA to trust, if any."""
        c = self.config
        primary = self._auth(c.primary)
        env = java_process.auth_environment(self.deployment.clusters[c.primary], primary or ())
        others = [f"{self.urls[s]}\t{auth[0]}\t{auth[1]}" for s in c.secondaries
                  if (auth := self._auth(s)) and auth != primary]
        if others:
            env["PULSAR_CONFORMANCE_HARNESS_SECONDARY_AUTH"] = "\n".join(others)
        return env

    def _answer(self, cluster: str) -> dict:
        """What the URL provider serves for ``cluster``: its URL, and its credentials where it has any."""
        answer = {"serviceUrl": self.urls[cluster]}
        auth = self._auth(cluster)
        if auth:
            answer.update(authPluginClassName=auth[0], authParamsString=auth[1])
        return answer

    def point_to(self, cluster: str) -> None:
        self.provider.answer = self._answer(cluster)

    def switches(self) -> list[tuple[int, str, str]]:
        return [(b.at_ns, a.cluster, b.cluster) for a, b in zip(self.attached, self.attached[1:], strict=False)]

    def stop(self) -> str | None:
        """Stop sending, let the JVM drain and close; a JVM that does not end is killed and said."""
        try:
            self.proc.stdin.write("stop\n")
            self.proc.stdin.flush()
            self.proc.wait(timeout=self.drain_seconds + 60)
        except (subprocess.TimeoutExpired, BrokenPipeError, OSError) as error:
            self.kill()
            return f"Java harness stop: {type(error).__name__}; killed"
        finally:
            if self.provider:
                self.provider.close()
        return None if self.proc.returncode == 0 else f"Java harness exited {self.proc.returncode}"

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def copy_into(self, capture) -> list[str]:
        """Every recorded client event into the capture; what is not a capture kind is returned as errors."""
        return java_process.append_events(capture, self.events_path, self.topic, "reader",
                                          lambda url: self.by_url.get(url, url))

    def drained(self) -> str | None:
        """The harness's own account of its drain ("drained <ts> N of M acknowledged sends not delivered")."""
        return next((line for line in reversed(self.lines) if line.startswith("drained ")), None)

    def switch_log(self) -> list[tuple[int, str | None, str]]:
        """(time, from, to) of each switch the client logged making, clusters by name."""
        return java_log.switches_logged(self.log_path.read_text() if self.log_path.exists() else "", self.by_url)

    def failed_probes(self) -> list[tuple[int, str]]:
        """(time, cluster) of each probe the client logged as failed, from its own log."""
        return java_log.failed_probes(self.log_path.read_text() if self.log_path.exists() else "", self.by_url)
