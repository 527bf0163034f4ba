"""What the CLI's tables and reports print, fitted to the width (issue 36, item 5): no line
over it, no trailing blank, no word broken mid-token. A path too long for its room loses the
middle of its directories, then of its name (`packages/…/AGENTS.md`, `a-long…name.md`):
shortened, never broken. rich pads every cell and title to the table's width; `trimmed`
takes those blanks off what a console printed."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

ELLIPSIS = "…"

# trailing blanks, and the styles around them (rich resets its style after the padding)
_TRAILING = re.compile("(?:[ ]|\x1b\\[[0-9;]*m)+$")


def shorten_middle(path: str, width: int) -> str:
    """`path` in at most `width` characters: the directories lose their middle
    (`src/…/AGENTS.md`, `pkg/a…/AGENTS.md`); when the file name alone does not fit, its own
    middle goes, the extension kept (`a-long…name.md`)."""
    if len(path) <= width:
        return path
    slash = path.rfind("/")
    name = path[slash + 1 :]
    directories = path[: slash + 1]
    if slash < 0 or len(name) <= width < len(name) + len(ELLIPSIS) + 1:
        return _shorten_name(name, width)  # no directory, or the name alone just fits
    if len(name) > width:
        # the name itself too long: its middle goes too, the directories' absence still shown
        room = width - len(ELLIPSIS) - 1
        return ELLIPSIS + "/" + _shorten_name(name, room) if room >= 8 else _shorten_name(
            name, width)
    room = width - len(name) - len(ELLIPSIS) - 1  # what is left of the directories' head
    if room <= 0:
        return ELLIPSIS + "/" + name
    head = directories[:room]
    # cut at a directory boundary when one is near, so the head reads as whole names
    boundary = head.rfind("/")
    if boundary >= room // 2:
        head = head[: boundary + 1]
    return head + ELLIPSIS + "/" + name


def _shorten_name(name: str, width: int) -> str:
    if len(name) <= width:
        return name
    if width <= len(ELLIPSIS):
        return ELLIPSIS
    dot = name.rfind(".")
    tail = name[dot:] if dot > 0 and len(name) - dot <= width // 3 else ""
    keep = width - len(ELLIPSIS) - len(tail)
    front = (keep + 1) // 2
    back = keep - front
    stem = name[: len(name) - len(tail)]
    return stem[:front] + ELLIPSIS + (stem[len(stem) - back :] if back else "") + tail


def fit_token(token: str, room: int) -> str:
    """A word of a message (`packages/a/b/CLAUDE.md`, in backticks or followed by a comma)
    too long for `room`: its path shortened in the middle, the quoting and punctuation
    around it kept."""
    if len(token) <= room:
        return token
    match = re.fullmatch(r"([`'\"(]*)(.*?)([`'\")\].,:;]*)", token)
    assert match is not None  # every string matches
    before, core, after = match.groups()
    inner = room - len(before) - len(after)
    if inner < 4:
        return token
    return before + shorten_middle(core, inner) + after


def fit_words(text: str, room: int) -> str:
    """`text` with each word longer than `room` shortened (`fit_token`)."""
    if all(len(word) <= room for word in text.split()):
        return text
    return " ".join(fit_token(word, room) for word in text.split(" "))


def wrap(text: str, width: int, indent: str = "", hang: str = "  ") -> list[str]:
    """`text` broken at spaces into lines of at most `width`, a word too long for a line
    shortened instead of broken."""
    room = width - max(len(indent), len(hang))
    return textwrap.wrap(
        fit_words(text, room), width, initial_indent=indent, subsequent_indent=hang,
        break_long_words=False, break_on_hyphens=False,
    ) or [indent.rstrip()]


def trim(text: str) -> str:
    """Each line of `text` without its trailing blanks (a style reset kept when blanks that
    followed a style are dropped)."""
    lines = text.split("\n")
    out = []
    for line in lines:
        match = _TRAILING.search(line)
        if match is None:
            out.append(line)
            continue
        kept = line[: match.start()]
        out.append(kept + ("\x1b[0m" if "\x1b" in match.group() and "\x1b" in kept else ""))
    return "\n".join(out)


@contextmanager
def trimmed(console: Any) -> Iterator[None]:
    """What `console` prints inside, written at the end without trailing blanks."""
    with console.capture() as capture:
        yield
    console.file.write(trim(capture.get()))
    console.file.flush()
