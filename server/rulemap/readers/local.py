"""Reads the working tree: honours .gitignore and never follows a symlink out of the root."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable, Iterator, Sequence

from rulemap.globs import CompiledGlobs
from rulemap.readers.base import MAX_FILE_BYTES, ReadError, is_within

ALWAYS_SKIPPED_DIRS = frozenset({".git", "node_modules"})


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
        try:
            with open(path, "rb") as handle:
                size = os.fstat(handle.fileno()).st_size
                if size > self.max_bytes:
                    raise ReadError(
                        f"it is {size / 1048576:.1f} MiB, over the "
                        f"{self.max_bytes // 1048576} MiB limit"
                    )
                return handle.read(self.max_bytes + 1)
        except IsADirectoryError:
            raise ReadError("it is a directory") from None
        except PermissionError:
            raise ReadError("permission denied") from None
        except FileNotFoundError:
            raise ReadError("it does not exist") from None
        except OSError as exc:
            raise ReadError(exc.strerror or str(exc)) from None

    def list_files(self) -> Iterable[str]:
        self._ignored = []
        self._plain = set()
        return list(self._walk())

    def _walk(self) -> Iterator[str]:
        seen_dirs: set[str] = set()
        # (path, root-relative path, real path, no symlink on the way, gitignores in force)
        stack: list[tuple[str, str, str, bool, list[tuple[str, CompiledGlobs]]]] = [
            (self.root, "", self._real_root, True, [])
        ]
        while stack:
            directory, rel_dir, real, plain, specs = stack.pop()
            if real in seen_dirs or not is_within(real, self._real_root):
                continue  # a symlink loop, or a directory link out of the workspace
            seen_dirs.add(real)
            try:
                entries = sorted(os.scandir(directory), key=lambda e: e.name)
            except OSError:
                continue
            local_specs = specs
            if any(e.name == ".gitignore" for e in entries):
                spec = _read_gitignore(posixpath.join(directory, ".gitignore"))
                if spec is not None:
                    local_specs = [*specs, (rel_dir, spec)]
            for entry in entries:
                rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
                try:
                    is_dir = entry.is_dir()  # follows symlinks
                    is_link = entry.is_symlink()
                except OSError:
                    continue
                if plain and not is_link:
                    self._plain.add(rel)
                if is_dir:
                    if entry.name in ALWAYS_SKIPPED_DIRS or _ignored(local_specs, rel + "/"):
                        continue
                    # only a link needs the (slow) real-path resolution
                    child_real = os.path.realpath(entry.path) if is_link else f"{real}/{entry.name}"
                    stack.append((entry.path, rel, child_real, plain and not is_link, local_specs))
                elif _ignored(local_specs, rel):
                    self._ignored.append(rel)
                else:
                    yield rel


def _read_gitignore(path: str) -> CompiledGlobs | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = [line.rstrip("\n") for line in handle.read().splitlines()]
    except OSError:
        return None
    patterns = [line for line in lines if line.strip() and not line.lstrip().startswith("#")]
    return CompiledGlobs(patterns=patterns) if patterns else None


def _ignored(specs: list[tuple[str, CompiledGlobs]], rel: str) -> bool:
    for base, spec in specs:
        sub = rel[len(base) + 1 :] if base else rel
        if spec.match(sub):
            return True
    return False
