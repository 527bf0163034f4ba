"""`record`: `dataclasses.dataclass` at a fraction of its start-up cost, same classes.

Why our own: on Python 3.11 `dataclass` compiles one function per method it writes — ten for
a frozen, ordered class (`__init__`, `__repr__`, `__eq__`, four comparisons, `__hash__`,
`__setattr__`, `__delattr__`) — and then asks `inspect` for a signature to write a docstring.
A cold `rulemap check` builds about 66 of them at import: 77 ms of a 166 ms run on a tiny
workspace (`benchmarks/bench_startup.py --anatomy`), more than every other cost of the run
but the interpreter. Python 3.13 writes them in one compile; attrs compiles per method as
3.11 does; msgspec's `Struct` is cheap to build but changes every call site's API
(`fields`, `replace`, field defaults). So `record` lets `dataclass` do the bookkeeping with
nothing to compile (`init=False, repr=False, eq=False`), writes `__init__` — the one method
whose speed matters, hundreds of thousands of calls in a large check — in one compile, on
the class's first instance, and gives the rest as shared functions over an
`operator.attrgetter` of the fields.

The result is a real dataclass: `dataclasses.fields`, `replace`, `asdict` and `is_dataclass`
work on it, and equality, hashes (the same values), order, `repr` text, frozenness (the same
`FrozenInstanceError`s), `__post_init__`, slots and pickling behave as `dataclass` makes them
(`tests/core/test_records.py` holds them side by side). Type checkers see `dataclass` itself.
Only `__dataclass_params__` tells: it records what `dataclass` was asked to write.
"""

from __future__ import annotations

import _thread
import dataclasses
import operator
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

__all__ = ["record"]

if TYPE_CHECKING:
    from dataclasses import dataclass as record
else:

    def record(
        cls: type | None = None,
        /,
        *,
        frozen: bool = False,
        order: bool = False,
        slots: bool = False,
        weakref_slot: bool = False,
    ) -> Any:
        """`@record`, `@record(frozen=True, order=True, slots=True, weakref_slot=True)`:
        as `@dataclass` with the same arguments."""

        def build(cls: type) -> type:
            return _build(cls, frozen=frozen, order=order, slots=slots,
                          weakref_slot=weakref_slot)

        return build if cls is None else build(cls)


def _build(cls: type, *, frozen: bool, order: bool, slots: bool, weakref_slot: bool) -> type:
    own = cls.__dict__
    # a hash the class writes itself is kept, as dataclass keeps it; the None Python puts
    # there for a class that writes `__eq__` alone is not one
    explicit_hash = "__hash__" in own and not (own["__hash__"] is None and "__eq__" in own)
    if not own.get("__doc__"):
        cls.__doc__ = cls.__name__  # dataclass would ask `inspect` for a signature here
    cls = dataclasses.dataclass(cls, init=False, repr=False, eq=False, slots=slots,
                                weakref_slot=weakref_slot)
    fields = dataclasses.fields(cls)
    key = _getter([f.name for f in fields if f.compare])

    _give(cls, "__init__", _first_init(cls, fields, frozen))
    _give(cls, "__repr__", _repr([f.name for f in fields if f.repr]))
    _give(cls, "__eq__", _compare(key, operator.eq))
    if order:
        for name, op in (("__lt__", operator.lt), ("__le__", operator.le),
                         ("__gt__", operator.gt), ("__ge__", operator.ge)):
            if name in cls.__dict__:
                raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}. "
                                "Consider using functools.total_ordering")
            _give(cls, name, _compare(key, op))
    if not explicit_hash:
        hashed = _getter([f.name for f in fields if (f.compare if f.hash is None else f.hash)])
        cls.__hash__ = _hash(hashed) if frozen else None  # type: ignore[assignment]
    if frozen:
        _freeze(cls, frozenset(f.name for f in fields))
        if slots:  # a slotted frozen instance cannot be unpickled through setattr
            names = [f.name for f in fields]
            _give(cls, "__getstate__", _getstate(names))
            _give(cls, "__setstate__", _setstate(names))
    return cls


def _give(cls: type, name: str, fn: Callable[..., Any]) -> None:
    """Set `fn` as `cls`'s method `name` unless the class writes its own (as dataclass does)."""
    if name in cls.__dict__:
        return
    fn.__name__ = name
    fn.__qualname__ = f"{cls.__qualname__}.{name}"
    setattr(cls, name, fn)


def _getter(names: Sequence[str]) -> Callable[[Any], tuple[Any, ...]]:
    """The fields `names` of an instance as a tuple (one field too: the same hashes as
    dataclass's `hash((self.a,))`)."""
    if len(names) >= 2:
        return operator.attrgetter(*names)
    if names:
        one = operator.attrgetter(names[0])
        return lambda self: (one(self),)
    return lambda self: ()


_FACTORY = object()  # an argument left out whose field has a default factory


def _first_init(cls: type, fields: Sequence[dataclasses.Field[Any]], frozen: bool) -> Any:
    """An `__init__` that compiles the real one, puts it on `cls` and calls it: a class no run
    instantiates (30 of the 66 a small check imports) costs no compile at all."""

    compiled: list[Any] = []

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if not compiled:
            real = _init(cls, fields, frozen)
            real.__qualname__ = f"{cls.__qualname__}.__init__"
            compiled.append(real)
            if cls.__dict__.get("__init__") is __init__:  # not wrapped meanwhile
                cls.__init__ = real  # type: ignore[misc]
        compiled[0](self, *args, **kwargs)

    return __init__


def _init(cls: type, fields: Sequence[dataclasses.Field[Any]], frozen: bool) -> Any:
    """`__init__` as dataclass writes it, compiled once."""
    space: dict[str, Any] = {"_FACTORY": _FACTORY, "_set": object.__setattr__}
    params: list[str] = ["self"]
    body: list[str] = []
    for f in fields:
        if f.kw_only is True:
            raise TypeError(f"record {cls.__name__}: kw_only fields are not supported")
        name = f.name
        has_factory = f.default_factory is not dataclasses.MISSING
        if has_factory:
            space[f"_make_{name}"] = f.default_factory
        if f.init:
            if has_factory:
                params.append(f"{name}=_FACTORY")
                value = f"_make_{name}() if {name} is _FACTORY else {name}"
            elif f.default is not dataclasses.MISSING:
                space[f"_default_{name}"] = f.default
                params.append(f"{name}=_default_{name}")
                value = name
            else:
                params.append(name)
                value = name
        elif has_factory:
            value = f"_make_{name}()"
        elif f.default is not dataclasses.MISSING:
            space[f"_default_{name}"] = f.default
            value = f"_default_{name}"
        else:
            continue
        body.append(f"_set(self, {name!r}, {value})" if frozen else f"self.{name} = {value}")
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    source = f"def __init__({', '.join(params)}):\n " + "\n ".join(body or ["pass"])
    exec(source, space)  # noqa: S102 - our own text, built from the class's field names
    return space["__init__"]


def _repr(names: Sequence[str]) -> Callable[[Any], str]:
    running: set[tuple[int, int]] = set()

    def __repr__(self: Any) -> str:
        token = id(self), _thread.get_ident()
        if token in running:
            return "..."
        running.add(token)
        try:
            shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
            return f"{self.__class__.__qualname__}({shown})"
        finally:
            running.discard(token)

    return __repr__


def _compare(key: Callable[[Any], tuple[Any, ...]],
             op: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    def compare(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return op(key(self), key(other))
        return NotImplemented

    return compare


def _hash(key: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(key(self))

    return __hash__


def _freeze(cls: type, names: frozenset[str]) -> None:
    for name in ("__setattr__", "__delattr__"):
        if name in cls.__dict__:
            raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)  # type: ignore[arg-type]  # any class

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)  # type: ignore[arg-type]  # any class

    _give(cls, "__setattr__", __setattr__)
    _give(cls, "__delattr__", __delattr__)


def _getstate(names: Sequence[str]) -> Callable[[Any], list[Any]]:
    def __getstate__(self: Any) -> list[Any]:
        return [getattr(self, name) for name in names]

    return __getstate__


def _setstate(names: Sequence[str]) -> Callable[[Any, list[Any]], None]:
    def __setstate__(self: Any, state: list[Any]) -> None:
        for name, value in zip(names, state, strict=False):
            object.__setattr__(self, name, value)

    return __setstate__
