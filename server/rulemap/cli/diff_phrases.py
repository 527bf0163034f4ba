"""How `rulemap diff` says what changed, in its text output and its Markdown comment alike:
the headline, whom a group's changes are for, where its files spread."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rulemap.host.diffing import Diff, Group

FILES_NAMED = 3  # a group of this many files or fewer names them instead of a directory
AREAS_SHOWN = 3
CHANGES_SHOWN = 20  # per group, in text and Markdown


def no_change(d: Diff) -> str:
    return (
        f"No difference: {', '.join(d.profiles)} load the same instructions for all "
        f"{d.files:,} files and at start-up, and `rulemap check` finds the same."
    )


def headline(d: Diff) -> str:
    """`412 of 20,612 files load something else (1 only in main, 3 only in HEAD)`."""
    parts = [f"{d.files_changed:,} of {d.files:,} files load something else"]
    if any(g.startup for g in d.groups):
        parts.append("the start-up load too")
    only = []
    if d.only_base:
        only.append(f"{d.only_base:,} only in {d.base}")
    if d.only_head:
        only.append(f"{d.only_head:,} only in {d.head}")
    line = "; ".join(parts)
    return f"{line} ({', '.join(only)})" if only else line


def where_of(g: Group) -> str:
    """Whom a group's changes are for: `412 files under packages/web/, and at start-up`."""
    if not g.files:
        return "at start-up (every session)"
    place = ", ".join(g.files) if len(g.files) <= FILES_NAMED else g.where.phrase()
    return f"{place}, and at start-up" if g.startup else place


def areas_of(g: Group) -> str:
    """`packages/web/src/ (300), packages/web/test/ (112)` when the files spread out."""
    areas = g.where.areas
    if len(g.files) <= FILES_NAMED or len(areas) < 2 or max(n for _, n in areas) < 2:
        return ""  # one place, or only single files: the title says it
    shown = ", ".join(f"{d} ({n:,})" for d, n in g.where.areas[:AREAS_SHOWN])
    rest = len(g.where.areas) - AREAS_SHOWN
    return shown + (", …" if rest > 0 else "")
