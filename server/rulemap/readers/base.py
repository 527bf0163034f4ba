"""The reader interface: every byte the core sees comes through one of these.

Paths given to a reader are absolute POSIX paths; `list_files` yields workspace-relative ones.

Optional attribute (outside the protocol, so no reader has to define it):
`lexical_identity: bool` — True for a custom or virtual reader whose `identity()` is no real
path identity (Mastra's "custom reader without getPathIdentity"): agents that compare
instruction paths by identity (profiles/mastra/identity.py) then compare normalized absolute
paths and resolve no alias. Unset or False: `identity()` is used (the local reader's real path;
a git-ref reader's canonical root + relative path). An overlay is asked through its `base`.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Collection, Iterable, Mapping
from typing import Protocol

MAX_FILE_BYTES = 4 * 1024 * 1024
# Directories no walk enters and no watcher reports (the one list; views ask the server)
ALWAYS_SKIPPED_DIRS = frozenset({".git", "node_modules"})


def in_skipped_dir(path: str) -> bool:
    """Whether an absolute or relative POSIX path lies in (or is) a skipped directory."""
    return any(part in ALWAYS_SKIPPED_DIRS for part in path.split("/"))


class ReadError(Exception):
    """A file exists but cannot be used; the message says why, for a finding."""


class Reader(Protocol):
    """What any source of files answers: a working tree, a buffer overlay, a git ref, the
    user's home directory."""

    root: str

    def exists(self, path: str) -> bool: ...

    def is_dir(self, path: str) -> bool: ...

    def read_bytes(self, path: str) -> bytes:
        """The file's bytes; raises ReadError (too large, permission, outside, missing)."""
        ...

    def identity(self, path: str) -> str:
        """A stable key: equal keys are the same file (the default: real path)."""
        ...


class WalkingReader(Reader, Protocol):
    """A reader that can also walk its tree the way a workspace's file index needs (the
    working tree with its `.gitignore`s; a git ref's listing). A reader of single files (the
    user's home directory) need not."""

    def list_files(self) -> Iterable[str]:
        """Every file of the workspace, root-relative, ignored files left out."""
        ...

    def ignored_files(self) -> Iterable[str]:
        """Files the last `list_files` skipped as ignored (instruction files still load)."""
        ...

    def is_ignored(self, key: str) -> bool:
        """Whether a walk would leave out the root-relative file `key`."""
        ...

    def files_under(self, key: str) -> list[str]:
        """The files a walk lists below the root-relative directory `key`."""
        ...

    def dangling_links(self) -> Iterable[tuple[str, str]]:
        """Symlinks whose target does not exist: (root-relative path, target as written)."""
        ...


def is_within(path: str, directory: str) -> bool:
    directory = directory.rstrip("/") or "/"
    return path == directory or path.startswith(directory if directory == "/" else directory + "/")


def normalize(path: str) -> str:
    return posixpath.normpath(path) if path else path


def missing_by_listing(
    listed: Mapping[str, Collection[str]], path: str, dot_names_only: bool = False
) -> bool:
    """Whether `path` is missing by a listing a walk made (`listed`: each listed directory
    with the names in it, keyed as `path` is written — absolute, or relative to a root keyed
    "" — without a trailing slash): its nearest
    listed ancestor has no entry for the next name on the way. `dot_names_only`: the
    listings keep the names that start with a dot alone, so only such a name can be missing
    by them. Codex's `.git` and Claude Code's `.claude/CLAUDE.md` are probed in every
    directory: 40,000 `stat`s of paths a kilobyte long in a tree 400 levels deep, a third of
    a check, answered from memory. Right only while the listings hold: a one-shot command's,
    not a long-lived server's."""
    parent, slash, name = path.rpartition("/")
    while True:
        names = listed.get(parent)  # "": the directory of a name without a slash
        if names is not None:
            return (not dot_names_only or name.startswith(".")) and name not in names
        if not slash:
            return False
        parent, slash, name = parent.rpartition("/")


def find_root(start: str) -> str:
    """The nearest ancestor of `start` holding `.git` (directory or file), else `start`. Here,
    not in `host.py`, because a warm `rulemap check` asks it before importing the walk."""
    current = os.path.abspath(start)
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return os.path.abspath(start)
        current = parent
