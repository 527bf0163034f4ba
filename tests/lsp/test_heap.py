"""The server's heap and the cyclic collector (`rulemap.lsp.heap`): an indexed folder is frozen
out of full collections, and a folder indexed again or removed leaves nothing frozen behind."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from rulemap.lsp import heap


class _Cyclic:
    """What a workspace is to the collector: an object its own caches point back at."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture(autouse=True)
def _unfrozen() -> Iterator[None]:
    gc.collect()
    yield
    gc.unfreeze()  # never leave the test session's heap frozen


def test_what_an_index_leaves_is_frozen_out_of_full_collections() -> None:
    before = gc.get_freeze_count()
    kept = [_Cyclic() for _ in range(100)]
    heap.settled()
    assert gc.get_freeze_count() >= before + len(kept)
    tracked = {id(o) for o in gc.get_objects(generation=2)}
    assert not any(id(o) in tracked for o in kept)  # no full collection scans them


def test_a_replaced_workspace_is_freed_once_the_heap_is_unfrozen() -> None:
    old = _Cyclic()
    gone = weakref.ref(old)
    heap.settled()
    del old
    gc.collect()
    assert gone() is not None  # frozen: a cycle the collector never sees
    heap.replacing()
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert gone() is None
