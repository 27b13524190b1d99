"""Issue 32: on a user's deployment the roles blue (A) and green (B) are clusters with names of their
own (here us-east and us-west), and every place tenant migration tells Pulsar a cluster, or reads
what Pulsar keys by one, must use the cluster's ``.name``, never the role.

The double below answers admin calls as a broker would for names it knows and refuses the roles,
which it has never heard of; it checks the name mapping only, no verdict. What the live scenarios do
between these calls (scenario.run, existing_data.run) needs clusters, so a scan of the package's
source backs the calls run here: no role literal reaches a call that gives Pulsar cluster names."""
from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from pulsar_conformance.conformance.harness.timeline import Timeline
from pulsar_conformance.conformance.protocols import tenant_migration
from pulsar_conformance.conformance.protocols.tenant_migration import cleanup, existing_data, observe, unloads
from pulsar_conformance.fixtures.deploy.admin import Admin, AdminError
from pulsar_conformance.fixtures.deploy.base import Cluster, Deployment

NAMES = {"blue": "us-east", "green": "us-west"}  # role -> the user's cluster name, as a deployment file maps them
TOPIC = "persistent://t/ns/orders"


class NamedBroker(Admin):
    """One cluster's admin API over no network: it records every call, knows only the clusters'
    names, and refuses any other (as a broker refuses a cluster it has no metadata for)."""

    def __init__(self, name: str, peer: str, backlog: int = 0):
        super().__init__(f"http://{name}.example:8080")
        self.name, self.peer, self.backlog = name, peer, backlog
        self.calls: list[tuple[str, str, object]] = []

    def request(self, method: str, path: str, *, json=None, params=None, ok=(200, 204), timeout=None):
        self.calls.append((method, path, json))
        named = json if path.endswith("/replication") else (json or {}).get("allowedClusters") \
            if path.startswith("/admin/v2/tenants/") else []
        unknown = [c for c in named or [] if c not in NAMES.values()]
        if unknown:
            raise AdminError(method, self.admin_url + path, 412, f"Cluster {unknown[0]} does not exist")
        if path == self.topic_path(TOPIC) + "/stats":
            # Pulsar keys a topic's replicators by the remote cluster's name
            return {"replication": {self.peer: {"connected": True, "replicationBacklog": self.backlog}}}
        if path == self.topic_path(TOPIC) + "/internalStats":
            # ... and names a replicator's cursor pulsar.repl.<remote cluster name>
            return {"lastConfirmedEntry": "5:99",
                    "cursors": {f"pulsar.repl.{self.peer}": {"markDeletePosition": "5:99", "readPosition": "5:100"}}}
        if method == "GET" and path == self.topics_path("t/ns"):
            return []  # the topic is gone (after the clean-up's delete)
        return None

    def replication_lists(self) -> list:
        return [body for method, path, body in self.calls if method == "POST" and path.endswith("/replication")]


class _Cluster(Cluster):
    def admin(self, via_proxy: bool = False) -> Admin:
        return self.extra["admin"]  # one admin a cluster, so its calls add up


def user_deployment(backlog: int = 0) -> Deployment:
    """blue -> us-east, green -> us-west; A's replicator to B shows ``backlog``."""
    def cluster(role: str, peer: str) -> Cluster:
        name = NAMES[role]
        return _Cluster(name, f"pulsar://{name}.example:6650", f"http://{name}.example:8080",
                        extra={"admin": NamedBroker(name, NAMES[peer], backlog if role == "blue" else 0)})
    return Deployment("users-clusters", {"blue": cluster("blue", "green"), "green": cluster("green", "blue")})


def test_step_1_gives_pulsar_the_cluster_names():
    d = user_deployment()
    assert existing_data.prepare(d, "t", "ns") == "t/ns"
    a, b = d.admin("blue"), d.admin("green")
    tenants = [body["allowedClusters"] for admin in (a, b) for method, path, body in admin.calls
               if path == "/admin/v2/tenants/t"]
    assert tenants == [["us-east", "us-west"], ["us-east", "us-west"]]
    assert a.replication_lists() == [["us-east"]]
    assert b.replication_lists() == [["us-east", "us-west"]]


def test_a_s_replicator_to_b_is_read_by_b_s_name():
    d = user_deployment(backlog=0)
    a, b = d.clusters["blue"], d.clusters["green"]
    assert observe.replicator(a, b, TOPIC) == {"connected": True, "replicationBacklog": 0}
    assert observe.replicated(a, b, TOPIC) is True
    # where it starts: its cursor on A is pulsar.repl.us-west
    assert observe.replicator_start(a, b, TOPIC) == {"markDeletePosition": "5:99", "readPosition": "5:100"}
    # a replicator still behind is not caught up (the check can fail)
    behind = user_deployment(backlog=7)
    assert observe.replicated(behind.clusters["blue"], behind.clusters["green"], TOPIC) is False


def test_the_clean_up_sets_each_list_by_name_and_waits_on_b_s_replicator():
    d = user_deployment()
    a, b = d.clusters["blue"], d.clusters["green"]
    steps, gone = cleanup.clean_up(a, b, "t/ns", TOPIC, Timeline())
    assert [s["answer"] for s in steps] == ["ok"] * 5, json.dumps(steps)
    assert gone is True
    assert b.admin().replication_lists() == [["us-west"]]
    assert a.admin().replication_lists() == [["us-east"]]


def test_an_unload_says_a_s_replication_backlog_to_b():
    d = user_deployment(backlog=42)
    said = unloads._unload(d, "blue", "t/ns", TOPIC, Timeline())
    assert (said["cluster"], said["answer"], said["backlog"], said["connected"]) == ("blue", "ok", 42, True)


# Admin calls whose arguments Pulsar reads as cluster names, and the ones whose answer it keys by one
NAMING_CALLS = {"set_replication", "put_tenant", "replication_to"}
ROLES = set(NAMES)


def _role_literals(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) in NAMING_CALLS:
            found += [(c.lineno, f"{node.func.attr}(... {c.value!r} ...)") for arg in node.args + [k.value for k in node.keywords]
                      for c in ast.walk(arg) if isinstance(c, ast.Constant) and c.value in ROLES]
        # a replicator's cursor spelled with any fixed cluster (an f-string's "pulsar.repl." part is fine)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("pulsar.repl.") \
                and node.value != "pulsar.repl.":
            found.append((node.lineno, f"replicator cursor {node.value!r}"))
    return found


@pytest.mark.parametrize("module", sorted(p.name for p in Path(tenant_migration.__file__).parent.glob("*.py")))
def test_no_role_reaches_pulsar_as_a_cluster_name(module):
    source = Path(tenant_migration.__file__).parent / module
    found = _role_literals(ast.parse(source.read_text()))
    assert not found, f"{module} gives Pulsar a role where it wants the cluster's .name: {found}"


def test_the_scan_finds_what_the_old_code_did():
    """The scan can fail: each of the old spellings is found (a role behind a variable is not: the
    calls above run step 1's lists, which the old code built that way)."""
    old = '''
admin.set_replication(tenant, ns, ["blue", "green"])
b.admin().set_replication(tenant, ns, ["green"])
a.admin().replication_to(topic, "green")
stats.get("pulsar.repl.green")
admin.put_tenant(tenant, ["blue", "green"])
'''
    assert sorted({line for line, _ in _role_literals(ast.parse(old))}) == [2, 3, 4, 5, 6]
