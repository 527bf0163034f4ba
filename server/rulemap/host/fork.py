"""How a snapshot keeps the state it was taken of when its host changes (host/snapshot.py).

The snapshots of one state of a host share a `Pin` on its workspace; a change that finds the
pin still held first re-points it at a `fork` — a copy of the workspace with its overlay of
buffers, file index, parsed documents and derived caches —, whose disk is the disk `AsItWas`
before the change told of (a file it creates is not there yet, one it deletes still is).
"""

from __future__ import annotations

import io
import posixpath
import time
from typing import Any

from rulemap.profiles import PROFILES
from rulemap.readers.base import ReadError
from rulemap.workspace import Workspace


class Pin:
    """The workspace the snapshots of one state of a host answer from. The host re-points it
    at a fork before it changes that workspace (None: the fork failed, and the snapshots are
    cancelled rather than answer from a state they were not taken of)."""

    __slots__ = ("ws", "__weakref__")

    def __init__(self, ws: Workspace) -> None:
        self.ws: Workspace | None = ws


class AsItWas:
    """A forked snapshot's disk: files created after the snapshot was taken are not there,
    files deleted after it still are (their text, when no question had read it before, is
    gone: unreadable). Everything else is the disk's."""

    def __init__(self, base: Any, created: set[str], deleted: set[str]) -> None:
        self._base = base
        self._created = {posixpath.normpath(p) for p in created}
        self._deleted = {posixpath.normpath(p) for p in deleted}

    def exists(self, path: str) -> bool:
        path = posixpath.normpath(path)
        if path in self._created:
            return False
        return path in self._deleted or bool(self._base.exists(path))

    def read_bytes(self, path: str) -> bytes:
        if posixpath.normpath(path) in self._created:
            raise ReadError("it does not exist")
        return self._base.read_bytes(path)  # type: ignore[no-any-return]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._base, name)


def fork(ws: Workspace) -> Workspace | None:
    """A copy of `ws` that shares nothing mutable with it: its overlay's buffers, file index,
    parsed documents and derived caches as they are (a pickle round trip, each agent profile
    kept as the registry's: checks compare profiles by identity). None when it cannot be
    copied (a structure too deep to pickle)."""
    # logging and pickle (5 ms of imports) only for a snapshot held across a change, never
    # for a one-shot check
    import logging
    import pickle

    log = logging.getLogger("rulemap.host")
    started = time.monotonic()
    try:
        copyreg_table = _profiles_by_name()
        out = io.BytesIO()
        pickler = pickle.Pickler(out, protocol=5)
        pickler.dispatch_table = copyreg_table
        pickler.dump(ws)
        copy = pickle.loads(out.getbuffer())
    except Exception:  # RecursionError on a deep structure, an unpicklable reader
        log.warning("a snapshot held across a change could not keep its state; cancelled")
        return None
    # the named copies of other agents' findings are kept by the identity of the originals,
    # which the copy changed (checks/__init__.py `profile_findings`)
    copy.named_findings = {id(entry[0]): entry for entry in copy.named_findings.values()}
    log.debug("forked %s for a snapshot held across a change: %.0f ms", ws.root,
              (time.monotonic() - started) * 1000)
    return copy  # type: ignore[no-any-return]


def _profiles_by_name() -> dict[Any, Any]:
    import copyreg

    from rulemap.profiles import get_profile

    def by_name(profile: Any) -> tuple[Any, tuple[str]]:
        return get_profile, (profile.name,)

    table: dict[Any, Any] = dict(copyreg.dispatch_table)
    for profile in PROFILES.made():
        table[type(profile)] = by_name
    return table
