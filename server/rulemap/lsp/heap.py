"""The language server's heap and Python's cyclic garbage collector.

An indexed 20,000-file folder is a few hundred thousand long-lived objects: documents,
indexes, derived values, the worker's replica. Every full (generation 2) collection scans them
all, ~100 ms on the synthetic monorepo, at moments nobody chooses: an edit's diagnostics or a
hover that landed on one took 90-100 ms instead of 5 (`benchmarks/bench_lsp.py`). What the heap
holds is frozen (`gc.freeze`: a generation the collector never scans) once a folder is indexed,
once a whole check is published and once the "who loads it" overview is computed — each keeps
what it made until the next one —: full collections then take 1-5 ms (~20 ms when frozen only
after indexing).

While a folder is walked and checked, the worker builds its copy or checks it whole, no full
collection runs (`building`): each of those makes up to millions of objects that live on, and
the full collections they set off scanned everything made so far — 65-320 ms each in the
worker on the deep shape, every second or so, during which the loop read no edit (the GIL is
held through a collection). The young collections still run, so what a build throws away
young is freed as before; what it made is frozen when it ends, the little garbage that grew
old included — 1,015 and 4,527 objects after 12 edits and their whole checks on the deep
shape, in two runs —, freed by the full collection `settled` runs once in `RECLAIM_EVERY`
calls. Before, each whole check on that shape set off a full collection of 250-320 ms, in
the worker or on the loop: the heap was frozen only once no edit came during a check.

Objects frozen are still freed by reference counting; only cyclic garbage among them waits.
With full collections during whole checks, edits, checks and overviews left none that outlived
them (after 10 or 40 edits of an `AGENTS.md` with its lens shown, unfreezing and collecting
found the same 319 unreachable objects, left from indexing); without them, the few hundred
a check above.

A workspace is cyclic (its caches point back at it), so one that is replaced or dropped is
freed only by the collector, never by reference counting; frozen, it would stay for good.
Before a folder is indexed again or removed, the heap is unfrozen: the next full collection
frees the old workspace, and the next index freezes the new one.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_building = 0  # builds under way (no full collection while there is one)
_thresholds: tuple[int, int, int] = (700, 10, 10)  # the collector's, before the first build
# a full collection after this many young ones: never, during a build
NO_FULL_COLLECTION = 1 << 30
RECLAIM_EVERY = 64  # `settled` collects everything frozen once in this many calls
_settled = 0


def settled(collect: bool = False) -> None:
    """A folder was indexed, checked whole or its overview computed: what the heap holds now
    lives until the next one. `collect`: a workspace was just let go (a folder indexed again),
    cyclic garbage that a freeze would keep for good: a full collection first. Every
    `RECLAIM_EVERY`th time too, of everything frozen so far: the garbage frozen with what
    lives is freed (a few hundred objects a whole check), for one full collection in that
    many."""
    global _settled
    _settled += 1
    if collect or _settled % RECLAIM_EVERY == 0:
        gc.unfreeze()
        gc.collect()
    gc.freeze()


def replacing() -> None:
    """A folder is about to be indexed again or removed: its old objects must be collectable."""
    gc.unfreeze()


@contextmanager
def building() -> Iterator[None]:
    """A folder walked and checked, the worker's copy built or checked whole (any thread):
    no full collection meanwhile; once no build is under way, what was made is frozen and
    the collector's thresholds are as they were."""
    global _building, _thresholds
    with _lock:
        if not _building:
            _thresholds = gc.get_threshold()
            gc.set_threshold(_thresholds[0], _thresholds[1], NO_FULL_COLLECTION)
        _building += 1
    try:
        yield
    finally:
        with _lock:
            _building -= 1
            if not _building:
                gc.freeze()
                gc.set_threshold(*_thresholds)
