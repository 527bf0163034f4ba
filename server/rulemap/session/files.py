"""A transcript file, for the edges (`rulemap session --file`, the server's `rulemap/session`):
where one may be read from, and reading it a line at a time into steps.

The file is opened through `readers/host.py` (no disk access outside `readers/`), read as a
stream (`transcripts.parse_stream`: bounded memory whatever its size), and nothing it holds is
ever quoted in a message: a `ReadError` says why it cannot be read (size, kind, permission).
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from rulemap.profiles import PROFILES
from rulemap.readers.base import ReadError, is_within
from rulemap.readers.host import home_dir, open_text_lines, real_path
from rulemap.session.transcripts import MAX_LINE_BYTES, NotATranscript, Parsed, parse_stream

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024  # session logs of long runs reach tens of MB


def transcript_places(ws: Workspace) -> list[str]:
    """The real directories a transcript may be read from when its own path does not settle it
    (the language server's `rulemap/session`; a link inside the workspace for `--file`): the
    workspace, where the agents keep their session logs under the home directory (each
    profile's `transcript_format.log_dirs`, such as Claude Code's `~/.claude/projects`: the
    user's own agent writes there, no repository chooses it), and the directories the user
    granted with `allowImportsFrom` (never the repository's: `ws.allowed` is the user's grant
    only)."""
    home = home_dir()
    logs = [posixpath.join(home, d) for p in PROFILES.values() if p.transcript_format
            for d in p.transcript_format.log_dirs]
    places = [ws.root, *logs, *ws.allowed]
    return [real_path(place) for place in places]


def agent_log_places() -> list[str]:
    """Where the agents keep their session logs, as `~/…` (for messages)."""
    return [f"~/{d}" for p in PROFILES.values() if p.transcript_format
            for d in p.transcript_format.log_dirs]


def in_transcript_places(ws: Workspace, path: str) -> bool:
    """Whether `path`, every symlink resolved, lies in one of `transcript_places`."""
    real = real_path(path)
    return any(is_within(real, place) for place in transcript_places(ws))


def parse_file(path: str, root: str) -> Parsed | None:
    """The steps of the transcript at absolute `path` (None: no such file), read a line at a
    time; ReadError when it cannot be read, NotATranscript (one) when it is mostly not a
    transcript (docs/sessions.md, "Junk: given up early")."""
    lines = open_text_lines(path, MAX_LINE_BYTES, MAX_TRANSCRIPT_BYTES)
    if lines is None:
        return None
    with lines:
        return parse_stream(lines, root)


__all__ = ["MAX_TRANSCRIPT_BYTES", "NotATranscript", "ReadError", "agent_log_places",
           "in_transcript_places", "parse_file", "transcript_places"]
