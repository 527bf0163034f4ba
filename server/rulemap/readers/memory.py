"""An in-memory workspace for tests: files, directories and symlinks without a disk."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping

from rulemap.readers.base import MAX_FILE_BYTES, ReadError, is_within


class MemoryReader:
    def __init__(
        self,
        root: str,
        files: Mapping[str, str | bytes],
        symlinks: Mapping[str, str] | None = None,
        max_bytes: int = MAX_FILE_BYTES,
    ):
        """`files` and `symlinks` keys are root-relative or absolute; link targets are as
        written in a symlink (relative to the link's directory, or absolute)."""
        self.root = posixpath.normpath(root)
        self.files: dict[str, bytes] = {
            self._abs(k): v.encode("utf-8") if isinstance(v, str) else v for k, v in files.items()
        }
        self.symlinks: dict[str, str] = {self._abs(k): v for k, v in (symlinks or {}).items()}
        self.max_bytes = max_bytes

    def _abs(self, path: str) -> str:
        return posixpath.normpath(posixpath.join(self.root, path))

    def _resolve(self, path: str) -> str | None:
        """Follow symlinks in every component; None on a loop."""
        parts = posixpath.normpath(path).split("/")
        current = "/"
        hops = 0
        pending = [p for p in parts if p]
        while pending:
            part = pending.pop(0)
            candidate = posixpath.join(current, part)
            if candidate in self.symlinks:
                hops += 1
                if hops > 40:
                    return None
                target = self.symlinks[candidate]
                joined = posixpath.normpath(posixpath.join(current, target))
                pending = [p for p in joined.split("/") if p] + pending
                current = "/"
                continue
            current = candidate
        return current

    def _dirs(self) -> set[str]:
        key = (len(self.files), len(self.symlinks))
        cached = getattr(self, "_dirs_cache", None)
        if cached is not None and cached[0] == key:
            return cached[1]  # type: ignore[no-any-return]
        dirs: set[str] = set()
        for path in list(self.files) + list(self.symlinks):
            parent = posixpath.dirname(path)
            while parent not in dirs and parent != "/":
                dirs.add(parent)
                parent = posixpath.dirname(parent)
        self._dirs_cache = (key, dirs)
        return dirs

    def exists(self, path: str) -> bool:
        real = self._resolve(path)
        return real is not None and (real in self.files or real in self._dirs())

    def is_dir(self, path: str) -> bool:
        real = self._resolve(path)
        return real is not None and real in self._dirs()

    def identity(self, path: str) -> str:
        return self._resolve(path) or posixpath.normpath(path)

    def read_bytes(self, path: str) -> bytes:
        real = self._resolve(path)
        if real is None:
            raise ReadError("a symlink loop")
        if real in self.files:
            data = self.files[real]
            if len(data) > self.max_bytes:
                raise ReadError(f"it is over the {self.max_bytes // 1048576} MiB limit")
            return data
        if real in self._dirs():
            raise ReadError("it is a directory")
        raise ReadError("it does not exist")

    def list_files(self) -> Iterable[str]:
        out = []
        for path in list(self.files) + list(self.symlinks):
            if is_within(path, self.root) and path != self.root:
                real = self._resolve(path)
                if real is not None and real in self.files:
                    out.append(posixpath.relpath(path, self.root))
        return sorted(out)

    def ignored_files(self) -> Iterable[str]:
        return []

    def dangling_links(self) -> Iterable[tuple[str, str]]:
        out = []
        for link, target in self.symlinks.items():
            if is_within(link, self.root) and not self.exists(link):
                out.append((posixpath.relpath(link, self.root), target))
        return sorted(out)

    def is_ignored(self, key: str) -> bool:
        return False

    def files_under(self, key: str) -> list[str]:
        return [p for p in self.list_files() if p.startswith(key + "/")]
