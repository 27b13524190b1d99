"""The templates (``templates/*.tmpl``, shipped as package data) filled with a protocol's names.

``string.Template`` only substitutes ``${name}``: user text is never evaluated, and text that
reaches Python or YAML source goes in as a literal (``repr``, JSON), not as code."""
from __future__ import annotations

import json
from importlib import resources
from string import Template

from .names import Names

# template -> path in the checkout, relative ({module}, {name} from the names)
FILES = {
    "catalog.yaml.tmpl": "spec/catalog/{name}.yaml",
    "spec.py.tmpl": "spec/protocols/{module}.py",
    "descriptor.py.tmpl": "pulsar_conformance/protocols/{module}.py",
    "package_init.py.tmpl": "conformance/protocols/{module}/__init__.py",
    "outcome.py.tmpl": "conformance/protocols/{module}/outcome.py",
    "scenario.py.tmpl": "conformance/protocols/{module}/scenario.py",
    "observe.py.tmpl": "conformance/protocols/{module}/observe.py",
    "record.py.tmpl": "conformance/protocols/{module}/record.py",
    "judge.py.tmpl": "conformance/protocols/{module}/judge.py",
    "checks.py.tmpl": "conformance/protocols/{module}/checks.py",
    "trace.py.tmpl": "conformance/protocols/{module}/trace.py",
    "rejudge.py.tmpl": "conformance/protocols/{module}/rejudge.py",
    "test_live.py.tmpl": "conformance/protocols/{module}/test_{module}.py",
    "test_conftest.py.tmpl": "tests/protocols/{module}/conftest.py",
    "test_judge.py.tmpl": "tests/protocols/{module}/test_judge.py",
    "test_outcome.py.tmpl": "tests/protocols/{module}/test_outcome.py",
    "test_record.py.tmpl": "tests/protocols/{module}/test_record.py",
}


def template(name: str) -> str:
    return resources.files(__package__).joinpath("templates", name).read_text()


def values(n: Names) -> dict[str, str]:
    return {"name": n.name, "module": n.module, "cls": n.cls, "prefix": n.prefix, "prefix_lower": n.prefix.lower(),
            "title": n.title, "title_repr": repr(n.title), "source_repr": repr(n.source),
            "source_json": json.dumps(n.source), "profile_repr": repr(n.profile)}


def render(n: Names) -> dict[str, str]:
    """Every new file's text, by its path in the checkout; each Python file compiles."""
    filled = values(n)
    files = {}
    for name, where in FILES.items():
        path = where.format(name=n.name, module=n.module)
        text = Template(template(name)).substitute(filled)
        if path.endswith(".py"):
            compile(text, path, "exec")  # parsed only: a template defect stops here, before anything is written
        files[path] = text
    return files
