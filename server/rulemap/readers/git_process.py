"""Running git for a ref's reader, bounded in time: one-shot commands (`run_git`, `run_for_ref`)
and the answers of a long-lived `git cat-file --batch` (`BatchAnswers`), read against a deadline.

No git call can hang: a FIFO in `.git` (a ref, `HEAD`, a loose object — an archive can carry
one) or a stalled mount would block git's open() forever. Each one-shot command has
`git_timeout()` seconds to finish, and each answer of `cat-file --batch` as long to arrive;
then git is killed and reaped (`kill_process`), and the caller reports the ref or the file
with the cause. Split from `git.py`, which reads the tree and its files.
"""

from __future__ import annotations

import contextlib
import math
import os
import select
import subprocess
import time
from collections.abc import Sequence

_READ_CHUNK = 1 << 16

# no command git might run on the repository's say (an fsmonitor hook) for a read
GIT = ("git", "-c", "core.fsmonitor=false")
# Seconds git has to finish a one-shot command (rev-parse, ls-tree, diff-tree) and to answer
# one blob of `cat-file --batch`. Every one of them takes milliseconds on a local disk, and the
# slowest (`ls-tree -r` of a 20,000-file commit) well under a second even on a cold network
# mount, so 30 s is only ever reached by git blocked for good — on a FIFO in .git (whose open()
# waits for a writer that never comes) or a hung mount — never by a big repository.
# RULEMAP_GIT_TIMEOUT (seconds) overrides it: the tests lower it, a user on a slow mount raises it.
GIT_TIMEOUT = 30.0
TIMEOUT_ENV = "RULEMAP_GIT_TIMEOUT"
# After this many blobs that git did not deliver in time, the object store is taken as hung and
# the remaining reads fail at once: 400 instruction files on a stalled mount would otherwise
# cost 400 timeouts (hours), which is a hang too.
MAX_BLOB_TIMEOUTS = 3
# How long to wait for git to die once killed. SIGKILL ends a process blocked on a FIFO at
# once, but one in an uninterruptible read of a dead mount may outlive it: then it is left to
# the kernel (and to subprocess's own reaping of abandoned children) rather than waited for.
REAP_SECONDS = 5.0
STDERR_KEPT = 4096  # bytes of cat-file's stderr read back for a message


class GitRefError(Exception):
    """The ref cannot be read at all (no such commit, not a repository, no git): a usage error
    whose message names the ref and the fix."""


def git_env() -> dict[str, str]:
    """The environment of every git call: never prompt for credentials, never take an optional
    lock (a read must not block a concurrent `git commit`), never fetch a missing object."""
    env = dict(os.environ)
    env.update(GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", GIT_NO_LAZY_FETCH="1")
    return env


def git_timeout() -> float:
    """The time limit of one git command or one blob, in seconds: RULEMAP_GIT_TIMEOUT when it
    is a positive number, else GIT_TIMEOUT (read at each call, so a test can lower it)."""
    raw = os.environ.get(TIMEOUT_ENV, "").strip()
    if raw:
        try:
            value = float(raw)
        except ValueError:
            return GIT_TIMEOUT
        if value > 0 and math.isfinite(value):
            return value
    return GIT_TIMEOUT


def timed_out(ref: str, args: Sequence[str], cwd: str, seconds: float) -> str:
    """The message of a git command that did not finish in time, for `--ref REF`."""
    return (
        f"--ref {ref}: git did not answer within {seconds:g} s (`git {' '.join(args)}` in "
        f"{cwd}); a FIFO or a hung filesystem in .git? (`find .git -type p` lists FIFOs; "
        f"{TIMEOUT_ENV}=SECONDS waits longer)"
    )


def run_git(args: Sequence[str], cwd: str) -> subprocess.CompletedProcess[bytes]:
    """`git ARGS` in `cwd`, its output captured, killed after `git_timeout()` seconds:
    subprocess.TimeoutExpired then, after git was killed and reaped. OSError when git
    cannot be started."""
    seconds = git_timeout()
    # stdin from /dev/null: no git command here reads it, and none may wait on the terminal.
    # git stays in our process group, so a Ctrl-C or a `timeout` that signals the group
    # reaches it too; the read-only commands run here start no process of their own (no
    # hook, fsmonitor off, lazy fetch off), so killing the one child leaves nothing behind.
    process = subprocess.Popen(
        [*GIT, *args], cwd=cwd, env=git_env(), stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        # communicate drains stdout and stderr together: neither pipe can fill and block git
        out, err = process.communicate(timeout=seconds)
    except BaseException:  # the limit, or a Ctrl-C: git must not outlive the call
        kill_process(process)
        raise
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def kill_process(process: subprocess.Popen[bytes]) -> None:
    """Kill `process`, close our ends of its pipes, and reap it (no zombie) — waiting at most
    REAP_SECONDS, so that even a git the kernel cannot stop does not hang the caller."""
    with contextlib.suppress(OSError):
        process.kill()
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=REAP_SECONDS)


def run_for_ref(args: Sequence[str], cwd: str, ref: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return run_git(args, cwd)
    except subprocess.TimeoutExpired as exc:
        raise GitRefError(timed_out(ref, args, cwd, exc.timeout)) from None
    except FileNotFoundError:
        if not os.path.isdir(cwd):
            raise GitRefError(f"--ref {ref}: {cwd} is not a directory") from None
        raise GitRefError(
            f"--ref {ref}: git is not installed (or not on PATH); install git to read a ref"
        ) from None
    except OSError as exc:
        raise GitRefError(f"--ref {ref}: cannot run git in {cwd}: {exc.strerror or exc}") from None


def first_line(stderr: bytes) -> str:
    text = stderr.decode("utf-8", "replace").strip()
    return text.splitlines()[0] if text else "no message"


def cause(stderr: bytes) -> str:
    """git's reason on stderr: its first `fatal:` or `error:` line (a `warning:` such as "lazy
    fetching disabled" comes before the one that says what failed), else its first line."""
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines()]
    lines = [line for line in lines if line]
    for line in lines:
        if line.startswith(("fatal:", "error:")):
            return line
    return lines[0] if lines else ""


class Stalled(Exception):
    """cat-file did not answer before the deadline."""


class Ended(Exception):
    """cat-file's output ended (it died) before the answer did."""

    def __init__(self, cause: str = "") -> None:
        super().__init__(cause)
        self.cause = cause or "its output ended early"


class BatchAnswers:
    """cat-file's stdout, read against a deadline. A buffered readline() or read() would block
    past any deadline, so the raw descriptor is polled and read with our own buffer: no thread
    per blob (a watchdog timer would cost one for each of hundreds of reads, and could kill
    cat-file just as an answer arrived), and the deadline is exact. poll(2) is POSIX, as the
    rest of the readers (O_NONBLOCK opens) already are."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._poller = select.poll()
        self._poller.register(fd, select.POLLIN)
        self._buffer = bytearray()

    def _fill(self, deadline: float) -> None:
        left = deadline - time.monotonic()
        # poll retries by itself after a signal (PEP 475); a Ctrl-C raises out of it
        if left <= 0 or not self._poller.poll(math.ceil(left * 1000)):
            raise Stalled
        chunk = os.read(self._fd, _READ_CHUNK)  # readable (data, or EOF): does not block
        if not chunk:
            raise Ended
        self._buffer += chunk

    def line(self, deadline: float) -> bytes:
        """The next header line, with its LF."""
        start = 0
        while True:
            end = self._buffer.find(b"\n", start)
            if end >= 0:
                return self._take(end + 1)
            if len(self._buffer) > 4096:  # no header is this long
                raise Ended("its answer is no header")
            start = len(self._buffer)
            self._fill(deadline)

    def exact(self, size: int, deadline: float) -> bytes:
        while len(self._buffer) < size:
            self._fill(deadline)
        return self._take(size)

    def _take(self, size: int) -> bytes:
        with memoryview(self._buffer) as view:  # one copy, not a slice and then its bytes
            found = bytes(view[:size])
        del self._buffer[:size]
        return found
