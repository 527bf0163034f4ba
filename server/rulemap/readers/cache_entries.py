"""The cache's entries on disk: `rulemap check`'s report entries and snapshots, and the
language server's start entries — written, read, pruned — in a directory only the user can
write, each sealed by a digest over its whole content.

Trust rule (docs/security.md, "The result cache trusts only the user's own entries"): an
entry is believed only when

- its directory is the user's own and writable by nobody else (no group or other write bit):
  anyone who can write there can plant an entry (a report printed as the result; a snapshot,
  which is unpickled, runs code). The directory is opened once and everything below is done
  relative to that descriptor, so a directory swapped in after the check is never used;
- the entry is a regular file (not a symlink), the user's, writable by nobody else;
- its last line is the digest of everything before it (`seal`): a flipped byte, a truncated
  or lengthened entry is a miss.

Anything else is a miss — the run is a cold one, never a wrong answer. A directory that is
not private is reported once by the caller (`directory_problem`) and not used at all.

What is stored, under which key and when it is believed is the host's cache package
(host/cache/); every call that touches the disk for it is here, in `readers/`, the one place
the disk is touched (tests/core/test_layers.py::test_no_disk_access_outside_readers), beside
`safe_write.py`, which guards against the same planted or swapped files.

Imported by a warm `rulemap check`: it must stay light (os, stat, and blake2b without
hashlib's OpenSSL).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable
from typing import BinaryIO

try:  # hashlib's own import loads OpenSSL (~3 ms); blake2b is built in
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - an interpreter built without it
    from hashlib import blake2b

ENTRY_PREFIX = "check-"
ENTRY_SUFFIX = ".json"
# a workspace snapshot beside an entry (host/cache/resume_snapshot.py)
SNAPSHOT_SUFFIX = ".snapshot"
KEEP_ENTRIES = 64  # the most recently written; older ones are removed when one is written
KEEP_SNAPSHOTS = 4  # of up to 64 MB each
MAX_ENTRY_BYTES = 64 * 1024 * 1024
STALE_TEMP_NS = 600_000_000_000  # a temporary file this old was left by a killed writer

# An entry ends with this line: a tag, then the hex digest of every byte before the line.
_SEAL_TAG = b"\nrulemap-seal blake2b-256 "
_SEAL_LENGTH = len(_SEAL_TAG) + 64 + 1  # the tag, 32 bytes in hex, "\n"
_PERSON = b"rulemap-cache"  # the digest of a cache entry is of no other kind
_GETUID = getattr(os, "getuid", None)  # None: no user ids (Windows)
# Descriptor-relative calls (openat, renameat, unlinkat): POSIX. Elsewhere paths are used.
_AT = os.open in os.supports_dir_fd and os.scandir in os.supports_fd
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_WRITABLE_BY_OTHERS = stat.S_IWGRP | stat.S_IWOTH


def _hasher() -> blake2b:
    return blake2b(digest_size=32, person=_PERSON)


def _seal_line(hasher: blake2b) -> bytes:
    return _SEAL_TAG + hasher.hexdigest().encode("ascii") + b"\n"


def seal(body: bytes) -> bytes:
    """`body` as an entry: followed by the line that seals it."""
    hasher = _hasher()
    hasher.update(body)
    return body + _seal_line(hasher)


def entry_name(key_digest: str) -> str:
    return f"{ENTRY_PREFIX}{key_digest}{ENTRY_SUFFIX}"


def directory_problem(directory: str) -> str | None:
    """Why `directory` may not hold the cache, in words for a warning; None when it may: it
    is the user's own and writable by nobody else, or it does not exist yet (it is created
    so, mode 0700), or it cannot be had at all (every run is then just cold)."""
    try:
        info = os.stat(directory)
    except (OSError, ValueError):
        # missing (created when written), or a path that cannot be a directory: no entry
        # can be read or written there, and no one else's can be believed: a cold run
        return None
    return _problem_of(info)


def _problem_of(info: os.stat_result) -> str | None:
    if not stat.S_ISDIR(info.st_mode):
        return "it is not a directory"
    if _GETUID is None:
        return None  # no user ids to compare (Windows): a per-user folder's ACLs decide
    if info.st_uid != _GETUID():
        return f"it belongs to another user (uid {info.st_uid})"
    mode = stat.S_IMODE(info.st_mode)
    if mode & stat.S_IWOTH:
        return f"anyone may write in it (mode {mode:04o})"
    if mode & stat.S_IWGRP:
        return f"its group may write in it (mode {mode:04o})"
    return None


def _private(info: os.stat_result) -> bool:
    """Whether a file is the user's and writable by nobody else."""
    if _GETUID is None:
        return True
    return info.st_uid == _GETUID() and not info.st_mode & _WRITABLE_BY_OTHERS


class _Directory:
    """The cache directory, opened once when it is private: `at(name)` is the path or
    descriptor-relative name to use for `name` in it, `fd` the descriptor (None without
    descriptor-relative calls)."""

    def __init__(self, path: str, fd: int | None) -> None:
        self.path = path
        self.fd = fd

    def at(self, name: str) -> str:
        return name if self.fd is not None else os.path.join(self.path, name)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)


def _open_directory(directory: str) -> _Directory | None:
    """`directory` when it is private (`directory_problem`), opened; None otherwise."""
    if not _AT:
        try:
            info = os.stat(directory)
        except (OSError, ValueError):
            return None
        return _Directory(directory, None) if _problem_of(info) is None else None
    try:
        fd = os.open(directory, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    except (OSError, ValueError):
        return None
    try:
        if _problem_of(os.fstat(fd)) is None:
            return _Directory(directory, fd)
    except OSError:
        pass
    os.close(fd)
    return None


def _open_believable(directory: str, name: str) -> int | None:
    """Entry `name` of `directory` opened for reading when both may be believed: the
    directory private (`directory_problem`), the entry a private regular file of at most
    `MAX_ENTRY_BYTES`, opened relative to the directory's descriptor. Its seal is the
    caller's to check."""
    folder = _open_directory(directory)
    if folder is None:
        return None
    try:
        return _open_entry(folder, name)
    finally:
        folder.close()


def _open_entry(folder: _Directory, name: str) -> int | None:
    """`name` in `folder` opened for reading when it is a private regular file of at most
    `MAX_ENTRY_BYTES` (never through a symlink, never a FIFO's blocking open)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | _NOFOLLOW | _CLOEXEC
    try:
        fd = os.open(folder.at(name), flags, dir_fd=folder.fd)
    except (OSError, ValueError):
        return None
    try:
        info = os.fstat(fd)
        if (stat.S_ISREG(info.st_mode) and info.st_size <= MAX_ENTRY_BYTES
                and _private(info)):
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def read_entry(directory: str, name: str) -> bytearray | None:
    """An entry's content, its seal checked and taken off; None when there is none, or it or
    its directory is not the user's alone, or the seal does not match."""
    fd = _open_believable(directory, name)
    if fd is None:
        return None
    try:
        data = _read_all(fd)
    finally:
        os.close(fd)
    return data if data is not None and _unsealed(data) else None


def _read_all(fd: int) -> bytearray | None:
    data = bytearray()
    try:
        while len(data) <= MAX_ENTRY_BYTES:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return data
            data += chunk
    except OSError:
        return None
    return None  # grew past the limit while read


def _unsealed(data: bytearray) -> bool:
    """Whether `data` ends with the seal of what comes before it; if so, the seal is taken
    off (in place: a bytearray shortened at its end is not copied)."""
    if len(data) < _SEAL_LENGTH:
        return False
    with memoryview(data) as view:
        if view[-_SEAL_LENGTH:-65] != _SEAL_TAG:
            return False
        hasher = _hasher()
        with view[:-_SEAL_LENGTH] as body:
            hasher.update(body)
        if view[-65:] != hasher.hexdigest().encode("ascii") + b"\n":
            return False
    del data[-_SEAL_LENGTH:]
    return True


def open_private(directory: str, name: str) -> BinaryIO | None:
    """An entry opened for reading, at its start, when it may be believed (as `read_entry`),
    its seal checked by a first pass over it. Read as a stream — a 40 MB snapshot is not held
    in memory while it is unpickled; what follows its content (the seal) is never read by
    the unpickler, which stops at its own end. Where there are no user ids to compare
    (Windows), never: a snapshot is unpickled, and whoever can write it can run code."""
    if _GETUID is None:
        return None
    fd = _open_believable(directory, name)
    if fd is None:
        return None
    stream = os.fdopen(fd, "rb")
    try:
        if _stream_sealed(stream):
            stream.seek(0)
            return stream
    except OSError:
        pass
    stream.close()
    return None


def _stream_sealed(stream: BinaryIO) -> bool:
    size = os.fstat(stream.fileno()).st_size
    if size < _SEAL_LENGTH:
        return False
    hasher = _hasher()
    left = size - _SEAL_LENGTH
    while left:
        chunk = stream.read(min(left, 1 << 20))
        if not chunk:
            return False  # shorter than it was
        hasher.update(chunk)
        left -= len(chunk)
    return stream.read() == _seal_line(hasher)


def write_entry(directory: str, name: str, data: bytes | Iterable[bytes]) -> bool:
    """Write an entry (its bytes, or the pieces they are made of), sealed, atomically: a
    temporary file (mode 0600) in `directory`, then renamed over the entry (a reader sees
    the old entry or the new one, never part of one; of two writers the last rename wins).
    Then keep only the `KEEP_ENTRIES` newest. `directory` is created (mode 0700) when
    missing; nothing is written in one that is not private. False when it could not be
    written (no error: the next run is just cold)."""
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
    except (OSError, ValueError):
        return False
    folder = _open_directory(directory)
    if folder is None:
        return False
    try:
        return _write_in(folder, name, data)
    finally:
        folder.close()


def _write_in(folder: _Directory, name: str, data: bytes | Iterable[bytes]) -> bool:
    temporary = f".{name}.{os.getpid()}.{os.urandom(6).hex()}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
    try:
        fd = os.open(folder.at(temporary), flags, 0o600, dir_fd=folder.fd)
    except (OSError, ValueError):
        return False
    try:
        hasher = _hasher()
        with os.fdopen(fd, "wb") as out:
            for piece in (data,) if isinstance(data, bytes) else data:
                hasher.update(piece)
                out.write(piece)
            out.write(_seal_line(hasher))
        os.replace(folder.at(temporary), folder.at(name),
                   src_dir_fd=folder.fd, dst_dir_fd=folder.fd)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(folder.at(temporary), dir_fd=folder.fd)
        return False
    _prune_in(folder, KEEP_ENTRIES, None)
    return True


def prune(directory: str, keep: int = KEEP_ENTRIES, now_ns: int | None = None) -> None:
    """Remove all but the `keep` newest entries (and `KEEP_SNAPSHOTS` newest snapshots), and
    temporary files left by killed writers — in a private directory only."""
    folder = _open_directory(directory)
    if folder is None:
        return
    try:
        _prune_in(folder, keep, now_ns)
    finally:
        folder.close()


def _prune_in(folder: _Directory, keep: int, now_ns: int | None) -> None:
    entries: list[tuple[int, str]] = []
    snapshots: list[tuple[int, str]] = []
    stale: list[str] = []
    try:
        with os.scandir(folder.fd if folder.fd is not None else folder.path) as found:
            for entry in found:
                name = entry.name
                try:
                    if name.startswith(ENTRY_PREFIX) and name.endswith(ENTRY_SUFFIX):
                        entries.append((entry.stat(follow_symlinks=False).st_mtime_ns, name))
                    elif name.startswith(ENTRY_PREFIX) and name.endswith(SNAPSHOT_SUFFIX):
                        snapshots.append((entry.stat(follow_symlinks=False).st_mtime_ns, name))
                    elif name.startswith("." + ENTRY_PREFIX) and name.endswith(".tmp") and (
                        _older(entry, now_ns)
                    ):
                        stale.append(name)
                except OSError:
                    continue
    except OSError:
        return
    entries.sort(reverse=True)
    snapshots.sort(reverse=True)
    old = [n for _, n in entries[keep:]] + [n for _, n in snapshots[min(keep, KEEP_SNAPSHOTS):]]
    for name in old + stale:
        with contextlib.suppress(OSError):
            os.unlink(folder.at(name), dir_fd=folder.fd)


def _older(entry: os.DirEntry[str], now_ns: int | None) -> bool:
    import time

    now = time.time_ns() if now_ns is None else now_ns
    return entry.stat(follow_symlinks=False).st_mtime_ns < now - STALE_TEMP_NS


def temporary_file() -> BinaryIO:
    """An unnamed temporary file, read and written (a report kept until its entry is
    written: host/cache/report_spool.py). Raises OSError."""
    import tempfile  # only a check that prints: not a hit's start-up

    return tempfile.TemporaryFile()  # noqa: SIM115 (closed by its caller)


def let_go_of_output() -> None:
    """Standard input, output and error to the null device: a process left writing a
    snapshot holds no terminal or pipe of the check that started it."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    if null > 2:  # else it is one of them now
        os.close(null)
