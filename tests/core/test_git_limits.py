"""No git call can hang, and a blob git cannot give is named with the fix — on real temporary
repositories with real FIFOs in `.git`.

A FIFO in `.git` (an archive can carry one) makes git's open() wait for a writer forever: at
`.git/HEAD` it blocks every command, at a ref file the `rev-parse` of that ref, at a loose
object the `cat-file --batch` that reads it. The CLI runs in a subprocess with a hard outer
timeout, so a regression fails a test instead of hanging the suite; in-process tests are
guarded by a timer that opens the FIFOs for writing (a blocked git then reads EOF and fails).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType

import pytest
from git_repos import GIT_ENV, git, write

from rulemap.readers import git_process
from rulemap.readers.base import ReadError
from rulemap.readers.git import GitRefReader
from rulemap.readers.git_process import GitRefError

pytestmark = [
    pytest.mark.skipif(
        not hasattr(os, "mkfifo") or not Path("/proc/self/stat").exists(),
        reason="needs FIFOs and /proc (Linux)",
    ),
    pytest.mark.slow,  # each waits out git's deadline, end to end
]

LIMIT = 2  # RULEMAP_GIT_TIMEOUT for the CLI runs, seconds
OUTER = 60  # the hard limit of one CLI run: only a regression reaches it
BOUNDED = 20  # what a CLI run may take at most, a few timeouts and Python's start included
GUARD = 30  # in-process tests: after this many seconds the FIFOs are released

FILES = {
    "AGENTS.md": "# Root\nSee @docs/a.md\n",
    "docs/a.md": "Imported A.\n",
    "docs/b.md": "B\n",
    "docs/c.md": "C\n",
    "docs/d.md": "D\n",
    "src/x.ts": "x\n",
}

Fifo = Callable[[Path], Path]


def new_repo(path: Path, files: dict[str, str] | None = None) -> Path:
    """A repository with one commit of `files` on main."""
    path.mkdir(parents=True)
    git(path, "init", "-q")
    write(path, files if files is not None else FILES)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "c")
    return path


def loose_object(repo: Path, spec: str) -> Path:
    sha = git(repo, "rev-parse", spec)
    return repo / ".git" / "objects" / sha[:2] / sha[2:]


def _release(path: Path) -> None:
    """Let a git blocked on opening FIFO `path` go: open it for writing and close it, so the
    reader's open() returns and its read() sees EOF. A no-op when nobody is waiting."""
    for _ in range(20):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:  # ENXIO: no reader now; ENOENT: gone
            return
        os.close(fd)
        time.sleep(0.05)


@pytest.fixture
def fifo() -> Iterator[Fifo]:
    """Replaces a file with a FIFO; every FIFO made is released after GUARD seconds (an
    in-process regression then fails instead of hanging) and at teardown (a git a regression
    left blocked is let go rather than left behind)."""
    made: list[Path] = []

    def release_all() -> None:
        for path in made:
            _release(path)

    guard = threading.Timer(GUARD, release_all)
    guard.daemon = True
    guard.start()

    def make(path: Path) -> Path:
        if path.exists() or path.is_symlink():
            path.unlink()
        os.mkfifo(path)
        made.append(path)
        return path

    yield make
    guard.cancel()
    release_all()


def processes_in(directory: Path) -> list[str]:
    """The processes running in `directory` or below it (the git calls of a repository
    there run with their cwd in it); zombies too."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            cwd = os.readlink(entry / "cwd")
            if cwd == str(directory) or cwd.startswith(f"{directory}/"):
                found.append((entry / "cmdline").read_bytes().replace(b"\0", b" ").decode())
    return found


def settled(directory: Path, grace: float = 3.0) -> list[str]:
    """`processes_in(directory)` once those still leaving have left: an idle `cat-file
    --batch` of the finished command exits on the EOF of its stdin a moment after rulemap does;
    a git blocked on a FIFO never would, and is still listed after `grace` seconds."""
    deadline = time.monotonic() + grace
    while (found := processes_in(directory)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def children(directory: Path) -> list[str]:
    """This process's child processes that run in `directory` or below it, and its zombie
    gits (a zombie has no cwd to tell): "pid state comm". Children of other tests (a reader
    not yet collected keeps its cat-file) are not counted."""
    mine = str(os.getpid())
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            stat = (entry / "stat").read_text()
            # "pid (comm) state ppid ...": comm may hold spaces and parentheses
            comm = stat[stat.index("(") + 1 : stat.rindex(")")]
            state, ppid = stat[stat.rindex(")") + 2 :].split()[:2]
            if ppid != mine:
                continue
            if state == "Z":
                if comm == "git":
                    found.append(f"{entry.name} {state} {comm}")
                continue
            cwd = os.readlink(entry / "cwd")
            if cwd == str(directory) or cwd.startswith(f"{directory}/"):
                found.append(f"{entry.name} {state} {comm}")
    return found


def run_cli(args: list[str], cwd: Path, limit: float = LIMIT) -> tuple[int, str, str, float]:
    """`rulemap ARGS` in a subprocess with RULEMAP_GIT_TIMEOUT=`limit`: (exit code, stdout,
    stderr, seconds taken). Fails (never hangs) when it runs past OUTER seconds."""
    env = {k: v for k, v in os.environ.items() if k != "RULEMAP_CONFIG"}
    env.update(XDG_CONFIG_HOME=str(cwd.parent / "no-user-config"),
               RULEMAP_GIT_TIMEOUT=str(limit), COLUMNS="200")
    start = time.monotonic()
    try:
        done = subprocess.run([sys.executable, "-m", "rulemap", *args], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=OUTER)
    except subprocess.TimeoutExpired:
        pytest.fail(f"`rulemap {' '.join(args)}` hung: no answer in {OUTER} s")
    return done.returncode, done.stdout, done.stderr, time.monotonic() - start


# ----- a FIFO where git reads a ref: a usage error (exit 2) naming the ref ---------------------


@pytest.mark.parametrize("where", ["HEAD", "refs/heads/main"])
def test_a_fifo_at_head_or_a_ref_times_out_check_explain_and_diff(
    tmp_path: Path, fifo: Fifo, where: str
) -> None:
    repo = new_repo(tmp_path / "r")
    fifo(repo / ".git" / where)
    runs = {
        "check": (["check", "--ref", "main"], "--ref main:"),
        "explain": (["explain", "src/x.ts", "--ref", "main"], "--ref main:"),
        "diff": (["diff", "main"], "BASE main:"),  # the diff names the argument it was given
    }
    for command, (args, named) in runs.items():
        code, out, err, took = run_cli(args, repo)
        assert took < BOUNDED, command
        assert code == 2 and out == "", (command, err)
        assert err.startswith(f"rulemap: {named} git did not answer within {LIMIT} s (`git "), err
        assert "a FIFO or a hung filesystem in .git?" in err and "RULEMAP_GIT_TIMEOUT" in err
        assert "Traceback" not in err
        assert settled(tmp_path) == [], command  # git was killed, not left blocked


def test_a_fifo_at_the_head_refs_file_names_head_in_diff(tmp_path: Path, fifo: Fifo) -> None:
    repo = new_repo(tmp_path / "r")
    git(repo, "branch", "feature")
    fifo(repo / ".git" / "refs" / "heads" / "feature")
    code, out, err, took = run_cli(["diff", "main", "feature"], repo)
    assert took < BOUNDED and code == 2 and out == ""
    assert err.startswith(f"rulemap: HEAD feature: git did not answer within {LIMIT} s"), err
    assert "rev-parse" in err and settled(tmp_path) == []


# ----- a FIFO where cat-file reads a blob: that file is unreadable, the rest goes on --------------


def test_a_fifo_loose_blob_is_an_unreadable_file_in_check_explain_and_diff(
    tmp_path: Path, fifo: Fifo
) -> None:
    """A blob git cannot deliver in time is that file's problem, as a blob missing from a
    partial clone is: check reports `unreadable-file` on it (exit 1), explain lists it as
    skipped (exit 0), diff shows BASE's finding; each waits for the blob once, not per read."""
    repo = new_repo(tmp_path / "r")
    fifo(loose_object(repo, "main:docs/a.md"))
    timed_out = f"reading it from main timed out: git cat-file did not answer within {LIMIT} s"

    code, out, err, took = run_cli(["check", "--ref", "main"], repo)
    assert took < BOUNDED and code == 1, err
    assert f"`docs/a.md` cannot be used: {timed_out} for its blob " in out, out
    assert "a FIFO or a hung filesystem in .git?" in out
    assert settled(tmp_path) == []

    code, out, err, took = run_cli(["explain", "src/x.ts", "--ref", "main", "--json"], repo)
    assert took < BOUNDED and code == 0, err
    assert timed_out in out and "docs/a.md" in out
    assert settled(tmp_path) == []

    code, out, err, took = run_cli(["diff", "main", "--json"], repo)
    assert took < BOUNDED and code == 0, err
    assert timed_out in out and settled(tmp_path) == []


def test_a_blob_timeout_in_process_kills_cat_file_and_is_not_waited_for_twice(
    tmp_path: Path, fifo: Fifo, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = new_repo(tmp_path / "r")
    fifo(loose_object(repo, "main:docs/a.md"))
    monkeypatch.setenv("RULEMAP_GIT_TIMEOUT", "0.5")
    reader = GitRefReader(str(repo), "main")
    assert reader.read_bytes(str(repo / "AGENTS.md")) == FILES["AGENTS.md"].encode()
    start = time.monotonic()
    with pytest.raises(ReadError, match=r"reading it from main timed out: .* within 0\.5 s"):
        reader.read_bytes(str(repo / "docs/a.md"))
    assert 0.4 < time.monotonic() - start < 5
    assert children(tmp_path) == []  # cat-file was killed and reaped: no zombie, no orphan
    start = time.monotonic()
    with pytest.raises(ReadError, match="timed out"):
        reader.read_bytes(str(repo / "docs/a.md"))  # known stalled: no second wait
    assert time.monotonic() - start < 0.2
    # another blob: a new cat-file
    assert reader.read_bytes(str(repo / "docs/b.md")) == b"B\n"
    reader.close()
    assert children(tmp_path) == []


def test_after_repeated_blob_timeouts_the_store_is_taken_as_hung(
    tmp_path: Path, fifo: Fifo, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = new_repo(tmp_path / "r")
    stalled = ["docs/a.md", "docs/b.md", "docs/c.md"]
    assert len(stalled) == git_process.MAX_BLOB_TIMEOUTS
    for name in stalled:
        fifo(loose_object(repo, f"main:{name}"))
    monkeypatch.setenv("RULEMAP_GIT_TIMEOUT", "0.3")
    reader = GitRefReader(str(repo), "main")
    for name in stalled:
        with pytest.raises(ReadError, match="timed out"):
            reader.read_bytes(str(repo / name))
    start = time.monotonic()
    with pytest.raises(ReadError, match=r"did not answer within 0\.3 s for 3 blobs, so the "
                                        r"object store of .* looks hung"):
        reader.read_bytes(str(repo / "docs/d.md"))  # readable, but not waited for any more
    assert time.monotonic() - start < 0.2
    assert children(tmp_path) == []


def test_a_ctrl_c_while_cat_file_waits_kills_it(
    tmp_path: Path, fifo: Fifo, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = new_repo(tmp_path / "r")
    fifo(loose_object(repo, "main:docs/a.md"))
    monkeypatch.setenv("RULEMAP_GIT_TIMEOUT", "20")
    reader = GitRefReader(str(repo), "main")

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        start = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            reader.read_bytes(str(repo / "docs/a.md"))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert time.monotonic() - start < 5
    assert children(tmp_path) == []


def test_a_one_shot_timeout_in_process_kills_git(
    tmp_path: Path, fifo: Fifo, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = new_repo(tmp_path / "r")
    fifo(repo / ".git" / "refs" / "heads" / "main")
    monkeypatch.setattr(git_process, "GIT_TIMEOUT", 0.5)  # the constant, with no variable set
    monkeypatch.delenv("RULEMAP_GIT_TIMEOUT", raising=False)
    start = time.monotonic()
    with pytest.raises(GitRefError, match=r"^--ref main: git did not answer within 0\.5 s "
                                          r"\(`git rev-parse --verify"):
        GitRefReader(str(repo), "main")
    assert time.monotonic() - start < 5
    assert children(tmp_path) == []


def test_the_time_limit_setting() -> None:
    limit = git_process.git_timeout
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("RULEMAP_GIT_TIMEOUT", raising=False)
        assert limit() == git_process.GIT_TIMEOUT == 30
        for good, seconds in (("2", 2.0), (" 0.25 ", 0.25), ("600", 600.0)):
            patch.setenv("RULEMAP_GIT_TIMEOUT", good)
            assert limit() == seconds
        for bad in ("", "0", "-1", "soon", "nan", "inf"):
            patch.setenv("RULEMAP_GIT_TIMEOUT", bad)
            assert limit() == 30, bad


# ----- a blob the object store lacks: the file is named, with `git fetch` --------------------


def test_a_partial_clone_names_the_file_and_git_fetch(tmp_path: Path, cli) -> None:
    source = new_repo(tmp_path / "source")
    bare = tmp_path / "source.git"
    git(tmp_path, "clone", "-q", "--bare", str(source), str(bare))
    git(bare, "config", "uploadpack.allowFilter", "true")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--no-checkout", "--filter=blob:none",
                    f"file://{bare}", str(clone)],
                   check=True, env={**os.environ, **GIT_ENV}, capture_output=True)
    code, out, err = cli(["check", "--ref", "main"], clone)
    assert code == 1, err
    sha = git(clone, "rev-parse", "main:AGENTS.md")
    assert f"`AGENTS.md` cannot be used: its blob {sha[:12]} is not in the object store" in out
    assert f"(a partial or shallow clone?); fetch it first (`git fetch origin {sha}`)" in out
    # and git was never let fetch it (GIT_NO_LAZY_FETCH)
    done = subprocess.run(["git", "cat-file", "-e", sha], cwd=clone, capture_output=True,
                          env={**os.environ, "GIT_NO_LAZY_FETCH": "1"})
    assert done.returncode != 0
    # the advice works
    git(clone, "fetch", "-q", "origin", sha)
    code, out, _ = cli(["check", "--ref", "main"], clone)
    assert "AGENTS.md` cannot be used" not in out


def test_a_deleted_loose_blob_names_the_file_and_git_fetch(tmp_path: Path, cli) -> None:
    repo = new_repo(tmp_path / "r")
    sha = git(repo, "rev-parse", "main:docs/a.md")
    loose_object(repo, "main:docs/a.md").unlink()
    code, out, err = cli(["check", "--ref", "main"], repo)
    assert code == 1, err
    assert (f"`docs/a.md` cannot be used: its blob {sha[:12]} is not in the object store of "
            f"{repo}") in out
    assert f"fetch it first (`git fetch origin {sha}`)" in out


def test_a_corrupt_blob_says_cat_file_stopped_and_why(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r")
    path = loose_object(repo, "main:docs/a.md")
    good = path.read_bytes()
    path.chmod(0o644)
    path.write_bytes(good[:-3])  # the zlib stream cut short: git answers the header, then dies
    reader = GitRefReader(str(repo), "main")
    with pytest.raises(ReadError, match=r"git cat-file stopped while reading its blob \w{12} "
                                        r"from main \((fatal|error): .*\); `git fsck`"):
        reader.read_bytes(str(repo / "docs/a.md"))
    assert children(tmp_path) == []
    assert reader.read_bytes(str(repo / "docs/b.md")) == b"B\n"  # a new cat-file
    reader.close()
    assert children(tmp_path) == []


def test_a_blob_over_the_cap_stops_cat_file_and_the_next_read_works(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r", {**FILES, "big.md": "x" * 300_000})
    reader = GitRefReader(str(repo), "main", max_bytes=100_000)
    start = time.monotonic()
    with pytest.raises(ReadError, match="over the 0 MiB limit"):
        reader.read_bytes(str(repo / "big.md"))
    assert time.monotonic() - start < 5
    assert reader.read_bytes(str(repo / "docs/c.md")) == b"C\n"
    reader.close()
    assert children(tmp_path) == []
