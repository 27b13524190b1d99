"""Headless Chromium for looking at reports as a person would (Debian's ``chromium`` package).

Never installed by the tests: ``pulsar-conformance setup --yes screenshots`` does it when asked
(CI's machine has it). A test that finds it missing calls tests/support/tools.unavailable, which
skips on a developer's machine and FAILS under CI, so a screenshot CI means to take is never a
silent skip.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]


def ensure_chromium() -> tuple[str | None, str]:
    """Chromium's path, or None and why (with the command that installs it)."""
    from pulsar_conformance import debian

    found = shutil.which("chromium")
    if found:
        return found, ""
    try:
        debian.require("screenshots")
    except debian.MissingPackages as missing:
        return None, str(missing)
    return shutil.which("chromium"), ""


def screenshot(browser: str, html: Path, png: Path, profile_dir: Path, *, width=1300, height=2400) -> None:
    command = [browser, *FLAGS, f"--user-data-dir={profile_dir}", f"--window-size={width},{height}",
               f"--screenshot={png}", html.resolve().as_uri()]
    subprocess.run(command, capture_output=True, timeout=120, check=False)
    assert png.exists() and png.stat().st_size > 10_000, f"chromium wrote no screenshot: {' '.join(command)}"


def dump_dom(browser: str, html: Path, profile_dir: Path) -> str:
    """The DOM after Chromium parsed the file: what a reader's browser has, not the raw text."""
    command = [browser, *FLAGS, f"--user-data-dir={profile_dir}", "--dump-dom", html.resolve().as_uri()]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0 and "<body" in done.stdout, done.stderr[-500:]
    return done.stdout
