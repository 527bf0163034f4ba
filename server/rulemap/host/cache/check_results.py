"""`rulemap check`'s result cache, like ruff's and mypy's: an unchanged repository's report
given back without checking it (docs/checks.md, "The result cache").

A whole-run cache. Before the parser (whose help texts import the engine), the CLI asks
`cached_report` for the run's key — what decides its output besides the files: Rulemap's
version and code, Python and the installed packages, the current directory, `check`'s
arguments as typed, the environment it reads, the terminal — and that key's entry: the
questions the last such run asked the disk with their answers (readers/recording.py), its
stdout and exit code. When every question has the same answer now (readers/check_store.py),
the stdout is the report and the engine is never imported. Otherwise the check runs as always
with its questions recorded (recorded_check.py), and the entry is replaced (`store`). Any
doubt is a miss: an entry unreadable, corrupt, truncated, of another format or key; a run that
wrote to stderr or changed a file while it looked. A check whose entry no longer holds resumes
from the snapshot of the last whole check when only a few documents changed since
(resume_snapshot.py).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import suppress
from typing import TYPE_CHECKING, Any, TextIO

from rulemap.host.cache.directory import ENV_READ, cache_dir, entry_name

if TYPE_CHECKING:
    from rulemap.host.cache.resume_snapshot import Found
    from rulemap.readers.recording import Recording

# An entry is a line of JSON (the format, key, record and exit code, and the report's length in
# bytes), then the report itself as UTF-8: kept raw rather than as a JSON string, which made an
# 8 MB report 10 MB of escapes and held three copies of it at once while written and read.
FORMAT = "rulemap-check-cache/4"
# the report as written, lone surrogates included (a stream's error handler deals with them)
SURROGATES = "surrogatepass"


class CheckCache:
    """One `rulemap check`'s use of the cache: where its entry goes (`directory`, None:
    nowhere) and its `key`; whether an entry of that key was there (`repeated`: the check
    leaves a snapshot), and the snapshot it can resume from (`found`). `replayed` is the exit
    code of the cached report when the edge gave it back; `detach`, set by `rulemap`'s own
    entry point, which exits after the report: the snapshot is then written by a child process
    (a caller in the same process gets it written in place)."""

    def __init__(self, directory: str | None = None, key: dict[str, Any] | None = None) -> None:
        self.directory = directory
        self.key = key
        self.replayed: int | None = None
        self.repeated = False
        self.found: Found | None = None
        self.resumed = False  # the check resumed from `found`
        self.detach = False

    def entry_name(self) -> str:
        assert self.key is not None
        return entry_name(self.key)


def cache_for(argv: Sequence[str], env: Mapping[str, str], stdout: TextIO) -> CheckCache:
    """The cache of `rulemap ARGV` printing to `stdout`: its directory and key (a cache of
    neither when they cannot be had)."""
    try:
        return CheckCache(cache_dir(env), cache_key(argv, env, stdout))
    except Exception:
        return CheckCache()


def cache_key(argv: Sequence[str], env: Mapping[str, str], out: TextIO) -> dict[str, Any]:
    import rulemap
    from rulemap.readers import check_store

    tty = bool(getattr(out, "isatty", lambda: False)())
    columns = None
    if tty:
        with suppress(AttributeError, ValueError, OSError):
            columns = os.get_terminal_size(out.fileno()).columns
    return {
        "format": FORMAT,
        "version": rulemap.__version__,
        "code": check_store.code_fingerprint(os.path.dirname(os.path.abspath(rulemap.__file__))),
        "python": [sys.version, sys.executable, *check_store.installed_signatures()],
        "cwd": os.getcwd(),
        "user": getattr(os, "getuid", lambda: -1)(),
        "argv": list(argv),
        "env": {name: env.get(name) for name in ENV_READ},
        "stdout": [tty, columns, getattr(out, "encoding", None), getattr(out, "errors", None)],
    }


def cached_report(cache: CheckCache) -> tuple[str, int] | None:
    """The report and exit code of `cache`'s entry when every question its check asked has
    the same answer now; None otherwise (never raises: an entry in doubt is a miss)."""
    try:
        return _valid_entry(cache)
    except Exception:  # unreadable, corrupt, truncated, of another shape: a miss, rewritten
        return None


def _valid_entry(cache: CheckCache) -> tuple[str, int] | None:
    import json

    from rulemap.readers import cache_entries, check_store

    assert cache.directory is not None
    data = cache_entries.read_entry(cache.directory, cache.entry_name())
    if data is None:
        return None
    cache.repeated = True
    end = data.find(b"\n")
    if end < 0:
        return None  # no header line: truncated
    entry = json.loads(data[:end])
    report = memoryview(data)[end + 1:]  # not a copy
    if not isinstance(entry, dict) or entry.get("format") != FORMAT:
        return None
    if entry.get("key") != cache.key or check_store.inside(cache.directory, entry["root"]):
        return None
    code, size = entry["code"], entry["stdout_bytes"]
    if type(code) is not int or size != len(report):  # truncated, or more: a miss
        return None
    if not check_store.still_valid(entry["record"], entry["start_ns"]):
        return None
    return str(report, "utf-8", SURROGATES), code


def store(
    cache: CheckCache, root: str, report: Iterator[bytes], size: int, code: int,
    recording: Recording,
) -> None:
    """Write `cache`'s entry: the check of `root` printed `report` (`size` bytes, in chunks)
    and exited `code`, having asked the disk what `recording` holds."""
    import itertools
    import json

    from rulemap.readers import cache_entries, check_store

    assert cache.directory is not None
    if check_store.inside(cache.directory, root):
        return  # never in the repository: its own listing would change, or it could ship one
    entry = {
        "format": FORMAT, "key": cache.key, "root": root, "start_ns": recording.start_ns,
        "code": code, "stdout_bytes": size,
    }
    # the header line written as it is made: the record a section at a time (ASCII: the
    # JSON escapes every other character)
    opening = json.dumps(entry, separators=(",", ":"))[:-1] + ',"record":'
    head = itertools.chain((opening,), recording.json_pieces(), ("}\n",))
    cache_entries.write_entry(cache.directory, cache.entry_name(),
                              itertools.chain((p.encode("ascii") for p in head), report))
