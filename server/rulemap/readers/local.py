"""Reads the working tree: honours .gitignore and never follows a symlink out of the root."""

from __future__ import annotations

import contextlib
import errno
import os
import posixpath
import stat
from collections.abc import Iterable, Iterator, Sequence

from rulemap.globs import CompiledGlobs
from rulemap.readers.base import ALWAYS_SKIPPED_DIRS, MAX_FILE_BYTES, ReadError, is_within

MAX_LISTINGS_PER_DIRECTORY = 8


class LocalReader:
    def __init__(self, root: str, allowed: Sequence[str] = (), max_bytes: int = MAX_FILE_BYTES):
        self.root = posixpath.normpath(os.path.abspath(root))
        self._real_root = os.path.realpath(self.root)
        self.allowed = [posixpath.normpath(os.path.expanduser(a)) for a in allowed]
        self._real_allowed = [os.path.realpath(a) for a in self.allowed]
        self.max_bytes = max_bytes
        # What the last walk saw: files it left out because .gitignore ignores them, and
        # paths with no symlink anywhere on the way (their identity is their path).
        self._ignored: list[str] = []
        self._plain: set[str] = set()
        self._dangling: list[tuple[str, str]] = []
        self._gitignores: dict[str, CompiledGlobs | None] = {}  # directory → its .gitignore

    def _confined(self, path: str) -> bool:
        real = self.identity(path)
        return is_within(real, self._real_root) or any(
            is_within(real, a) for a in self._real_allowed
        )

    def exists(self, path: str) -> bool:
        return os.path.exists(path)

    def is_dir(self, path: str) -> bool:
        return os.path.isdir(path)

    def identity(self, path: str) -> str:
        if path.startswith(self.root + "/") and path[len(self.root) + 1 :] in self._plain:
            return self._real_root + path[len(self.root) :]
        return os.path.realpath(path)

    def ignored_files(self) -> Iterable[str]:
        """Files the last `list_files` left out because .gitignore ignores them (not the
        contents of ignored directories, which it never enters)."""
        return list(self._ignored)

    def read_bytes(self, path: str) -> bytes:
        if not self._confined(path):
            raise ReadError("it resolves outside the workspace")
        return read_regular_file(path, self.max_bytes)

    def list_files(self) -> Iterable[str]:
        self._gitignores = {}
        self._ignored = []
        self._plain = set()
        self._dangling = []
        return list(self._walk())

    def dangling_links(self) -> Iterable[tuple[str, str]]:
        """Symlinks the last walk met that lead to no file — their target does not exist, or
        they loop: (path, target as written)."""
        return list(self._dangling)

    def is_ignored(self, key: str) -> bool:
        """Whether a walk would leave out the file `key` (root-relative): it, or a directory on
        its way, is ignored by a .gitignore, or sits in .git or node_modules. For files that
        appear after the walk (the language server's file events)."""
        parts = key.split("/")
        for depth in range(len(parts)):
            directory = "/".join(parts[:depth])
            specs = self._specs_in(directory)
            last = depth == len(parts) - 1
            if not last and parts[depth] in ALWAYS_SKIPPED_DIRS:
                return True
            rel = "/".join(parts[: depth + 1])
            if _ignored(specs, rel if last else rel + "/"):
                return True
        return False

    def files_under(self, key: str) -> list[str]:
        """The files a walk lists below directory `key` (one created after the walk)."""
        if not key or self.is_ignored(key + "/x"):
            return [] if key else list(self._walk())
        path = posixpath.join(self.root, key)
        parent = key.rsplit("/", 1)[0] if "/" in key else ""
        specs = self._specs_in(parent)
        return list(self._walk((path, key, os.path.realpath(path), frozenset(), False, specs)))

    def _specs_in(self, directory: str) -> list[tuple[str, CompiledGlobs]]:
        """The .gitignore files in force in `directory` (its own included), root first."""
        specs: list[tuple[str, CompiledGlobs]] = []
        parts = directory.split("/") if directory else []
        for depth in range(len(parts) + 1):
            rel = "/".join(parts[:depth])
            if rel not in self._gitignores:
                self._gitignores[rel] = _read_gitignore(
                    posixpath.join(self.root, rel, ".gitignore")
                )
            spec = self._gitignores[rel]
            if spec is not None:
                specs.append((rel, spec))
        return specs

    def _walk(
        self,
        start: tuple[str, str, str, frozenset[str], bool, list[tuple[str, CompiledGlobs]]]
        | None = None,
    ) -> Iterator[str]:
        listed: dict[str, int] = {}  # real directory → times listed (through links)
        # (path, root-relative path, real path, real paths above it, no symlink on the way,
        #  gitignores in force, reached through a link)
        stack: list[
            tuple[str, str, str, frozenset[str], bool, list[tuple[str, CompiledGlobs]], bool]
        ] = [
            (*start, True)
            if start
            else (self.root, "", self._real_root, frozenset(), True, [], True)
        ]
        while stack:
            directory, rel_dir, real, above, plain, specs, linked = stack.pop()
            # a link back up is a loop; a link out of the workspace is never followed; one
            # directory reached through many links is listed a bounded number of times (a
            # plain subdirectory is none of these: it is a new directory below its parent)
            if linked:
                if real in above or not is_within(real, self._real_root):
                    continue
                if listed.get(real, 0) >= MAX_LISTINGS_PER_DIRECTORY:
                    continue
                listed[real] = listed.get(real, 0) + 1
            try:
                entries = list(os.scandir(directory))  # the index sorts; order is irrelevant
            except OSError:
                continue
            local_specs = specs
            if ".gitignore" in [e.name for e in entries]:
                spec = _read_gitignore(posixpath.join(directory, ".gitignore"))
                if spec is not None:
                    local_specs = [*specs, (rel_dir, spec)]
            below: frozenset[str] | None = None  # made for the first subdirectory
            prefix = f"{rel_dir}/" if rel_dir else ""
            for entry in entries:
                name = entry.name
                rel = prefix + name
                is_link = False
                try:
                    is_link = entry.is_symlink()
                    is_dir = entry.is_dir()  # follows symlinks
                    if is_link and not is_dir and not entry.is_file() and not os.path.exists(
                        entry.path
                    ):
                        with contextlib.suppress(OSError):
                            self._dangling.append((rel, os.readlink(entry.path)))
                        continue
                except OSError as exc:
                    # a symlink loop (`CLAUDE.md -> CLAUDE.md`, a -> b -> a): following it
                    # fails with ELOOP. It leads to no file, as a dangling link does, so it is
                    # reported as one (the git reader lists its loops there too); checks/files
                    # tells the two apart by their targets.
                    if is_link and exc.errno == errno.ELOOP:
                        with contextlib.suppress(OSError):
                            self._dangling.append((rel, os.readlink(entry.path)))
                    continue
                if plain and not is_link:
                    self._plain.add(rel)
                if is_dir:
                    if name in ALWAYS_SKIPPED_DIRS or (
                        local_specs and _ignored(local_specs, rel + "/")
                    ):
                        continue
                    # only a link needs the (slow) real-path resolution
                    child_real = os.path.realpath(entry.path) if is_link else f"{real}/{name}"
                    if below is None:
                        below = above | {real}
                    stack.append(
                        (entry.path, rel, child_real, below, plain and not is_link, local_specs,
                         is_link)
                    )
                elif local_specs and _ignored(local_specs, rel):
                    self._ignored.append(rel)
                else:
                    yield rel


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


def _read_gitignore(path: str) -> CompiledGlobs | None:
    try:
        text = read_regular_file(path).decode("utf-8", errors="replace")
    except ReadError:
        return None
    lines = text.splitlines()
    patterns = [line for line in lines if line.strip() and not line.lstrip().startswith("#")]
    return CompiledGlobs(patterns=patterns) if patterns else None


def _ignored(specs: list[tuple[str, CompiledGlobs]], rel: str) -> bool:
    for base, spec in specs:
        sub = rel[len(base) + 1 :] if base else rel
        if spec.match(sub):
            return True
    return False
