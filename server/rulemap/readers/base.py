"""The reader interface: every byte the core sees comes through one of these.

Paths given to a reader are absolute POSIX paths; `list_files` yields workspace-relative ones.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from typing import Protocol

MAX_FILE_BYTES = 4 * 1024 * 1024


class ReadError(Exception):
    """A file exists but cannot be used; the message says why, for a finding."""


class Reader(Protocol):
    root: str

    def exists(self, path: str) -> bool: ...

    def is_dir(self, path: str) -> bool: ...

    def read_bytes(self, path: str) -> bytes:
        """The file's bytes; raises ReadError (too large, permission, outside, missing)."""
        ...

    def identity(self, path: str) -> str:
        """A stable key: equal keys are the same file (the default: real path)."""
        ...

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
