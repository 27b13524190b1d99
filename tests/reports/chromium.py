"""Headless Chromium for looking at reports as a person would (Debian's ``chromium`` package).

Installed on first use with apt-get when missing (the tests' own setup, not a manual step);
the tests skip, saying why, only when it is missing and apt-get cannot install it.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]


def ensure_chromium() -> tuple[str | None, str]:
    found = shutil.which("chromium")
    if found:
        return found, ""
    if not shutil.which("apt-get"):
        return None, "chromium is not installed and apt-get is not available to install it"
    if os.geteuid() != 0:
        return None, "chromium is not installed and installing it with apt-get needs root"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-qq"],
                    ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "chromium"]):
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            return None, f"{' '.join(command)} failed: {done.stderr.strip()[-300:]}"
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
