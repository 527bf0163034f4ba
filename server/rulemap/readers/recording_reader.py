"""`RecordingReader`: `LocalReader`, every question it answers noted in a `Recording`
(readers/recording.py); `recorded_by`, a reader factory reading through one. Apart from
the record itself so that the language server, which builds a record before it starts from
its cache, does not import the walk's glob engine (pathspec) before its first diagnostics."""

from __future__ import annotations

import os
import posixpath
import sys
from collections.abc import Callable, Collection, Iterable, Sequence

from rulemap.readers import check_store
from rulemap.readers.base import MAX_FILE_BYTES, ReadError
from rulemap.readers.check_store import digest, signature
from rulemap.readers.local import LocalReader
from rulemap.readers.recording import Recording


class RecordingReader(LocalReader):
    """`LocalReader`, its answers noted in a `Recording`."""

    def __init__(
        self,
        root: str,
        recording: Recording,
        allowed: Sequence[str] = (),
        max_bytes: int = MAX_FILE_BYTES,
    ) -> None:
        super().__init__(root, allowed, max_bytes)
        self._recording = recording
        if recording.walk_root is None:
            recording.walk_root = self.root
        # the real paths the reader resolved once, for confinement and plain identities
        resolved = zip(self.allowed, self._real_allowed, strict=True)
        for path, real in [(self.root, self._real_root), *resolved]:
            recording.note(recording.identity, path, real)

    @property
    def recording(self) -> Recording:
        return self._recording

    def exists(self, path: str) -> bool:
        if self._recording.implied_missing(path):
            return False
        answer = super().exists(path)
        self._recording.note(self._recording.exists, path, answer)
        return answer

    def is_dir(self, path: str) -> bool:
        answer = super().is_dir(path)
        self._recording.note(self._recording.is_dir, path, answer)
        return answer

    def identity(self, path: str) -> str:
        answer = super().identity(path)
        if not (path.startswith(self.root + "/") and path[len(self.root) + 1:] in self._plain):
            self._recording.note(self._recording.identity, path, answer)
        return answer

    def read_bytes(self, path: str) -> bytes:
        return self._read(path, super().read_bytes)

    def _gitignore_bytes(self, path: str) -> bytes:
        return self._read(path, super()._gitignore_bytes)

    def _read(self, path: str, read: Callable[[str], bytes]) -> bytes:
        sig = signature(path)  # before the read: a later change is a new signature
        try:
            data = read(path)
        except ReadError as exc:
            self._recording.note(self._recording.files, path, (sig, f"!{exc}"))
            raise
        self._recording.note(self._recording.files, path, (sig, digest(data)))
        return data

    def _unopened(self, directory: str) -> None:
        self._recording.note(self._recording.dirs, directory, (signature(directory), "!"))

    def _list_directory(self, directory: str, fd: int | None) -> list[os.DirEntry[str]]:
        recording = self._recording
        sig = check_store.signature_of_open(fd, directory)  # before the listing
        try:
            entries = super()._list_directory(directory, fd)
        except OSError:
            recording.note(recording.dirs, directory, (sig, "!"))
            raise
        # the names interned: the same few (`AGENTS.md`, `src`) in thousands of directories
        names: Collection[str] = [sys.intern(e.name) for e in entries]
        names = tuple(names) if len(names) <= 8 else frozenset(names)
        racy = check_store.racy(sig, recording.start_ns)
        answer = (sig, check_store.listing_digest(entries) if racy else "")
        listed = directory.rstrip("/") or "/"
        key = recording.below_root(listed)
        if key is None:
            recording.listed[listed] = names
        else:
            key = sys.intern(key)  # the walk's string for it (readers/local.py)
            recording.root_listed[key] = names
        recording.note_dir(directory, answer, key)
        return entries

    def list_files(self) -> Iterable[str]:
        files = super().list_files()
        if self.listed_by_git:
            self._recording.usable = False
        self._note_dangling()
        return files

    def files_under(self, key: str) -> list[str]:
        files = super().files_under(key)
        self._note_dangling()
        return files

    def _note_dangling(self) -> None:
        for rel, _ in self._dangling:
            self._recording.note(self._recording.exists, posixpath.join(self.root, rel), False)


def recorded_by(recording: Recording) -> Callable[[str, tuple[str, ...]], RecordingReader]:
    """A reader factory (`analysis.ReaderFactory`): the working tree, recorded in `recording`.
    Here, not a method of `Recording`: the record is light and must not import the walk."""

    def reader(root: str, allowed: tuple[str, ...] = ()) -> RecordingReader:
        return RecordingReader(root, recording, allowed)

    return reader
