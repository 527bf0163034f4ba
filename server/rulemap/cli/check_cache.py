"""`rulemap check`'s result cache, like ruff's and mypy's: an unchanged repository's report
printed again without checking it (docs/checks.md, "The result cache").

A whole-run cache. `lookup`, before the parser (whose help texts import the engine), keys the
run by what decides its output besides the files — Rulemap's version and code, Python and the
installed packages, the current directory, `check`'s arguments as typed, the environment it
reads, the terminal — and reads that key's entry: the questions the last such run asked the
disk with their answers (readers/recording.py), its stdout and exit code. When every question
has the same answer now (readers/check_store.py), the stdout is printed and the engine never
imported. Otherwise the check runs as always (`record`) with its questions recorded, and the
entry is replaced. Any doubt is a miss: an entry unreadable, corrupt, truncated, of another
format or key; a run that wrote to stderr or changed a file while it looked. Not cached:
`--fix`, `--diff`, `--statistics`, `--ref`, `--no-cache`, `$RULEMAP_NO_CACHE`, the listing
from git (`RULEMAP_GIT_LIST=1`).
A check whose entry no longer holds resumes from the snapshot of the last whole check when
only a few documents changed since (cli/check_resume.py).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO, cast

if TYPE_CHECKING:
    import argparse

    from rulemap.cli.check_resume import Found
    from rulemap.host.commands import OpenWorkspace
    from rulemap.readers.base import WalkingReader
    from rulemap.readers.recording import Recording

# An entry is a line of JSON (the format, key, record and exit code, and the report's length in
# bytes), then the report itself as UTF-8: kept raw rather than as a JSON string, which made an
# 8 MB report 10 MB of escapes and held three copies of it at once while written and read.
FORMAT = "rulemap-check-cache/4"
DIR_ENV = "RULEMAP_CACHE_DIR"
OFF_ENV = "RULEMAP_NO_CACHE"
# what a check reads from the environment, besides the cache's own variables
ENV_READ = (
    "HOME", "XDG_CONFIG_HOME", "RULEMAP_CONFIG", "COLUMNS", "RULEMAP_GIT_LIST",
    "RULEMAP_GIT_TIMEOUT",
)
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


class CheckCache:
    """One `rulemap check`'s use of the cache: `replayed`, its exit code when the cached report
    was printed; else where its entry goes (`directory`, None: nowhere) and its `key`, whether
    an entry of that key was there (`repeated`: the check leaves a snapshot), and the snapshot
    it can resume from (`found`, cli/check_resume.py)."""

    def __init__(self, directory: str | None = None, key: dict[str, Any] | None = None) -> None:
        self.directory = directory
        self.key = key
        self.replayed: int | None = None
        self.repeated = False
        self.found: Found | None = None
        self.resumed = False  # the check resumed from `found`
        # leave the snapshot from a child process after the report (`rulemap`'s own entry
        # point, which exits next; a caller in the same process gets it written in place)
        self.detach = False

    def entry_name(self) -> str:
        import json

        from rulemap.readers.cache_entries import entry_name
        from rulemap.readers.check_store import digest

        return entry_name(digest(json.dumps(self.key, sort_keys=True).encode("ascii")))


def cache_dir(env: Mapping[str, str]) -> str:
    """$RULEMAP_CACHE_DIR, else $XDG_CACHE_HOME/rulemap (absolute, as XDG wants), else
    ~/.cache/rulemap."""
    explicit = env.get(DIR_ENV)
    if explicit:
        return os.path.abspath(os.path.expanduser(explicit))
    base = env.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "rulemap")


def cache_off(env: Mapping[str, str]) -> bool:
    """Whether the environment turns the cache off: RULEMAP_NO_CACHE, or the listing from
    git (RULEMAP_GIT_LIST), which depends on git's index, which no entry records. The
    language server's start cache asks the same (lsp/start_cache.py)."""
    return (env.get(OFF_ENV, "") not in ("", "0")
            or env.get("RULEMAP_GIT_LIST", "").strip() not in ("", "0"))


def uncached(argv: Sequence[str], env: Mapping[str, str]) -> bool:
    """Whether `rulemap ARGV` is no check the cache serves."""
    if not argv or argv[0] != "check" or cache_off(env):
        return True
    for arg in argv[1:]:
        name = arg.split("=", 1)[0]
        if arg == "-h" or (len(name) > 2 and name.startswith("--") and any(
            option.startswith(name) for option in UNCACHED
        )):
            return True
    return False


def lookup(argv: Sequence[str]) -> CheckCache:
    """`rulemap ARGV`'s cache: its report printed (`replayed`) when the entry of its key is
    still valid; nothing printed otherwise. Never raises for the cache's sake."""
    if uncached(argv, os.environ):
        return CheckCache()
    from rulemap.cli.main import configure_output
    from rulemap.cli.terminal import guard_errors

    configure_output()
    guard_errors()
    try:
        cache = CheckCache(cache_dir(os.environ), cache_key(argv, os.environ))
    except Exception:
        return CheckCache()
    if not _private_directory(cache.directory):
        return CheckCache()
    try:
        found = _valid_entry(cache)
    except Exception:  # unreadable, corrupt, truncated, of another shape: a miss, rewritten
        found = None
    if found is not None:
        text, cache.replayed = found
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except BrokenPipeError:
            cache.replayed = 0  # as a cold run: its reader has gone
        return cache
    from rulemap.cli import check_resume

    cache.found = check_resume.find(cache)
    return cache


def _private_directory(directory: str | None) -> bool:
    """Whether `directory` may hold the cache (the user's own, writable by no one else);
    else a warning, once, and the check runs without the cache."""
    from rulemap.readers.cache_entries import directory_problem, not_used

    if directory is None:
        return False
    problem = directory_problem(directory)
    if problem is None:
        return True
    print(f"rulemap: warning: {not_used(directory, problem, 'result cache', DIR_ENV)}",
          file=sys.stderr)
    return False


def cache_key(argv: Sequence[str], env: Mapping[str, str]) -> dict[str, Any]:
    import rulemap
    from rulemap.readers import check_store

    out = sys.stdout
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
    return str(report, "utf-8", _SURROGATES), code


# the report as written, lone surrogates included (a stream's error handler deals with them)
_SURROGATES = "surrogatepass"


class Spool:
    """What a check printed, for its entry: encoded as it is written into an unnamed
    temporary file rather than kept (an 8 MB report held until the entry was written, with
    the whole workspace still in memory). `lost` when the file could not be made or written:
    the run is then not stored."""

    _CHUNK = 1 << 20

    def __init__(self) -> None:
        self._file: BinaryIO | None = None
        self.size = 0
        self.lost = False

    def write(self, text: str) -> None:
        if self.lost or not text:
            return
        data = text.encode("utf-8", _SURROGATES)
        try:
            if self._file is None:
                import tempfile  # only a check that prints: not a hit's start-up

                self._file = tempfile.TemporaryFile()  # noqa: SIM115 (closed by `close`)
            self._file.write(data)
        except OSError:
            self.lost = True
            return
        self.size += len(data)

    def chunks(self) -> Iterator[bytes]:
        """What was written, from the start."""
        if self._file is None:
            return
        self._file.seek(0)
        while chunk := self._file.read(self._CHUNK):
            yield chunk

    def close(self) -> None:
        if self._file is not None:
            self._file.close()


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


class Recorder:
    """A check's recording: readers that note what they are asked (`wrap`), and what the
    run printed its report for (`done`); `workspace`, when the check resumes from a snapshot
    (its reader records into `recording`); `snapshot`, whether the check leaves one."""

    def __init__(self, recording: Recording, workspace: OpenWorkspace | None = None) -> None:
        self.recording = recording
        self.workspace = workspace
        self.snapshot = False
        self.checked: OpenWorkspace | None = None
        self.root: str | None = None
        self.code: int | None = None

    def wrap(self, factory: object, root: str) -> Callable[[str, tuple[str, ...]], WalkingReader]:
        """For `open_workspace(wrap=)`, whose factory is the local disk's: the recording
        reader in its place."""
        return self.recording.reader

    def done(self, ws: OpenWorkspace, code: int) -> None:
        self.checked, self.root, self.code = ws, ws.root, code


@contextmanager
def record(
    cache: CheckCache | None, root: str | None, user_home: str | None
) -> Iterator[Recorder | None]:
    """Around a cold check: yields a `Recorder` (None when the run is not cached); the run
    calls `done(root, code)` after printing its report, and the entry is written when it
    wrote nothing to stderr and nothing changed while it ran."""
    if cache is None or cache.key is None or cache.directory is None:
        yield None
        return
    recorder = _recorder(cache, root, user_home)
    recording = recorder.recording
    spool = Spool()
    stdout, stderr = sys.stdout, sys.stderr
    out, err = _Watched(_beneath_guard(stdout), spool), _Watched(stderr, None)
    sys.stdout, sys.stderr = _guarded_as(stdout, out), cast(TextIO, err)
    try:
        yield recorder
    finally:
        sys.stdout, sys.stderr = stdout, stderr
    try:
        if recorder.root is None or recorder.code is None:
            return  # it did not get to print its report
        if err.written or out.bypassed or spool.lost or not recording.usable:
            return
        _store(cache, recorder.root, spool, recorder.code, recording)
    finally:
        spool.close()
    if recorder.snapshot and recorder.checked is not None:
        _leave_snapshot(cache, recorder.checked, recording)


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


def _leave_snapshot(cache: CheckCache, ws: OpenWorkspace, recording: Recording) -> None:
    """Write the snapshot of the check just reported. From `rulemap`'s entry point, in a
    child process at a lower priority: hashing the listings, pickling and writing take a third
    to nearly all of a whole check's time again (benchmarks/README.md, "A check after an
    edit"), which the user does not wait for; the child lets go of the terminal and the
    output first, so a pipe's reader sees the end of the report when the check exits."""
    from rulemap.cli.check_resume import snapshot

    fork = getattr(os, "fork", None)
    if not cache.detach or fork is None:
        snapshot(cache, ws, recording)
        return
    with suppress(OSError, ValueError):
        sys.stdout.flush()
        sys.stderr.flush()
    try:
        pid = fork()
    except OSError:
        return  # no process to spare: the next check is a whole one, as without snapshots
    if pid:
        return
    try:  # the child: never back into the caller's code
        from rulemap.readers.cache_entries import let_go_of_output

        let_go_of_output()
        with suppress(OSError):
            os.nice(10)
        snapshot(cache, ws, recording)
    finally:
        os._exit(0)


def _recorder(cache: CheckCache, root: str | None, user_home: str | None) -> Recorder:
    """The snapshot's workspace told what changed, when the check can resume from one; else
    a new recording, which keeps what a snapshot needs when the check is a repeated one."""
    if cache.found is not None:
        from rulemap.cli.check_resume import resume

        resumed = resume(cache.found)
        cache.found = None  # its bytes: the workspace is made of them now, or they are no use
        if resumed is not None:
            cache.resumed = True
            return Recorder(resumed[1], resumed[0])
    from rulemap.host.user_config import user_config_path
    from rulemap.readers.recording import Recording

    recording = Recording()
    recording.note_user_file(user_config_path()[0])
    if root is None:
        recording.note_root(os.getcwd())
    if user_home is not None:
        recording.note_is_dir(os.path.abspath(user_home))
    recorder = Recorder(recording)
    recorder.snapshot = cache.repeated
    return recorder


def _store(
    cache: CheckCache, root: str, report: Spool, code: int, recording: Recording
) -> None:
    import itertools
    import json

    from rulemap.readers import cache_entries, check_store

    assert cache.directory is not None
    if check_store.inside(cache.directory, root):
        return  # never in the repository: its own listing would change, or it could ship one
    entry = {
        "format": FORMAT, "key": cache.key, "root": root, "start_ns": recording.start_ns,
        "code": code, "stdout_bytes": report.size,
    }
    # the header line written as it is made: the record a section at a time (ASCII: the
    # JSON escapes every other character)
    opening = json.dumps(entry, separators=(",", ":"))[:-1] + ',"record":'
    head = itertools.chain((opening,), recording.json_pieces(), ("}\n",))
    cache_entries.write_entry(cache.directory, cache.entry_name(),
                            itertools.chain((p.encode("ascii") for p in head), report.chunks()))
