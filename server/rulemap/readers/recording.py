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
import sys
import time
from collections.abc import Collection, Iterator
from typing import Any

from rulemap.readers import check_store
from rulemap.readers.base import ReadError, find_root, missing_by_listing
from rulemap.readers.check_store import Signature, digest, signature
from rulemap.readers.regular_file import read_regular_file


class Recording:
    """What one run asked the disk, and the answers."""

    def __init__(self, start_ns: int | None = None) -> None:
        self.start_ns = time.time_ns() if start_ns is None else start_ns
        self.dirs: dict[str, tuple[Signature, str]] = {}
        # the directories listed below `walk_root` (the root of the walk, when the recording
        # reader is at one) by their workspace keys, the walk's own strings: keyed by their
        # absolute paths, a tree 400 levels deep held 20 MB of them for the record alone
        self.walk_root: str | None = None
        self.root_dirs: dict[str, tuple[Signature, str]] = {}
        self.files: dict[str, tuple[Signature, str]] = {}
        self.exists: dict[str, bool] = {}
        self.is_dir: dict[str, bool] = {}
        self.identity: dict[str, str] = {}
        self.root: tuple[str, str] | None = None  # (cwd, the root found from it)
        self.usable = True
        # the names in each directory the walk listed: a path below one that names no entry
        # of it is missing for as long as the directory's recorded signature holds
        self.listed: dict[str, Collection[str]] = {}
        # as `listed`, by workspace key; a few names as a tuple (a frozenset is 216 bytes)
        self.root_listed: dict[str, Collection[str]] = {}
        # every listed directory's entries as one hash (`check_store.listing_digest`), for a
        # workspace snapshot (cli/check_resume.py): a directory whose signature changed
        # because a file in it was saved by a rename is the same directory if these match.
        # Worked out when the snapshot is written (`check_store.listings_now`), not in the run
        self.listings: dict[str, str] | None = None

    def implied_missing(self, path: str) -> bool:
        """Whether `path` is missing by a listing the walk made (`base.missing_by_listing`).
        Such a probe is not noted (nor asked): the directory's signature, checked next time,
        stands for it. Codex's `.git` and Claude Code's `.claude/CLAUDE.md` probed in each of
        20,000 directories 400 levels deep made a 68 MB entry, over the size a cache entry
        may have. Never once `stop_listing_answers` was called (a language server's
        workspace outlives the walk)."""
        key = self.below_root(path)
        if key is not None:  # the root itself is not missing
            return bool(key) and missing_by_listing(self.root_listed, key)
        return missing_by_listing(self.listed, path)

    def stop_listing_answers(self) -> None:
        """From now on every probe asks the disk: files are created after the walk."""
        self.listed = {}
        self.root_listed = {}

    def below_root(self, path: str) -> str | None:
        """`path`'s workspace key when it is `walk_root` or below it, else None."""
        return check_store.key_below(self.walk_root, path)

    def note_dir(self, path: str, answer: tuple[Signature, str], key: str | None) -> None:
        """Directory `path` listed, with `answer`; `key`: its workspace key (the walk's
        string), when it is below `walk_root`."""
        if key is None:
            self.note(self.dirs, path, answer)
        else:
            self.note(self.root_dirs, key, answer)

    def set_dir(self, path: str, answer: tuple[Signature, str]) -> None:
        """Directory `path`'s answer as it is now (a resumed check's)."""
        key = self.below_root(path)
        if key is None:
            self.dirs[path] = answer
        else:
            self.root_dirs[sys.intern(key)] = answer

    def all_dirs(self) -> dict[str, tuple[Signature, str]]:
        """Every listed directory by its absolute path."""
        out = dict(self.dirs)
        root = self.walk_root
        if root is not None:
            for key, answer in self.root_dirs.items():
                out[f"{root}/{key}" if key else root] = answer
        return out

    def note(self, table: dict[str, Any], key: str, answer: Any) -> None:
        if table.setdefault(key, answer) != answer:
            self.usable = False  # it changed while the run looked

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

    def to_json(self, with_listings: bool = False) -> dict[str, Any]:
        """The record, every path as an index into `paths` (`check_store.PathTable`: each
        path its parent's index and its last name, so a tree 400 levels deep is not written
        out in full 20,000 times); `with_listings`: each listed directory's entries' hash too,
        for a snapshot's validation (`check_store.changes_since`)."""
        table = check_store.PathTable(self.walk_root)
        sections = dict(self._sections(table, with_listings))
        return {"paths": table.rows, **sections}

    def json_pieces(self) -> Iterator[str]:
        """`to_json()` as JSON text, a section at a time, each made, written out and let go
        before the next (the whole record and its text at once were 13 MB of the peak of a
        first check 400 levels deep); the path table last, in slices."""
        import json

        table = check_store.PathTable(self.walk_root)
        opening = "{"
        for name, value in self._sections(table, False):
            yield f'{opening}"{name}":{json.dumps(value, separators=(",", ":"))}'
            opening = ","
            del value
        yield ',"paths":['
        rows = table.rows
        for start in range(0, len(rows), _ROWS_PER_PIECE):
            text = json.dumps(rows[start:start + _ROWS_PER_PIECE], separators=(",", ":"))
            yield ("," if start else "") + text[1:-1]
        yield "]}"

    def _sections(
        self, table: check_store.PathTable, with_listings: bool
    ) -> Iterator[tuple[str, Any]]:
        at = table.index
        below = table.index_below
        listed = [*((at(p), answer) for p, answer in self.dirs.items()),
                  *((below(key), answer) for key, answer in self.root_dirs.items())]
        packable = check_store.packable
        irregular: list[list[Any]] = []
        packed: list[int] = []
        for row, (sig, listing) in listed:
            if packable(sig, listing):
                assert sig is not None
                packed.append(row)
                packed.extend(sig)
            else:
                irregular.append([row, sig, listing])
        del listed
        yield "dirs", irregular
        del irregular
        yield "packed_dirs", check_store.pack_ints(packed)
        yield "files", [[at(p), sig, result] for p, (sig, result) in self.files.items()]
        yield "exists", [[at(p), answer] for p, answer in self.exists.items()]
        yield "is_dir", [[at(p), answer] for p, answer in self.is_dir.items()]
        yield "identity", [[at(p), answer] for p, answer in self.identity.items()]
        yield "root", list(self.root) if self.root else None
        if with_listings and self.listings is not None:
            rows = [at(p) for p in self.listings]
            listings = list(self.listings.values())
            both = check_store.pack_listings(rows, listings)
            if both is not None:
                yield "packed_listings", both
            else:
                yield "listings", [list(pair) for pair in zip(rows, listings, strict=True)]


_ROWS_PER_PIECE = 8192
