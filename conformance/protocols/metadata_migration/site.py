"""Where a PIP-454 scenario migrates, and the hands it needs there: the source ZooKeeper and the target Oxia
(their addresses: stores.py reads both directly, outside Pulsar), the target killed and started again, the
brokers restarted on the target after COMPLETED (what an operator does), the target server's own failures.

Two kinds, one face, so that scenario.py says what it does once:
- ``LocalSite``: a deployment the suite launched with a ZooKeeper and an Oxia server beside the brokers
  (``metadata="zk", oxia_server=True``);
- ``ExternalSite``: an operator's cluster, from the deployment file's ``metadata_migration:`` section (the
  source ZooKeeper's ``host:port``, the target's ``oxia://`` URL) and its fault commands (the ``oxia``
  component's ``kill``/``start``, the cluster's ``cutover``). A migrated cluster cannot be migrated again
  from scratch, so there a scenario first asks whether the cluster is still unmigrated (``unmigrated``): one
  certification of an operator's cluster judges one migration.
"""
from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from pulsar_conformance.errors import UsageError
from pulsar_conformance.fixtures.deploy.external_migration import FIX

from . import observe, stores

# the component of an external deployment file's faults that is the target Oxia server
TARGET_COMPONENT = "oxia"


class LocalSite:
    external = False

    def __init__(self, deployment, cluster: str):
        self.deployment, self.cluster = deployment, cluster
        self.zookeeper = f"127.0.0.1:{deployment.services.port('zookeeper')}"  # kazoo's hosts
        self.target_url = deployment.services.url("oxia")

    @property
    def oxia_address(self) -> str:
        return f"127.0.0.1:{self.deployment.services.port('oxia')}"

    def zookeeper_url(self) -> str:
        return self.deployment.services.url("zookeeper")

    def dump_tool(self) -> Path:
        return self.deployment.services.oxia_dump_tool()

    def kill_target(self) -> None:
        self.deployment.services.kill("oxia")

    def start_target(self) -> None:
        self.deployment.services.start("oxia")

    def cut_over(self, ready_timeout: float) -> None:
        self.deployment.faults.restart(self.cluster, metadata_url=self.target_url, ready_timeout=ready_timeout)

    def metadata_url(self) -> str | None:
        return self.deployment.metadata_url(self.cluster)

    def target_problem(self) -> str | None:
        return self.deployment.services.oxia_problem()

    def target_version(self) -> str:
        return self.deployment.services.oxia_version()


class ExternalSite:
    external = True

    def __init__(self, deployment, cluster: str):
        described = deployment.metadata_migration or {}
        self.deployment, self.cluster = deployment, cluster
        self.zookeeper = described["zookeeper"]
        self.target_url = described["target"]
        self.oxia_version = described.get("oxia_version")
        self._cut_over = False

    @property
    def oxia_address(self) -> str:
        found = urlsplit(self.target_url)
        return found.netloc

    def zookeeper_url(self) -> str:
        return f"zk:{self.zookeeper}"

    def dump_tool(self) -> Path:
        from pulsar_conformance.fixtures.deploy import maven, oxia

        return oxia.dump_tool(oxia.binary(maven.cache_dir()))

    def kill_target(self) -> None:
        self.deployment.faults.kill(self.cluster, component=TARGET_COMPONENT)

    def start_target(self) -> None:
        self.deployment.faults.start(self.cluster, component=TARGET_COMPONENT)

    def cut_over(self, ready_timeout: float) -> None:  # the file's command waits as it needs (its timeout_s)
        self.deployment.faults.cutover(self.cluster)
        self._cut_over = True

    def metadata_url(self) -> str | None:
        return self.target_url if self._cut_over else None

    def target_problem(self) -> str | None:  # the operator's server: its log is not the suite's to read
        return None

    def target_version(self) -> str:
        if self.oxia_version:
            return f"Oxia {'v' + self.oxia_version.lstrip('v')} (as the deployment file says)"
        return "the deployment's own Oxia server (release not given: metadata_migration.oxia_version)"


def unmigrated(where) -> str | None:
    """None when the source ZooKeeper's migration flag says NOT_STARTED; else why the scenario cannot run
    there (a flag another run left, or a store the suite cannot read), with the fix."""
    try:
        with stores.zookeeper_client(where.zookeeper, 15) as zk:
            state = observe.read_flag(zk)
    except Exception as error:  # noqa: BLE001 - kazoo's timeouts and connection errors alike: said
        return (f"the source ZooKeeper {where.zookeeper} could not be read ({type(error).__name__}): check "
                "metadata_migration.zookeeper in the deployment file, and that this machine reaches it")
    if state["phase"] == "NOT_STARTED":
        return None
    return (f"the cluster's migration flag ({observe.FLAG_PATH} in {where.zookeeper}) says {state['phase']}: a cluster "
            "migrated (or whose migration failed) cannot be migrated again from scratch; certify one migration "
            "scenario per fresh cluster (certify --select)")


def verify_external(deployment) -> None:
    """Before a certification of an external deployment starts: the file says where the stores are."""
    if not deployment.metadata_migration:
        raise UsageError(f"deployment file {getattr(deployment, 'source', '')} does not say where the migrated "
                         "cluster's stores are", FIX)


def of(deployment, cluster: str):
    return ExternalSite(deployment, cluster) if deployment.backend == "external" else LocalSite(deployment, cluster)
