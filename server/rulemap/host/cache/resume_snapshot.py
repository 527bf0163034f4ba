"""An incremental `rulemap check`: the workspace of the last whole check, told what changed
since, instead of a check from scratch (docs/checks.md, "A check after an edit").

A whole check that replaces an entry of its key (the repository is being checked again, as
while editing it) leaves a snapshot beside that entry: its workspace pickled — the file index,
the parsed documents, their resolved imports, every derived value with the files it read —
under a header with the run's record (readers/recording.py) and each listed directory's entries
as a hash; `rulemap` writes it from a child process after the report (`leave`). The next
check whose entry no longer holds asks the snapshot's record what changed
(`check_store.changes_since`). When only the bytes of a few documents did, the workspace is
unpickled and told of them as the language server tells it of an edit (`Workspace.update`,
through pickled_workspace.py): only what read a changed file is worked out again, and the
report is the one a whole check would print (tests/core/test_check_resume.py edits each file
such a check reads, in turn, and compares). Anything else — a file created, deleted or renamed,
a `.gitignore` or configuration file edited, more than `MAX_CHANGED` files, a snapshot
unreadable or of another version — is a whole check, as before.

Pickle runs code the file names: a snapshot is read only when the user owns it and its
directory and neither is writable by anyone else (`cache_entries.open_private`), as is true of
what this module writes. The snapshot is not rewritten by the checks that resume from it:
each reads every change since it, so the cost grows with the files edited since the last
whole check, up to `MAX_CHANGED`.
"""

from __future__ import annotations

import json
import os
import sys
import time
from contextlib import suppress
from typing import TYPE_CHECKING, Any, BinaryIO, Protocol

from rulemap.readers import cache_entries, check_store
from rulemap.records import record

if TYPE_CHECKING:
    from rulemap.readers.recording import Recording
    from rulemap.workspace import Workspace

FORMAT = b"rulemap-check-snapshot/3\n"
MAX_CHANGED = 64
_HEADER_LENGTH_BYTES = 8


class CheckCache(Protocol):
    """What this module asks of a check's cache (check_results.CheckCache, which names
    `Found` in turn: a protocol rather than an import back)."""

    directory: str | None
    key: dict[str, Any] | None
    detach: bool

    def entry_name(self) -> str: ...


@record
class Found:
    """A usable snapshot: the file, open at its pickled workspace; what changed since, and
    when that was asked (the start of the record the resumed check leaves)."""

    payload: BinaryIO
    changes: check_store.Changes
    asked_ns: int


def snapshot_name(cache: CheckCache) -> str:
    stem = cache.entry_name().removesuffix(cache_entries.ENTRY_SUFFIX)
    return stem + cache_entries.SNAPSHOT_SUFFIX


def find(cache: CheckCache) -> Found | None:
    """The snapshot of `cache`'s key when only a few of the files it read changed since;
    None otherwise (never raises: a snapshot in doubt is a whole check)."""
    assert cache.directory is not None
    stream = cache_entries.open_private(cache.directory, snapshot_name(cache))
    if stream is None:
        return None
    try:
        if stream.read(len(FORMAT)) != FORMAT:
            raise ValueError("not a snapshot")
        length = int.from_bytes(stream.read(_HEADER_LENGTH_BYTES), "big")
        if length > cache_entries.MAX_ENTRY_BYTES:
            raise ValueError("a header longer than a snapshot may be")
        header = json.loads(stream.read(length))
        if header.get("key") != cache.key or check_store.inside(cache.directory, header["root"]):
            raise ValueError("another key's")
        asked_ns = time.time_ns()
        changes = check_store.changes_since(header["record"], header["start_ns"])
        if changes is None or len(changes.files) > MAX_CHANGED:
            raise ValueError("not only a few documents changed")
    except Exception:
        stream.close()
        return None
    return Found(stream, changes, asked_ns)


def resume(found: Found) -> tuple[Workspace, Recording] | None:
    """The snapshot's workspace, updated for what changed, and its record made the record of
    this check; None when it cannot be (a configuration file changed, say)."""
    from rulemap.host.cache import pickled_workspace as carried

    with found.payload:
        if carried.reshapes(found.changes.files):
            return None  # known before the payload is loaded
        loaded = carried.unpickled(found.payload)
    if loaded is None:
        return None
    ws, recording = loaded
    if not carried.updated(ws, found.changes.files):
        return None
    # the answers as they are now: a later change of any of them is a new signature
    recording.start_ns = found.asked_ns
    recording.usable = True
    for path, answer in found.changes.same_dirs.items():
        recording.set_dir(path, answer)
    recording.files.update(found.changes.same_files)
    recording.files.update(found.changes.files)
    recording.listings = None
    return ws, recording


def snapshot(cache: CheckCache, ws: Workspace, recording: Recording) -> bool:
    """Write `ws` (just checked, from `recording`) as its key's snapshot; False when it could
    not be (too big, not picklable, not written)."""
    assert cache.directory is not None
    listings = check_store.listings_now(recording.all_dirs())
    if listings is None:
        return False  # a directory changed since the check listed it: its snapshot is stale
    recording.listings = listings
    header = {
        "key": cache.key, "root": ws.root, "start_ns": recording.start_ns,
        "record": recording.to_json(with_listings=True),
    }
    from rulemap.host.cache.pickled_workspace import pickled

    try:
        payload = pickled(ws)
    except Exception:  # RecursionError on a deep structure, an unpicklable value: no snapshot
        return False
    head = json.dumps(header, separators=(",", ":")).encode("ascii")
    size = len(FORMAT) + _HEADER_LENGTH_BYTES + len(head) + len(payload)
    if size > cache_entries.MAX_ENTRY_BYTES:
        return False
    data = b"".join([FORMAT, len(head).to_bytes(_HEADER_LENGTH_BYTES, "big"), head, payload])
    return cache_entries.write_entry(cache.directory, snapshot_name(cache), data)


def leave(cache: CheckCache, ws: Workspace, recording: Recording) -> None:
    """Write the snapshot of the check just reported. With `cache.detach` (`rulemap`'s entry
    point), in a child process at a lower priority: hashing the listings, pickling and writing
    take a third to nearly all of a whole check's time again (benchmarks/README.md, "A check
    after an edit"), which the user does not wait for; the child lets go of the terminal and
    the output first, so a pipe's reader sees the end of the report when the check exits."""
    fork = getattr(os, "fork", None)
    if not cache.detach or fork is None:
        snapshot(cache, ws, recording)
        return
    with suppress(OSError, ValueError):
        sys.stdout.flush()
        sys.stderr.flush()
    try:
        pid = fork()
    except OSError:
        return  # no process to spare: the next check is a whole one, as without snapshots
    if pid:
        return
    try:  # the child: never back into the caller's code
        cache_entries.let_go_of_output()
        with suppress(OSError):
            os.nice(10)
        snapshot(cache, ws, recording)
    finally:
        os._exit(0)
