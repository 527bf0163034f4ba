"""Path identity as Mastra's injector compares instruction paths (`getPathIdentity`).

Identity decides three things: a file reached twice in one search (a `CLAUDE.md` symlinked to
the `AGENTS.md` beside it) is injected once, a file listed in `ignoredInstructionPaths` is
skipped under any alias of it, and a reminder already injected is not injected again.

Who decides, per reader (the seed's "ReminderFileReader" section):
- the default local reader resolves filesystem aliases: the identity is the real path
  (`Workspace.identity`, the reader's `identity()`);
- a custom reader without a `getPathIdentity` compares lexically: a Rulemap reader says so with
  `lexical_identity = True` (see `readers/base.py`); its identity is the normalized absolute
  path, and no alias is resolved (no host filesystem lookup);
- a trusted git-ref reader (none exists yet) identifies a file by its canonical project root and
  its path relative to that root, never resolving checkout-controlled symlinks. It plugs in by
  returning exactly that from its own `identity()` and leaving `lexical_identity` unset: this
  module then asks the reader, and needs no change.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rulemap.readers.base import Reader
    from rulemap.workspace import Workspace


def uses_lexical_identity(reader: Reader) -> bool:
    """Whether the reader (or the reader an overlay sits on) compares paths lexically."""
    current: object | None = reader
    for _ in range(8):  # overlays over overlays: bounded, a reader may point at itself
        if current is None:
            return False
        flag = getattr(current, "lexical_identity", None)
        if flag is not None:
            return bool(flag)
        current = getattr(current, "base", None)
    return False


def path_identity(ws: Workspace, key: str) -> str:
    """The comparison key of instruction path `key` (root-relative, or absolute above the
    root): equal keys are the same instructions, distinct files have distinct keys."""
    if uses_lexical_identity(ws.reader):
        return posixpath.normpath(ws.abs(key))
    return ws.identity(key)
