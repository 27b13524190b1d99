"""Options certify cannot use exit 64 with the problem and the fix, before anything starts."""
import json

from .conftest import run_cli


def _error(done):
    assert done.returncode == 64, done.stdout + done.stderr
    return json.loads(done.stdout)


def test_unknown_profile(tmp_path):
    doc = _error(run_cli("certify", "--profile", "nightly", "--out", str(tmp_path / "b"), "--json"))
    assert "unknown profile 'nightly'" in doc["error"] and "smoke" in doc["fix"]
    assert not (tmp_path / "b").exists()


def test_missing_deployment_file(tmp_path):
    doc = _error(run_cli("certify", "--profile", "smoke", "--deployment", str(tmp_path / "nope.yaml"), "--json"))
    assert "does not exist" in doc["error"] and "external deployment YAML" in doc["fix"]


def test_malformed_deployment_file(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("clusters: [unclosed\n")
    doc = _error(run_cli("certify", "--profile", "smoke", "--deployment", str(bad), "--json"))
    assert "not valid YAML" in doc["error"]


def test_client_version_that_is_not_installed():
    doc = _error(run_cli("certify", "--profile", "smoke", "--client-version", "0.0.1", "--json"))
    assert "pulsar-client" in doc["error"] and "pip install pulsar-client==0.0.1" in doc["fix"]


def test_profile_is_required_and_text_mode_says_why():
    done = run_cli("certify")
    assert done.returncode == 64 and "--profile" in done.stderr and done.stdout == ""


def test_exclude_names_only_what_the_profile_certifies(tmp_path):
    doc = _error(run_cli("certify", "--profile", "smoke", "--exclude", "PIP188-R07", "--out", str(tmp_path / "b"),
                         "--json"))
    assert "PIP188-R07" in doc["error"] and "GEO-R01" in doc["fix"]
    assert not (tmp_path / "b").exists()


def test_unknown_migration_tls_mode_lists_the_modes(tmp_path):
    doc = _error(run_cli("certify", "--profile", "cluster-migration", "--migration-tls", "maybe",
                         "--out", str(tmp_path / "b"), "--json"))
    assert "unknown --migration-tls mode 'maybe'" in doc["error"]
    assert all(mode in doc["fix"] for mode in ("off", "advertised", "on", "on-no-tls-url")), doc["fix"]
    assert not (tmp_path / "b").exists()


def test_migration_tls_belongs_to_the_cluster_migration_profile(tmp_path):
    doc = _error(run_cli("certify", "--profile", "geo-replication", "--migration-tls", "on",
                         "--out", str(tmp_path / "b"), "--json"))
    assert "cluster-migration profile, not geo-replication" in doc["error"] and "--migration-tls" in doc["fix"]
    assert not (tmp_path / "b").exists()


def test_a_migration_tls_matrix_checks_every_mode_first(tmp_path):
    doc = _error(run_cli("certify", "--profile", "cluster-migration", "--matrix", "migration-tls=off,sometimes",
                         "--out", str(tmp_path / "b"), "--json"))
    assert "unknown --migration-tls mode 'sometimes'" in doc["error"]
    assert not (tmp_path / "b").exists()


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _certify_env(tmp_path, *argv: str, **env: str):
    """certify --profile geo-replication ... with ``env`` added to (or, as "", removed from) this environment."""
    import os
    import subprocess

    from .conftest import CLI

    merged = {k: v for k, v in {**os.environ, **env}.items() if v != ""}
    return subprocess.run([*CLI, "certify", "--profile", "geo-replication", *argv, "--out", str(tmp_path / "b"),
                           "--json"], capture_output=True, text=True, timeout=300, env=merged)


def test_a_spark_master_spark_refuses_is_exit_64_before_anything_starts(tmp_path):
    doc = _error(_certify_env(tmp_path, "--spark-master", "yarn://garbage", MASTER=""))
    assert "--spark-master 'yarn://garbage' is not a Spark master" in doc["error"], doc
    assert "--spark-master local[*]" in doc["fix"] and "--master " not in doc["fix"]
    assert not (tmp_path / "b").exists()


def test_an_unreachable_spark_master_is_exit_64_before_anything_starts(tmp_path):
    """Spark would retry an absent master for about a minute, minutes into the run."""
    master = f"spark://127.0.0.1:{_free_port()}"
    doc = _error(_certify_env(tmp_path, "--spark-master", master, MASTER=""))
    assert f"no Spark master answers at {master}" in doc["error"] and "--spark-master" in doc["fix"]
    assert not (tmp_path / "b").exists()


def test_sparks_own_variables_stand_for_the_options_and_are_named_when_refused(tmp_path):
    doc = _error(_certify_env(tmp_path, MASTER="garbage"))
    assert "$MASTER 'garbage' is not a Spark master" in doc["error"] and "unset MASTER" in doc["fix"]
    doc = _error(_certify_env(tmp_path, MASTER=f"spark://127.0.0.1:{_free_port()}"))
    assert "no Spark master answers" in doc["error"] and "unset MASTER" in doc["fix"]
    assert not (tmp_path / "b").exists()


def test_a_driver_host_needs_a_standalone_master(tmp_path):
    doc = _error(_certify_env(tmp_path, "--spark-driver-host", "10.0.0.9", MASTER=""))
    assert "--spark-driver-host 10.0.0.9" in doc["error"] and "--spark-master spark://" in doc["fix"]
    doc = _error(_certify_env(tmp_path, "--spark-master", "local[2]", "--spark-driver-host", "http://x:1", MASTER=""))
    assert "--spark-driver-host" in doc["error"]
    assert not (tmp_path / "b").exists()


def test_a_bad_driver_host_of_a_standalone_master_is_refused(tmp_path):
    import socket

    with socket.socket() as listening:  # answers the TCP probe as a master would
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        master = f"spark://127.0.0.1:{listening.getsockname()[1]}"
        doc = _error(_certify_env(tmp_path, "--spark-master", master, "--spark-driver-host", "http://x:1", MASTER=""))
        assert "--spark-driver-host 'http://x:1' is not a host name or an IP address" in doc["error"], doc
        doc = _error(_certify_env(tmp_path, "--spark-master", master, MASTER="", SPARK_LOCAL_IP="a b"))
        assert "$SPARK_LOCAL_IP 'a b'" in doc["error"]
    assert not (tmp_path / "b").exists()
