"""Per-path work that no longer grows with a path's length (benchmarks/README.md, "The deep
tree's walk"): each shortcut answers exactly what the plain computation did."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rulemap.globs import FileIndex
from rulemap.profiles.base import parent_dir

SEGMENT = st.sampled_from(["a", "b", ".github", ".x", "src", "docs", "n1", "x.ts", "."])
PATH = st.lists(SEGMENT, min_size=1, max_size=7).map("/".join)


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
