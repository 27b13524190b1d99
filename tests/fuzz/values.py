"""Strategies of values that are wrong by construction (their invalidity does not depend on the
code under test): text with no digit where a number or a release is wanted, numbers outside a
range, paths where nothing can be written."""
from __future__ import annotations

import math

from hypothesis import strategies as st

from .cases import DIR, FIFO, READ_ONLY_DIR, ROOT_USER

# Printable text without digits, NUL or surrogates (argv cannot carry NUL); never only blanks.
WORDS = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Nd", "No", "Nl"), blacklist_characters="\x00"),
                min_size=1, max_size=24).filter(lambda t: t.strip())
HOSTILE_TEXT = st.sampled_from(["", " ", "-", "--", "\n", "\t", "'", '"', "$(id)", "`id`", ";id", "../../etc/passwd",
                                "%s%n", "{0}", "\u202e", "\ufeff", "é", "😀", "a" * 4096, "\\", "*", "?", ","])


def not_a_number():
    return st.one_of(WORDS, HOSTILE_TEXT.filter(lambda t: t.strip()), st.sampled_from(["1.5", "1e3", "0x10", "--1",
                                                                                       "1_0_", "½"]))


def ints_outside(lo: int, hi: int):
    """Integers (as text) below ``lo`` or above ``hi``, near the ends and far."""
    below = st.integers(max_value=lo - 1).filter(lambda v: v > -10**30)
    above = st.integers(min_value=hi + 1, max_value=10**30)
    return st.one_of(below, above).map(str)


def bad_seconds():
    return st.one_of(st.sampled_from(["0", "-1", "nan", "NaN", "inf", "-inf", "1e309", "-0.0", "0.0"]),
                     st.floats(max_value=0, allow_nan=False).map(repr),
                     st.floats(min_value=1e9, allow_infinity=False).map(repr))


def _release_lines_outside():
    """X.Y.Z of no known Pulsar line (3.0-3.3, 4.0-4.2, 5.0)."""
    known = {(3, 0), (3, 1), (3, 2), (3, 3), (4, 0), (4, 1), (4, 2), (5, 0)}
    parts = st.tuples(st.integers(0, 99), st.integers(0, 99), st.integers(0, 99))
    return parts.filter(lambda p: (p[0], p[1]) not in known).map(lambda p: ".".join(map(str, p)))


def bad_release_syntax():
    """Not X.Y.Z at all, or older than 3.0 (which no command supports)."""
    return st.one_of(WORDS, st.sampled_from(["abc", "2.11.0", "1.0.0", "4.2", "4", "v4.2.4", "4.2.4.1", "4.2.x",
                                             "latest"]))


def unknown_release_line():
    """X.Y.Z of no Pulsar line that exists (9.9.9, 85.73.44)."""
    return st.one_of(st.just("9.9.9"), _release_lines_outside().filter(lambda v: int(v.split(".")[0]) >= 3))


def bad_pulsar_release():
    return st.one_of(bad_release_syntax(), unknown_release_line())


def nonpositive_seconds():
    return st.one_of(st.sampled_from(["0", "-1", "nan", "NaN", "-inf", "-0.0", "0.0"]),
                     st.floats(max_value=0, allow_nan=False).map(repr))


def bad_client_release():
    """Not a pulsar-client release number as pip lists one (no local part, no range, canonical)."""
    return st.one_of(WORDS, st.sampled_from(["abc", "3.13.0+local", ">=3.0", "3.13.0,3.4.0", "==3.13.0",
                                             "3.13.0 ", " 3.13.0", "3.13.0rc", "../3.13.0", "3.13.0/x", "latest"]))


def bad_dir_out(name: str = "out", *, must_be_empty: bool = True):
    """(argv value, files) of a directory output that cannot be used: a file, a folder that is
    not empty (where the output must be a new folder), under a file, a pipe; a read-only folder
    when not root."""
    cases = [
        (name, {name: "already here\n"}),
        *([(name, {f"{name}/keep.txt": "x"})] if must_be_empty else []),
        (f"{name}/sub", {name: "a file\n"}),
        (name, {name: FIFO}),
        ("/proc/fuzz-cannot-create", {}),
        ("/dev/null", {}),
    ]
    if not ROOT_USER:
        cases.append((f"{name}/run", {name: READ_ONLY_DIR}))
    return st.sampled_from(cases)


def bad_file_out(name: str, suffix: str):
    """(argv value, files) of a file output that cannot be written: a folder, a folder missing,
    under a file, a pipe."""
    target = name + suffix
    cases = [
        (target, {target: DIR}),
        (f"missing/{target}", {}),
        (f"plain/{target}", {"plain": "a file\n"}),
        (target, {target: FIFO}),
        ("/proc/fuzz-cannot-create" + suffix, {}),
    ]
    if not ROOT_USER:
        cases.append((f"ro/{target}", {"ro": READ_ONLY_DIR}))
    return st.sampled_from(cases)


def bad_input_file():
    """(argv value, files) of an input file that is not one: missing, a folder, a pipe, a device."""
    return st.sampled_from([("missing.file", {}), ("folder", {"folder": DIR}), ("pipe", {"pipe": FIFO}),
                            ("/dev/zero", {}), ("/dev/null", {}), ("", {})])


def finite(value: float) -> bool:
    return math.isfinite(value)


def tmp_sibling_is_a_dir(name: str, suffix: str):
    """(argv value, files): the file is written as FILE.tmp and renamed; that name is a folder."""
    target = name + suffix
    return st.just((target, {f"{target}.tmp": DIR}))
