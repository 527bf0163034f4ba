"""The line every command prints to say which agents it answered for and why each was
selected: `agents: cogitator (the default model), claude-code (CLAUDE.md)`.

Text output prints it on stderr (`say_agents`; `check` puts it in its summary, which the
result cache replays); JSON carries the same as data (`agents_json`, a `"selection"` key). The
selection itself is the host's (`rulemap.host.selection`), one decision for every command,
the server and the extension.
"""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO

from rulemap.host import Snapshot

_MIN_WIDTH = 40  # narrower than this, wrapping stops helping
_DEFAULT_WIDTH = 80


def agents_line(snap: Snapshot, width: int | None) -> str:
    """`agents: NAME (WHY), …` for the workspace's selection, wrapped at `width` (None: one
    line) with no word broken: an agent's name and a file name stay whole, continuation lines
    indented."""
    from rulemap.host.selection import selection
    from rulemap.host.text import printable

    parts = [f"{c.name} ({printable(c.why)})" for c in selection(snap)]
    line = "agents: " + ", ".join(parts)
    if width is None:
        return line
    from rulemap.cli.fitting import wrap

    # a file name too long for a line loses its middle (`tests/…/CONTEXT.md`), never broken
    return "\n".join(wrap(line, max(width, _MIN_WIDTH), hang="  "))


def platform_json(snap: Snapshot) -> str:
    """The platform the answer assumed (`--platform`, else the configuration's, else the
    host's): JSON's `"platform"` key, beside `"selection"`."""
    from rulemap.host.selection import assumed_platform

    return assumed_platform(snap)


def agents_json(snap: Snapshot) -> list[dict[str, str]]:
    """The selection as JSON data: `[{"name", "title", "why"}]`."""
    from rulemap.host.selection import selection_json
    from rulemap.host.text import printable

    return [{k: printable(v) for k, v in c.items()} for c in selection_json(snap)]


def message_width(stream: TextIO | None = None) -> int:
    """How wide a message for a person may run: $COLUMNS, else the terminal's when `stream`
    (stderr) is one, else 80."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return max(int(columns), _MIN_WIDTH)
    stream = stream or sys.stderr
    try:
        if stream.isatty():
            return max(os.get_terminal_size(stream.fileno()).columns, _MIN_WIDTH)
    except (AttributeError, ValueError, OSError):
        pass
    return _DEFAULT_WIDTH


def say_agents(snap: Snapshot, stream: TextIO | None = None) -> None:
    """Print the agents line on stderr (or `stream`) for a person reading text output."""
    stream = stream or sys.stderr
    print(agents_line(snap, message_width(stream)), file=stream)


def say_note(note: str | None, stream: TextIO | None = None) -> None:
    """Print a note (`lead_agent`'s, naming the agent to pick) on stderr, wrapped."""
    if note is None:
        return
    stream = stream or sys.stderr
    from rulemap.cli.fitting import wrap

    lines = wrap("note: " + note, message_width(stream), hang="  ")
    print("\n".join(lines), file=stream)


def with_agents(snap: Snapshot, data: Any) -> Any:
    """`data` (a JSON object) with the selection as its `"selection"` key, first, and the
    platform assumed as `"platform"` — the same keys in every command's JSON (`reach` and
    `why` already use `"agents"` for their answer per agent); any other value as it is."""
    if not isinstance(data, dict):
        return data
    return {"selection": agents_json(snap), "platform": platform_json(snap), **data}
