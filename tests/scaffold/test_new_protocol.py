"""``pulsar-conformance new-protocol``: a protocol generated into a copy of the checkout passes the
wiring checks the project already has (catalog links, descriptor, profile, markers, CI budgets,
its own offline tests), so docs/adding-a-protocol.md stays true because this test follows it; bad
names are refused before anything is written, and a write that fails half-way leaves nothing.

The copy is importable as ``pulsar_conformance`` (its area folders linked in as the installed
layout has them) and put first on PYTHONPATH of the processes run in it, so they check the copy,
not this checkout."""
from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pulsar_conformance.cli import main
from pulsar_conformance.errors import EXIT_BAD_INPUT, UsageError
from pulsar_conformance.scaffold import cli as scaffold_cli
from pulsar_conformance.scaffold import render, tree

ROOT = Path(__file__).resolve().parents[2]
AREAS = ("spec", "conformance", "fixtures", "reports", "spark_checks")
DOC = ROOT / "docs" / "adding-a-protocol.md"
NAME, MODULE = "topic-fencing", "topic_fencing"
# the wiring checks a new protocol must pass with no other edit (docs/adding-a-protocol.md)
WIRING = ("tests/spec/test_protocols.py", "tests/spec/test_catalog.py", "tests/spec/test_declarations.py",
          "tests/reports/test_checks.py", "tests/harness/test_package_shape.py",
          # the copy has no other protocol's tests/protocols folder: only the new one's outcome test is asked for
          f"tests/harness/test_outcome.py::test_every_protocols_outcome_has_its_round_trip_and_offline_judge_tested[{MODULE}]",
          f"tests/harness/test_scenarios_judge_nothing.py::test_the_scenario_modules_judge_nothing[{MODULE}]",
          f"tests/protocols/{MODULE}")
# the generated package's offline tests: its judge on recorded runs seen passing, failing and unknown,
# judged again as `judge BUNDLE` does, and its record step judging what was saved
OFFLINE = ("test_judge.py::test_every_publish_delivered_once_passes", "test_judge.py::test_a_lost_message_fails",
           "test_judge.py::test_a_duplicate_fails",
           "test_judge.py::test_nothing_recorded_or_nothing_acknowledged_is_unknown_not_a_pass",
           "test_judge.py::test_a_saved_run_is_judged_again_as_live",
           "test_outcome.py::test_the_judge_runs_on_a_loaded_outcome",
           "test_record.py::test_the_record_step_judges_what_was_saved")
LIVE = "test_produce_and_consume_back"
TESTS = ("tests/spec/conftest.py", "tests/spec/test_protocols.py", "tests/spec/test_catalog.py",
         "tests/spec/test_declarations.py", "tests/spec/test_exploring.py", "tests/spec/test_differential.py",
         "tests/reports/conftest.py",
         "tests/reports/test_checks.py", "tests/harness/packages.py", "tests/harness/test_package_shape.py",
         "tests/harness/test_outcome.py", "tests/harness/test_scenarios_judge_nothing.py", "tests/support")


def _copy_checkout(into: Path) -> Path:
    """The source folders, the pytest settings and the wiring tests; nothing else."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("pulsar_conformance", *AREAS):
        shutil.copytree(ROOT / folder, into / folder, ignore=ignore)
    shutil.copy2(ROOT / "pyproject.toml", into / "pyproject.toml")
    for rel in TESTS:
        source, target = ROOT / rel, into / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(source, target, ignore=ignore) if source.is_dir() else shutil.copy2(source, target)
    (into / "tests" / "protocols").mkdir()
    for area in AREAS:  # pulsar_conformance.spec is spec/, as setup.py maps it
        (into / "pulsar_conformance" / area).symlink_to(Path("..") / area)
    return into


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def _section(text: str, heading: str) -> str:
    start = text.index(heading) + len(heading)
    end = text.find("\n## ", start)
    return text[start:] if end < 0 else text[start:end]


def _in(copy: Path, *argv: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, *argv], cwd=copy, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """(the copy, the files it had before, the command's JSON) after ``new-protocol topic-fencing``."""
    copy = _copy_checkout(tmp_path_factory.mktemp("checkout"))
    before = _files(copy)
    done = subprocess.run([sys.executable, "-m", "pulsar_conformance", "new-protocol", NAME, "--root", str(copy),
                           "--json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return copy, before, json.loads(done.stdout)


def test_it_writes_the_files_the_doc_lists_and_edits_nothing(generated):
    copy, before, doc = generated
    after = _files(copy)
    assert before <= after, "a file of the checkout went missing"
    new = after - before
    listed = {p.replace("<name>", NAME).replace("<module>", MODULE) for p in re.findall(
        r"`([a-z_/]+/[^`\s]*<(?:name|module)>[^`\s]*)`", _section(DOC.read_text(), "## What `new-protocol` writes"))}
    assert new == listed, f"docs/adding-a-protocol.md lists {sorted(listed - new)} not written, " \
                          f"and not {sorted(new - listed)}"
    for path in before:  # nothing shared edited: every file it had is as it was
        assert (copy / path).read_bytes() == (ROOT / path).read_bytes() or path.startswith("tests/"), path
    assert doc["written"] == list(tree.targets(scaffold_cli.names_mod.names(NAME)))
    assert not list(copy.glob(".new-protocol-*")), "the staging folder was left behind"


def test_the_generated_protocol_passes_the_wiring_checks(generated):
    """Catalog links and dangling spec links, descriptor (registry, CI budget per variant, profile,
    marker), declarations, and the protocol's own offline tests, each parametrized over it."""
    copy, _, _ = generated
    done = _in(copy, "-m", "pytest", "-v", "-p", "no:cacheprovider", *WIRING)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    ran = done.stdout
    assert f"[{NAME}]" in ran and "test_every_catalog_link_is_a_declared_check_and_every_check_is_linked[topic-fencing]" \
        in ran and f"tests/protocols/{MODULE}/test_judge.py" in ran, ran[-3000:]
    # the package has the layout every protocol package shares, its judge pure, its outcome round-tripped
    assert f"test_every_package_has_the_role_files[{MODULE}] PASSED" in ran, ran[-3000:]
    assert f"test_the_judge_reaches_no_cluster_and_records_nothing[{MODULE}] PASSED" in ran, ran[-3000:]
    assert f"test_every_protocols_outcome_has_its_round_trip_and_offline_judge_tested[{MODULE}] PASSED" in ran
    assert f"test_the_scenario_modules_judge_nothing[{MODULE}] PASSED" in ran, ran[-3000:]
    not_run = [t for t in OFFLINE if f"tests/protocols/{MODULE}/{t} PASSED" not in ran]
    assert not not_run, f"the generated offline tests {not_run} did not pass: " + ran[-3000:]
    # the live test collects under --strict-markers: its marker comes from the descriptor
    collected = _in(copy, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--collect-only", "--strict-markers",
                    f"conformance/protocols/{MODULE}")
    assert collected.returncode == 0 and LIVE in collected.stdout, collected.stdout[-3000:]
    marked = _in(copy, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--collect-only", "-m", MODULE, "conformance")
    assert [line for line in marked.stdout.splitlines() if "::" in line] == [
        f"conformance/protocols/{MODULE}/test_{MODULE}.py::{LIVE}"], marked.stdout[-2000:]


def _relative_imports(path: Path) -> set[str]:
    """The package modules ``path`` imports (``from . import x``, ``from .x import y``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            found.update([node.module.split(".")[0]] if node.module else [a.name for a in node.names])
    return found


def test_the_generated_scenario_records_and_its_judge_is_run_after_it(generated):
    """The scenario reaches the outcome and observe.py only (no judge, trace, record or rejudge, directly
    or through them); record.py and rejudge.py judge what was saved; the certify profile of the new area
    selects the live test by the descriptor's marker, on the role its scenario uses."""
    copy, _, _ = generated
    package = copy / "conformance" / "protocols" / MODULE
    reached, todo = set(), ["scenario"]
    while todo:
        module = todo.pop()
        if module not in reached and (package / f"{module}.py").is_file():
            reached.add(module)
            todo += sorted(_relative_imports(package / f"{module}.py"))
    assert reached == {"scenario", "observe", "outcome"}, reached
    assert {"judge", "trace"} <= _relative_imports(package / "judge.py") | _relative_imports(package / "record.py")
    assert "judge" in _relative_imports(package / "rejudge.py")
    code = ("import json; from pulsar_conformance.conformance.profiles import get_profile; "
            "from pulsar_conformance.reports.runner.rejudge import registry; "
            f"p = get_profile({NAME!r}); "
            "print(json.dumps([p.markers, list(p.areas), list(p.roles()), sorted({a for a, _ in registry()})]))")
    done = _in(copy, "-c", code)
    assert done.returncode == 0, done.stderr[-2000:]
    markers, areas, roles, rejudged = json.loads(done.stdout)
    assert (markers, areas, roles) == (MODULE, [NAME], ["blue"]) and NAME in rejudged


def test_the_spec_skeleton_checks_and_its_mutant_is_killed(generated):
    copy, _, _ = generated
    checked = _in(copy, "-m", "pulsar_conformance", "spec", "check", NAME, "--json")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    killed = _in(copy, "-m", "pulsar_conformance", "spec", "mutants", NAME, "--json")
    assert killed.returncode == 0, killed.stdout + killed.stderr
    assert [(m["mutant"], m["killed"]) for m in json.loads(killed.stdout)["mutants"]] == [("deliver-unpublished", True)]
    planned = json.loads(_in(copy, "-m", "pulsar_conformance", "spec", "ci", "--dry-run", "--only", NAME,
                             "--json").stdout)
    assert [r["command"].split()[1:4] for r in planned["runs"]] == [["spec", "check", NAME], ["spec", "mutants", NAME]]
    # z3 and the interpreter read the skeleton alike, its variant and its mutant (the differential test)
    agree = _in(copy, "-m", "pytest", "-v", "-p", "no:cacheprovider", "tests/spec/test_differential.py", "-k", "topic")
    assert agree.returncode == 0 and agree.stdout.count(" PASSED") == 2, agree.stdout[-2000:]


def test_the_one_shared_edit_the_doc_names_is_still_needed(generated):
    """docs/adding-a-protocol.md names one shared file to edit: tests/spec/test_exploring.py's
    QUESTIONS and FORMULAS. When that list is derived instead, this fails: update the doc."""
    copy, _, _ = generated
    assert "tests/spec/test_exploring.py" in DOC.read_text()
    done = _in(copy, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/spec/test_exploring.py::"
               "test_every_spec_has_questions_and_formulas")
    assert done.returncode == 1 and "add (spec, reachable, unreachable) to QUESTIONS" in done.stdout, done.stdout[-2000:]


def test_the_generated_code_passes_ruff(generated):
    # ruff is a test requirement (requirements/test.txt): missing, this fails rather than skips
    copy, _, _ = generated
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    paths = [p for p in render.FILES.values() if p.endswith(".py")]
    done = subprocess.run([ruff, "check", "--no-cache", *(p.format(name=NAME, module=MODULE) for p in paths)],
                          cwd=copy, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout


# ------------------------------------------------------------------ refusals


@pytest.fixture
def small_root(tmp_path):
    """The folders and catalogs a checkout has, and one descriptor, without the code."""
    for folder in tree.FOLDERS:
        (tmp_path / folder).mkdir(parents=True)
    for rel in ("spec/catalog/tenant-migration.yaml", "spec/catalog/pip-188.yaml",
                "pulsar_conformance/protocols/tenant_migration.py"):
        shutil.copy2(ROOT / rel, tmp_path / rel)
    (tmp_path / "conformance/catalog").mkdir()
    shutil.copy2(ROOT / "conformance/catalog/geo-replication.yaml", tmp_path / "conformance/catalog")
    return tmp_path


def refused(capsys, *argv) -> str:
    code = main(["new-protocol", *argv])
    err = capsys.readouterr().err
    assert code == EXIT_BAD_INPUT, (argv, code, err)
    assert err.startswith("error: new-protocol") and "\n  fix: " in err, err
    return err


@pytest.mark.parametrize(("name", "said"), [
    ("Topic", "not a protocol name"), ("topic_fencing", "not a protocol name"), ("-x", "not a protocol name"),
    ("x-", "not a protocol name"), ("a--b", "not a protocol name"), ("9lives", "not a protocol name"),
    ("../evil", "is a path"), ("a/b", "is a path"), ("/tmp/x", "is a path"), ("x.yaml", "is a path"),
    ("topic fencing", "not a protocol name"), ("é", "not a protocol name"), ("a" * 41, "more than 40"),
    ("smoke", "already uses"), ("full", "already uses"), ("class", "already uses"), ("conftest", "already uses"),
    ("test-x", "already uses"), ("tenant-migration", "already has a protocol"),
    ("geo-replication", "already has a protocol"), ("cluster-migration", "already has a protocol"),
])
def test_a_bad_name_is_refused_before_anything_is_written(capsys, small_root, name, said):
    before = _files(small_root)
    assert said in refused(capsys, "--root", str(small_root), "--", name)  # "--": a name such as "-x" is no option
    assert _files(small_root) == before and not list(small_root.glob(".*"))


def test_a_taken_prefix_a_bad_option_or_a_root_that_is_no_checkout_is_refused(capsys, small_root, tmp_path_factory):
    before = _files(small_root)
    assert "TM-R.. are taken" in refused(capsys, "tiered-migration", "--root", str(small_root))
    assert "PIP188-R.. are taken" in refused(capsys, "pip-188-again", "--prefix", "PIP188", "--root", str(small_root))
    assert "spec/catalog/pip-188.yaml already exists" in refused(capsys, "pip-188", "--root", str(small_root))
    assert "--prefix" in refused(capsys, "tiered-migration", "--prefix", "tm", "--root", str(small_root))
    assert "--title" in refused(capsys, "x", "--title", 'a"""b', "--root", str(small_root))
    assert "--source" in refused(capsys, "x", "--source", "javascript:alert(1)", "--root", str(small_root))
    assert _files(small_root) == before
    empty = tmp_path_factory.mktemp("empty")
    assert "not a pulsar-conformance checkout" in refused(capsys, "x", "--root", str(empty))
    assert "not a pulsar-conformance checkout" in refused(capsys, "x", "--root", str(empty / "missing"))
    assert list(empty.iterdir()) == []
    # a part left from an earlier attempt: refused, not overwritten
    (small_root / "conformance/protocols/topic_fencing").mkdir()
    assert "already exist" in refused(capsys, NAME, "--root", str(small_root))


def test_a_write_that_fails_half_way_leaves_the_checkout_as_it_was(small_root, monkeypatch):
    before = _files(small_root)
    real, calls = os.rename, []

    def third_fails(src, dst):
        calls.append(dst)
        if len(calls) == 3:
            raise OSError(28, "No space left on device", str(dst))
        return real(src, dst)

    monkeypatch.setattr(os, "rename", third_fails)
    with pytest.raises(UsageError, match="No space left on device.*nothing was written"):
        scaffold_cli.new_protocol(NAME, small_root)
    assert len(calls) == 3 and _files(small_root) == before
    assert not [p for p in small_root.rglob("*") if "topic" in p.name or p.name.startswith(".new-protocol")]
    monkeypatch.setattr(os, "rename", real)
    _, written = scaffold_cli.new_protocol(NAME, small_root, prefix="TF")  # and it works once it can write
    assert all((small_root / w.rstrip("/")).exists() for w in written)


def test_user_text_goes_into_the_files_as_literals(small_root):
    """A title and source with quotes and dollars end up as strings, never as code."""
    title, source = "PIP-999 it's (a+b)/c: x", "https://example.org/a?b=$c&d='e'"
    scaffold_cli.new_protocol("pip-999", small_root, title=title, source=source)
    descriptor = (small_root / "pulsar_conformance/protocols/pip_999.py").read_text()
    assert f"title={title!r}" in descriptor and f"source={source!r}" in descriptor
    catalog = (small_root / "spec/catalog/pip-999.yaml").read_text()
    assert f"source: {json.dumps(source)}" in catalog and "id: PIP999-R01" in catalog


def test_the_templates_are_package_data():
    """A non-editable install must carry them: pyproject.toml's package-data rule matches each one."""
    rules = re.search(r'"pulsar_conformance\.scaffold" = \[([^\]]*)\]', (ROOT / "pyproject.toml").read_text())
    assert rules, "pyproject.toml has no package-data rule for pulsar_conformance.scaffold"
    patterns = re.findall(r'"([^"]+)"', rules.group(1))
    folder = ROOT / "pulsar_conformance" / "scaffold"
    templates = {str(p.relative_to(folder)) for p in (folder / "templates").iterdir()}
    assert templates == {t for t in templates if any(Path(t).match(p) for p in patterns)}
    assert templates == {f"templates/{t}" for t in render.FILES}, "a template no FILES entry renders, or the reverse"
