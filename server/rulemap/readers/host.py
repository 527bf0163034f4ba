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


LINE_CHUNK = 64 * 1024  # the buffer of a file read a line at a time
READ_CHUNK = 256 * 1024  # what one read takes: its whole lines are split at once
SHORT_LINES = 1024  # bytes: lines shorter on average are split together (measured)


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
        """The lines, read READ_CHUNK bytes at a time: the whole lines of a chunk are decoded
        at once and split in C, so a line costs a few hundred nanoseconds however short it
        is (a readline and a decode per line cost ~1 µs: docs/sessions.md, "Limits").
        Splitting at b"\n" before decoding gives what decoding each line would: UTF-8 never
        uses that byte inside a character, so no character spans two lines."""
        limit = self._max_line
        read = 0
        held: list[bytes] = []  # the start of the line the last chunk ended in
        held_bytes = 0
        over = False  # that line is over the limit: dropped up to its end, never held
        try:
            while chunk := self._file.read(READ_CHUNK):
                read += len(chunk)
                if read > self._max_bytes:  # it grew while we read it
                    raise ReadError(f"it is over the {self._max_bytes // 1048576} MiB limit")
                first = chunk.find(b"\n")
                if first < 0:  # the held line goes on through the whole chunk
                    held_bytes += len(chunk)
                    if over or held_bytes > limit:
                        over, held = True, []
                    else:
                        held.append(chunk)
                    continue
                start = 0
                if held_bytes or over:  # the held line ends in this chunk
                    if over or held_bytes + first > limit:
                        yield None
                    else:
                        held.append(chunk[:first + 1])
                        yield b"".join(held).decode("utf-8", errors="replace")
                    held, held_bytes, over = [], 0, False
                    start = first + 1
                last = chunk.rfind(b"\n")
                if last < start:
                    pass  # the held line was the only one to end in this chunk
                elif last - start > limit:  # a line may be over the limit (one under a chunk)
                    for raw in chunk[start:last].split(b"\n"):
                        yield None if len(raw) > limit else \
                            raw.decode("utf-8", errors="replace") + "\n"
                elif last - start < SHORT_LINES * chunk.count(b"\n", start, last + 1):
                    # short lines: decoded together, split in C (a loop a line costs more)
                    lines = chunk[start:last].decode("utf-8", errors="replace").split("\n")
                    for line in lines:
                        yield line + "\n"
                else:  # long ones: each decoded alone, copied twice rather than four times
                    while start <= last:
                        end = chunk.index(b"\n", start) + 1
                        yield chunk[start:end].decode("utf-8", errors="replace")
                        start = end
                if last + 1 < len(chunk):
                    held_bytes = len(chunk) - last - 1
                    if held_bytes > limit:
                        over = True
                    else:
                        held = [chunk[last + 1:]]
            if held_bytes or over:  # the last line, without a line ending
                yield None if over else b"".join(held).decode("utf-8", errors="replace")
        except OSError as exc:
            raise ReadError(exc.strerror or str(exc)) from None
