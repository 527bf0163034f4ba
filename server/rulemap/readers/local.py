"""Reads the working tree: honours .gitignore and never follows a symlink out of the root."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable, Iterator, Sequence

from typing import Any

import pathspec

from rulemap.readers.base import MAX_FILE_BYTES, ReadError, is_within

ALWAYS_SKIPPED_DIRS = frozenset({".git", "node_modules"})


class LocalReader:
    def __init__(self, root: str, allowed: Sequence[str] = (), max_bytes: int = MAX_FILE_BYTES):
        self.root = posixpath.normpath(os.path.abspath(root))
        self._real_root = os.path.realpath(self.root)
        self.allowed = [posixpath.normpath(os.path.expanduser(a)) for a in allowed]
        self._real_allowed = [os.path.realpath(a) for a in self.allowed]
        self.max_bytes = max_bytes

    def _confined(self, path: str) -> bool:
        real = os.path.realpath(path)
        return is_within(real, self._real_root) or any(
            is_within(real, a) for a in self._real_allowed
        )

    def exists(self, path: str) -> bool:
        return os.path.exists(path)

    def is_dir(self, path: str) -> bool:
        return os.path.isdir(path)

    def identity(self, path: str) -> str:
        return os.path.realpath(path)

    def read_bytes(self, path: str) -> bytes:
        if not self._confined(path):
            raise ReadError("it resolves outside the workspace")
        try:
            with open(path, "rb") as handle:
                size = os.fstat(handle.fileno()).st_size
                if size > self.max_bytes:
                    raise ReadError(
                        f"it is {size / 1048576:.1f} MiB, over the {self.max_bytes // 1048576} MiB limit"
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
        return list(self._walk())

    def _walk(self) -> Iterator[str]:
        seen_dirs: set[str] = set()
        # (path, root-relative path, real path, gitignore specs in force)
        stack: list[tuple[str, str, str, list[tuple[str, pathspec.PathSpec[Any]]]]] = [
            (self.root, "", self._real_root, [])
        ]
        while stack:
            directory, rel_dir, real, specs = stack.pop()
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
                if is_dir:
                    if entry.name in ALWAYS_SKIPPED_DIRS or _ignored(local_specs, rel + "/"):
                        continue
                    # only a link needs the (slow) real-path resolution
                    child_real = os.path.realpath(entry.path) if is_link else f"{real}/{entry.name}"
                    stack.append((entry.path, rel, child_real, local_specs))
                elif not _ignored(local_specs, rel):
                    yield rel


def _read_gitignore(path: str) -> pathspec.PathSpec[Any] | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return pathspec.GitIgnoreSpec.from_lines(handle.read().splitlines())
    except (OSError, ValueError):
        return None


def _ignored(specs: list[tuple[str, pathspec.PathSpec[Any]]], rel: str) -> bool:
    for base, spec in specs:
        sub = rel[len(base) + 1 :] if base else rel
        if spec.match_file(sub):
            return True
    return False
