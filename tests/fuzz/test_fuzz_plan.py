"""``plan`` on deployment files whose fault commands cannot run or carry credentials (issues 48 and 51).

- A fault whose program does not exist, is a directory, a script without ``#!`` or a file without the execute
  bit cannot be injected, so the requirement needing it is not judgeable: the plan says ``partly`` with the
  reason, and exits 2 (unknown, docs/certify.md's table) where it said "judged" and exited 0 (issue 51 point 5:
  ``[PROGRAM NOT FOUND]`` for the cut GEO-R02 needs, then "2 judged").
- A fault command's argv may carry a credential (``Authorization: Bearer ...``, the cluster's own token, a URL
  password): the plan prints every command, masked (issue 48: ``plan --json`` printed it in clear).

Offline (``--offline``): nothing is reached, so the plan is the file's alone. The control is the same file with
``/bin/true`` as the cut and heal: every requirement judged, exit 0.
"""
from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import strategies as st

from .cases import (
    CANARIES,
    DIR,
    JWT,
    NODASH_JWT,
    OPAQUE_TOKEN,
    URL_PASSWORD,
    Case,
    executable,
    fuzz,
    json_flag,
    params,
    run_valid,
)
from .material import closed_port

KNOWN: dict[str, str] = {}
EXIT_UNKNOWN = 2
ARGV = ["plan", "--deployment", "vendor.yaml", "--profile", "geo-replication", "--offline"]


def _document(cut: list[str], heal: list[str]) -> str:
    port = closed_port()
    clusters = {name: {"service_url": f"pulsar://127.0.0.1:{port}", "admin_url": f"http://127.0.0.1:{port}",
                       "token": str(JWT)} for name in ("blue", "green")}
    # each its own list: YAML would write one shared object as an anchor, which deployment files refuse
    faults = {a: {"link": {b: {"cut": {"argv": list(cut)}, "heal": {"argv": list(heal)}}}}
              for a, b in (("blue", "green"), ("green", "blue"))}
    return yaml.safe_dump({"clusters": clusters, "faults": faults}, sort_keys=False, width=10_000)


# programs that cannot run here: (argv[0], the files that make it so)
CANNOT_RUN = [
    ("/nonexistent/chaos-tool", {}),
    ("no-such-chaos-tool-on-path", {}),
    ("{dir}/tools", {"tools": DIR}),
    ("{dir}/cut.sh", {"cut.sh": "echo cut\n"}),  # not executable
    ("{dir}/cut-noshebang", {"cut-noshebang": ("exec", "echo cut\n")}),
    ("{dir}/cut-empty", {"cut-empty": ("exec", "")}),
]


def _files(spec: dict) -> dict:
    return {k: executable(v[1]) if isinstance(v, tuple) else v for k, v in spec.items()}


@st.composite
def _cannot_run_case(draw):
    program, files = draw(st.sampled_from(CANNOT_RUN))
    which = draw(st.sampled_from(["cut", "heal", "both"]))
    cut = [program, "cut", "{cluster}", "{peer}"] if which in ("cut", "both") else ["/bin/true"]
    heal = [program, "heal", "{cluster}", "{peer}"] if which in ("heal", "both") else ["/bin/true"]
    return Case(argv=ARGV + draw(json_flag()), files={"vendor.yaml": _document(cut, heal), **_files(files)},
                said=("cannot run", "partly"), expect=(EXIT_UNKNOWN,))


BEARER = "FuzzPlanBearer-6e1f00aa"
# argv items that carry a credential: the file's own token, a bearer no one named, a URL password, an assignment
CARRYING = [
    ["/usr/bin/curl", "-H", f"Authorization: Bearer {BEARER}", "https://chaos.example.com/cut/{cluster}"],
    ["/usr/bin/curl", "-H", f"Authorization: Bearer {JWT}", "https://chaos.example.com/cut"],
    ["/usr/bin/curl", "-H", f"Authorization: Bearer {NODASH_JWT}", "https://chaos.example.com/cut"],
    ["/usr/bin/curl", "-u", f"ops:{URL_PASSWORD}", f"https://ops:{URL_PASSWORD}@chaos.example.com/cut"],
    ["/usr/bin/chaos", f"--token={OPAQUE_TOKEN}", "{cluster}"],
    ["/usr/bin/chaos", f"--api-key={OPAQUE_TOKEN}", "{cluster}"],
    ["/usr/bin/chaos", "--header", f"Authorization: Basic {BEARER}", "{cluster}"],
    ["/usr/bin/chaos", JWT, "{cluster}"],
]


@st.composite
def _credential_case(draw):
    argv = draw(st.sampled_from(CARRYING))
    return Case(argv=ARGV + draw(json_flag()), files={"vendor.yaml": _document(argv, ["/bin/true"])},
                expect=(0, EXIT_UNKNOWN))


CLASSES = {"plan-fault-cannot-run": _cannot_run_case(), "plan-fault-argv-credentials": _credential_case()}


def _explicit(name: str) -> list[Case]:
    if name == "plan-fault-cannot-run":
        return [Case(argv=ARGV + (["--json"] if i % 2 else []),
                     files={"vendor.yaml": _document([p, "cut"], [p, "heal"]), **_files(f)},
                     said=("cannot run", "partly"), expect=(EXIT_UNKNOWN,)) for i, (p, f) in enumerate(CANNOT_RUN)]
    return [Case(argv=ARGV + (["--json"] if i % 2 else []), files={"vendor.yaml": _document(a, ["/bin/true"])},
                 expect=(0, EXIT_UNKNOWN)) for i, a in enumerate(CARRYING)]


@pytest.mark.parametrize("name", params(CLASSES, KNOWN))
def test_plan_says_what_cannot_be_judged_and_masks_the_commands(name):
    fuzz(CLASSES[name], "plan", examples=3, explicit=_explicit(name), canaries=CANARIES + (BEARER,))


def test_control_programs_that_run_make_every_requirement_judged():
    outcome = run_valid(Case(argv=ARGV + ["--json"], files={"vendor.yaml": _document(["/bin/true"], ["/bin/true"])}))
    assert outcome.code == 0 and json.loads(outcome.stdout)["counts"] == {"judged": 2, "partly": 0, "not judged": 0}, \
        outcome.show()
