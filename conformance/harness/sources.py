"""Where a requirement comes from, and whom its failure accuses (issue 28).

The catalog's ``source_kind`` says where each requirement was taken from:

- ``seed`` (the default): the PIP says it;
- ``derived``: derived from what the PIP says (its thresholds, its states);
- ``implementation``: one implementation's code does it (``taken_from``: the client whose code the
  quote cites, ``cpp`` or ``java``); the PIP does not say it;
- ``suite``: the suite expects it, as an operator would; neither the PIP nor a client says it.

A requirement that does not come from the seed never counts as a conformance failure of a client
it was not taken from: a Java client that does not do what the C++ client's code does *differs*
from the C++ client; it does not break PIP-121. A check row names the client it judged
(``details.client``, set by the recorder); where it failed such a requirement, the requirement's
verdict from that row is ``differs``, an observation, with the reason as evidence. Rows that name
no client (a broker's behaviour, or a client the scenario does not say) keep their verdict.

An observation row (``details.observation``, from a check declared with ``observes``: it compares the
run with something the requirement's text does not ask for, such as the tenant-migration blog's
improved implementation) reads ``differs`` where it failed, whatever the client (issue 47).
"""
from __future__ import annotations

import functools

import yaml

from pulsar_conformance.spec import catalog

KINDS = ("seed", "derived", "implementation", "suite")
FROM_SEED = ("seed", "derived")
CLIENTS = {"cpp": "the C++ client", "java": "the Java client"}
DIFFERS = "differs"


def kind(req) -> str:
    return getattr(req, "source_kind", None) or "seed"


def taken_from(req) -> str | None:
    """The client an ``implementation`` requirement was taken from (the catalog's ``taken_from``)."""
    return getattr(req, "taken_from", None) or _raw(req.id).get("taken_from")


def label(req) -> str:
    """The source as a reader takes it in, shown beside the verdict."""
    k = kind(req)
    if k == "implementation":
        return f"{CLIENTS.get(taken_from(req) or '', 'an implementation')} does"
    return {"seed": "the PIP says", "derived": "derived from the PIP", "suite": "operators expect"}.get(k, k)


def binds(req, client: str | None) -> bool:
    """Whether a failure of ``req`` observed on ``client`` is a conformance failure of it."""
    k = kind(req)
    if k in FROM_SEED or client is None:
        return True
    if k == "implementation":
        source = taken_from(req)
        return source is None or source == client
    return False  # suite: an expectation of the suite, taken from no client


def verdict_for(req, row: dict) -> tuple[str, str]:
    """A recorded row's verdict for one of its requirements, and why it differs from the row's
    own verdict ("" when it does not)."""
    details = row.get("details") or {}
    if row["verdict"] == "fail" and details.get("observation"):
        # an observation (harness.checks.Check.observes): evidence beside the requirement, never its failure
        name = row["check"].rsplit("/", 1)[-1]
        return DIFFERS, (f"recorded fail; {name} compares the run with {details['observation']}, which {req.id}'s "
                         "text does not ask for: the release differs from it, which is no conformance failure")
    client = details.get("client")
    if row["verdict"] != "fail" or binds(req, client):
        return row["verdict"], ""
    who = CLIENTS.get(client, f"the {client} client")
    source = (f"{req.id} is what {CLIENTS.get(taken_from(req) or '', 'another implementation')} does, "
              "not a PIP requirement" if kind(req) == "implementation" else
              f"{req.id} is the suite's expectation, not a PIP requirement")
    return DIFFERS, f"recorded fail; {source}: {who} differs from it, which is no conformance failure"


def failed(row: dict, by_id: dict | None = None) -> list[str]:
    """The requirements a recorded row fails as the report reads it (``verdict_for``: an observation's or another
    client's fail is ``differs``); an id ``by_id`` lacks (or no ``by_id``) fails with the row's own verdict."""
    if row.get("verdict") != "fail":
        return []
    return [rid for rid in row.get("requirements") or ()
            if by_id is None or rid not in by_id or verdict_for(by_id[rid], row)[0] == "fail"]


@functools.cache
def _catalog_fields() -> dict[str, dict]:
    """Every catalog entry's raw fields, for the ones the catalog loader does not carry yet."""
    found: dict[str, dict] = {}
    for directory in (catalog.HERE, catalog.SUITE):
        for path in sorted(directory.glob("*.yaml")):
            for raw in (yaml.safe_load(path.read_text()) or {}).get("requirements", []) or []:
                found[raw.get("id", "")] = raw
    return found


def _raw(rid: str) -> dict:
    return _catalog_fields().get(rid, {})
