"""Typed keys of the derived cache (derived.py): a key family's `get` returns what `put` stored
under the same family and arguments, families never share an entry, a family name is declared
once, dependents (`after`) still drop with what they were built on, and no call site builds a
key by hand."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest
from core_helpers import make_ws

import rulemap
from rulemap.derived import MISSING, DerivedCache, Key, KeyFamily

SERVER = Path(rulemap.__file__).parent

# declared once per test session (names are global)
NUMBERS = KeyFamily[int]("test-derived-keys:numbers")
WORDS = KeyFamily[str]("test-derived-keys:words")
MAYBE = KeyFamily[str | None]("test-derived-keys:maybe")


def test_get_returns_what_put_stored_under_the_same_family_and_arguments() -> None:
    cache = DerivedCache()
    assert cache.get(NUMBERS.key("a", 1)) is None
    assert cache.put(NUMBERS.key("a", 1), 42, reads=("a.md",)) == 42
    assert cache.get(NUMBERS.key("a", 1)) == 42  # a key built again is the same entry
    assert cache.get(NUMBERS.key("a", 2)) is None
    assert cache.get(NUMBERS.key("a", 1), 0) == 42
    assert cache.get(NUMBERS.key("b", 1), 0) == 0
    assert len(cache) == 1


def test_keys_are_tuples_equal_to_their_family_and_arguments() -> None:
    key = NUMBERS.key("a", ("x", None), 3)
    assert isinstance(key, Key) and isinstance(key, tuple)
    assert key == NUMBERS.key("a", ("x", None), 3)
    assert key == ("test-derived-keys:numbers", "a", ("x", None), 3)
    assert hash(key) == hash(("test-derived-keys:numbers", "a", ("x", None), 3))
    assert key[0] == NUMBERS.name


def test_two_families_with_the_same_arguments_are_different_entries() -> None:
    cache = DerivedCache()
    cache.put(NUMBERS.key("same"), 1, reads=())
    cache.put(WORDS.key("same"), "one", reads=())
    assert cache.get(NUMBERS.key("same")) == 1
    assert cache.get(WORDS.key("same")) == "one"
    assert NUMBERS.key("same") != WORDS.key("same")
    assert len(cache) == 2


def test_a_family_name_declared_twice_raises() -> None:
    KeyFamily[int]("test-derived-keys:once")
    with pytest.raises(ValueError, match="test-derived-keys:once"):
        KeyFamily[str]("test-derived-keys:once")
    with pytest.raises(ValueError, match="declared twice"):
        KeyFamily[int](NUMBERS.name)


def test_every_family_of_the_package_has_its_own_name() -> None:
    """Importing every module declares every family: a repeated name would raise here."""
    for module in pkgutil.walk_packages([str(SERVER)], "rulemap."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    names = KeyFamily._names
    for name in ("explain", "base-load", "group-load", "import-reach", "files-named"):
        assert name in names


def test_missing_tells_a_stored_none_from_no_entry() -> None:
    cache = DerivedCache()
    assert cache.get(MAYBE.key("x"), MISSING) is MISSING
    cache.put(MAYBE.key("x"), None, reads=())
    assert cache.get(MAYBE.key("x"), MISSING) is None


def test_dependents_built_after_a_dropped_key_drop_too() -> None:
    cache = DerivedCache()
    parent, child, grandchild = NUMBERS.key("parent"), NUMBERS.key("child"), WORDS.key("gc")
    other = NUMBERS.key("other")
    cache.put(parent, 1, reads={"a.md"})
    cache.put(child, 2, reads={"b.md"}, after=[parent])
    cache.put(grandchild, "3", reads=(), after=[child])
    cache.put(other, 4, reads={"c.md"})
    cache.invalidate({"a.md"}, structural=False)
    assert [cache.get(parent), cache.get(child), cache.get(grandchild)] == [None, None, None]
    assert cache.get(other) == 4
    cache.put(NUMBERS.key("orphan"), 5, reads=(), after=[parent])  # its parent is gone
    assert cache.get(NUMBERS.key("orphan")) is None
    cache.invalidate(set(), structural=True)
    assert len(cache) == 0


def test_a_profile_explanation_is_stored_under_the_explain_family() -> None:
    from rulemap.profiles import get_profile
    from rulemap.profiles.base import EXPLAIN
    from rulemap.profiles.cogitator import reach

    ws = make_ws({"AGENTS.md": "hello\n", "pkg/AGENTS.md": "nested\n", "pkg/x.py": ""})
    profile = get_profile("cogitator")
    explanation = profile.explain(ws, "pkg/x.py", "")
    assert ws.derived.get(EXPLAIN.key(profile.name, "pkg/x.py", "")) is explanation
    assert profile.explain(ws, "pkg/x.py", "") is explanation
    load = ws.derived.get(reach.BASE_LOAD.key(("",), "pkg"))
    assert load is not None and [f.path for f in load.files] == ["AGENTS.md", "pkg/AGENTS.md"]
    # an edit of the nested file drops the load and the explanation built on it
    ws.reader.files[ws.abs("pkg/AGENTS.md")] = b"nested, edited\n"
    ws.update(changed={"pkg/AGENTS.md"})
    assert ws.derived.get(EXPLAIN.key(profile.name, "pkg/x.py", "")) is None


def _hand_built_keys(path: Path) -> list[str]:
    """`derived.get(…)`/`derived.put(…)` calls whose key is a str or tuple literal."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("get", "put")
            and isinstance(node.func.value, ast.Attribute)
            and node.func.value.attr == "derived"
            and node.args
            and isinstance(node.args[0], (ast.Constant, ast.Tuple))
        ):
            found.append(f"{path.relative_to(SERVER)}:{node.lineno}")
    return found


def test_no_call_site_builds_a_key_by_hand() -> None:
    found = [hit for path in sorted(SERVER.rglob("*.py")) for hit in _hand_built_keys(path)]
    assert found == []


@pytest.mark.parametrize("reads", [
    ["a.md"], ("a.md", "b.md"), {"a.md", "b.md", "c.md"}, frozenset({"a.md"}),
    [f"f{n}.md" for n in range(40)] + ["a.md"], iter(["x.md", "a.md"])],
    ids=["list", "tuple", "set", "frozenset", "many", "iterator"])
def test_an_entry_drops_when_a_file_it_read_changes_however_its_reads_were_given(
        reads: object) -> None:
    cache = DerivedCache()
    key = NUMBERS.key("reads")
    cache.put(key, 1, reads=reads)  # type: ignore[arg-type]
    cache.invalidate({"unrelated.md", "z.md"}, structural=False)
    assert cache.get(key) == 1
    cache.invalidate({"a.md"}, structural=False)
    assert cache.get(key) is None


def test_invalidation_drops_exactly_what_a_scan_of_every_entry_would() -> None:
    # the cache looks up what an edit drops by read key (entries put again with other
    # reads, dropped ones put back, wide read sets and none mixed in); a plain scan of
    # every entry's current reads is the reference
    import random

    rng = random.Random(37)
    files = [f"f{i}.md" for i in range(12)]
    cache = DerivedCache()
    current: dict[Key[int], frozenset[str] | None] = {}
    for _ in range(600):
        key = NUMBERS.key("index", rng.randrange(40))
        if rng.random() < 0.6:
            size = rng.choice([0, 1, 1, 2, 3, 10])
            reads = None if size == 0 else frozenset(rng.sample(files, size))
            cache.put(key, 1, reads=reads)
            current[key] = reads
            continue
        changed = set(rng.sample(files, rng.choice([1, 1, 2])))
        cache.invalidate(changed, structural=False)
        current = {k: r for k, r in current.items()
                   if r is not None and changed.isdisjoint(r)}
        kept = {n for n in range(40) if cache.get(NUMBERS.key("index", n)) is not None}
        assert kept == {key[2] for key in current}
