"""``pulsar-conformance setup [--yes] [FEATURE...]``: the system packages each feature needs.

Without ``--yes`` it only lists them, present or missing, and changes nothing; with ``--yes`` it
installs the missing ones of the named features (all when none is named) with apt-get, as root.
Nothing else in the suite installs system packages (pulsar_conformance/debian.py).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from pulsar_conformance import debian
from pulsar_conformance.errors import UsageError


def register(commands) -> None:
    p = commands.add("setup", run, "list the system packages each feature needs (present or missing); "
                                   "--yes installs the missing ones with apt-get (as root)")
    p.add_argument("features", nargs="*", metavar="FEATURE",
                   help=f"only these features (default: all): {', '.join(debian.FEATURES)}")
    p.add_argument("--yes", action="store_true",
                   help="install the missing packages (apt-get, as root); without it nothing is installed")
    p.add_argument("--check", action="store_true",
                   help="exit 64 with the fix when a package is missing (tox envs use it: a test that needs "
                        "Chromium must not turn into a skip)")
    p.add_argument("--profile", default=None, metavar="P",
                   help="also every feature this certify profile runs on the local backend (smoke: local and "
                        "oxia), the ones certify checks before it starts")


def run(args) -> int:
    names = list(args.features)
    if getattr(args, "profile", None):
        # lazy: the profiles load the protocols
        from pulsar_conformance.conformance.profiles import get_profile, tools

        names += tools(get_profile(args.profile), "local")
    features = [debian.feature(name) for name in dict.fromkeys(names)] or list(debian.FEATURES.values())
    installed: list[str] = []
    if args.yes:
        installed = _install(features)
    elif args.check:
        _check(features)
    if args.json:
        print(json.dumps({"features": [_document(f) for f in features], "installed": installed}, indent=2))
    else:
        print(_listing(features, installed, args.yes))
    return 0


def _install(features: list[debian.Feature]) -> list[str]:
    """Install what apt-get can provide, then check again; what is still missing stops with its fix."""
    missing = [need for f in features for need in f.missing()]
    packages = list(dict.fromkeys(n.package for n in missing if n.package))
    # sudo's PATH rarely holds a venv's bin/: name this very executable
    command = Path(sys.argv[0]).resolve() if sys.argv and sys.argv[0].endswith("pulsar-conformance") else debian.SETUP
    debian.apt_install(packages, again=f"{command} setup --yes {' '.join(f.name for f in features)}")
    still = [(f, f.missing()) for f in features]
    still = [(f, m) for f, m in still if m]
    if still:
        raise UsageError("still missing after setup: " + "; ".join(f"{f.name}: {debian.describe(m)}" for f, m in still),
                         "; ".join(debian.fix_for(f, m) for f, m in still if debian.fix_for(f, m))
                         or "install them by hand")
    return packages


def _check(features: list[debian.Feature]) -> None:
    missing = [(f, m) for f in features if (m := f.missing())]
    if missing:
        raise UsageError("missing: " + "; ".join(f"{f.name}: {debian.describe(m)}" for f, m in missing),
                         "; ".join(debian.fix_for(f, m) for f, m in missing))


def _document(feature: debian.Feature) -> dict:
    return {"name": feature.name, "summary": feature.summary, "used_by": feature.used_by,
            "needs": [{"what": n.what, "package": n.package, "present": n.present(), "manual": n.manual or None}
                      for n in feature.needs]}


def _listing(features: list[debian.Feature], installed: list[str], yes: bool) -> str:
    lines = []
    for feature in features:
        lines.append(f"{feature.name}: {feature.summary}")
        lines.append(f"  used by: {feature.used_by}")
        for need in feature.needs:
            state = "present" if need.present() else "MISSING"
            source = need.package or "(not from apt)"
            lines.append(f"  {state:8} {source:26} {need.what}" + (f"; {need.manual}" if need.manual and state != "present" else ""))
    if yes:
        lines.append(f"installed: {' '.join(installed)}" if installed else "nothing to install: every package is present")
    else:
        names = " ".join(f.name for f in features if f.missing())
        lines.append("nothing was installed (the suite installs system packages only with --yes)"
                     + (f"; to install the missing ones: sudo {debian.SETUP} --yes {names}" if names else
                        "; every package is present"))
    return "\n".join(lines)
