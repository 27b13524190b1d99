"""spark_checks/options.py: the Spark master and the capture size are checked before any work, and
``bench spark`` removes the temporary folder it made. Each refused value below used to start
spark-submit (a JVM), write captures first, or (a password in the master) print the password."""
from __future__ import annotations

import json
import socket
import tempfile

import pytest

from pulsar_conformance.cli import main
from pulsar_conformance.errors import EXIT_BAD_INPUT, UsageError
from pulsar_conformance.spark_checks.options import MAX_EVENTS, check_events, check_master


@pytest.mark.parametrize("master", ["local", "local[*]", "local[1]", "local[16]", "local[2,3]", "local[*,4]"])
def test_the_local_masters_spark_takes(master):
    assert check_master(master) == master


@pytest.mark.parametrize("master", ["local[abc]", "local[0]", "local[-1]", "", "spark:/x", "bogus", "local[]",
                                    "spark://", "spark://host", "spark://host:0", "spark://host:99999",
                                    "spark://a b:7077", "spark://h:7077,", "yarn"])
def test_masters_spark_would_refuse_after_its_jvm_started(master):
    with pytest.raises(UsageError) as refused:
        check_master(master, reach=False)
    assert "local[*]" in refused.value.fix and "spark://HOST:PORT" in refused.value.fix


def _closed_port() -> tuple[socket.socket, int]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))  # bound, never listening: a connection is refused at once
    return sock, sock.getsockname()[1]


def test_a_standalone_master_is_reached_and_its_credentials_never_shown():
    sock, port = _closed_port()
    with sock, pytest.raises(UsageError, match="no Spark master answers at spark://127.0.0.1"):
        check_master(f"spark://127.0.0.1:{port},[::1]:{port}")
    with pytest.raises(UsageError) as refused:
        check_master("spark://u:s3cr3t-pw@127.0.0.1:7077", reach=False)
    assert "s3cr3t-pw" not in refused.value.problem + refused.value.fix and "no user or password" in refused.value.problem
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen(1)
        master = f"spark://127.0.0.1:{listening.getsockname()[1]}"
        assert check_master(master) == master  # the control


def test_a_capture_size_no_disk_holds():
    assert check_events(MAX_EVENTS) == MAX_EVENTS
    with pytest.raises(UsageError, match="more than 1,000,000,000 events"):
        check_events(10**13)


def test_check_capture_with_a_password_in_the_master_does_not_print_it(tmp_path, capsys):
    code = main(["check-capture", str(tmp_path), "--master", "spark://u:s3cr3t-pw@127.0.0.1:1", "--json"])
    out, err = capsys.readouterr()
    assert code == EXIT_BAD_INPUT and "s3cr3t-pw" not in out + err and json.loads(out)["fix"]


def test_bench_spark_removes_its_temporary_workdir_and_keeps_a_given_one(tmp_path, monkeypatch, capsys):
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    assert main(["bench", "spark", "--events", "20000", "--engines", "scan", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["results"] and not list(temp.iterdir())
    assert main(["bench", "spark", "--events", "20000", "--engines", "scan", "--workdir", str(tmp_path / "w"),
                 "--json"]) == 0
    assert list((tmp_path / "w").iterdir())  # the user's folder: its captures are reused by the next run


def test_bench_spark_paths_are_checked_before_the_captures_are_written(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("x")
    (tmp_path / "adir").mkdir()
    for words in (["--workdir", "afile"], ["--workdir", "afile/sub"], ["--plot", "adir"], ["--plot", "missing/p.png"]):
        assert main(["bench", "spark", "--events", "20000", "--engines", "scan", *words, "--json"]) == EXIT_BAD_INPUT
        assert json.loads(capsys.readouterr().out)["fix"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir", "afile"]


@pytest.mark.parametrize("host", ["http://10.0.0.1", "10.0.0.1:4040", "", "a b"])
def test_a_driver_address_spark_could_not_advertise_is_bad_input(host, tmp_path, capsys):
    assert main(["check-capture", str(tmp_path), "--driver-host", host]) == EXIT_BAD_INPUT
    assert "is not a host name or an IP address" in capsys.readouterr().err
