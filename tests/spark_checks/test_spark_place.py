"""Where a check's Spark runs (spark_checks/session.configure, set by ``certify --spark-master``): the
configured master is used when a caller names none, and a standalone master's executors call the
driver back at the configured address (``check-capture --master`` bound it to loopback only)."""
from __future__ import annotations

import pytest

from pulsar_conformance.spark_checks import session


@pytest.fixture
def place(monkeypatch):
    monkeypatch.delenv(session.DRIVER_HOST_ENV, raising=False)  # _builder sets it: restored after the test
    yield
    session.configure()


def _conf(builder) -> dict:
    return dict(builder._options)  # pyspark's Builder keeps its settings here until getOrCreate


def test_a_standalone_master_gets_the_configured_driver_address(place):
    session.configure(master="spark://10.1.2.3:7077", driver_host="10.1.2.4")
    conf = _conf(session._builder(session.configured().master, "t", None))
    assert conf["spark.master"] == "spark://10.1.2.3:7077"
    assert conf["spark.driver.host"] == conf["spark.driver.bindAddress"] == "10.1.2.4"
    import os

    assert os.environ[session.DRIVER_HOST_ENV] == "10.1.2.4"  # the block manager advertises it too


def test_local_mode_stays_on_loopback_whatever_the_driver_address(place):
    session.configure(master=None, driver_host="10.1.2.4")
    assert session.configured().master == session.LOCAL
    conf = _conf(session._builder(session.configured().master, "t", None))
    assert conf["spark.driver.host"] == session.LOOPBACK


def test_defaults_are_local_and_loopback(place):
    assert session.configure() == session.SparkPlace(session.LOCAL, session.LOOPBACK)



@pytest.mark.parametrize("master", ["", "local[0]", "bogus"])
def test_an_empty_or_malformed_master_is_refused_not_replaced_by_the_default(place, tmp_path, master, monkeypatch):
    # `check-capture --master ''` once fell back to local[*] and started spark-submit on bad input (the fuzz
    # test found it): both the command and check_capture refuse it before any capture is read or Spark starts
    from argparse import Namespace

    from pulsar_conformance.errors import UsageError
    from pulsar_conformance.spark_checks import check, cli
    from pulsar_conformance.spark_checks.check import check_capture

    def read(_run_dir):
        raise AssertionError(f"the capture was read with --master {master!r}")

    monkeypatch.setattr(check, "open_capture", read)
    with pytest.raises(UsageError):
        check_capture(tmp_path, master=master)
    args = Namespace(master=master, driver_host=None, run_dir=tmp_path, engine="spark")
    with pytest.raises(UsageError):
        cli._check_capture(args)
    assert session.configured() == session.SparkPlace(session.LOCAL, session.LOOPBACK)  # nothing was configured
