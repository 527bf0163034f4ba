"""The one way Rulemap changes a file: read it, compute, then replace it only if it still holds
exactly what was read — atomically, keeping its mode, owner and hard links, never through a
symlink and never outside the workspace. `rulemap check --fix` writes through here; nothing
else in Rulemap writes a user's file (the language server only proposes edits, which the
editor applies).

The promise (docs/security.md, each rule with its test in tests/core/test_safe_write.py):

- **Nothing lost.** `replace` compares what is on disk with the snapshot `read_for_edit` took
  and writes nothing when they differ (`Changed`). The new text goes to a temporary file beside
  the target, which is then *exchanged* with the target in one `renameat2(RENAME_EXCHANGE)`, so
  whatever the target held at that instant comes back under the temporary name: it is compared
  with the snapshot once more, and an edit that slipped in between the check and the swap is
  swapped straight back. So is the old file when another program still has it open (a write
  lease, taken before that comparison, is refused): an editor that opened it before the swap
  may be about to save into it, and that save must not land in an unlinked file. Where the
  kernel or file system has no exchange, a plain rename is used after the check (a window of
  microseconds, said in docs/security.md).
- **Only what you may write.** A file the user cannot write (mode 0444 — also for root, who
  could — or another user's file the user has no write permission on) is refused.
- **The file stays the same file.** Mode bits are copied, the owner and group are kept (chown
  of the temporary file; where that is not allowed, and for a file with several hard links,
  the new text is written into the file itself so every name and the owner stay as they were:
  checked against the snapshot on the same descriptor just before the write).
- **Inside the workspace only.** The key is a normalized relative path; no symlink on the
  way or at the end; a regular file.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import os
import posixpath
import stat
import tempfile

try:
    import fcntl as _fcntl
except ImportError:  # not on Windows: no leases there
    _fcntl = None  # type: ignore[assignment]

from rulemap.readers.base import MAX_FILE_BYTES, ReadError
from rulemap.readers.regular_file import read_regular_file
from rulemap.records import record


class WriteRefused(Exception):
    """A file Rulemap will not write; the message names the file and says why."""


class Changed(WriteRefused):
    """The file no longer holds what was read: someone else edited it. Nothing was written."""


@record(frozen=True)
class Snapshot:
    """What `read_for_edit` saw: the bytes a write must find still in place."""

    key: str  # root-relative, `/`-separated
    path: str  # absolute
    data: bytes
    inode: tuple[int, int]  # (device, inode)


def own_file(root: str, key: str) -> str:
    """The absolute path of workspace file `key`, when writing it changes that file and no
    other: inside the root, no symlink on the way or at the end, a regular file."""
    if (not key or key.startswith("/") or "\0" in key or posixpath.normpath(key) != key
            or key == ".." or key.startswith("../")):
        raise WriteRefused(f"{key} is not a path inside the workspace")
    parts = key.split("/")
    path = os.path.join(root, *parts)
    if os.path.realpath(path) != os.path.join(os.path.realpath(root), *parts):
        raise WriteRefused(f"{key} is a symlink or lies behind one; edit the file it points to")
    try:
        mode = os.lstat(path).st_mode
    except OSError as exc:
        raise WriteRefused(f"{key} cannot be opened: {exc.strerror}") from None
    if not stat.S_ISREG(mode):
        raise WriteRefused(f"{key} is not a regular file")
    return path


def read_for_edit(root: str, key: str, max_bytes: int = MAX_FILE_BYTES) -> Snapshot:
    """The bytes of workspace file `key` and what identifies them, when `replace` could write
    it (WriteRefused when it would refuse, ReadError when unreadable)."""
    path = own_file(root, key)
    _check_writable(key, path)
    data = read_regular_file(path, max_bytes)
    info = os.stat(path)
    return Snapshot(key, path, data, (info.st_dev, info.st_ino))


def _check_writable(key: str, path: str) -> None:
    info = os.stat(path)
    # root may write anything; a careful tool still honours "read-only" (no write bit at all)
    if stat.S_IMODE(info.st_mode) & 0o222 == 0:
        raise WriteRefused(f"{key} is read-only (mode {stat.S_IMODE(info.st_mode):o}); make it "
                           f"writable (chmod u+w) to let Rulemap fix it")
    if not os.access(path, os.W_OK):
        raise WriteRefused(f"{key} is not writable by you (owner uid {info.st_uid}, mode "
                           f"{stat.S_IMODE(info.st_mode):o}); nothing was written")


def replace(root: str, snapshot: Snapshot, data: bytes) -> None:
    """Replace the file `snapshot` was read from with `data`, if it still holds the snapshot's
    bytes (else `Changed`, and nothing written). See the module docstring."""
    key = snapshot.key
    path = own_file(root, key)  # again: a symlink swapped in since the read is refused
    _check_writable(key, path)
    info = os.stat(path)
    if _current(path) != snapshot.data:
        raise Changed(f"{key} changed since it was read; nothing was written (run again)")
    if info.st_nlink > 1:
        _write_in_place(snapshot, path, data)
        return
    directory, name = os.path.split(path)
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".rulemap", dir=directory)
    except OSError as exc:
        raise WriteRefused(f"{key} cannot be written (no temporary file beside it: "
                           f"{exc.strerror})") from None
    try:
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.chmod(temporary, stat.S_IMODE(info.st_mode))
            if not _same_owner(temporary, info):
                # another owner or group we may not give the file: write into the file itself
                os.unlink(temporary)
                _write_in_place(snapshot, path, data)
                return
            _swap_in(snapshot, temporary, path)
        except OSError as exc:
            raise WriteRefused(f"{key} cannot be written: {exc.strerror or exc}") from None
    finally:
        if os.path.lexists(temporary):
            os.unlink(temporary)


def _current(path: str) -> bytes | None:
    try:
        return read_regular_file(path, 1 << 62)
    except ReadError:
        return None


def _same_owner(temporary: str, info: os.stat_result) -> bool:
    """Give `temporary` the target's owner and group; False when that is not allowed."""
    mine = os.stat(temporary)
    if (mine.st_uid, mine.st_gid) == (info.st_uid, info.st_gid):
        return True
    try:
        os.chown(temporary, info.st_uid, info.st_gid)
    except PermissionError:
        return False
    return True


def _swap_in(snapshot: Snapshot, temporary: str, path: str) -> None:
    """Put `temporary` at `path`, keeping what `path` held if it is not the snapshot or if
    another program still has it open."""
    if not _exchange(temporary, path):
        os.replace(temporary, path)  # no exchange here: the check just before is the guard
        return
    # `temporary` now names what `path` held at the instant of the swap. An editor may have
    # opened it before the swap and be about to save into it (truncate and write, as VS Code
    # does): once unlinked, that save would be lost. So a write lease comes first — granted
    # only while no other descriptor has the file open — and the bytes are compared after it:
    # a writer that opened the file before the swap either holds it still (no lease) or wrote
    # and closed (other bytes). Either way the old file goes back, untouched.
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(temporary, flags)
    try:
        if not _lease(fd):
            _exchange(temporary, path)
            raise Changed(f"{snapshot.key} is open in another program, which may be saving it; "
                          f"nothing was written (run again)")
        if _read_all(fd) != snapshot.data:
            _exchange(temporary, path)  # an edit slipped in: it goes back, untouched
            raise Changed(f"{snapshot.key} changed while it was written; nothing was written "
                          f"(run again)")
        os.unlink(temporary)  # under the lease: nobody else has the old file open
    finally:
        os.close(fd)  # and with it the lease


def _lease(fd: int) -> bool:
    """Take a write lease on `fd` (Linux): False when another descriptor has the file open.
    True where leases do not exist or are not ours to take (another owner without
    CAP_LEASE, a file system without them): the comparison of bytes is then the only guard."""
    if _fcntl is None or not hasattr(_fcntl, "F_SETLEASE"):
        return True
    try:
        _fcntl.fcntl(fd, _fcntl.F_SETLEASE, _fcntl.F_WRLCK)
    except OSError as exc:
        return exc.errno not in (errno.EAGAIN, errno.EBUSY)
    return True


_RENAME_EXCHANGE = 2  # linux/fs.h
_AT_FDCWD = -100
_renameat2: object = None  # looked up once: a C function, or False where libc has none


def _exchange(a: str, b: str) -> bool:
    """Atomically swap the names `a` and `b` (Linux `renameat2`); False where the system or
    the file system cannot, and then nothing happened. Python has no binding for it
    (os.rename cannot exchange), hence ctypes."""
    global _renameat2
    if _renameat2 is None:
        found = ctypes.util.find_library("c")
        function = getattr(ctypes.CDLL(found, use_errno=True), "renameat2", None) if found \
            else None
        if function is not None:
            function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                                 ctypes.c_uint]
            function.restype = ctypes.c_int
        _renameat2 = function if function is not None else False
    if _renameat2 is False:
        return False
    call = _renameat2
    assert callable(call)
    if call(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code))


def _write_in_place(snapshot: Snapshot, path: str, data: bytes) -> None:
    """Write `data` into the file itself (its inode, so hard links and the owner stay): read
    back through the same descriptor first, so an edit since the snapshot is never
    overwritten."""
    flags = os.O_RDWR | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise WriteRefused(f"{snapshot.key} cannot be written: {exc.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise WriteRefused(f"{snapshot.key} is not a regular file")
        if _read_all(fd) != snapshot.data:
            raise Changed(f"{snapshot.key} changed since it was read; nothing was written "
                          f"(run again)")
        os.lseek(fd, 0, os.SEEK_SET)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.ftruncate(fd, len(data))
        os.fsync(fd)
    except OSError as exc:
        raise WriteRefused(f"{snapshot.key} cannot be written: {exc.strerror}") from None
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)
