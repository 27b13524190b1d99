"""``bench metadata-migration``: PIP-454's read-only window and copy time against the amount of
metadata, on real 5.x standalones (one fresh deployment per size), with a plot.

Each size seeds N topics' worth of metadata straight into ZooKeeper (a managed-ledger node of
~200 bytes per topic, 1,000 per namespace folder: REST would take minutes per thousand), then
starts the migration with metadata writes probing, as the conformance scenario does. The PIP's
claim ("< 30 s ... even up to 500 MB") is a SHOULD; the figures say how far this machine is from it,
and the copy rate (bytes/s) extrapolated to 500 MB. Ratios are against the smallest size of the
same run."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

from pulsar_conformance.errors import UsageError
from pulsar_conformance.files import check_output_path
from pulsar_conformance.fixtures.deploy.versions import check_release
from pulsar_conformance.output import emit, progress

from . import stores

CLAIM_S = 30.0
CLAIM_BYTES = 500 * 2**20
VALUE_BYTES = 200  # about a managed ledger's info (ledgers list, properties)
# PIP-454's implementation first shipped in 4.2.0 (test_metadata_migration.FIRST_RELEASE)
FIRST_RELEASE = (4, 2)


def register(commands) -> None:
    p = commands.add("metadata-migration", run_bench,
                     "PIP-454: read-only window and copy time against the metadata size (a plot)", bench=True)
    p.add_argument("--sizes", default="1000,10000,100000", help="topics' worth of metadata, comma-separated")
    p.add_argument("--value-bytes", type=int, default=VALUE_BYTES,
                   help=f"bytes per seeded node (default {VALUE_BYTES}; larger values approach the PIP's 500 MB sooner)")
    p.add_argument("--pulsar-version", default="5.0.0-M1",
                   help="a Pulsar release with PIP-454, 4.2.0 or later (default 5.0.0-M1)")
    p.add_argument("--out", default="bench-metadata-migration", help="folder for the JSON figures and the plot")


def _sizes(text: str) -> list[int]:
    try:
        sizes = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        sizes = []
    if not sizes or sizes[0] < 1:
        raise UsageError(f"--sizes '{text}' is not a list of positive numbers", "write e.g. --sizes 1000,10000")
    return sizes


def _check_release(text: str) -> None:
    version = check_release(text)
    if (version.major, version.minor) < FIRST_RELEASE:
        raise UsageError(f"--pulsar-version {text}: PIP-454's metadata migration is in Pulsar 4.2.0 and later",
                         "pass --pulsar-version 4.2.4 or 5.0.0-M1 (the default)")


def seed(zookeeper: str, topics: int, value_bytes: int = VALUE_BYTES) -> int:
    """``topics`` managed-ledger nodes under /managed-ledgers/bench/ns<k>/persistent; returns bytes written."""
    value = b"x" * value_bytes
    with stores.zookeeper_client(zookeeper) as zk:
        folders = (topics + 999) // 1000
        for k in range(folders):
            zk.ensure_path(f"/managed-ledgers/bench/ns{k}/persistent")
        pending = []
        for i in range(topics):
            pending.append(zk.create_async(f"/managed-ledgers/bench/ns{i // 1000}/persistent/t{i}", value))
            if len(pending) >= 2000:
                for p in pending:
                    p.get(timeout=60)
                pending.clear()
        for p in pending:
            p.get(timeout=60)
        return topics * value_bytes


def one(size: int, version: str, value_bytes: int = VALUE_BYTES) -> dict:
    from pulsar_conformance.fixtures.deploy.local import LocalDeployment
    from pulsar_conformance.fixtures.deploy.spec import DeploymentSpec

    # lazy: the CLI imports this module at start; observe needs the admin REST client (requests, the
    # pulsar extra) and judge replays traces through the spec interpreter, which loads z3 (30-40 ms)
    from . import judge, observe, site

    deployment = LocalDeployment.launch(DeploymentSpec(clusters=("zeta",), pulsar_version=version,
                                                       name=f"bench-migration-{os.getpid()}", metadata="zk",
                                                       oxia_server=True, heap_mb=1024))
    try:
        admin = deployment.clusters["zeta"].admin()
        where = site.LocalSite(deployment, "zeta")
        began = time.monotonic()
        seeded_bytes = seed(where.zookeeper, size, value_bytes)
        seed_s = time.monotonic() - began
        source = stores.zookeeper(where.zookeeper)
        nodes = sum(1 for n in source.values() if not n.ephemeral)
        total_bytes = sum(n.size for n in source.values() if not n.ephemeral)
        progress(f"bench metadata-migration: {size} topics' worth seeded in {seed_s:.1f} s "
                 f"({nodes} persistent nodes, {total_bytes} bytes)")
        admin.put_tenant("mm", ["zeta"])
        observe.call(admin, "PUT", admin.namespace_path("mm/base"))
        prober = observe.Prober(admin, "mm", "base", interval=0.1).begin()
        phases = observe.Phases(admin).begin()
        flag = observe.ZooKeeperFlag(where.zookeeper).begin()  # 4.2.4's status stops: F-454-10
        time.sleep(1.0)
        started = observe.start(admin, where.target_url)
        ends = observe.wait_for_end(phases, flag, 1800) if started.ok else (None, None)
        end = ends[0] or ends[1]
        time.sleep(1.0)
        flag.end()
        doc = {"phases": phases.end(), "zookeeper_flag": flag.to_json(),
               "writes": [w.to_json() for w in prober.end()], "start": {"ok": started.ok},
               "metadata_nodes": nodes, "metadata_bytes": total_bytes}
        doc, source = judge.phase_source(doc)  # the window from the flag where the status never ended
        _, said, figures = judge.window(doc)
        said = f"{source}; {said}" if source else said
        progress(f"bench metadata-migration: {size}: {end}; {said}")
        return {"topics": size, "nodes": nodes, "bytes": total_bytes, "seeded_bytes": seeded_bytes, "end": end,
                "window_s": figures.get("window_s"), "copying_s": (figures.get("phase_s") or {}).get("COPYING"),
                "preparation_s": (figures.get("phase_s") or {}).get("PREPARATION"),
                "target_broken": where.target_problem()}
    finally:
        deployment.close()


def run_bench(args) -> int:
    sizes = _sizes(args.sizes)
    if not 1 <= args.value_bytes <= 512 * 1024:
        raise UsageError(f"--value-bytes {args.value_bytes} is out of range",
                         "give 1 to 524288 (ZooKeeper refuses nodes near its 1 MB jute.maxbuffer)")
    # Checked before Oxia is built and a broker started: a typo used to cost both, and an --out
    # that cannot be a folder the whole bench
    _check_release(args.pulsar_version)
    out = check_output_path(args.out, kind="dir", option="--out")
    results = [one(size, args.pulsar_version, args.value_bytes) for size in sizes]
    base = next((r for r in results if r["window_s"]), None)
    for r in results:
        r["window_ratio"] = round(r["window_s"] / base["window_s"], 2) if base and r["window_s"] else None
        r["bytes_per_s"] = round(r["bytes"] / r["copying_s"]) if r.get("copying_s") else None
    rates = [r["bytes_per_s"] for r in results if r.get("bytes_per_s")]
    doc = {"pulsar_version": args.pulsar_version, "value_bytes": args.value_bytes, "claim": {"window_s": CLAIM_S, "bytes": CLAIM_BYTES},
           "results": results,
           "extrapolated_500mb_copy_s": round(CLAIM_BYTES / max(rates)) if rates else None,
           "machine": {"cpus": os.cpu_count()}}
    out.mkdir(parents=True, exist_ok=True)
    (out / "metadata-migration.json").write_text(json.dumps(doc, indent=2))
    _plot(results, out / "metadata-migration.png")
    emit(args, doc, lambda: _text(doc, out))
    return 0


def _text(doc: dict, out: Path) -> str:
    lines = [f"PIP-454 read-only window on Pulsar {doc['pulsar_version']} ({doc['machine']['cpus']} cpus)",
             f"{'topics':>8} {'nodes':>8} {'bytes':>11} {'window s':>9} {'x smallest':>10} {'copy s':>7} {'bytes/s':>10}  end"]
    for r in doc["results"]:
        lines.append(f"{r['topics']:>8} {r['nodes']:>8} {r['bytes']:>11} {r['window_s'] or '-':>9} "
                     f"{r['window_ratio'] or '-':>10} {r['copying_s'] or '-':>7} {r['bytes_per_s'] or '-':>10}  {r['end']}"
                     + (f"  TARGET BROKEN: {r['target_broken']}" if r.get("target_broken") else ""))
    lines.append(f"claim: < {CLAIM_S:.0f} s up to 500 MB; at the best copy rate measured, 500 MB takes "
                 f"{doc['extrapolated_500mb_copy_s']} s to copy")
    lines.append(f"figures: {out / 'metadata-migration.json'}; plot: {out / 'metadata-migration.png'}")
    return "\n".join(lines)


def _plot(results: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for key, label in (("window_s", "read-only window"), ("copying_s", "COPYING phase")):
        points = [(r["bytes"], r[key]) for r in results if r.get(key)]
        if points:
            ax.plot([p[0] / 2**20 for p in points], [p[1] for p in points], marker="o", label=label)
    ax.axhline(CLAIM_S, linestyle="--", color="grey", label="PIP claim: < 30 s")
    ax.axvline(CLAIM_BYTES / 2**20, linestyle=":", color="grey", label="500 MB")
    ax.set_xscale("log")
    ax.set_xlabel("persistent metadata (MB)")
    ax.set_ylabel("seconds")
    ax.set_title("PIP-454 migration: read-only window by metadata size")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
