"""Cursor's file names and places: its rules directory, the legacy file, `AGENTS.md` and the
`mdc:` link scheme, and the lookups by name alone that its light facts (`names.py`), its
rules' reader (`rules.py`) and its AGENTS.md reader (`agents_md.py`) share.
"""

from __future__ import annotations

from itertools import chain
from typing import TYPE_CHECKING, Final

from rulemap.profiles.named_files import FILES_NAMED, files_named

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

RULES = ".cursor/rules/"
LEGACY = ".cursorrules"
AGENTS = "AGENTS.md"
LINK_SCHEME: Final = "mdc:"  # `[text](mdc:path)`


def exists(ws: Workspace, key: str) -> bool:
    if key in ws.files:
        return True
    full = ws.abs(key)
    return ws.reader.exists(full) and not ws.reader.is_dir(full)


def owner_of(key: str) -> str | None:
    """The folder holding the `.cursor/rules` that `key` is in ('' = the root), or None."""
    if key.startswith(RULES):
        return ""
    index = key.find("/" + RULES)
    return key[:index] if index >= 0 else None


def rule_paths(ws: Workspace) -> list[str]:
    """`.mdc` and `.md` files below any `.cursor/rules/` (root or nested), sorted."""
    # a lazy chain of the index's own lists: nothing is copied when the answer is cached
    pool = chain(ws.files.with_suffix(".mdc"), ws.files.with_suffix(".md"))
    return files_named(ws, FILES_NAMED.key("cursor", "rules"), pool,
                       lambda p: p.endswith((".mdc", ".md")) and owner_of(p) is not None)


def agents_folder(key: str) -> str | None:
    """The folder an `AGENTS.md` applies to ('' = the root), or None when `key` is not one
    (an `AGENTS.md` among the rules of `.cursor/rules/` is a rule file, not this)."""
    if key == AGENTS:
        return ""
    if not key.endswith("/" + AGENTS) or owner_of(key) is not None:
        return None
    return key[: -len(AGENTS) - 1]
