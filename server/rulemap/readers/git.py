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

No git call can hang: a FIFO in `.git` (a ref, `HEAD`, a loose object — an archive can carry
one) or a stalled mount would block git's open() forever. Each one-shot command has
`git_timeout()` seconds to finish, and each answer of `cat-file --batch` as long to arrive;
then git is killed and reaped, and the ref (GitRefError) or the file (ReadError) is reported
with the cause. The tree and its blobs are `git_tree.py`'s, running git `git_process.py`'s.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable, Iterator, Sequence

from rulemap.readers.base import ALWAYS_SKIPPED_DIRS, MAX_FILE_BYTES, ReadError, is_within
from rulemap.readers.git_process import GitRefError
from rulemap.readers.git_tree import MAX_LINK_HOPS, MAX_LISTINGS_PER_DIRECTORY, GitTree
from rulemap.readers.regular_file import read_regular_file


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
