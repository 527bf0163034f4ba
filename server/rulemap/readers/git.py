"""Reads a trusted git ref (`--ref REF`): every file from git's object store, never the checkout.

The listing is one `git ls-tree -r -t -z --full-tree` of the commit; contents come through one
long-lived `git cat-file --batch` started on the first read. Nothing is checked out and no
working-tree file is opened, so a checkout that swaps `CLAUDE.md` for a symlink changes nothing.
Symlinks are resolved inside the ref's tree (the link blob is the target as written); one that
leaves the repository is an escape, as a symlink out of the root is for the local reader.
Identity is Mastra's for trusted git-ref readers: the canonical project root plus the path
relative to it, links resolved within the ref — two distinct blobs of the ref stay distinct.

Paths outside the repository that the user allowed (`allowImportsFrom`) are read from the host
disk with the local reader's rules; anything else outside the workspace is a ReadError.
"""

from __future__ import annotations

import bisect
import contextlib
import os
import posixpath
import subprocess
import threading
from collections.abc import Iterable, Iterator, Sequence
from typing import IO

from rulemap.readers.base import ALWAYS_SKIPPED_DIRS, MAX_FILE_BYTES, ReadError, is_within
from rulemap.readers.local import read_regular_file

MAX_LINK_HOPS = 40  # as the kernel's ELOOP
MAX_LISTINGS_PER_DIRECTORY = 8  # a directory reached through many links, as the local reader
# ls-tree modes; 160000 (a submodule's commit, whose files this repository does not hold) is
# left out
_KINDS = {"100644": "file", "100755": "file", "120000": "link", "040000": "dir"}
_READ_CHUNK = 1 << 16
# no command git might run on the repository's say (an fsmonitor hook) for a read
GIT = ("git", "-c", "core.fsmonitor=false")


class GitRefError(Exception):
    """The ref cannot be read at all (no such commit, not a repository, no git): a usage error
    whose message names the ref and the fix."""


def git_env() -> dict[str, str]:
    """The environment of every git call: never prompt for credentials, never take an optional
    lock (a read must not block a concurrent `git commit`), never fetch a missing object."""
    env = dict(os.environ)
    env.update(GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", GIT_NO_LAZY_FETCH="1")
    return env


def _run_git(args: Sequence[str], cwd: str, ref: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            [*GIT, *args], cwd=cwd, env=git_env(), capture_output=True, check=False
        )
    except FileNotFoundError:
        if not os.path.isdir(cwd):
            raise GitRefError(f"--ref {ref}: {cwd} is not a directory") from None
        raise GitRefError(
            f"--ref {ref}: git is not installed (or not on PATH); install git to read a ref"
        ) from None
    except OSError as exc:
        raise GitRefError(f"--ref {ref}: cannot run git in {cwd}: {exc.strerror or exc}") from None


class GitTree:
    """A commit's tree as listed once, and the blob reader; shared by the readers of one ref
    (the workspace's and the one with the user's grants)."""

    def __init__(self, root: str, ref: str):
        if ref.startswith("-"):
            raise GitRefError(f"--ref {ref}: a ref cannot start with `-`; name a branch, tag "
                              f"or sha")
        self.ref = ref
        found = _run_git(["rev-parse", "--show-toplevel"], root, ref)
        if found.returncode != 0:
            raise GitRefError(
                f"--ref {ref}: {root} is not inside a git repository "
                f"({_first_line(found.stderr)}); pass --root inside a clone, or drop --ref"
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
        self._batch: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    def _resolve_commit(self) -> str:
        ref, top = self.ref, self.top
        found = _run_git(["rev-parse", "--verify", "--quiet", "--end-of-options",
                          ref + "^{commit}"], top, ref)
        if found.returncode == 0:
            return found.stdout.decode("ascii").strip()
        head = _run_git(["rev-parse", "--verify", "--quiet", "HEAD"], top, ref)
        refs = _run_git(["for-each-ref", "--count=1", "--format=%(refname)"], top, ref)
        if head.returncode != 0 and not refs.stdout.strip():
            raise GitRefError(f"--ref {ref}: the repository {top} has no commits yet; commit "
                              f"first, or drop --ref to read the working tree")
        shallow = _run_git(["rev-parse", "--is-shallow-repository"], top, ref)
        if shallow.stdout.strip() == b"true":
            raise GitRefError(
                f"--ref {ref}: no such commit in {top}, which is a shallow clone (its history "
                f"is cut); fetch it first (`git fetch --unshallow`, or `git fetch origin {ref}`)"
            )
        raise GitRefError(f"--ref {ref}: no such commit in {top} (a typo? else `git fetch` it "
                          f"first); name a branch, tag or sha")

    def _load_tree(self) -> None:
        listed = _run_git(["ls-tree", "-r", "-t", "-z", "--full-tree", self.commit],
                          self.top, self.ref)
        if listed.returncode != 0:
            raise GitRefError(
                f"--ref {self.ref}: git cannot list commit {self.commit[:12]} in {self.top} "
                f"({_first_line(listed.stderr)}); the clone may miss its objects: fetch them "
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
        """A blob's bytes through the one `cat-file --batch`; ReadError when it is over the cap
        or missing from the object store."""
        with self._lock:
            process = self._process()
            assert process.stdin is not None and process.stdout is not None
            try:
                process.stdin.write(sha.encode("ascii") + b"\n")
                process.stdin.flush()
                header = process.stdout.readline()
            except OSError as exc:
                self._stop()
                raise ReadError(f"git cat-file failed: {exc.strerror or exc}") from None
            fields = header.split()
            if len(fields) != 3:
                if header.endswith(b" missing\n"):
                    raise ReadError(f"its blob {sha[:12]} is not in the object store (a partial "
                                    f"or shallow clone?); fetch it first")
                self._stop()
                raise ReadError(f"git cat-file answered {header[:80]!r} for blob {sha[:12]}")
            size = int(fields[2])
            if size > max_bytes:
                _skip(process.stdout, size + 1)
                raise ReadError(f"it is {size / 1048576:.1f} MiB, over the "
                                f"{max_bytes // 1048576} MiB limit")
            data = _read_exact(process.stdout, size + 1)[:size]
            return data

    def _process(self) -> subprocess.Popen[bytes]:
        if self._batch is None or self._batch.poll() is not None:
            try:
                self._batch = subprocess.Popen(
                    [*GIT, "cat-file", "--batch"], cwd=self.top, env=git_env(),
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                )
            except OSError as exc:
                raise ReadError(f"cannot run git cat-file: {exc.strerror or exc}") from None
        return self._batch

    def _stop(self) -> None:
        process, self._batch = self._batch, None
        if process is None:
            return
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        try:
            process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

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


class GitRefReader:
    """The WalkingReader of a workspace as commit `ref` holds it (see the module docstring)."""

    # identity() is meaningful (canonical root + path): agents compare by it
    lexical_identity = False

    def __init__(
        self,
        root: str,
        ref: str,
        allowed: tuple[str, ...] | Sequence[str] = (),
        max_bytes: int = MAX_FILE_BYTES,
        tree: GitTree | None = None,
    ):
        self.root = posixpath.normpath(os.path.abspath(root))
        self.ref = ref
        self._tree = tree if tree is not None else GitTree(self.root, ref)
        self.commit = self._tree.commit
        self.top = self._tree.top
        self.prefix = self._tree.prefix
        # the repository's top as the root is spelled (the root may be reached via a symlink)
        self._lexical_top = _strip_suffix(self.root, self.prefix)
        self._real_root = self.top + ("/" + self.prefix if self.prefix else "")
        if self._tree.kind(self.prefix) != "dir":
            raise GitRefError(
                f"--ref {ref}: the workspace root `{self.prefix}/` does not exist in commit "
                f"{self.commit[:12]}; pass a --root that the commit holds"
            )
        self.allowed = [posixpath.normpath(os.path.expanduser(a)) for a in allowed]
        self._real_allowed = [self.identity(a) for a in self.allowed]
        self.max_bytes = max_bytes
        self._dangling: list[tuple[str, str]] = []

    def with_allowed(self, allowed: Sequence[str]) -> GitRefReader:
        """The same ref and listing, with the user's grants (no second `ls-tree`)."""
        return GitRefReader(self.root, self.ref, allowed, self.max_bytes, tree=self._tree)

    def close(self) -> None:
        """Stop the `cat-file` process (a later read starts another)."""
        self._tree.close()

    # ----- paths ----------------------------------------------------------------------------

    def _host(self, path: str) -> str:
        """`path` normalized, in the repository's real spelling when the root's is another
        (a root reached through a symlink)."""
        path = posixpath.normpath(path)
        if self.root != self._real_root and is_within(path, self.root):
            return self._real_root + path[len(self.root) :]
        top = self._lexical_top
        if top is not None and top != self.top and is_within(path, top):
            return self.top + path[len(top) :]
        return path

    def _locate(self, path: str) -> tuple[str, str] | None:
        return self._tree.resolve(self._host(path))

    def _allowed_out(self, host_path: str) -> bool:
        real = os.path.realpath(host_path)
        return any(is_within(real, a) for a in self._real_allowed)

    def identity(self, path: str) -> str:
        found = self._locate(path)
        if found is None:  # a loop: its own (lexical) spelling, distinct from any file
            return self._host(path)
        where, resolved = found
        if where == "in":
            return self.top + ("/" + resolved if resolved else "")
        return os.path.realpath(resolved)  # on the host, as the local reader says it

    def exists(self, path: str) -> bool:
        found = self._locate(path)
        if found is None:
            return False
        where, resolved = found
        if where == "in":
            return self._tree.kind(resolved) is not None
        if self._via_repository(path):
            return True  # a link in the ref out of the repository: an escape, not a gap
        return os.path.exists(resolved)

    def is_dir(self, path: str) -> bool:
        found = self._locate(path)
        if found is None:
            return False
        where, resolved = found
        if where == "in":
            return self._tree.kind(resolved) == "dir"
        if self._via_repository(path) and not self._allowed_out(resolved):
            return False
        return os.path.isdir(resolved)

    def _via_repository(self, path: str) -> bool:
        return is_within(self._host(path), self.top)

    def read_bytes(self, path: str) -> bytes:
        found = self._locate(path)
        if found is None:
            raise ReadError(f"a symlink loop in {self.ref} (over {MAX_LINK_HOPS} links)")
        where, resolved = found
        if where == "out":
            if self._allowed_out(resolved):
                return read_regular_file(resolved, self.max_bytes)  # a grant of the user's
            if self._via_repository(path):
                raise ReadError(f"it is a symlink in {self.ref} pointing outside the repository "
                                f"(to `{resolved}`)")
            raise ReadError("it resolves outside the workspace")
        real = self.top + ("/" + resolved if resolved else "")
        if not (is_within(real, self._real_root)
                or any(is_within(real, a) for a in self._real_allowed)):
            raise ReadError("it resolves outside the workspace")
        entry = self._tree.entries.get(resolved)
        if entry is None:
            if resolved == "":
                raise ReadError("it is a directory")
            raise ReadError(f"it does not exist in {self.ref}")
        if entry[0] == "dir":
            raise ReadError("it is a directory")
        return self._tree.blob(entry[1], self.max_bytes)

    # ----- walking --------------------------------------------------------------------------

    def list_files(self) -> Iterable[str]:
        self._dangling = []
        return list(self._walk(self.prefix, "", frozenset(), {}, self._dangling))

    def _walk(
        self,
        directory: str,
        shown: str,
        above: frozenset[str],
        listed: dict[str, int],
        dangling: list[tuple[str, str]],
    ) -> Iterator[str]:
        """Files below repository directory `directory`, named below root-relative `shown`;
        a link to a directory is listed through — not back up (a loop), not out of the
        workspace, a bounded number of times — as the local reader's walk does."""
        tree = self._tree
        cut = len(directory) + 1 if directory else 0
        out_prefix = shown + "/" if shown else ""
        above = above | {directory}
        for path in tree.under(directory):
            rel = out_prefix + path[cut:]
            if _maybe_skipped(rel) and self.is_ignored(rel):
                continue
            if tree.entries[path][0] == "file":
                yield rel
                continue
            found = tree.resolve(self.top + "/" + path)
            if found is None:
                dangling.append((rel, tree.link_target(path)))
                continue
            where, resolved = found
            if where == "out":
                yield rel  # listed, so reading it reports the escape
                continue
            kind = tree.kind(resolved)
            if kind == "file":
                yield rel
            elif kind is None:
                dangling.append((rel, tree.link_target(path)))
            elif (
                rel.rsplit("/", 1)[-1] not in ALWAYS_SKIPPED_DIRS
                and (not self.prefix or is_within(resolved, self.prefix))
                and resolved not in above
                and not is_within(path, resolved)
                and listed.get(resolved, 0) < MAX_LISTINGS_PER_DIRECTORY
            ):
                listed[resolved] = listed.get(resolved, 0) + 1
                yield from self._walk(resolved, rel, above, listed, dangling)

    def ignored_files(self) -> Iterable[str]:
        return []  # every file of a commit is tracked

    def dangling_links(self) -> Iterable[tuple[str, str]]:
        return list(self._dangling)

    def is_ignored(self, key: str) -> bool:
        return any(part in ALWAYS_SKIPPED_DIRS for part in key.split("/")[:-1])

    def files_under(self, key: str) -> list[str]:
        files = list(self._walk(self.prefix, "", frozenset(), {}, []))
        return [f for f in files if f.startswith(key + "/")] if key else files


def _maybe_skipped(rel: str) -> bool:
    """A cheap first test for `is_ignored` (a substring scan, no split per listed file)."""
    return any(name in rel for name in ALWAYS_SKIPPED_DIRS)


def _strip_suffix(root: str, prefix: str) -> str | None:
    if not prefix:
        return root
    if root.endswith("/" + prefix):
        return root[: -len(prefix) - 1] or "/"
    return None


def _first_line(stderr: bytes) -> str:
    text = stderr.decode("utf-8", "replace").strip()
    return text.splitlines()[0] if text else "no message"


def _read_exact(stream: IO[bytes], size: int) -> bytes:
    chunks: list[bytes] = []
    left = size
    while left > 0:
        chunk = stream.read(left)
        if not chunk:
            raise ReadError("git cat-file ended early")
        chunks.append(chunk)
        left -= len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _skip(stream: IO[bytes], size: int) -> None:
    left = size
    while left > 0:
        chunk = stream.read(min(left, _READ_CHUNK))
        if not chunk:
            return
        left -= len(chunk)
