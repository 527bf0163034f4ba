"""Per-path work that no longer grows with a path's length (benchmarks/README.md, "The deep
tree's walk"): each shortcut answers exactly what the plain computation did."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rulemap.checks.drifted_copy import scope
from rulemap.globs import FileIndex
from rulemap.profiles.base import parent_dir
from rulemap.profiles.claude_code.rules import _END, RuleIndex

SEGMENT = st.sampled_from(["a", "b", ".github", ".x", "src", "docs", "n1", "x.ts", ".", "ts",
                           "y.py", "Api", "..z", "a.tsx"])
PATH = st.lists(SEGMENT, min_size=1, max_size=7).map("/".join)
DEEP_PATH = st.lists(SEGMENT, min_size=1, max_size=60).map("/".join)


@given(st.lists(st.tuples(st.booleans(), PATH), max_size=30))
def test_a_file_index_answers_membership_as_its_sorted_list(
    steps: list[tuple[bool, str]]
) -> None:
    index = FileIndex([])
    expected: set[str] = set()
    for adding, path in steps:
        if adding:
            index.add(path)
            expected.add(path)
        else:
            index.remove(path)
            expected.discard(path)
        assert list(index) == sorted(expected)
        assert all(p in index for p in expected) and (path in index) == (path in expected)
    assert [] not in index  # not a path at all: no error


@given(PATH)
def test_a_remembered_parent_is_the_plain_one(path: str) -> None:
    expected = path[: path.rfind("/")] if path.rfind("/") > 0 else ""
    assert parent_dir(path) == expected
    assert parent_dir(path) is parent_dir(path)  # one string, remembered


def _plain_scope(path: str) -> str:
    parts = path.split("/")[:-1]
    for n, part in enumerate(parts):
        if part.startswith("."):
            return "/".join(parts[:n])
    return "/".join(parts)


@given(DEEP_PATH)
def test_a_files_drift_scope_is_the_plain_one(path: str) -> None:
    assert scope(path) == _plain_scope(path)


def _plain_candidates(index: RuleIndex, relative: str, case_sensitive: bool) -> list[str]:
    probe = relative if case_sensitive else relative.lower()
    found = set(index.always)
    for name in probe.split("/"):
        found.update(index.by_name.get(name, ()))
        found.update(index.by_end.get(name[-_END:], ()))
    return sorted(found, key=index.order.__getitem__)


RULES = [f"r{i}" for i in range(12)]
NAMES = st.sampled_from(["a", "src", "docs", "api", "x.ts", "n1", ".github"])
ENDS = st.sampled_from([".ts", ".py", "tsx", "api", "ocs", "hub"])  # `_END` characters, as indexed


@given(DEEP_PATH, st.dictionaries(NAMES, st.lists(st.sampled_from(RULES), min_size=1)),
       st.dictionaries(ENDS, st.lists(st.sampled_from(RULES), min_size=1)),
       st.lists(st.sampled_from(RULES)), st.booleans())
def test_claude_rule_candidates_are_the_plain_ones(
    path: str, by_name: dict[str, list[str]], by_end: dict[str, list[str]],
    always: list[str], case_sensitive: bool,
) -> None:
    # by set operations or by searching the path for each ending: the rules a look-up per
    # segment found
    index = RuleIndex({r: i for i, r in enumerate(RULES)}, by_name, by_end, tuple(always))
    assert index.candidates(path, case_sensitive) == _plain_candidates(index, path,
                                                                       case_sensitive)
