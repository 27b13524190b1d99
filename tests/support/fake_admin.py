"""A Pulsar cluster's admin API as far as the run's clean-up meets it, on loopback (loopback.serve), with
the refusals a real broker answers: a tenant that still holds a namespace (409), a namespace that
still holds a topic (409) or is replicated to another cluster (412), a topic of such a namespace
(412), a force delete the brokers do not allow (405: forceDeleteNamespaceAllowed and
forceDeleteTenantAllowed default to false), and what exists already (409)."""
from __future__ import annotations

import contextlib
import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

from .loopback import serve

_TOPIC = re.compile(r"^/admin/v2/(persistent|non-persistent)/([^/]+)/([^/]+)/([^/]+)(/partitions)?$")


@dataclass
class FakeCluster:
    name: str
    port: int = 0
    tenants: dict[str, list[str]] = field(default_factory=dict)  # tenant -> allowed clusters
    namespaces: dict[str, list[str]] = field(default_factory=dict)  # "t/ns" -> replication clusters
    topics: dict[str, list[str]] = field(default_factory=dict)  # full name (or partition) -> subscriptions
    partitioned: dict[str, int] = field(default_factory=dict)  # full name -> partitions
    calls: list[tuple[str, str]] = field(default_factory=list)  # (method, path?query) in order
    refuse: dict[tuple[str, str], tuple[int, str]] = field(default_factory=dict)  # (method, path) -> answer
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def admin_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def service_url(self) -> str:
        return f"pulsar://127.0.0.1:{self.port}"  # something listens there (check=True connects)

    # set-up by hand, as a scenario's clients would leave it
    def add_topic(self, topic: str, *subscriptions: str) -> None:
        self.topics[topic] = list(subscriptions)

    def add_partitioned(self, topic: str, partitions: int) -> None:
        self.partitioned[topic] = partitions
        for i in range(partitions):
            self.topics[f"{topic}-partition-{i}"] = ["sub"]

    def deletes(self) -> list[str]:
        return [path for method, path in self.calls if method == "DELETE"]

    # the API
    def answer(self, handler) -> tuple[int, dict, bytes]:
        with self.lock:
            parts = urlsplit(handler.path)
            self.calls.append((handler.command, handler.path))
            refused = self.refuse.get((handler.command, parts.path))
            if refused:
                status, text = refused
            else:
                body = json.loads(handler.body) if handler.body else None
                status, text = self._route(handler.command, parts.path, parse_qs(parts.query), body)
        data = text if isinstance(text, str) else json.dumps(text)
        return status, {"Content-Type": "application/json"}, data.encode()

    def _route(self, method: str, path: str, query: dict, body) -> tuple[int, object]:
        force = query.get("force") == ["true"]
        if path == "/admin/v2/clusters" and method == "GET":
            return 200, [self.name]
        if path == "/admin/v2/tenants" and method == "GET":
            return 200, sorted(self.tenants)
        found = re.fullmatch(r"/admin/v2/tenants/([^/]+)", path)
        if found:
            return self._tenant(method, found.group(1), body, force)
        found = re.fullmatch(r"/admin/v2/namespaces/([^/]+)", path)
        if found and method == "GET":
            tenant = found.group(1)
            if tenant not in self.tenants:
                return 404, {"reason": "Tenant does not exist"}
            return 200, sorted(n for n in self.namespaces if n.split("/")[0] == tenant)
        found = re.fullmatch(r"/admin/v2/namespaces/([^/]+/[^/]+)(/replication|/topics)?", path)
        if found:
            return self._namespace(method, found.group(1), found.group(2), body, force, query)
        found = re.fullmatch(r"/admin/v2/(persistent|non-persistent)/([^/]+/[^/]+)/partitioned", path)
        if found and method == "GET":
            domain, namespace = found.groups()
            if namespace not in self.namespaces:
                return 404, {"reason": "Namespace does not exist"}
            return 200, sorted(t for t in self.partitioned if t.startswith(f"{domain}://{namespace}/"))
        found = _TOPIC.fullmatch(path)
        if found and method == "DELETE":
            domain, tenant, ns, name, partitions = found.groups()
            return self._delete_topic(f"{domain}://{tenant}/{ns}/{name}", f"{tenant}/{ns}", bool(partitions), force)
        return 404, {"reason": f"no route {method} {path}"}

    def _tenant(self, method: str, tenant: str, body, force: bool):
        if method == "PUT":
            if tenant in self.tenants:
                return 409, {"reason": "Tenant already exists"}
            self.tenants[tenant] = list((body or {}).get("allowedClusters", []))
            return 204, ""
        if method == "POST":
            if tenant not in self.tenants:
                return 404, {"reason": "Tenant does not exist"}
            self.tenants[tenant] = list((body or {}).get("allowedClusters", []))
            return 204, ""
        if method == "DELETE":
            if force:
                return 405, {"reason": "Broker doesn't allow forced deletion of tenants"}
            if tenant not in self.tenants:
                return 404, {"reason": "Tenant does not exist"}
            if any(n.split("/")[0] == tenant for n in self.namespaces):
                return 409, {"reason": "The tenant still has active namespaces"}
            del self.tenants[tenant]
            return 204, ""
        return 405, {"reason": method}

    def _namespace(self, method: str, namespace: str, rest: str | None, body, force: bool, query: dict):
        if rest is None and method == "PUT":
            if namespace.split("/")[0] not in self.tenants:
                return 404, {"reason": "Tenant does not exist"}
            if namespace in self.namespaces:
                return 409, {"reason": "Namespace already exists"}
            self.namespaces[namespace] = [self.name]
            return 204, ""
        if namespace not in self.namespaces:
            return 404, {"reason": "Namespace does not exist"}
        if rest == "/replication" and method == "POST":
            self.namespaces[namespace] = list(body)
            return 204, ""
        if rest == "/topics" and method == "GET":
            domains = ("persistent", "non-persistent") if query.get("mode") == ["ALL"] else ("persistent",)
            return 200, sorted(t for t in self.topics if any(t.startswith(f"{d}://{namespace}/") for d in domains))
        if rest is None and method == "DELETE":
            if force:
                return 405, {"reason": "Broker doesn't allow forced deletion of namespaces"}
            if set(self.namespaces[namespace]) - {self.name}:
                return 412, {"reason": f"Cannot delete the global namespace {namespace}. There are still more than "
                                       "one replication clusters configured."}
            if any(t.split("://", 1)[1].rsplit("/", 1)[0] == namespace for t in self.topics):
                return 409, {"reason": "Cannot delete non empty namespace"}
            del self.namespaces[namespace]
            return 204, ""
        if rest is None and method == "GET":
            return 200, {"replication_clusters": self.namespaces[namespace]}
        return 405, {"reason": method}

    def _delete_topic(self, topic: str, namespace: str, partitions: bool, force: bool):
        if namespace in self.namespaces and set(self.namespaces[namespace]) - {self.name}:
            return 412, {"reason": "the namespace replicates to another cluster: its replicator would re-create it"}
        if partitions:
            if topic not in self.partitioned:
                return 404, {"reason": "Partitioned topic does not exist"}
            own = [t for t in self.topics if re.fullmatch(re.escape(topic) + r"-partition-\d+", t)]
            if not force and any(self.topics[t] for t in own):
                return 412, {"reason": "Topic has active subscriptions"}
            for t in own:
                del self.topics[t]
            del self.partitioned[topic]
            return 204, ""
        if topic not in self.topics:
            return 404, {"reason": "Topic not found"}
        if not force and self.topics[topic]:
            return 412, {"reason": "Topic has active subscriptions"}
        del self.topics[topic]
        return 204, ""


@contextlib.contextmanager
def fake_clusters(*names: str) -> Iterator[dict[str, FakeCluster]]:
    """Each name a FakeCluster on a loopback port of its own, holding the ``public`` tenant and the
    ``public/default`` namespace a Pulsar cluster starts with."""
    with contextlib.ExitStack() as stack:
        found = {}
        for name in names:
            cluster = FakeCluster(name, tenants={"public": [name]}, namespaces={"public/default": [name]})
            cluster.port = stack.enter_context(serve(cluster.answer))
            found[name] = cluster
        yield found


def deployment_file(path, clusters: dict[str, FakeCluster], roles: dict[str, str] | None = None):
    """An external deployment file describing ``clusters`` (each by its name), with ``roles``."""
    lines = ["clusters:"]
    for cluster in clusters.values():
        lines.append(f'  {cluster.name}: {{service_url: "{cluster.service_url}", admin_url: "{cluster.admin_url}"}}')
    if roles:
        lines.append("roles: {" + ", ".join(f"{r}: {c}" for r, c in roles.items()) + "}")
    path.write_text("\n".join(lines) + "\n")
    return path
