"""The check cache's recording reader: the working tree read as `LocalReader` reads it, every
question asked noted with its answer, so that the next run can ask them again
(`check_store.still_valid`) instead of checking again.

Noted, each once (a question answered twice differently makes the record unusable):
- each directory the walk lists, by its signature (taken before it is listed: an entry
  created, removed or renamed later changes its mtime), with a hash of its entries when the
  signature is racy (`check_store`);
- each file read (`read_bytes`, each `.gitignore`, the user's configuration file): its
  signature, taken before the read, and the hash of the bytes read, or the reason it could
  not be read;
- `exists`, `is_dir`, and `identity` where it resolves a real path (a path the walk met with
  no symlink on the way has the root's real path, noted, as its own);
- the links the walk found dangling (their target could appear anywhere).
A listing from git (`RULEMAP_GIT_LIST=1`) depends on git's index: such a run is not cached.
"""

from __future__ import annotations

import os
import posixpath
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from rulemap.readers import check_store
from rulemap.readers.base import MAX_FILE_BYTES, ReadError, find_root
from rulemap.readers.check_store import Signature, digest, signature
from rulemap.readers.local import LocalReader, read_regular_file


class Recording:
    """What one run asked the disk, and the answers."""

    def __init__(self, start_ns: int | None = None) -> None:
        self.start_ns = time.time_ns() if start_ns is None else start_ns
        self.dirs: dict[str, tuple[Signature, str]] = {}
        self.files: dict[str, tuple[Signature, str]] = {}
        self.exists: dict[str, bool] = {}
        self.is_dir: dict[str, bool] = {}
        self.identity: dict[str, str] = {}
        self.root: tuple[str, str] | None = None  # (cwd, the root found from it)
        self.usable = True
        # the names in each directory the walk listed: a path below one that names no entry
        # of it is missing for as long as the directory's recorded signature holds
        self.listed: dict[str, frozenset[str]] = {}

    def implied_missing(self, path: str) -> bool:
        """Whether `path` is missing by a listing the walk made: its nearest listed ancestor
        has no entry for the next name on the way. Such a probe is not noted (nor asked):
        the directory's signature, checked next time, stands for it. Codex's `.git` and
        Claude Code's `.claude/CLAUDE.md` probed in each of 20,000 directories 400 levels
        deep made a 68 MB entry, over the size a cache entry may have."""
        parent, _, name = path.rpartition("/")
        while parent:
            names = self.listed.get(parent)
            if names is not None:
                return name not in names
            parent, _, name = parent.rpartition("/")
        return False

    def note(self, table: dict[str, Any], key: str, answer: Any) -> None:
        if table.setdefault(key, answer) != answer:
            self.usable = False  # it changed while the run looked

    def reader(self, root: str, allowed: tuple[str, ...] = ()) -> RecordingReader:
        """A reader factory (`analysis.ReaderFactory`): the working tree, recorded."""
        return RecordingReader(root, self, allowed)

    def note_user_file(self, path: str) -> None:
        """A file read outside any reader (the user's configuration file), read here as
        readers/host.py's `read_user_file` reads it: its signature, then its bytes' hash."""
        sig = signature(path)
        if not os.path.lexists(path):
            self.note(self.files, path, (sig, "!missing"))
            return
        try:
            self.note(self.files, path, (sig, digest(read_regular_file(path))))
        except ReadError as exc:
            self.note(self.files, path, (sig, f"!{exc}"))

    def note_is_dir(self, path: str) -> None:
        self.note(self.is_dir, path, os.path.isdir(path))

    def note_root(self, cwd: str) -> None:
        """The root is the nearest ancestor of `cwd` with `.git`: found again when validated."""
        self.root = (cwd, find_root(cwd))

    def to_json(self) -> dict[str, Any]:
        """The record, every path as an index into `paths` (`check_store.PathTable`: each
        path its parent's index and its last name, so a tree 400 levels deep is not written
        out in full 20,000 times)."""
        table = check_store.PathTable()
        at = table.index
        return {
            "paths": table.rows,
            "dirs": [[at(p), sig, listing] for p, (sig, listing) in self.dirs.items()],
            "files": [[at(p), sig, result] for p, (sig, result) in self.files.items()],
            "exists": [[at(p), answer] for p, answer in self.exists.items()],
            "is_dir": [[at(p), answer] for p, answer in self.is_dir.items()],
            "identity": [[at(p), answer] for p, answer in self.identity.items()],
            "root": list(self.root) if self.root else None,
        }


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
        # the real paths the reader resolved once, for confinement and plain identities
        resolved = zip(self.allowed, self._real_allowed, strict=True)
        for path, real in [(self.root, self._real_root), *resolved]:
            recording.note(recording.identity, path, real)

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

    def _list_directory(self, directory: str) -> list[os.DirEntry[str]]:
        recording = self._recording
        sig = signature(directory)
        try:
            entries = super()._list_directory(directory)
        except OSError:
            recording.note(recording.dirs, directory, (sig, "!"))
            raise
        recording.listed[directory.rstrip("/") or "/"] = frozenset(e.name for e in entries)
        racy = check_store.racy(sig, recording.start_ns)
        recording.note(
            recording.dirs, directory, (sig, check_store.listing_digest(entries) if racy else "")
        )
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
