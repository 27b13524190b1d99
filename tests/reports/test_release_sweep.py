"""docs/examples/release-sweep.sh, the documented command behind docs/releases.md's release table (issue 33),
without a broker: a fake pulsar-conformance records what it is asked and writes a summary.json per certify.
One certify per profile and release (PIP-188 with both clients), a cell with a bundle kept on a resumed sweep,
a sweep of another suite commit refused, and the table made from the cells that hold a bundle."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "docs" / "examples" / "release-sweep.sh"
# certify: writes OUT/summary.json unless the release is 9.9.9 (refused before it starts, as exit 64 leaves it);
# on 8.8.8 it is cut by Ctrl-C after writing it (exit 130, as an interrupted certify leaves its bundle)
FAKE = """#!/bin/sh
echo "$*" >> "$(dirname "$0")/calls"
if [ "$1" = certify ]; then
  all="$*"
  case "$all" in *9.9.9*) exit 64 ;; esac
  while [ "$#" -gt 0 ]; do [ "$1" = --out ] && { mkdir -p "$2"; echo '{}' > "$2/summary.json"; }; shift; done
  case "$all" in *8.8.8*) exit 130 ;; esac
fi
exit 0
"""


def _sweep(tmp_path: Path, *args: str, releases: str = "4.0.7 4.2.4") -> tuple[subprocess.CompletedProcess, list[str]]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    fake = bin_dir / "pulsar-conformance"
    fake.write_text(FAKE)
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ.get('PATH', '')}", "RELEASES": releases}
    done = subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=60)
    calls = (bin_dir / "calls").read_text().splitlines() if (bin_dir / "calls").exists() else []
    return done, calls


def test_one_certify_per_profile_and_release_then_the_table(tmp_path):
    out = tmp_path / "sweep"
    done, calls = _sweep(tmp_path, str(out), "geo-replication", "cluster-migration", releases="4.0.7 9.9.9 4.2.4")
    assert done.returncode == 0, done.stderr
    certify = [c for c in calls if c.startswith("certify")]
    assert len(certify) == 6
    assert all("--migration-client all" in c for c in certify if "cluster-migration" in c)
    assert not any("--migration-client" in c for c in certify if "geo-replication" in c)
    assert all("--select not test_spec_check and not test_mutants_are_killed" in c for c in certify)
    (table,) = [c for c in calls if c.startswith("releases")]
    assert "pulsar-9.9.9" not in table and table.count("/pulsar-") == 4  # the refused release holds no bundle
    assert "exit 64" in (out / "progress.log").read_text()


def test_a_resumed_sweep_keeps_the_cells_it_has_and_refuses_another_commit(tmp_path):
    out = tmp_path / "sweep"
    _sweep(tmp_path, str(out), "geo-replication")
    (tmp_path / "bin" / "calls").unlink()
    done, calls = _sweep(tmp_path, str(out), "geo-replication")
    assert done.returncode == 0 and not [c for c in calls if c.startswith("certify")]
    (out / "suite-commit").write_text("0000000\n")
    (tmp_path / "bin" / "calls").unlink()
    done, calls = _sweep(tmp_path, str(out), "geo-replication")
    assert done.returncode == 64 and "swept by suite commit 0000000" in done.stderr and "fix:" in done.stderr
    assert not calls


def test_no_folder_is_bad_input(tmp_path):
    done, calls = _sweep(tmp_path)
    assert done.returncode == 64 and "usage:" in done.stderr and not calls


def test_a_cell_cut_by_ctrl_c_is_not_kept_and_a_resumed_sweep_runs_it_again(tmp_path):
    # stop 46 kept such a cell: every row "not run", a "pulsar ?" column in the table
    out = tmp_path / "sweep"
    done, calls = _sweep(tmp_path, str(out), "policy-sync", releases="4.0.7 8.8.8 4.2.4")
    assert done.returncode == 130 and len([c for c in calls if c.startswith("certify")]) == 2
    assert (out / "policy-sync" / "pulsar-4.0.7" / "summary.json").exists()
    assert not (out / "policy-sync" / "pulsar-8.8.8").exists()
    (tmp_path / "bin" / "calls").unlink()
    _, calls = _sweep(tmp_path, str(out), "policy-sync", releases="4.0.7 8.8.8 4.2.4")
    assert "--pulsar-version 8.8.8" in [c for c in calls if c.startswith("certify")][0]  # 4.0.7 kept, 8.8.8 again
