"""Unsaved editor buffers on top of another reader (the language server's view)."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from rulemap.readers.base import WalkingReader, is_within


class OverlayReader:
    def __init__(self, base: WalkingReader):
        self.base = base
        self.root = base.root
        self.buffers: dict[str, str] = {}

    def set_buffer(self, path: str, text: str) -> None:
        self.buffers[posixpath.normpath(path)] = text

    def drop_buffer(self, path: str) -> None:
        self.buffers.pop(posixpath.normpath(path), None)

    def exists(self, path: str) -> bool:
        return posixpath.normpath(path) in self.buffers or self.base.exists(path)

    def is_dir(self, path: str) -> bool:
        return self.base.is_dir(path)

    def identity(self, path: str) -> str:
        if posixpath.normpath(path) in self.buffers and not self.base.exists(path):
            return posixpath.normpath(path)
        return self.base.identity(path)

    def read_bytes(self, path: str) -> bytes:
        text = self.buffers.get(posixpath.normpath(path))
        if text is not None:
            return text.encode("utf-8", errors="surrogatepass")
        return self.base.read_bytes(path)

    def list_files(self) -> Iterable[str]:
        files = set(self.base.list_files())
        for path in self.buffers:
            if is_within(path, self.root) and path != self.root:
                files.add(posixpath.relpath(path, self.root))
        return sorted(files)

    def ignored_files(self) -> Iterable[str]:
        return self.base.ignored_files()

    def dangling_links(self) -> Iterable[tuple[str, str]]:
        return self.base.dangling_links()

    def is_ignored(self, key: str) -> bool:
        return self.base.is_ignored(key)

    def files_under(self, key: str) -> list[str]:
        return self.base.files_under(key)
