"""`rulemap.records.record` against `dataclasses.dataclass`: the same classes, side by side.

Every class below is written twice, once with each decorator, and every behaviour a caller
can see is compared: construction (positional, by keyword, defaults, factories, fields left
out of `__init__`, `__post_init__`), `repr` text, equality, hash values, order, frozenness and
its error messages, pickling (slots and frozen too), `dataclasses` helpers, a class writing
its own methods, and inheritance.
"""

from __future__ import annotations

import copy
import dataclasses
import operator
import pickle
import weakref
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulemap.model import Finding, LoadedFile, Pos, Span
from rulemap.records import record

OPTIONS = [
    {},
    {"frozen": True},
    {"frozen": True, "order": True},
    {"frozen": True, "order": True, "slots": True},
    {"frozen": True, "slots": True},
    {"slots": True},
    {"slots": True, "weakref_slot": True},
    {"order": True},
]


def both(options: dict[str, bool]) -> tuple[type, type]:
    """One class written with each decorator and the same `options`."""

    def body() -> type:
        class Point:
            x: int
            y: int = 0
            tags: list[str] = field(default_factory=list)
            note: str = field(default="", compare=False, repr=False)
            made: int = field(default=7, init=False)

            def total(self) -> int:
                return self.x + self.y

        return Point

    return dataclass(**options)(body()), record(**options)(body())


def outcome(fn: Any, *args: Any) -> Any:
    """What `fn(*args)` gives: its value, or the type and text of what it raised."""
    try:
        return ("value", fn(*args))
    except Exception as exc:  # noqa: BLE001 - the exception is the behaviour compared
        return ("raised", type(exc), str(exc))


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "plain")
def test_construction_repr_fields_and_helpers_match(options: dict[str, bool]) -> None:
    std, ours = both(options)
    for args, kwargs in [((1,), {}), ((1, 2), {}), ((1,), {"tags": ["a"], "note": "n"}),
                         ((), {"x": 3, "y": 4})]:
        a, b = std(*args, **kwargs), ours(*args, **kwargs)
        assert repr(a) == repr(b)
        assert dataclasses.astuple(a) == dataclasses.astuple(b)
        assert dataclasses.asdict(a) == dataclasses.asdict(b)
        assert a.made == b.made == 7
        assert a.total() == b.total()
    assert [f.name for f in dataclasses.fields(std)] == [f.name for f in dataclasses.fields(ours)]
    assert dataclasses.is_dataclass(ours)
    assert ours.__match_args__ == std.__match_args__
    # each instance gets a list of its own from the factory
    first, second = ours(1), ours(1)
    assert first.tags == [] and first.tags is not second.tags
    # wrong calls fail alike
    for bad in [lambda c: c(), lambda c: c(1, 2, [], "", 5), lambda c: c(1, made=3),
                lambda c: c(1, z=2)]:
        assert outcome(bad, std)[:2] == outcome(bad, ours)[:2]
    changed_std = dataclasses.replace(std(1, 2), y=5)
    changed_ours = dataclasses.replace(ours(1, 2), y=5)
    assert repr(changed_std) == repr(changed_ours)


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "plain")
@given(st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3), st.sampled_from(["", "n"])),
                min_size=2, max_size=6))
def test_equality_hash_and_order_match(options: dict[str, bool],
                                       values: list[tuple[int, int, str]]) -> None:
    std, ours = both(options)
    pairs = [(std(x, y, note=n), ours(x, y, note=n)) for x, y, n in values]
    for a_std, a_ours in pairs:
        assert outcome(hash, a_std) == outcome(hash, a_ours)
        for b_std, b_ours in pairs:
            for op in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
                assert outcome(getattr(a_std, op), b_std) == \
                    outcome(getattr(a_ours, op), b_ours), op
        # another class, even one with equal fields, is never equal and cannot be ordered
        assert (a_ours == a_std) is False
        assert outcome(operator.lt, a_std, a_ours)[:2] == \
            outcome(operator.lt, a_ours, a_std)[:2]
    if options.get("order"):
        assert [repr(p) for p in sorted(p for p, _ in pairs)] == \
            [repr(p).replace(std.__qualname__, ours.__qualname__)
             for p in sorted(q for _, q in pairs)]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "plain")
def test_frozenness_matches(options: dict[str, bool]) -> None:
    std, ours = both(options)
    for action in [lambda o: setattr(o, "x", 5), lambda o: delattr(o, "y")]:
        a, b = std(1), ours(1)
        assert outcome(action, a) == outcome(action, b)
        assert outcome(repr, a) == outcome(repr, b)
    # a name that is not a field: raised alike, except for a frozen slotted class, where
    # Python 3.11's own __setattr__ names the class it replaced and raises a TypeError
    # (python/cpython#90055); record's raises the FrozenInstanceError meant
    a, b = std(1), ours(1)
    got_std, got_ours = outcome(lambda: a.__setattr__("other", 1)), \
        outcome(lambda: b.__setattr__("other", 1))
    if options.get("frozen") and options.get("slots"):
        assert got_ours == ("raised", dataclasses.FrozenInstanceError,
                            "cannot assign to field 'other'")
    else:
        assert got_std == got_ours


def _pickled(options: dict[str, bool]) -> type:
    """A fresh class for `options`, where pickle finds it (this module, by its name)."""
    name = "Pickled_" + "_".join(options)

    class Pickled:
        x: int
        y: int = 0
        tags: list[str] = field(default_factory=list)
        note: str = ""

    Pickled.__name__ = Pickled.__qualname__ = name
    made = record(**options)(Pickled)
    globals()[name] = made
    return made


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "plain")
def test_pickle_and_copy_round_trip(options: dict[str, bool]) -> None:
    ours = _pickled(options)
    item = ours(2, 3, ["t"], "n")
    for again in [pickle.loads(pickle.dumps(item)), copy.copy(item), copy.deepcopy(item)]:
        assert again == item and repr(again) == repr(item) and again.note == "n"
    if options.get("weakref_slot"):
        assert weakref.ref(item)() is item


def test_post_init_runs_after_every_field_is_set() -> None:
    seen: list[tuple[int, int]] = []

    @record(frozen=True)
    class Checked:
        low: int
        high: int = 10

        def __post_init__(self) -> None:
            seen.append((self.low, self.high))
            if self.low > self.high:
                raise ValueError("low above high")

    Checked(1)
    assert seen == [(1, 10)]
    with pytest.raises(ValueError, match="low above high"):
        Checked(11)


def test_methods_the_class_writes_itself_are_kept() -> None:
    @record(frozen=True)
    class Own:
        a: int

        def __repr__(self) -> str:
            return "mine"

        def __hash__(self) -> int:
            return 42

    assert repr(Own(1)) == "mine" and hash(Own(1)) == 42

    @record
    class OnlyEq:
        a: int

        def __eq__(self, other: object) -> bool:
            return True

    assert OnlyEq(1) == OnlyEq(2)
    assert OnlyEq.__hash__ is None  # as dataclass leaves it: equality written, no hash

    with pytest.raises(TypeError, match="__lt__"):
        @record(order=True)
        class Clash:
            a: int

            def __lt__(self, other: object) -> bool:
                return True


def test_init_is_compiled_on_the_first_instance_only() -> None:
    @record(frozen=True)
    class Late:
        a: int
        b: int = 2

    stub = Late.__init__
    assert Late(1) == Late(a=1, b=2)
    compiled = Late.__init__
    assert compiled is not stub and compiled.__qualname__.endswith("Late.__init__")
    Late(3)
    assert Late.__init__ is compiled  # compiled once

    @record
    class Wrapped:
        a: int

    stub = Wrapped.__init__

    def traced(self: Any, *args: Any) -> None:  # a wrapper put on before the first instance
        stub(self, *args)

    Wrapped.__init__ = traced  # type: ignore[method-assign]
    assert Wrapped(1).a == 1 and Wrapped(2).a == 2 and Wrapped.__init__ is traced

    @record
    class Base:
        a: int

    class Sub(Base):
        pass

    assert (Sub(1).a, Base(2).a) == (1, 2)


def test_inheritance_takes_the_base_fields() -> None:
    for decorate in (dataclass(frozen=True), record(frozen=True)):
        @decorate
        class Base:
            a: int

        @decorate
        class Child(Base):
            b: str = "x"

        child = Child(1)
        assert (child.a, child.b) == (1, "x")
        assert repr(child).endswith("Child(a=1, b='x')")
        assert child != Base(1)  # another class


def test_the_models_hot_classes_are_records() -> None:
    """The classes a large check makes by the hundred thousand keep their slots (no __dict__)
    and their hashes: what `record` exists for must not cost their memory."""
    pos = Pos(1, 2)
    assert not hasattr(pos, "__dict__")
    assert hash(pos) == hash((1, 2))
    assert Span(Pos(0, 0), Pos(0, 1)) < Span(Pos(0, 0), Pos(0, 2))
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'line'"):
        pos.line = 3  # type: ignore[misc]
    LoadedFile("AGENTS.md", "project", None, 0, 0)
    loaded = LoadedFile.__init__  # compiled on the first instance: named arguments, no *args
    assert loaded.__code__.co_argcount > 3 and not loaded.__code__.co_flags & 0x04
    assert Finding.__eq__.__qualname__ == "Finding.__eq__"
