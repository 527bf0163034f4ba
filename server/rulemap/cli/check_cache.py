"""`rulemap check`'s result cache, the CLI's side of it: which runs the cache serves, the
cached report printed (or the warning that the cache is not used), and the run's streams
watched while a cold check prints (docs/checks.md, "The result cache").

The cache itself — its key, its entries, the snapshot a check after an edit resumes from —
is the host's (host/cache/). `lookup` runs before the parser (whose help texts import the
engine): a valid entry's report is printed and the engine never imported. Not cached:
`--fix`, `--diff`, `--statistics`, `--ref`, `--no-cache`, `$RULEMAP_NO_CACHE`, the listing
from git (`RULEMAP_GIT_LIST=1`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TextIO, cast

if TYPE_CHECKING:
    import argparse

    from rulemap.host.cache.check_results import CheckCache
    from rulemap.host.cache.recorded_check import Recorder
    from rulemap.host.cache.report_spool import Spool

# with one of these (or a prefix argparse takes for it) the cache is neither read nor written
UNCACHED = ("--no-cache", "--fix", "--diff", "--ref", "--statistics", "--help", "--version")

CACHE_HELP = (
    "check from scratch: neither read nor write the result cache. Without it, a repository "
    "whose files, configuration and arguments are unchanged since the last check gets that "
    "check's report again from $RULEMAP_CACHE_DIR, else $XDG_CACHE_HOME/rulemap (default "
    "~/.cache/rulemap), never a directory inside the workspace. --fix, --diff, --statistics "
    "and --ref never use it; RULEMAP_NO_CACHE=1 turns it off too"
)


def add_cache_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-cache", action="store_true", help=CACHE_HELP)


def uncached(argv: Sequence[str], env: Mapping[str, str]) -> bool:
    """Whether `rulemap ARGV` is no check the cache serves."""
    if not argv or argv[0] != "check":
        return True
    from rulemap.host.cache.directory import cache_off

    if cache_off(env):
        return True
    for arg in argv[1:]:
        name = arg.split("=", 1)[0]
        if arg == "-h" or (len(name) > 2 and name.startswith("--") and any(
            option.startswith(name) for option in UNCACHED
        )):
            return True
    return False


def lookup(argv: Sequence[str]) -> CheckCache | None:
    """`rulemap ARGV`'s cache (None: the run is no check the cache serves, and nothing of the
    host is imported): its report printed (`replayed`) when the entry of its key is still
    valid; nothing printed otherwise. Never raises for the cache's sake."""
    if uncached(argv, os.environ):
        return None
    from rulemap.cli.terminal import configure_output, guard_errors
    from rulemap.host.cache.check_results import CheckCache, cache_for, cached_report

    configure_output()
    guard_errors()
    cache = cache_for(argv, os.environ, sys.stdout)
    if not _private_directory(cache.directory):
        return CheckCache()
    found = cached_report(cache)
    if found is not None:
        text, cache.replayed = found
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except BrokenPipeError:
            cache.replayed = 0  # as a cold run: its reader has gone
        return cache
    from rulemap.host.cache.resume_snapshot import find

    cache.found = find(cache)
    return cache


def _private_directory(directory: str | None) -> bool:
    """Whether `directory` may hold the cache (the user's own, writable by no one else);
    else a warning, once, and the check runs without the cache."""
    from rulemap.host.cache.directory import problem, warning

    if directory is None:
        return False
    found = problem(directory)
    if found is None:
        return True
    print(f"rulemap: warning: {warning(directory, found, 'result cache')}", file=sys.stderr)
    return False


class _Watched:
    """A stream passed through: what is written to it is kept (`spool`) or just seen
    (`written`)."""

    def __init__(self, stream: TextIO, spool: Spool | None) -> None:
        self._stream = stream
        self.spool = spool
        self.written = False
        self.bypassed = False

    def write(self, text: str) -> int:
        self.written = self.written or bool(text)
        if self.spool is not None:
            self.spool.write(text)
        return self._stream.write(text)

    def __getattr__(self, name: str) -> Any:
        if name == "buffer":
            self.bypassed = True  # bytes written past us
        return getattr(self._stream, name)


@contextmanager
def record(
    cache: CheckCache | None, root: str | None, user_home: str | None
) -> Iterator[Recorder | None]:
    """Around a cold check: yields the host's `Recorder` (None when the run is not cached);
    the run calls `done(ws, code)` after printing its report, and the entry is written when
    it wrote nothing to stderr and nothing changed while it ran."""
    if cache is None or cache.key is None:
        yield None
        return
    from rulemap.host.cache.recorded_check import finish, start

    recorder = start(cache, root, user_home)
    if recorder is None:
        yield None
        return
    stdout, stderr = sys.stdout, sys.stderr
    out, err = _Watched(_beneath_guard(stdout), recorder.spool), _Watched(stderr, None)
    sys.stdout, sys.stderr = _guarded_as(stdout, out), cast(TextIO, err)
    try:
        yield recorder
    finally:
        sys.stdout, sys.stderr = stdout, stderr
    finish(cache, recorder, clean=not (err.written or out.bypassed))


def _beneath_guard(stream: TextIO) -> TextIO:
    """The stream below stdout's guard (cli/terminal.py): the report is kept as it was
    printed, escaped, and a hit prints it as it is."""
    from rulemap.cli.terminal import Guarded

    return stream.raw if isinstance(stream, Guarded) else stream


def _guarded_as(stream: TextIO, watched: _Watched) -> TextIO:
    from rulemap.cli.terminal import Guarded

    if isinstance(stream, Guarded):
        return cast(TextIO, Guarded(cast(TextIO, watched), stream.mode))
    return cast(TextIO, watched)
