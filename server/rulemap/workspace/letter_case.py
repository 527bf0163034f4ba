"""Letter case of file names as the platform's file system sees it (issue #39 item 4).

An agent that opens `dir/AGENTS.md` by its name (a `stat`, an `open`) is handed `dir/agents.md`
on a case-insensitive file system — macOS's APFS as formatted by default, Windows's NTFS — and
nothing on Linux's ext4. The workspace models the platform `Config.platform` names (default:
the host's, `config.host_platform`) and never asks the real file system: a tree checked on
Linux answers for a Mac when told to.

Profiles whose agents find their files by name ask here, so explain, reach, check and why
agree: `find_named` for a lookup in one directory, `named_as` for a walked file's name.
Nothing here knows an agent: the names are the caller's.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from typing import Final, Protocol

from rulemap.config import CASE_INSENSITIVE_PLATFORMS
from rulemap.derived import DerivedCache, Key, KeyFamily
from rulemap.globs import FileIndex
from rulemap.readers.base import WalkingReader


class Workspace(Protocol):
    """What a look-up by name asks of the workspace (`core.Workspace` answers it; a
    protocol, so that this module does not import the one that imports it)."""

    case_insensitive: bool
    files: FileIndex
    reader: WalkingReader
    derived: DerivedCache

    def abs(self, key: str) -> str: ...


# folded path → the walked (and git-ignored) files of that path: built once, when the
# platform folds case, kept until a file is created or deleted
_FOLDED: Final[Key[dict[str, tuple[str, ...]]]] = KeyFamily[dict[str, tuple[str, ...]]](
    "letter-case-folded"
).key()


def folds_case(platform: str) -> bool:
    """Whether `platform`'s default file system finds `AGENTS.md` by the name `agents.md`."""
    return platform in CASE_INSENSITIVE_PLATFORMS


def fold(name: str) -> str:
    """A name as a case-insensitive file system compares it. APFS and NTFS fold by their own
    Unicode tables; `lower` agrees with both on every name an agent reads."""
    return name.lower()


def named_as(ws: Workspace, path: str, names: Iterable[str]) -> str | None:
    """Which of `names` (each one name, or a short path such as `.claude/CLAUDE.md`) an
    agent opening it by name in `path`'s directory would be handed `path` for: the name it
    ends with exactly, else, on a case-insensitive platform, the one it ends with in other
    letter case; None when neither."""
    for name in names:
        if path == name or path.endswith("/" + name):
            return name
    if not ws.case_insensitive:
        return None
    folded = fold(path)
    for name in names:
        low = fold(name)
        if folded == low or folded.endswith("/" + low):
            return name
    return None


def find_named(ws: Workspace, directory: str, name: str) -> str | None:
    """The file an agent opening `directory/name` by name reads (a key), or None: the file
    of that exact name when it exists, else, on a case-insensitive platform, the walked file
    whose path differs from it only in letter case (the first by name when several do: on
    a real case-insensitive disk there can be only one)."""
    key = f"{directory}/{name}" if directory else name
    if _is_file(ws, key):
        return key
    if not ws.case_insensitive:
        return None
    found = folded_files(ws).get(fold(key))
    return found[0] if found else None


def folded_paths(ws: Workspace) -> list[str]:
    """Every walked file, git-ignored ones too (agents know no git)."""
    return [*ws.files, *ws.reader.ignored_files()]


def folded_files(ws: Workspace) -> Mapping[str, tuple[str, ...]]:
    """Folded path → the walked files of that path (git-ignored ones too: agents know no
    git), sorted."""
    return _all_folded(ws)


def _all_folded(ws: Workspace) -> dict[str, tuple[str, ...]]:
    cached = ws.derived.get(_FOLDED)
    if cached is None:
        groups: dict[str, list[str]] = {}
        for path in folded_paths(ws):
            groups.setdefault(sys.intern(fold(path)), []).append(path)
        cached = {k: tuple(sorted(set(v))) for k, v in groups.items()}
        ws.derived.put(_FOLDED, cached, reads=())
    return cached


def _is_file(ws: Workspace, key: str) -> bool:
    if key in ws.files:
        return True
    full = ws.abs(key)
    return ws.reader.exists(full) and not ws.reader.is_dir(full)
