"""Cursor's AGENTS.md files, and the `mdc:` links of its rules (docs/profiles/cursor.md).

The root's `AGENTS.md` applies to every file. A nested one (Cursor 1.6 and later) is treated
as a rule that always applies with the implicit glob `<its folder>/**`: it joins when the agent
works on a file in that subtree, so every `AGENTS.md` from the root down to the target's folder
loads, root first. AGENTS.md has no header and no globs: its place alone scopes it.

A rule links a file as `[text](mdc:path)` (what Cursor's rule editor writes for an @-mention);
public rules write the path relative to the workspace root or to the rule's folder, so both
readings are tried (unconfirmed).
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING, Final

from rulemap.derived import KeyFamily
from rulemap.model import Span
from rulemap.profiles.cursor.places import AGENTS as AGENTS
from rulemap.profiles.cursor.places import LINK_SCHEME as LINK_SCHEME
from rulemap.profiles.cursor.places import agents_folder as agents_folder
from rulemap.profiles.rule_files import FILES_NAMED, files_named, read_header
from rulemap.records import record
from rulemap.workspace.rule_scope import RuleScope

if TYPE_CHECKING:
    from rulemap.workspace import Workspace


_LINKS: Final = KeyFamily[list["MdcLink"]]("cursor-mdc-links")  # file
_MDC_LINK = re.compile(r"\[[^\]\n]*\]\(" + LINK_SCHEME + r"([^)\s]+)\)")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def agents_files(ws: Workspace) -> list[str]:
    """Every `AGENTS.md` of the workspace (git-ignored ones too), sorted."""
    return files_named(ws, FILES_NAMED.key("cursor", "agents"), ws.files.with_suffix(".md"),
                       lambda p: agents_folder(p) is not None)


def applies_to(folder: str, target: str | None, cwd: str) -> bool:
    """Whether the `AGENTS.md` of `folder` joins the load for `target` (without a target:
    when the cwd is inside the folder, as for nested rules)."""
    if not folder:
        return True
    where = target if target is not None else cwd
    return where == folder or RuleScope(folder).contains(where)


@record(frozen=True)
class MdcLink:
    """One `[text](mdc:path)` of a rule's body."""

    written: str  # the path as written after `mdc:`
    target: str | None  # workspace-relative; None when it leaves the workspace
    beside: str | None  # relative to the rule's folder instead (links are written both ways)
    span: Span  # of the written path

    def candidates(self) -> list[str]:
        """Where the linked file may be, the workspace-relative reading first."""
        return [p for p in dict.fromkeys((self.target, self.beside)) if p]


def mdc_links(ws: Workspace, key: str) -> list[MdcLink]:
    """The `mdc:` links of a rule's body, fenced code excluded."""
    cache_key = _LINKS.key(key)
    cached = ws.derived.get(cache_key)
    if cached is not None:
        return cached
    doc = ws.document(key)
    found: list[MdcLink] = []
    if not doc.unreadable:
        header = read_header(doc)
        folder = posixpath.dirname(key)
        fence: str | None = None
        for number in range(header.body_line, len(doc.lines)):
            line = doc.lines[number]
            opening = _FENCE.match(line)
            if opening:
                mark = opening.group(1)
                if fence is None:
                    fence = mark
                elif mark[0] == fence[0] and len(mark) >= len(fence):
                    fence = None
                continue
            if fence is not None:
                continue
            for match in _MDC_LINK.finditer(line):
                written = match.group(1)
                found.append(MdcLink(written, _resolve(written), _resolve(written, folder),
                                     Span.at(number, match.start(1) - 4, match.end(1))))
    ws.derived.put(cache_key, found, reads=(key,))
    return found


def _resolve(written: str, folder: str = "") -> str | None:
    path = written.split("#", 1)[0]
    if not path:
        return None
    normal = posixpath.normpath(path.lstrip("/") if path.startswith("/") or not folder
                                else posixpath.join(folder, path))
    if normal == ".." or normal.startswith("../"):
        return None
    return "" if normal == "." else normal
