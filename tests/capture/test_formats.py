"""Capture format /2 (one ``uid`` property per message) beside /1 (uid, producer and seq
properties): a consumer reads the identity from either, the readers take both formats, and a
format /1 capture kept as test data gets the same verdict as the same events written as /2."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from pulsar_conformance.fixtures.capture.clients import CapturedConsumer
from pulsar_conformance.fixtures.capture.manifest import ManifestError, read_manifest
from pulsar_conformance.fixtures.capture.schema import FORMAT, FORMAT_1, SCHEMA, make_uid, split_uid
from pulsar_conformance.spark_checks.check import check_capture

RECORDED = Path(__file__).resolve().parents[1] / "data" / "migration" / "cluster-migration-3.13.0"


class _Message:
    def __init__(self, props):
        self._props = props

    def properties(self):
        return self._props

    def message_id(self):
        return "(7,3,-1,-1)"

    def topic_name(self):
        return "persistent://t/ns/a"

    def partition_key(self):
        return ""

    def ordering_key(self):
        return ""

    def producer_name(self):
        return "standalone-0-1"

    def redelivery_count(self):
        return 0


class _Sink:
    def append(self, row):
        pass


def test_the_uid_names_the_producer_and_seq():
    assert make_uid("p-blue", 17) == "p-blue/17" and split_uid("p-blue/17") == ("p-blue", 17)
    assert split_uid("region/a/p/3") == ("region/a/p", 3)  # a producer name may hold a '/'


@pytest.mark.parametrize("props", [{"uid": "p1/5"}, {"uid": "r1:p1:5", "producer": "p1", "seq": "5"}],
                         ids=["format-2", "format-1"])
def test_a_consumer_reads_the_identity_of_either_format(props):
    consumer = CapturedConsumer(object(), sink=_Sink(), run_id="r", name="c", subscription="s", cluster="blue")
    row = consumer._row("receive", _Message(props))
    names = [f.name for f in SCHEMA]
    got = dict(zip(names, row, strict=True))
    assert (got["uid"], got["producer"], got["seq"]) == (props["uid"], "p1", 5)


def _write(run_dir: Path, rows: list[dict], fmt: str) -> Path:
    (run_dir / "events").mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=SCHEMA), run_dir / "events" / "part-0.parquet")
    manifest = json.loads((RECORDED / "manifest.json").read_text()) | {"format": fmt}
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    return run_dir


def _broken(rows: list[dict]) -> list[dict]:
    """The same damage in both formats, so that the verdicts compared are not all zeros: three
    deliveries dropped (lost) and one delivered twice (duplicate)."""
    receives = [i for i, r in enumerate(rows) if r["kind"] == "receive"]
    dropped = set(receives[100:103])
    out = [r for i, r in enumerate(rows) if i not in dropped]
    again = dict(rows[receives[200]]) | {"ts_ns": rows[receives[200]]["ts_ns"] + 1}
    return [*out, again]


def test_a_format_1_capture_and_the_same_events_as_format_2_get_the_same_verdict(tmp_path):
    assert read_manifest(RECORDED)["format"] == FORMAT_1
    old = check_capture(RECORDED, engine="python")
    assert old["format"] == FORMAT_1 and old["valid"] is True

    rows = ds.dataset(str(RECORDED / "events"), format="parquet").to_table().to_pylist()
    as_2 = [r | {"uid": make_uid(r["producer"], r["seq"])} if r["seq"] else r for r in rows]
    assert check_capture(_write(tmp_path / "v2", as_2, FORMAT), engine="python") == old | {"format": FORMAT}

    broken_1 = check_capture(_write(tmp_path / "v1-broken", _broken(rows), FORMAT_1), engine="python")
    broken_2 = check_capture(_write(tmp_path / "v2-broken", _broken(as_2), FORMAT), engine="python")
    counts = {k: v["count"] for k, v in broken_1["anomalies"].items()}
    assert counts["lost"] >= 3 and counts["duplicate"] >= 1 and broken_1["valid"] is False
    assert {k: v["count"] for k, v in broken_2["anomalies"].items()} == counts and broken_2["valid"] is False


def test_an_unknown_format_is_refused_naming_both_that_are_read(tmp_path):
    shutil.copytree(RECORDED, tmp_path / "run")
    doc = json.loads((tmp_path / "run" / "manifest.json").read_text()) | {"format": "pulsar-conformance-capture/3"}
    (tmp_path / "run" / "manifest.json").write_text(json.dumps(doc))
    with pytest.raises(ManifestError, match="capture/1.*capture/2"):
        read_manifest(tmp_path / "run")
