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
