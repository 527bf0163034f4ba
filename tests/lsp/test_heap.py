"""The server's heap and the cyclic collector (`rulemap.lsp.heap`): an indexed folder is frozen
out of full collections, and a folder indexed again or removed leaves nothing frozen behind; no
full collection during a build (young ones still), what was built frozen when the last build
ends, the garbage frozen with it freed by `settled`'s periodic full collection."""

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
    # the collector as the server runs it (a one-shot command run in process before turns
    # it off for good, as `rulemap check` does), and as it was after
    enabled = gc.isenabled()
    gc.enable()
    gc.collect()
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()  # never leave the test session's heap frozen
    gc.set_threshold(*thresholds)
    if not enabled:
        gc.disable()


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


def test_a_build_runs_no_full_collection_and_freezes_what_it_made() -> None:
    before = gc.get_threshold()
    frozen = gc.get_freeze_count()
    with heap.building():
        assert gc.isenabled()  # young collections still run
        assert gc.get_threshold()[:2] == before[:2]
        assert gc.get_threshold()[2] == heap.NO_FULL_COLLECTION
        with heap.building():  # a second build at the same time
            pass
        assert gc.get_threshold()[2] == heap.NO_FULL_COLLECTION  # the first is still going
        made = [[i] for i in range(5000)]
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() >= frozen + len(made)


def test_young_garbage_of_a_build_is_still_collected() -> None:
    with heap.building():
        node = _Cyclic()
        gone = weakref.ref(node)
        del node
        gc.collect(1)  # what the young collections do on their own
        assert gone() is None


def test_garbage_frozen_with_a_build_is_freed_by_the_periodic_full_collection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(heap, "RECLAIM_EVERY", 3)
    monkeypatch.setattr(heap, "_settled", 0)
    with heap.building():
        node = _Cyclic()
    gone = weakref.ref(node)
    del node
    heap.settled()
    heap.settled()
    assert gone() is not None  # frozen: no collection scans it
    heap.settled()  # the third: everything frozen is collected first
    assert gone() is None


def test_a_workspace_let_go_is_collected_before_the_next_freeze(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(heap, "_settled", 0)
    node = _Cyclic()
    gc.freeze()
    gone = weakref.ref(node)
    del node
    heap.settled()
    assert gone() is not None
    heap.settled(collect=True)
    assert gone() is None
