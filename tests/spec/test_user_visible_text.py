"""Text a user sees cites what a user has: the project's docs or public URLs, never the files the
suite was written from (design notes, seeds, reference notes) that ship with nobody's copy.

Every string literal of the package (help, errors, report evidence, docstrings shown by --help)
and every catalog value is read; comments may cite anything."""
from __future__ import annotations

import io
import subprocess
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("pulsar_conformance", "spec", "conformance", "fixtures", "spark_checks", "reports")
OUTSIDE = ("design.md", "shared/", "seeds/", "pulsar-facts", "anchors.md")


def _strings(path: Path):
    if path.suffix == ".py":
        for tok in tokenize.generate_tokens(io.StringIO(path.read_text()).readline):
            if tok.type == tokenize.STRING:
                yield tok.start[0], tok.string
    else:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if not line.lstrip().startswith("#"):
                yield number, line


def _files(root: Path, package: str) -> list[Path]:
    """The package's files as git sees them (tracked, or new and not ignored): a certification bundle
    the README's main job leaves under reports/certify-*/ (ignored) is a run's output, not the suite's
    text; outside a git checkout, every file."""
    try:
        listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "--", package], cwd=root,
                                capture_output=True, text=True, check=True, timeout=60).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return sorted((root / package).rglob("*"))
    return sorted(root / name for name in listed if (root / name).is_file())


def _offenders(root: Path, packages=PACKAGES) -> list[str]:
    found = []
    for package in packages:
        for path in _files(root, package):
            if path.suffix in (".py", ".yaml", ".j2", ".html", ".json") and ".venv" not in path.parts:
                found += [f"{path.relative_to(root)}:{n}: {text.strip()[:100]}"
                          for n, text in _strings(path) if any(o in text for o in OUTSIDE)]
    return found


def test_no_user_visible_text_names_a_file_outside_the_project():
    assert _offenders(ROOT) == []


def test_the_scan_sees_a_string_and_skips_a_comment(tmp_path):
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "m.py").write_text('# pulsar-facts §7 says why\nHELP = "see design.md §5.1"\n')
    assert _offenders(tmp_path, ("spec",)) == ['spec/m.py:2: "see design.md §5.1"']


def test_a_bundle_git_ignores_is_a_runs_output_not_the_suites_text(tmp_path):
    """The README's main job writes its bundle under reports/certify-*/ and the tests command runs after
    it: the bundle's evidence ('holes-shared/...' holds 'shared/') failed this test there (2026-11-27)."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("/reports/certify-*/\n")
    (tmp_path / "reports" / "certify-1").mkdir(parents=True)
    (tmp_path / "reports" / "certify-1" / "summary.json").write_text('{"check": "tenant-migration/holes-shared/trace"}')
    (tmp_path / "reports" / "m.py").write_text('HELP = "see design.md"\n')
    assert _offenders(tmp_path, ("reports",)) == ['reports/m.py:1: "see design.md"']
