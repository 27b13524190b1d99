"""The package's live modules run for the clients the run asked for (clients.py,
``certify --migration-client``): the others' tests are deselected (not skipped: a skipped test
would make every default run unknown), and the run says so on stderr."""
from __future__ import annotations

import sys
from pathlib import Path

from . import clients

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(session, config, items) -> None:
    # a hook of a package's conftest sees every item of the session: only this package's are ours
    wanted = clients.chosen()
    dropped = [i for i in items if Path(i.path).resolve().parent == HERE and i.path.name.startswith("test_")
               and clients.client_of(i.path.name) not in wanted]
    if not dropped:
        return
    items[:] = [i for i in items if i not in dropped]
    config.hook.pytest_deselected(items=dropped)
    sys.stderr.write(f"cluster-migration: {len(dropped)} scenario(s) of other clients than {'+'.join(wanted)} "
                     f"deselected (certify --migration-client java|all runs the Java client's)\n")
