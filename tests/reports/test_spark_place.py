"""certify --spark-master / --spark-driver-host (issue 51 point 10): checked before anything starts, carried
to the tests' process in the request file (tests/reports/test_request_file.py), and recorded for the bundle
with any userinfo masked."""
from __future__ import annotations

import socket
from pathlib import Path

import pytest

from pulsar_conformance.conformance.profiles import PROFILES
from pulsar_conformance.errors import UsageError
from pulsar_conformance.reports.runner.request import CertifyRequest, check_spark, spark_context, spark_flags


@pytest.fixture
def master(monkeypatch):
    monkeypatch.delenv("MASTER", raising=False)
    monkeypatch.delenv("SPARK_LOCAL_IP", raising=False)
    with socket.socket() as listening:  # answers the TCP probe as a standalone master would
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        yield f"spark://127.0.0.1:{listening.getsockname()[1]}"


def test_the_options_win_and_spark_variables_stand_for_them(master, monkeypatch, capsys):
    assert check_spark(None, None) == (None, None), "no master: local[*], as before"
    assert check_spark("local[2]", None) == ("local[2]", None)
    assert check_spark(master, "10.0.0.9") == (master, "10.0.0.9")
    assert check_spark(master, None) == (master, None)
    assert "cannot call it back" in capsys.readouterr().err, "a loopback driver of a standalone master is said"
    monkeypatch.setenv("MASTER", master)
    monkeypatch.setenv("SPARK_LOCAL_IP", "10.0.0.8")
    assert check_spark(None, None) == (master, "10.0.0.8")
    assert check_spark("local[*]", None) == ("local[*]", None), "the option wins; a local master needs no address"
    monkeypatch.setenv("MASTER", "garbage")
    assert check_spark("local[4]", None) == ("local[4]", None), "an option given: $MASTER is not read"


def test_a_local_master_takes_no_driver_host(master):
    with pytest.raises(UsageError, match="--spark-driver-host 10.0.0.9 is the address"):
        check_spark("local[*]", "10.0.0.9")


def test_the_bundle_records_the_master_masked_and_the_reproduce_command_repeats_it(tmp_path):
    plain = CertifyRequest(profile=PROFILES["smoke"], out=Path(tmp_path))
    assert spark_context(plain) is None and spark_flags(plain) == []
    # a URL with userinfo never passes check_master; the record masks one anyway (a request built otherwise)
    odd = plain.replace(spark_master="spark://user:s3cret@10.0.0.5:7077", spark_driver_host="10.0.0.9")
    assert "s3cret" not in str(spark_context(odd)) and spark_context(odd)["driver_host"] == "10.0.0.9"
    assert "s3cret" not in " ".join(spark_flags(odd)) and spark_flags(odd)[-2:] == ["--spark-driver-host", "10.0.0.9"]
