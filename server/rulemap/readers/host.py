"""The host's file system outside any workspace, for the edges: finding a workspace root,
checking that a folder exists, the user's own configuration file, what a watcher reports,
and the one writer: `rulemap check --fix` replacing a workspace file it may change.

Every disk access of Rulemap goes through `readers/` (tests/core/test_layers.py holds it):
a workspace's files through its `Reader`, the few questions asked before a workspace exists
through these functions."""

from __future__ import annotations

import os
import posixpath
import stat
import tempfile
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


class WriteRefused(Exception):
    """A file `rulemap check --fix` will not write; the message says why."""


def _own_file(root: str, key: str) -> str:
    """The absolute path of workspace file `key`, when writing it changes that file and no
    other: inside the root, no symlink on the way or at the end, a regular file."""
    if not key or key.startswith("/") or posixpath.normpath(key) != key or key.startswith(".."):
        raise WriteRefused(f"{key} is not a path inside the workspace")
    path = os.path.join(root, *key.split("/"))
    if os.path.realpath(path) != os.path.join(os.path.realpath(root), *key.split("/")):
        raise WriteRefused(f"{key} is a symlink or lies behind one; edit the file it points to")
    try:
        mode = os.lstat(path).st_mode
    except OSError as exc:
        raise WriteRefused(f"{key} cannot be opened: {exc.strerror}") from None
    if not stat.S_ISREG(mode):
        raise WriteRefused(f"{key} is not a regular file")
    return path


def read_workspace_file(root: str, key: str) -> bytes:
    """The bytes of workspace file `key` as `write_workspace_file` would replace them
    (WriteRefused when it would refuse, ReadError when unreadable)."""
    return read_regular_file(_own_file(root, key))


def write_workspace_file(root: str, key: str, data: bytes) -> None:
    """Replace workspace file `key` with `data`, whole or not at all: written beside it, then
    renamed over it with its permission bits. Refuses (WriteRefused) a path that leaves the
    workspace, a symlink and anything but a regular file."""
    path = _own_file(root, key)
    mode = stat.S_IMODE(os.stat(path).st_mode)
    directory, name = os.path.split(path)
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".rulemap-fix", dir=directory)
    except OSError as exc:
        raise WriteRefused(f"{key} cannot be written: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except OSError as exc:
        if os.path.lexists(temporary):
            os.unlink(temporary)
        raise WriteRefused(f"{key} cannot be written: {exc.strerror}") from None

