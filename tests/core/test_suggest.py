"""Indexed suggestions: the same answers difflib gives, from a bounded number of names."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rulemap.suggest import MAX_CANDIDATES, DirectoryIndex, NameIndex


def test_name_index_finds_typos_within_two_edits() -> None:
    index = NameIndex(["components.md", "conventions.md", "testing.md", "Style.md"])
    assert index.close("compnents.md") == ["components.md"]  # a deletion
    assert index.close("comopnents.md", cutoff=0.75) == ["components.md"]  # a transposition
    assert index.close("style.md") == ["Style.md"]  # case-insensitive, written form kept
    assert index.close("zzzz.md", cutoff=0.75) == []


def test_name_index_look_up_is_capped_however_many_names_are_close() -> None:
    names = [f"file{i:05d}.ts" for i in range(20000)]  # every name is one edit from another
    index = NameIndex(names)
    assert len(index.neighbours("file00001.ts")) <= MAX_CANDIDATES
    assert index.close("file0001.ts")  # still answers


def test_directory_index_walks_down_past_a_typo() -> None:
    files = [
        "packages/web/src/components/button.tsx",
        "packages/api/src/routes/users.ts",
        "apps/docs/pages/index.md",
    ]
    index = DirectoryIndex(files)
    assert "packages/web/src" in index and "packages/web/lib" not in index
    assert index.near("packges/web/src/components/") == ["packages/web/src/components/"]
    assert index.near("packages/web/src/compnents/") == ["packages/web/src/components/"]
    # a directory dropped from the path: found by its last name
    assert index.near("packages/web/components/")[0] == "packages/web/src/components/"
    assert index.near("nothing/like/it/") == []


def test_directory_index_ending_with() -> None:
    files = [f"svc/s{i}/src/lib/x.ts" for i in range(50)] + ["src/lib/y.ts"]
    index = DirectoryIndex(files)
    assert index.ending_with("src/lib/", limit=100)[:2] == ["src/lib/", "svc/s0/src/lib/"]
    assert len(index.ending_with("src/lib/", limit=5)) == 5
    assert index.ending_with("lib/src/") == []


def test_deep_typo_near_the_top_is_found_with_few_look_ups() -> None:
    deep = "/".join(f"d{i}" for i in range(40))
    index = DirectoryIndex([f"svc/{deep}/f.ts", f"svx/{deep}/g.ts"])
    assert index.near(f"svq/{deep}/")[0].endswith(f"{deep}/")


def test_suggestions_do_not_depend_on_the_order_names_come_in() -> None:
    # more neighbours than MAX_CANDIDATES: which ones a query sees must not follow the input
    # order (a set's order changes with each process's string hashes)
    names = [f"a{i}" for i in range(100)] + [f"b{i}" for i in range(100)]
    forward, backward = NameIndex(names), NameIndex(list(reversed(names)))
    for query in ("a39", "a9", "b1", "ab"):
        assert forward.neighbours(query) == backward.neighbours(query)
        assert forward.close(query, n=3) == backward.close(query, n=3)
    files = [f"svc/a{i}/b{j}/x.ts" for i in range(40) for j in range(40)]
    assert (DirectoryIndex(files).near("svc/a39/b90/") ==
            DirectoryIndex(list(reversed(files))).near("svc/a39/b90/"))


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="ab c\u00e9\U0001f600", max_size=80),
       st.text(alphabet="ab c\u00e9\U0001f600", max_size=80))
def test_lcs_ratio_is_rapidfuzz_ratio(a: str, b: str) -> None:
    from rapidfuzz.fuzz import ratio

    from rulemap.suggest import lcs_ratio

    assert abs(lcs_ratio(a, b) - ratio(a, b)) < 1e-9


def test_lcs_ratio_of_long_paragraphs_is_rapidfuzz_ratio() -> None:
    import random

    from rapidfuzz.fuzz import ratio

    from rulemap.suggest import lcs_ratio

    rng = random.Random(7)
    words = ["the", "agent", "runs", "tests", "before", "each", "commit", "and", "reads",
             "docs"]
    a = " ".join(rng.choice(words) for _ in range(400))
    b = " ".join(rng.choice(words) for _ in range(380))
    assert abs(lcs_ratio(a, b) - ratio(a, b)) < 1e-9
