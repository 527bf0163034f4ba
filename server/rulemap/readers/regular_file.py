"""Reading one file the user named or the walk listed, safely: a regular file (or a link to
one) within a size cap, never a FIFO, socket or device, never blocking. Apart from the walk
(readers/local.py) so that readers needing only this — the user's configuration, the writer's
read-back, a transcript — import no glob engine."""

from __future__ import annotations

import os
import stat

from rulemap.readers.base import MAX_FILE_BYTES, ReadError


def read_regular_file(path: str, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file (or a symlink to one), never blocking.

    A FIFO, socket or device named `AGENTS.md` must not hang or feed us endless bytes: its type
    is checked before it is opened, it is opened with O_NONBLOCK (a FIFO swapped in after the
    check still returns at once) and its type checked again on the open descriptor."""
    try:
        # never open a special file at all (opening a device can have effects of its own);
        # the check on the descriptor below catches one swapped in after this `stat`
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
            raise ReadError(f"it is not a regular file (a {file_kind(mode)})")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise ReadError(why_not_opened(exc)) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise ReadError("it is a directory")
        if not stat.S_ISREG(info.st_mode):
            raise ReadError(f"it is not a regular file (a {file_kind(info.st_mode)})")
        if info.st_size > max_bytes:
            raise ReadError(
                f"it is {info.st_size / 1048576:.1f} MiB, over the "
                f"{max_bytes // 1048576} MiB limit"
            )
        # plain reads on the descriptor: no file object for a file read once (3,000 imported
        # files in one workspace); a file that grows while we read it stops at the cap
        chunks: list[bytes] = []
        size = 0
        want = min(info.st_size, max_bytes) + 1
        while size <= max_bytes:
            asked = want - size if size < want else 65536
            chunk = os.read(fd, asked)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if len(chunk) < asked and size >= info.st_size:
                break  # all of it, as `fstat` sized it: no read just to see the end
        data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    except OSError as exc:
        raise ReadError(exc.strerror or str(exc)) from None
    finally:
        if fd >= 0:
            os.close(fd)
    if len(data) > max_bytes:  # grew while we read it
        raise ReadError(f"it is over the {max_bytes // 1048576} MiB limit")
    return data


def why_not_opened(exc: OSError) -> str:
    if isinstance(exc, IsADirectoryError):
        return "it is a directory"
    if isinstance(exc, PermissionError):
        return "permission denied"
    if isinstance(exc, FileNotFoundError):
        return "it does not exist"
    return exc.strerror or str(exc)


def file_kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "named pipe"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "special file"
