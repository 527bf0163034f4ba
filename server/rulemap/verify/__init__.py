"""`rulemap verify LOG` (docs/verify.md): what an agent really loaded, from the log it writes,
against what Rulemap predicts, step by step.

`read_load_log` reads the log through `readers/host.py`; `parse_load_log` tells its format apart by
content (each profile declares its own: `Profile.load_log_format`) and reads it into a
`LoadLog`; `compare.verify_log` gives the `Verification`. Nothing the log holds is quoted in
a message: a `LoadLogError` names its line and the kind of problem.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import replace

from rulemap.profiles import PROFILES, UnknownProfile
from rulemap.profiles.load_log import LoadLog, LoadLogError, LogLine, LogLines, log_text
from rulemap.readers.base import ReadError
from rulemap.readers.host import read_user_file
from rulemap.records import record
from rulemap.verify.compare import verify_log
from rulemap.verify.result import Apart, Row, Verification

MAX_LOG_BYTES = 64 * 1024 * 1024  # read whole; hook logs and prompts are far smaller
MAX_LINE_BYTES = 8 * 1024 * 1024


@record(frozen=True)
class LogFormat:
    """A format `rulemap verify` reads, for help: its agent, what it is, how to get one, and
    where it is documented."""

    agent: str
    what: str
    example: str
    how: str
    source: str


def log_formats() -> tuple[LogFormat, ...]:
    return tuple(LogFormat(p.name, f.what, f.example, f.how, f.source)
                 for p in PROFILES.values() if (f := p.load_log_format) is not None)


def read_load_log(path: str) -> LogLines | None:
    """The log at absolute `path`, its numbered lines with their endings (None: no such
    file); ReadError when it cannot be read, LoadLogError naming a line over the line limit.
    Read whole (it is at most MAX_LOG_BYTES) and split into lines only as they are read: a
    log of millions of short lines is given up at its first bad one without ever being held
    a line at a time."""
    data = read_user_file(path, MAX_LOG_BYTES)
    if data is None:
        return None
    long = _long_line(data, MAX_LINE_BYTES)
    if long is not None:
        raise LoadLogError(long, f"a line longer than {MAX_LINE_BYTES // (1024 * 1024)} MiB")
    # split at b"\n" or decoded whole: the same lines (UTF-8 never uses that byte in a
    # character), undecodable bytes replaced
    return LogLines(data.decode("utf-8", errors="replace"))


def _long_line(data: bytes, limit: int) -> int | None:
    """The number of the first line of `data` longer than `limit` bytes (its line ending
    aside), or None: found by a few searches a window of `limit` bytes, not a look at every
    line."""
    start = 0  # the start of a line
    while len(data) - start > limit:
        end = data.rfind(b"\n", start, start + limit + 1)
        if end < 0:
            return data.count(b"\n", 0, start) + 1
        start = end + 1
    return None


def parse_load_log(lines: Iterable[LogLine], profile: str | None = None) -> LoadLog:
    """The log in its agent's format: the one `profile` names, else the first whose
    `detect` accepts the text. UnknownProfile for a name no agent has; LoadLogError when no
    format fits or the log breaks its format (naming the line)."""
    text = log_text(lines)
    if profile is not None:
        chosen = PROFILES.get(profile)
        if chosen is None:
            raise UnknownProfile(f"unknown profile `{profile}`; available: "
                                 f"{', '.join(PROFILES)}")
        if chosen.load_log_format is None:
            readable = ", ".join(f.agent for f in log_formats())
            raise LoadLogError(None, f"Rulemap reads no load log of {chosen.title}; it reads "
                                     f"those of: {readable}")
        if not chosen.load_log_format.detect(text):
            raise LoadLogError(None, f"not {chosen.load_log_format.what}")
        return chosen.load_log_format.read(lines)
    if not text.strip():
        raise LoadLogError(None, "the log is empty")
    for candidate in PROFILES.values():
        fmt = candidate.load_log_format
        if fmt is not None and fmt.detect(text):
            return fmt.read(lines)
    kinds = "; ".join(f.what for f in log_formats())
    raise LoadLogError(None, f"not a log Rulemap reads ({kinds}); pass --profile to say "
                             "whose it is")


def rebased(log: LoadLog, recorded: str, root: str) -> LoadLog:
    """`log` as if recorded with the project at `root`: every logged path under `recorded`
    (where the project was when the agent ran: another machine, a container, another
    checkout) is moved under `root`; other paths stay as logged."""
    old = posixpath.normpath(recorded.replace("\\", "/")).rstrip("/") or "/"
    new = posixpath.normpath(root).rstrip("/") or "/"

    def move(path: str | None) -> str | None:
        if path is None:
            return None
        norm = posixpath.normpath(path.replace("\\", "/"))
        if norm == old:
            return new
        if norm.startswith(old.rstrip("/") + "/"):
            return new.rstrip("/") + "/" + norm[len(old.rstrip("/")) + 1:]
        return path

    return replace(
        log,
        loads=[replace(load, path=move(load.path), parent=move(load.parent))
               for load in log.loads],
        triggers=[move(t) or t for t in log.triggers],
        cwd=move(log.cwd),
    )


__all__ = [
    "Apart", "LoadLog", "LoadLogError", "LogFormat", "ReadError", "Row", "UnknownProfile",
    "Verification", "log_formats", "parse_load_log", "read_load_log", "rebased", "verify_log",
]
