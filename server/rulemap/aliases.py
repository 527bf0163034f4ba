"""A file read under another name: the names of one real file (docs/reach.md, "A file read
under another name").

A `CLAUDE.md` that is a symlink to `AGENTS.md` is one text with two names. Every agent opens
the name it looks for and reads the text behind it (docs/profiles/*.md, "symlinks"), so the
answer to "does this agent read AGENTS.md" is about the text, not the path: Claude Code
reads it as `CLAUDE.md`. `reach`, `why`, `explain` and the editor's lens and hover ask here
which entry of a load holds the text of a file, and say how in the same words (`Through`).

Identity is the workspace's (`Workspace.identity`: the reader's real path); a file outside
the workspace (a user-level file, an absolute key) is matched by its path only.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from rulemap.records import record

if TYPE_CHECKING:
    from rulemap.model import Explanation, LoadedFile
    from rulemap.workspace import Workspace


@record(frozen=True)
class Through:
    """The other name an agent reads a file's text under: `path` (the name it reads) and
    `real` (the key of the one file both names lead to; either name, or a third)."""

    path: str
    asked: str  # the name the question was about
    real: str
    # "symlink": a name is itself a link (to the other, or both to a third); "linked-directory":
    # a directory on one name's way is (`.claude/rules -> ../shared/rules`)
    how: str = "symlink"

    def phrase(self) -> str:
        """"`CLAUDE.md` (a symlink to `AGENTS.md`)": the name read, and how it leads to the
        text asked about."""
        if self.how == "linked-directory":
            return f"`{self.path}` (the same file as `{self.asked}`, through a linked directory)"
        if self.real == self.asked:
            return f"`{self.path}` (a symlink to `{self.asked}`)"
        if self.real == self.path:
            return f"`{self.path}` (`{self.asked}` is a symlink to it)"
        return f"`{self.path}` (a symlink to `{self.real}`, as `{self.asked}` is)"

    def sentence(self) -> str:
        """"reads its text as `CLAUDE.md` (a symlink to `AGENTS.md`)": what every view says of
        an agent that reads the file asked about under this other name."""
        return f"reads its text as {self.phrase()}"

    def to_json(self) -> dict[str, object]:
        # `text`: the sentence, for a client to show as is
        return {"path": self.path, "how": self.how, "real": self.real, "text": self.sentence()}


def same_text(ws: Workspace, a: str, b: str) -> bool:
    """Whether the keys `a` and `b` name one file (a symlink and its target, or two links to
    one target); a key outside the workspace only by its path."""
    if a == b:
        return True
    if a.startswith("/") or b.startswith("/"):
        return False
    return ws.identity(a) == ws.identity(b)


def through(ws: Workspace, asked: str, read_as: str) -> Through | None:
    """How `read_as` leads to the text of `asked` (None: the same name)."""
    if read_as == asked:
        return None
    how = "symlink" if all(_plain_directory(ws, k) for k in (asked, read_as)) \
        else "linked-directory"
    return Through(read_as, asked, ws.canonical(asked), how)


def _plain_directory(ws: Workspace, key: str) -> bool:
    """Whether no symlink lies on the way to `key`'s directory (its own name may be one)."""
    directory = posixpath.dirname(key)
    return not directory or ws.canonical(directory) == directory


def entries_of(ws: Workspace, explanation: Explanation, key: str
               ) -> list[tuple[int, LoadedFile]]:
    """The entries of a load (index, file) that hold the text of `key`: by its own name
    first, then under its other names, each in load order."""
    own: list[tuple[int, LoadedFile]] = []
    other: list[tuple[int, LoadedFile]] = []
    for index, loaded in enumerate(explanation.files):
        if loaded.path == key:
            own.append((index, loaded))
        elif same_text(ws, loaded.path, key):
            other.append((index, loaded))
    return own + other


def left_out_as(ws: Workspace, explanation: Explanation, key: str) -> str | None:
    """The name under which a load leaves the text of `key` out over its budget (None: it
    does not)."""
    if key in explanation.left_out:
        return key
    return next((k for k in explanation.left_out if same_text(ws, k, key)), None)


def other_names(ws: Workspace, key: str, names: Iterable[str]) -> tuple[str, ...]:
    """Those of `names` (other than `key`) that name the file `key` names, sorted."""
    return tuple(sorted({n for n in names if n != key and same_text(ws, n, key)}))


def preferred(ws: Workspace, keys: Sequence[str]) -> str:
    """The name to speak of a file by among its names `keys`: the real file's (no symlink on
    its way) when it is one of them, else the first."""
    return next((k for k in keys if not k.startswith("/") and ws.canonical(k) == k), keys[0])
