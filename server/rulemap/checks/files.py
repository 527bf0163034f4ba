"""File-level checks: unreadable files, files with nothing to bring, links that lead to no
file, and names that are not valid UTF-8."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from rulemap.model import Finding, Span
from rulemap.profiles.base import empty_file, unreadable_file
from rulemap.readers.base import is_within
from rulemap.text.names import is_undecodable

if TYPE_CHECKING:
    from rulemap.workspace import Workspace


def check(ws: Workspace) -> list[Finding]:
    out: list[Finding] = []
    for path in ws.lint_documents():
        if is_undecodable(path):
            out.append(_undecodable_name(path))
        doc = ws.document(path)
        if doc.unreadable:
            out.append(unreadable_file(path, doc.unreadable, "The loader skips it."))
            continue
        if not doc.brought.strip() and doc.rule_skip is None:
            what = "rule" if doc.is_rule else "instruction file"
            detail = " (only frontmatter or comments)" if doc.text.strip() else ""
            out.append(empty_file(path, doc.lines[0], f"{what} brings no instructions{detail}"))
    out.extend(_dangling(ws))
    return out


def _undecodable_name(path: str) -> Finding:
    """A file whose path is not valid UTF-8. It loads, but every output shows it escaped
    (rulemap.text.names), so say why the name looks odd, and that it is fragile."""
    return Finding(
        path, Span.at(0, 0), "warning", "non-utf8-name",
        f"the name `{path}` is not valid UTF-8, so it is shown with a `\\xNN` escape for each "
        "bad byte (SARIF and editor URIs carry the exact bytes). Some tools cannot open such a "
        "name and some file systems (macOS) refuse it: rename it",
    )


def _dangling(ws: Workspace) -> list[Finding]:
    """Broken symlinks where the loader looks: an instruction file, a rules directory or a rule.
    A link whose target does not exist, or a symlink loop (a link that leads back to itself,
    directly or through others): readers list both as dangling."""
    out: list[Finding] = []
    links = dict(ws.reader.dangling_links())
    for path, target in links.items():
        rules_dir = ws.layout.is_rules_dir(path)
        in_rules = ws.layout.rule_scope(path) is not None
        if not (rules_dir or in_rules or ws.instruction_dir(path) is not None):
            continue
        what = "no rule in it loads" if rules_dir else "the loader skips it"
        loop = _loop(path, links, (ws.root, ws.real_root))
        if loop is not None:
            chain = " -> ".join(f"`{step}`" for step in loop)
            message = (
                f"`{path}` is a symlink loop ({chain}): it never reaches a file, so {what}. "
                "Point the link at a file or remove it"
            )
        else:
            message = (
                f"`{path}` is a symlink to `{target}`, which does not exist: {what}. Fix or "
                "remove the link"
            )
        out.append(Finding(path, Span.at(0, 0), "warning", "unreadable-file", message))
    return out


def _loop(path: str, links: dict[str, str], roots: tuple[str, ...]) -> list[str] | None:
    """`path` and the targets (as written) of the links followed until one comes back, if
    following `path` loops; None when it ends at something that is not a listed link (a target
    that does not exist). Resolved lexically over the links the walk found dangling: every link
    of a loop leads to no file, so a walk that met them listed them all, and this needs no file
    system and tells a loop the same way whichever reader (working tree, git ref) listed it.
    An absolute target counts when it lies in the workspace (`roots`: as spelled, and real)."""
    chain = [path]
    followed: set[str] = set()
    current = path
    while True:
        parts = current.split("/")
        # the first component on the way that is a listed link: it is followed first
        for end in range(1, len(parts) + 1):
            link = "/".join(parts[:end])
            if link in links:
                break
        else:
            return None
        if link in followed:
            return chain
        followed.add(link)
        target = links[link]
        chain.append(target)
        if target.startswith("/"):
            target = posixpath.normpath(target)
            root = next((r for r in roots if is_within(target, r) and target != r), None)
            if root is None:
                return None  # out of the workspace: not a loop that we can see
            base = target[len(root) :].lstrip("/")
        else:
            base = posixpath.join(posixpath.dirname(link), target)
        current = posixpath.normpath(posixpath.join(base, *parts[end:]))
        if current == ".." or current.startswith("../"):
            return None
