"""A run replayed step by step (`rulemap session`, the server's `rulemap/session`), and the
one way both read a transcript file.

Where a transcript may be read from is decided here for both edges, before the file is even
looked at: a file the user names on the command line is theirs to read, unless it lies in the
workspace and is a symbolic link leading out of it (the repository chose where it points); the
server reads only from the workspace folder, the agents' own log directories and the
directories the user granted (`session/files.py`'s `transcript_places`). The edges word the
refusals themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from rulemap.host.snapshot import Snapshot, workspace_of
from rulemap.profiles.steps import Problem, SessionReplay, SessionStep, ToolStep
from rulemap.profiles.transcript import MAX_PATHS, NotATranscript, Parsed
from rulemap.records import record

__all__ = [
    "MAX_PATHS", "NotATranscript", "Parsed", "Problem", "SessionReplay", "SessionStep",
    "ToolStep", "TranscriptFile", "TranscriptRefused", "agent_log_places",
    "allowed_transcript", "may_read", "parse_steps", "parse_tokens", "read_transcript",
    "replay",
]

class TranscriptRefused(Exception):
    """The transcript's place is not one it may be read from (the file was not looked at)."""


def may_read(snap: Snapshot, where: str, named_by_user: bool) -> bool:
    """Whether the file at absolute `where` may be read as a log of a run: `named_by_user`
    (a command-line argument), anywhere but through a link in the workspace leading out of it
    to no place of `transcript_places`; else (a client's request) only in those places."""
    from rulemap.readers.base import is_within
    from rulemap.readers.host import real_path
    from rulemap.session.files import in_transcript_places

    ws = workspace_of(snap)
    if named_by_user:
        inside = is_within(where, ws.root) or is_within(where, real_path(ws.root))
        return not inside or in_transcript_places(ws, where)
    return in_transcript_places(ws, where)


@record(frozen=True)
class TranscriptFile:
    """A transcript file `may_read` allowed (`where`, absolute), and the workspace root its
    paths are taken relative to: all `read` needs, so that a long read holds no snapshot."""

    where: str
    root: str

    def read(self) -> Parsed | None:
        """Its steps, read a line at a time (None: no such file). Raises ReadError when it
        cannot be read (NotATranscript, one, when it mostly is not a transcript)."""
        from rulemap.session.files import parse_file

        return parse_file(self.where, self.root)


def allowed_transcript(snap: Snapshot, where: str, named_by_user: bool) -> TranscriptFile:
    """The transcript at absolute `where`, once `may_read` allows it; TranscriptRefused when
    it does not (the file is not looked at)."""
    if not may_read(snap, where, named_by_user):
        raise TranscriptRefused(where)
    return TranscriptFile(where, snap.root)


def read_transcript(snap: Snapshot, where: str, named_by_user: bool) -> Parsed | None:
    """`allowed_transcript(...).read()`: its steps, or TranscriptRefused, ReadError."""
    return allowed_transcript(snap, where, named_by_user).read()


def agent_log_places() -> list[str]:
    """Where the agents keep their session logs, as `~/…` (for messages)."""
    from rulemap.session.files import agent_log_places as places

    return places()


def parse_tokens(tokens: Iterable[str], root: str, base: str | None = None) -> Parsed:
    """`read:a.ts,b.ts edit:x.py` (paths relative to `base`) as steps."""
    from rulemap.session.transcripts import parse_tokens as parse

    return parse(tokens, root, base)


def parse_steps(data: object, root: str, base: str | None = None) -> Parsed:
    """A JSON list of `{kind, paths}` as steps."""
    from rulemap.session.transcripts import parse_steps as parse

    return parse(data, root, base)


def replay(
    snap: Snapshot,
    steps: Sequence[ToolStep],
    profile: str | None = None,
    cwd: str | None = None,
    problems: Iterable[Problem] = (),
    check: Callable[[], None] | None = None,
) -> SessionReplay:
    """The run of `steps` from `cwd` (None: the configured one) for `profile` (None: the
    configuration's), the input's `problems` carried along; `check` is called at every step
    (a cancelled request's token raises there). Raises UnknownProfile."""
    from rulemap.session.replay import replay as run

    return run(workspace_of(snap), steps, profile, cwd, problems, check)
