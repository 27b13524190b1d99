"""A new protocol's names, all derived from NAME, checked before anything is written.

NAME is the catalog area, the check prefix, the certify profile and the spec's name
(``topic-fencing``); its module name (``topic_fencing``) is the package, the descriptor, the spec
module and the pytest marker; requirement ids take a prefix (``TF-R01``) no catalog uses yet."""
from __future__ import annotations

import keyword
import re
from dataclasses import dataclass

from pulsar_conformance.errors import UsageError

NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
MAX_NAME = 40
PREFIX = re.compile(r"^[A-Z]{1,8}$|^PIP\d{1,5}$")
TITLE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ,.()/+:'-]{0,79}$")
SOURCE = re.compile(r"^https?://[A-Za-z0-9._~:/?#@!$&'()*+,;=%-]{1,300}$")
# names the suite already gives a meaning: profiles (smoke, full) and pytest markers
# (pyproject.toml's and conformance/conftest.py's smoke)
RESERVED = {"smoke", "full", "slow", "pulsar", "spark", "docker"}


@dataclass(frozen=True)
class Names:
    name: str  # area, check prefix, profile, spec name, catalog file
    module: str  # package, descriptor, spec module, pytest marker
    cls: str  # the spec's class
    prefix: str  # requirement ids: <prefix>-R01
    title: str
    source: str

    @property
    def profile(self) -> str:
        return f"{self.title}: the generated scenario (publishes to one cluster and consumes back, captured, judged " \
               "afterwards and projected onto the spec); plus the spec's variants and mutants"


def check_name(name: str) -> str:
    fix = "name it in lowercase words joined by hyphens, e.g. 'topic-fencing' (docs/adding-a-protocol.md)"
    if not name:
        raise UsageError("new-protocol: NAME is empty", fix)
    if "/" in name or "\\" in name or name.startswith(".") or name.endswith((".py", ".yaml")):
        raise UsageError(f"new-protocol: {name!r} is a path, not a protocol name",
                         f"{fix}; pass --root DIR to write into another checkout")
    if not NAME.match(name):
        raise UsageError(f"new-protocol: {name!r} is not a protocol name (lowercase letters and digits, words "
                         "joined by single hyphens, starting with a letter)", fix)
    if len(name) > MAX_NAME:
        raise UsageError(f"new-protocol: {name!r} is {len(name)} characters, more than {MAX_NAME}", fix)
    module = name.replace("-", "_")
    if name in RESERVED or keyword.iskeyword(module) or module == "conftest" or module.startswith("test"):
        raise UsageError(f"new-protocol: {name!r} is a name the suite or Python already uses "
                         f"({', '.join(sorted(RESERVED))}, Python keywords, conftest, test*)", f"choose another; {fix}")
    return name


def default_prefix(name: str) -> str:
    """PIP-NNN: PIPNNN; otherwise the words' initials (topic-fencing: TF)."""
    pip = re.match(r"^pip-(\d{1,5})$", name)
    if pip:
        return f"PIP{pip.group(1)}"
    return "".join(word[0] for word in name.split("-") if word[0].isalpha()).upper()


def names(name: str, *, prefix: str | None = None, title: str | None = None, source: str | None = None) -> Names:
    name = check_name(name)
    module = name.replace("-", "_")
    prefix = prefix if prefix is not None else default_prefix(name)
    if not PREFIX.match(prefix):
        raise UsageError(f"new-protocol: requirement prefix {prefix!r} is not 1-8 capital letters or PIP and a number",
                         "pass --prefix, e.g. --prefix TF (ids become TF-R01) or --prefix PIP999")
    title = title if title is not None else name.replace("-", " ")
    if not TITLE.match(title):
        raise UsageError(f"new-protocol: --title {title!r} is not 1-80 characters of letters, digits, spaces and "
                         ",.()/+:'-", "pass a plain title, e.g. --title 'PIP-999 topic fencing'")
    source = source if source is not None else f"https://example.org/TODO-the-source-of-{name}"
    if not SOURCE.match(source):
        raise UsageError(f"new-protocol: --source {source!r} is not an http(s) URL",
                         "pass the PIP's or the documentation's public URL, e.g. "
                         "--source https://github.com/apache/pulsar/blob/master/pip/pip-999.md")
    cls = "".join(word.capitalize() for word in name.split("-"))
    return Names(name=name, module=module, cls=cls, prefix=prefix, title=title, source=source)
