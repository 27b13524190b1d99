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
