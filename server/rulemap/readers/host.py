"""The host's file system outside any workspace, for the edges: finding a workspace root,
checking that a folder exists, the user's own configuration file, what a watcher reports.
The one writer, for `rulemap check --fix`, is `readers/safe_write.py`.

Every disk access of Rulemap goes through `readers/` (tests/core/test_layers.py holds it):
a workspace's files through its `Reader`, the few questions asked before a workspace exists
through these functions."""

from __future__ import annotations

import os
import posixpath
import stat
from collections.abc import Iterable, Iterator
from typing import BinaryIO

from rulemap.readers.base import MAX_FILE_BYTES, ReadError
from rulemap.readers.regular_file import file_kind, read_regular_file, why_not_opened


def exists(path: str) -> bool:
    return os.path.exists(path)


def is_dir(path: str) -> bool:
    return os.path.isdir(path)


def real_path(path: str) -> str:
    return os.path.realpath(path)


def home_dir() -> str:
    return os.path.expanduser("~")


def missing(root: str, keys: Iterable[str]) -> list[str]:
    """The root-relative `keys` that no longer exist under `root`."""
    return [k for k in keys if not os.path.exists(posixpath.join(root, k))]


def read_user_file(path: str, max_bytes: int = MAX_FILE_BYTES) -> bytes | None:
    """A small file of the user's (their configuration): its bytes, None when it does not
    exist; ReadError when it exists but is no regular file, too big or unreadable."""
    if not os.path.lexists(path):
        return None
    return read_regular_file(path, max_bytes)


LINE_CHUNK = 64 * 1024  # what one read takes; the rest of an over-long line goes by in these


def open_text_lines(path: str, max_line_bytes: int, max_bytes: int) -> TextLines | None:
    """A file the user names (a session transcript), to read a line at a time — never whole,
    so its size does not decide how much memory it takes. None when it does not exist;
    ReadError when it exists but is no regular file (a FIFO must not hang us, a device not
    feed us endless bytes: checked before and after the open, as `read_regular_file` does), is
    over `max_bytes`, or cannot be opened."""
    if not os.path.lexists(path):
        return None
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            raise ReadError("it is a directory" if stat.S_ISDIR(mode)
                            else f"it is not a regular file (a {file_kind(mode)})")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise ReadError(why_not_opened(exc)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ReadError(f"it is not a regular file (a {file_kind(info.st_mode)})")
        if info.st_size > max_bytes:
            raise ReadError(f"it is {info.st_size / 1048576:.1f} MiB, over the "
                            f"{max_bytes // 1048576} MiB limit")
        file = os.fdopen(fd, "rb", buffering=LINE_CHUNK)
    except BaseException:
        os.close(fd)
        raise
    return TextLines(file, max_line_bytes, max_bytes)


class TextLines:
    """A file read a line at a time (`open_text_lines`): each line decoded as UTF-8
    (undecodable bytes replaced) with its line ending, or None for a line longer than
    `max_line_bytes`, which is skipped without ever being held. Iterating raises ReadError
    when reading fails or the file grows past `max_bytes`. Close it (or use `with`)."""

    def __init__(self, file: BinaryIO, max_line_bytes: int, max_bytes: int) -> None:
        self._file = file
        self._max_line = max_line_bytes
        self._max_bytes = max_bytes

    def __enter__(self) -> TextLines:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._file.close()

    def __iter__(self) -> Iterator[str | None]:
        read = 0
        try:
            while line := self._file.readline(self._max_line + 1):
                read += len(line)
                if len(line) > self._max_line and not line.endswith(b"\n"):
                    # over the limit: the rest of the line goes by a chunk at a time
                    while read <= self._max_bytes and (rest := self._file.readline(LINE_CHUNK)):
                        read += len(rest)
                        if rest.endswith(b"\n"):
                            break
                    yield None
                else:
                    yield line.decode("utf-8", errors="replace")
                if read > self._max_bytes:  # it grew while we read it
                    raise ReadError(f"it is over the {self._max_bytes // 1048576} MiB limit")
        except OSError as exc:
            raise ReadError(exc.strerror or str(exc)) from None
