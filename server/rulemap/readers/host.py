"""The host's file system outside any workspace, for the edges: finding a workspace root,
checking that a folder exists, the user's own configuration file, what a watcher reports.
The one writer, for `rulemap check --fix`, is `readers/safe_write.py`.

Every disk access of Rulemap goes through `readers/` (tests/core/test_layers.py holds it):
a workspace's files through its `Reader`, the few questions asked before a workspace exists
through these functions."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable

from rulemap.readers.base import MAX_FILE_BYTES
from rulemap.readers.local import read_regular_file


def exists(path: str) -> bool:
    return os.path.exists(path)


def is_dir(path: str) -> bool:
    return os.path.isdir(path)


def real_path(path: str) -> str:
    return os.path.realpath(path)


def home_dir() -> str:
    return os.path.expanduser("~")


def find_root(start: str) -> str:
    """The nearest ancestor of `start` holding `.git` (directory or file), else `start`."""
    current = os.path.abspath(start)
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return os.path.abspath(start)
        current = parent


def missing(root: str, keys: Iterable[str]) -> list[str]:
    """The root-relative `keys` that no longer exist under `root`."""
    return [k for k in keys if not os.path.exists(posixpath.join(root, k))]


def read_user_file(path: str, max_bytes: int = MAX_FILE_BYTES) -> bytes | None:
    """A small file of the user's (their configuration): its bytes, None when it does not
    exist; ReadError when it exists but is no regular file, too big or unreadable."""
    if not os.path.lexists(path):
        return None
    return read_regular_file(path, max_bytes)
