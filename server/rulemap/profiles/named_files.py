"""The files a profile names, found once: `files_named` keeps, per profile and question, the
files of a slice of the file index (and the git-ignored ones) that one of its names matches,
until a file is created or deleted. Its agents' light facts (detection) ask it, so it imports
nothing of the rule files' readers (`rule_files.py`, which re-exports it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Final

from rulemap.derived import Key, KeyFamily

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

# the files a profile names (see `files_named`): `FILES_NAMED.key(profile name, what, …)`
FILES_NAMED: Final = KeyFamily[list[str]]("files-named")


def files_named(
    ws: Workspace, cache_key: Key[list[str]], pool: Iterable[str], keep: Callable[[str], bool]
) -> list[str]:
    """The files of `pool` (a slice of the file index: by suffix or prefix, never every file)
    and the git-ignored files (editors read them too) for which `keep(path)` is true, sorted;
    cached until a file is created or deleted (only the file list is read)."""
    cached = ws.derived.get(cache_key)
    if cached is None:
        found = {p for p in pool if keep(p)}
        found.update(p for p in ws.reader.ignored_files() if keep(p))
        cached = sorted(found)
        ws.derived.put(cache_key, cached, reads=())
    return cached
