"""The language server's heap and Python's cyclic garbage collector.

An indexed 20,000-file folder is a few hundred thousand long-lived objects: documents,
indexes, derived values, the worker's replica. Every full (generation 2) collection scans them
all, ~100 ms on the synthetic monorepo, at moments nobody chooses: an edit's diagnostics or a
hover that landed on one took 90-100 ms instead of 5 (`benchmarks/bench_lsp.py`). What the heap
holds is frozen (`gc.freeze`: a generation the collector never scans) once a folder is indexed,
once a whole check is published and once the "who loads it" overview is computed — each keeps
what it made until the next one —: full collections then take 1-5 ms (~20 ms when frozen only
after indexing).

Objects frozen are still freed by reference counting; only cyclic garbage among them waits.
Edits, whole checks and overviews make none that outlives them: after 10 or 40 edits of an
`AGENTS.md` with its lens shown (a check and an overview each), unfreezing and collecting found
the same 319 unreachable objects (left from indexing).

A workspace is cyclic (its caches point back at it), so one that is replaced or dropped is
freed only by the collector, never by reference counting; frozen, it would stay for good.
Before a folder is indexed again or removed, the heap is unfrozen: the next full collection
frees the old workspace, and the next index freezes the new one.
"""

from __future__ import annotations

import gc


def settled() -> None:
    """A folder was indexed, checked whole or its overview computed: what the heap holds now
    lives until the next one."""
    gc.freeze()


def replacing() -> None:
    """A folder is about to be indexed again or removed: its old objects must be collectable."""
    gc.unfreeze()
