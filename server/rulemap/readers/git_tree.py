"""A commit's tree for `--ref REF`, read once: the listing of one `git ls-tree -r -t -z
--full-tree`, symlinks resolved inside it, and the blobs through one long-lived
`git cat-file --batch` (time-limited: `git_process.py`). Shared by the readers of one ref
(`git.py`'s `GitRefReader`, the workspace's and the one with the user's grants)."""

from __future__ import annotations

import bisect
import contextlib
import os
import posixpath
import subprocess
import tempfile
import threading
import time
from typing import IO

from rulemap.readers.base import ReadError, is_within
from rulemap.readers.git_process import (
    GIT,
    MAX_BLOB_TIMEOUTS,
    STDERR_KEPT,
    TIMEOUT_ENV,
    BatchAnswers,
    Ended,
    GitRefError,
    Stalled,
    cause,
    first_line,
    git_env,
    git_timeout,
    kill_process,
    run_for_ref,
)

MAX_LINK_HOPS = 40  # as the kernel's ELOOP
MAX_LISTINGS_PER_DIRECTORY = 8  # a directory reached through many links, as the local reader
# ls-tree modes; 160000 (a submodule's commit, whose files this repository does not hold) is
# left out
_KINDS = {"100644": "file", "100755": "file", "120000": "link", "040000": "dir"}


class GitTree:
    """A commit's tree as listed once, and the blob reader; shared by the readers of one ref
    (the workspace's and the one with the user's grants)."""

    def __init__(self, root: str, ref: str):
        if ref.startswith("-"):
            raise GitRefError(f"--ref {ref}: a ref cannot start with `-`; name a branch, tag "
                              f"or sha")
        self.ref = ref
        found = run_for_ref(["rev-parse", "--show-toplevel"], root, ref)
        if found.returncode != 0:
            raise GitRefError(
                f"--ref {ref}: {root} is not inside a git repository "
                f"({first_line(found.stderr)}); pass --root inside a clone, or drop --ref"
            )
        self.top = posixpath.normpath(os.fsdecode(found.stdout.rstrip(b"\n")))
        real_root = os.path.realpath(root)
        if not is_within(real_root, self.top):
            raise GitRefError(f"--ref {ref}: {root} is not inside the repository {self.top}")
        self.prefix = "" if real_root == self.top else real_root[len(self.top) + 1 :]
        self.commit = self._resolve_commit()
        # repository path -> (kind: "file" | "link" | "dir", object sha)
        self.entries: dict[str, tuple[str, str]] = {}
        self._load_tree()
        self.paths = sorted(p for p, e in self.entries.items() if e[0] != "dir")
        self._link_targets: dict[str, str] = {}
        # the cat-file process, its stdout, the temporary file of its stderr
        self._batch: tuple[subprocess.Popen[bytes], BatchAnswers, IO[bytes]] | None = None
        self._lock = threading.Lock()
        self._stalled: dict[str, str] = {}  # blob sha -> why it was not read (a timeout)
        self._hung = ""  # set after MAX_BLOB_TIMEOUTS timeouts: why no blob is read any more

    def _resolve_commit(self) -> str:
        ref, top = self.ref, self.top
        found = run_for_ref(["rev-parse", "--verify", "--quiet", "--end-of-options",
                          ref + "^{commit}"], top, ref)
        if found.returncode == 0:
            return found.stdout.decode("ascii").strip()
        head = run_for_ref(["rev-parse", "--verify", "--quiet", "HEAD"], top, ref)
        refs = run_for_ref(["for-each-ref", "--count=1", "--format=%(refname)"], top, ref)
        if head.returncode != 0 and not refs.stdout.strip():
            raise GitRefError(f"--ref {ref}: the repository {top} has no commits yet; commit "
                              f"first, or drop --ref to read the working tree")
        shallow = run_for_ref(["rev-parse", "--is-shallow-repository"], top, ref)
        if shallow.stdout.strip() == b"true":
            raise GitRefError(
                f"--ref {ref}: no such commit in {top}, which is a shallow clone (its history "
                f"is cut); fetch it first (`git fetch --unshallow`, or `git fetch origin {ref}`)"
            )
        raise GitRefError(f"--ref {ref}: no such commit in {top} (a typo? else `git fetch` it "
                          f"first); name a branch, tag or sha")

    def _load_tree(self) -> None:
        listed = run_for_ref(["ls-tree", "-r", "-t", "-z", "--full-tree", self.commit],
                          self.top, self.ref)
        if listed.returncode != 0:
            raise GitRefError(
                f"--ref {self.ref}: git cannot list commit {self.commit[:12]} in {self.top} "
                f"({first_line(listed.stderr)}); the clone may miss its objects: fetch them "
                f"(`git fetch --unshallow`)"
            )
        entries = self.entries
        kinds = _KINDS
        # one decode for the whole listing (20,000 records); paths as os.fsdecode spells them
        for record in os.fsdecode(listed.stdout).split("\0"):
            # "<mode> <type> <object>\t<path>"
            tab = record.find("\t")
            found = kinds.get(record[:6])
            if found is not None and tab > 0:
                entries[record[tab + 1 :]] = (found, record[record.rfind(" ", 0, tab) + 1 : tab])

    # ----- blobs ----------------------------------------------------------------------------

    def blob(self, sha: str, max_bytes: int) -> bytes:
        """A blob's bytes through the one `cat-file --batch`; ReadError when it is over the cap,
        missing from the object store, or git does not answer within `git_timeout()` seconds
        (then cat-file is killed; the next read starts another)."""
        with self._lock:
            refused = self._stalled.get(sha) or self._hung
            if refused:
                raise ReadError(refused)  # it timed out once already: not another wait
            process, answer = self._process()
            seconds = git_timeout()
            deadline = time.monotonic() + seconds
            try:
                try:
                    assert process.stdin is not None
                    # one request line at a time, each read to its end before the next: the
                    # stdin pipe never holds more than 41 bytes, so this write cannot block
                    process.stdin.write(sha.encode("ascii") + b"\n")
                    process.stdin.flush()
                except OSError as exc:  # EPIPE: cat-file is gone
                    raise Ended(exc.strerror or str(exc)) from None
                header = answer.line(deadline)
                fields = header.split()
                if fields[1:] == [b"missing"]:
                    raise ReadError(self._missing(sha))
                if len(fields) != 3 or not fields[2].isdigit():
                    self._stop(kill=True)
                    raise ReadError(f"git cat-file answered {header[:80]!r} for its blob "
                                    f"{sha[:12]} in {self.ref}")
                size = int(fields[2])
                if size > max_bytes:
                    # not drained: a blob of gigabytes would cost seconds to read and throw
                    # away, a new cat-file for the next read costs a few milliseconds
                    self._stop(kill=True)
                    raise ReadError(f"it is {size / 1048576:.1f} MiB, over the "
                                    f"{max_bytes // 1048576} MiB limit")
                return answer.exact(size + 1, deadline)[:size]  # the answer ends in LF
            except Stalled:
                self._stop(kill=True)
                message = (
                    f"reading it from {self.ref} timed out: git cat-file did not answer within "
                    f"{seconds:g} s for its blob {sha[:12]} (a FIFO or a hung filesystem in "
                    f".git? `find .git -type p` lists FIFOs; {TIMEOUT_ENV}=SECONDS waits longer)"
                )
                self._stalled[sha] = message
                if len(self._stalled) >= MAX_BLOB_TIMEOUTS:
                    self._hung = (
                        f"not read from {self.ref}: git cat-file did not answer within "
                        f"{seconds:g} s for {len(self._stalled)} blobs, so the object store "
                        f"of {self.top} looks hung (a hung filesystem, or FIFOs in .git?)"
                    )
                raise ReadError(message) from None
            except Ended as ended:
                cause = self._stop() or ended.cause
                raise ReadError(self._stopped(sha, cause)) from None
            except ReadError:
                raise  # answered (a missing blob: cat-file goes on), or already stopped
            except BaseException:  # a Ctrl-C: cat-file must not outlive the read
                self._stop(kill=True)
                raise

    def _missing(self, sha: str) -> str:
        return (f"its blob {sha[:12]} is not in the object store of {self.top} (a partial or "
                f"shallow clone?); fetch it first (`git fetch origin {sha}`)")

    def _stopped(self, sha: str, cause: str) -> str:
        if "promisor" in cause or "could not fetch" in cause:
            # a partial clone: git wanted to fetch the blob, and reads never let it
            return self._missing(sha)
        # a corrupt object, most likely (a missing one is answered, not died on)
        return (f"git cat-file stopped while reading its blob {sha[:12]} from {self.ref} "
                f"({cause}); `git fsck` checks the object store of {self.top}")

    def _process(self) -> tuple[subprocess.Popen[bytes], BatchAnswers]:
        if self._batch is not None and self._batch[0].poll() is not None:
            self._stop()  # it died since the last read: reap it, close its pipes
        if self._batch is None:
            # stderr to an unlinked temporary file, not a pipe nobody drains (git would block
            # once it filled) nor /dev/null: the message of a cat-file that died is read back
            errors = tempfile.TemporaryFile()  # noqa: SIM115 (closed by _stop, with the process)
            try:
                # in our process group, as run_git's commands (see there)
                process = subprocess.Popen(
                    [*GIT, "cat-file", "--batch"], cwd=self.top, env=git_env(),
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors,
                )
            except OSError as exc:
                errors.close()
                raise ReadError(f"cannot run git cat-file: {exc.strerror or exc}") from None
            assert process.stdout is not None
            self._batch = (process, BatchAnswers(process.stdout.fileno()), errors)
        return self._batch[0], self._batch[1]

    def _stop(self, kill: bool = False) -> str:
        """End cat-file and reap it: at once with `kill` (it is stuck, or busy with an answer
        nobody will read), else by closing its stdin, killed if it does not leave within a
        second. The reason it gave on stderr, "" for none."""
        batch, self._batch = self._batch, None
        if batch is None:
            return ""
        process, _, errors = batch
        if not kill and process.stdin is not None:
            with contextlib.suppress(OSError):
                process.stdin.close()  # EOF: an idle cat-file leaves at once
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=1.0)
        kill_process(process)  # closes our pipe ends; a no-op kill for a process already reaped
        try:
            errors.seek(0)
            return cause(errors.read(STDERR_KEPT))
        except OSError:
            return ""
        finally:
            errors.close()

    def close(self) -> None:
        with self._lock:
            self._stop()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # at teardown nothing is left to report to
            self._stop()

    def link_target(self, path: str) -> str:
        """The target of the symlink at repository path `path`, as written."""
        target = self._link_targets.get(path)
        if target is None:
            try:
                raw = self.blob(self.entries[path][1], 4096)
            except ReadError:
                raw = b""
            target = os.fsdecode(raw)
            self._link_targets[path] = target
        return target

    # ----- resolution -----------------------------------------------------------------------

    def resolve(self, path: str) -> tuple[str, str] | None:
        """Where the absolute host path `path` leads once symlinks are followed inside the ref:
        ("in", repository path, "" for the top) or ("out", absolute host path) when it leaves
        the repository; None for a symlink loop. `path` must be normalized."""
        if not is_within(path, self.top):
            return ("out", path)
        pending = [p for p in path[len(self.top) :].split("/") if p]
        current: list[str] = []
        hops = 0
        while pending:
            part = pending.pop(0)
            if part == ".":
                continue
            if part == "..":
                if current:
                    current.pop()
                    continue
                # above the repository: the rest is a host path, unless it comes back in
                outside = posixpath.normpath(posixpath.join(posixpath.dirname(self.top),
                                                            *pending))
                if not is_within(outside, self.top):
                    return ("out", outside)
                pending = [p for p in outside[len(self.top) :].split("/") if p]
                continue
            current.append(part)
            entry = self.entries.get("/".join(current))
            if entry is None or entry[0] != "link":
                continue
            hops += 1
            if hops > MAX_LINK_HOPS:
                return None
            target = self.link_target("/".join(current))
            current.pop()
            if target.startswith("/"):
                absolute = posixpath.normpath(posixpath.join(target, *pending))
                if not is_within(absolute, self.top):
                    return ("out", absolute)
                current = []
                pending = [p for p in absolute[len(self.top) :].split("/") if p]
            else:
                pending = [p for p in target.split("/") if p] + pending
        return ("in", "/".join(current))

    def kind(self, repo_path: str) -> str | None:
        if repo_path == "":
            return "dir"
        entry = self.entries.get(repo_path)
        return entry[0] if entry is not None else None

    def under(self, directory: str) -> list[str]:
        """Repository paths of the files and links below `directory` ("" for all)."""
        if not directory:
            return self.paths
        low = directory + "/"
        start = bisect.bisect_left(self.paths, low)
        end = bisect.bisect_left(self.paths, directory + "0")  # "0" sorts right after "/"
        return self.paths[start:end]
