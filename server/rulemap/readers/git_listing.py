"""git's answers for the local reader's listing (readers/local.py says how they are used).

Three questions, each one short git command run in the workspace, bounded in time:
`tracked_and_untracked` (`git ls-files -co --exclude-standard -z`: every file git lists, with
its own ignore rules), `root_is_ignored` (whether git ignores the root directory itself) and
`ignored_of` (which of some directories git ignores, `git check-ignore`). Any failure — no git,
not a work tree, a dubious-ownership refusal, a timeout — raises GitListingUnavailable, and the
caller walks the tree instead: listing never fails because of git.

git is started with os.posix_spawnp and read through a pipe polled against a deadline, not
with the subprocess module: `check` imports nothing it does not need (subprocess and what it
pulls in cost ~5 ms of start-up, tests/core/test_startup_imports.py), and no thread is needed.
Nothing git might run on the repository's say: fsmonitor off, no terminal prompt, no optional
lock, no lazy fetch; GIT_DIR and the like are dropped from the environment, so the repository
is the one that holds the root (a hook's GIT_DIR would point elsewhere). A FIFO `.gitignore`
blocks git's open() for good: the deadline (RULEMAP_GIT_TIMEOUT seconds, else LIST_TIMEOUT)
ends it, and the caller stops asking git for that reader.
"""

from __future__ import annotations

import contextlib
import math
import os
import posixpath
import select
import time
from collections.abc import Iterable, Sequence

GIT_LIST_ENV = "RULEMAP_GIT_LIST"
TIMEOUT_ENV = "RULEMAP_GIT_TIMEOUT"
# `ls-files -co` of a 20,000-file tree takes ~40 ms; ten seconds is only reached by a git that
# is blocked (a FIFO .gitignore, a hung mount), and the walk that follows costs less than that
# wait on any tree git lists in time
LIST_TIMEOUT = 10.0
# GIT_* variables that would make git read another repository or index than the root's
_REDIRECTING = (
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_PREFIX",
)
_GIT = (
    "git", "-c", "core.fsmonitor=false", "-c", "core.precomposeunicode=false",
    "-c", "core.quotepath=off",
)
_CHUNK = 1 << 16


class GitListingUnavailable(Exception):
    """git cannot list this workspace; walk it instead."""


class GitTimedOut(GitListingUnavailable):
    """git did not answer in time (blocked: asking it again would block again)."""


def disabled() -> bool:
    """Walk unless RULEMAP_GIT_LIST is set to something other than empty or 0: on a 20,000-file
    monorepo the git listing measured 87 ms against the walk's 68 ms (median of 9, in process),
    so it is opt-in until the scan it needs after `git ls-files` is cut."""
    return os.environ.get(GIT_LIST_ENV, "").strip() in ("", "0")


def maybe_in_work_tree(root: str) -> bool:
    """A cheap first test (a few lstat calls, no process): a `.git` repository directory (one
    with a HEAD) or `.git` file in the root or above. An empty `.git` directory — a test
    fixture's, a materialized corpus entry's — is no repository."""
    directory = root
    while True:
        dot_git = posixpath.join(directory, ".git")
        if os.path.isfile(dot_git) or os.path.exists(posixpath.join(dot_git, "HEAD")):
            return True
        parent = posixpath.dirname(directory)
        if parent == directory:
            return False
        directory = parent


def tracked_and_untracked(root: str) -> list[str]:
    """Root-relative paths of the files git lists in the root: tracked ones (even where a
    .gitignore matches them) and untracked ones its ignore rules leave in. A nested repository
    comes as `sub/`, a submodule as `sub`; a path may repeat (an unmerged file)."""
    code, out = run_git_bounded(
        ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], root)
    if code != 0:
        raise GitListingUnavailable(f"git ls-files exited with {code}")
    return os.fsdecode(out).split("\0")[:-1] if out else []


def root_is_ignored(root: str) -> bool:
    """Whether git ignores the root directory itself (asked from its parent: git says nothing
    of `.`). A repository's top is never ignored."""
    if os.path.lexists(posixpath.join(root, ".git")):
        return False
    parent, name = posixpath.split(root)
    if not name:
        return False
    code, _ = run_git_bounded(["check-ignore", "--no-index", "-q", "--", name], parent or "/")
    if code not in (0, 1):
        raise GitListingUnavailable(f"git check-ignore exited with {code}")
    return code == 0


def ignored_of(root: str, directories: Sequence[str]) -> set[str]:
    """The root-relative directories of `directories` that git ignores."""
    if not directories:
        return set()
    data = b"".join(os.fsencode(d) + b"\0" for d in directories)
    code, out = run_git_bounded(["check-ignore", "--no-index", "-z", "--stdin"], root, data)
    if code not in (0, 1):  # 1: none of them is ignored
        raise GitListingUnavailable(f"git check-ignore exited with {code}")
    return set(os.fsdecode(out).split("\0")[:-1]) if out else set()


def timeout() -> float:
    raw = os.environ.get(TIMEOUT_ENV, "").strip()
    if raw:
        with contextlib.suppress(ValueError):
            value = float(raw)
            if value > 0 and math.isfinite(value):
                return value
    return LIST_TIMEOUT


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _REDIRECTING}
    env.update(GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", GIT_NO_LAZY_FETCH="1")
    return env


def run_git_bounded(args: Iterable[str], cwd: str, data: bytes = b"") -> tuple[int, bytes]:
    """`git ARGS` in `cwd` with `data` on its stdin: (exit code, stdout). Killed and reaped at
    the deadline; GitListingUnavailable then, or when git cannot be started."""
    deadline = time.monotonic() + timeout()
    out_read, out_write = os.pipe()
    in_read, in_write = os.pipe()
    try:
        # posix_spawn has no cwd: git's own -C sets it (before it reads any configuration)
        pid = os.posix_spawnp(
            "git", [_GIT[0], "-C", cwd, *_GIT[1:], *args], _env(),
            file_actions=[
                (os.POSIX_SPAWN_DUP2, in_read, 0),
                (os.POSIX_SPAWN_DUP2, out_write, 1),
                (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
            ],
        )
    except OSError as exc:  # no git on PATH, or it cannot be run
        for fd in (out_read, out_write, in_read, in_write):
            os.close(fd)
        raise GitListingUnavailable(f"cannot run git: {exc.strerror or exc}") from None
    os.close(out_write)
    os.close(in_read)
    chunks: list[bytes] = []
    try:
        _exchange(out_read, in_write, data, chunks, deadline)
    except BaseException:  # the deadline, or a Ctrl-C: git must not outlive the call
        _kill(pid)
        _reap(pid, time.monotonic() + 5.0)
        raise
    finally:
        os.close(out_read)
    status = _reap(pid, deadline)
    if status is None:
        _kill(pid)
        _reap(pid, time.monotonic() + 5.0)
        raise GitTimedOut("git did not finish in time")
    return os.waitstatus_to_exitcode(status), b"".join(chunks)


def _exchange(out_fd: int, in_fd: int, data: bytes, chunks: list[bytes], deadline: float) -> None:
    """Write `data` to git's stdin and read its stdout to the end, both against `deadline`
    (polled together: neither pipe can fill and block the other side). Closes `in_fd` (at
    once when there is nothing to write: git sees the end of its input)."""
    open_in = True
    try:
        poller = select.poll()
        poller.register(out_fd, select.POLLIN)
        if data:
            os.set_blocking(in_fd, False)
            poller.register(in_fd, select.POLLOUT)
        else:
            os.close(in_fd)
            open_in = False
        sent = 0
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise GitTimedOut("git did not answer in time")
            for fd, event in poller.poll(math.ceil(left * 1000)):
                if fd == out_fd:
                    chunk = os.read(out_fd, _CHUNK)
                    if not chunk:
                        return
                    chunks.append(chunk)
                elif open_in:
                    try:
                        if event & select.POLLOUT:
                            sent += os.write(in_fd, data[sent : sent + _CHUNK])
                        done = sent >= len(data) or not event & select.POLLOUT
                    except (BrokenPipeError, BlockingIOError):
                        done = True
                    if done:
                        poller.unregister(in_fd)
                        os.close(in_fd)
                        open_in = False
    finally:
        if open_in:
            os.close(in_fd)


def _kill(pid: int) -> None:
    """SIGKILL `pid`, gone or not. `signal` is imported here, on this rare path: its enums
    cost ~1 ms of every start-up."""
    import signal

    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)


def _reap(pid: int, deadline: float) -> int | None:
    """The wait status of `pid` once it exits, or None if it is still running at `deadline`."""
    delay = 0.0005
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return 0
        if done:
            return status
        if time.monotonic() >= deadline:
            return None
        time.sleep(delay)
        delay = min(delay * 2, 0.05)
