"""Reads the working tree: honours .gitignore and never follows a symlink out of the root.

The file list comes from our own walk (`_walk`), or — opt-in, `RULEMAP_GIT_LIST=1` — from git
(`_git_list`): on the 20,000-file monorepo the git listing took 87 ms against the walk's 68 ms
(median of 9, in process), so the walk stays the default until git_scan.py's scan is cut.
The listing from git, its rules and its costs: readers/git_scan.py.
"""

from __future__ import annotations

import contextlib
import errno
import os
import posixpath
import sys
from collections.abc import Iterable, Sequence

from rulemap.readers import base, git_listing
from rulemap.readers.base import ALWAYS_SKIPPED_DIRS, MAX_FILE_BYTES, ReadError, is_within
from rulemap.readers.git_scan import GitScan, Start
from rulemap.readers.gitignore import GitignoreSpec, WalkIgnore, ignored, read_gitignore
from rulemap.readers.regular_file import read_regular_file
from rulemap.readers.walk_descent import (
    DEEP,
    MAX_HELD,
    Above,
    Held,
    is_above,
    open_directory,
    release,
)

MAX_LISTINGS_PER_DIRECTORY = 8

_NO_NAMES: frozenset[str] = frozenset()

# a directory the walk has yet to list: (path, root-relative path, real path, real paths above
# it, no symlink on the way, gitignores in force, reached through a link, its parent's
# descriptor when held)
_Pending = tuple[str, str, str, Above, bool, WalkIgnore, bool, Held | None]


class LocalReader(GitScan):
    """The working tree on the local disk. `one_shot`: the reader of a command that exits
    after one look (`rulemap check --no-cache`, explain, graph): a probe below a directory
    the walk listed is answered from that listing (`base.missing_by_listing`), never for a
    long-lived reader, under which files appear."""

    def __init__(
        self, root: str, allowed: Sequence[str] = (), max_bytes: int = MAX_FILE_BYTES,
        one_shot: bool = False,
    ):
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
        self._gitignores: dict[str, GitignoreSpec | None] = {}  # directory → its .gitignore
        self._git_failed = False  # git timed out once: walk from then on
        self.listed_by_git = False  # how the last `list_files` listed (for tests, benchmarks)
        # each directory the walk listed (below the root: "", "a/b") → its names with a dot
        self._listed: dict[str, frozenset[str]] | None = {} if one_shot else None

    def _confined(self, path: str) -> bool:
        real = self.identity(path)
        return is_within(real, self._real_root) or any(
            is_within(real, a) for a in self._real_allowed
        )

    def exists(self, path: str) -> bool:
        if self._listed and path.startswith(self.root + "/") and base.missing_by_listing(
            self._listed, path[len(self.root) + 1:], dot_names_only=True
        ):
            return False
        return os.path.exists(path)

    def is_dir(self, path: str) -> bool:
        return os.path.isdir(path)

    def identity(self, path: str) -> str:
        if path.startswith(self.root + "/") and path[len(self.root) + 1 :] in self._plain:
            if self._real_root == self.root:
                return path  # the same string, not a copy (kilobytes each in a deep tree)
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
        self.listed_by_git = False
        if (
            not self._git_failed
            and not git_listing.disabled()
            and git_listing.maybe_in_work_tree(self.root)
        ):
            try:
                files = self._git_list()
            except git_listing.GitListingUnavailable as exc:
                self._git_failed = isinstance(exc, git_listing.GitTimedOut)
                self._ignored = []
                self._plain = set()
                self._dangling = []
            else:
                self.listed_by_git = True
                return files
        return self._walk()

    # What the walk asks the disk beyond `read_bytes`, each a method so that the check cache's
    # recording reader (readers/recording_reader.py) can note it: a directory's entries, a
    # directory that could not be opened, a .gitignore.
    def _list_directory(self, directory: str, fd: int | None) -> list[os.DirEntry[str]]:
        """The entries of `directory`, listed from its open descriptor `fd` (None: by path,
        where descriptors cannot be listed)."""
        return list(os.scandir(directory if fd is None else fd))

    def _note_listed(self, directory: str, below: str | None, names: list[str]) -> None:
        """`names`, the listing of `directory` (`below` the root, None: to be worked out from
        the path), kept for `exists` (a one-shot reader)."""
        if self._listed is None:
            return
        if below is None:
            root = self.root
            if directory != root and not directory.startswith(root + "/"):
                return
            below = directory[len(root) + 1:].rstrip("/")
        # keyed as the index keys it (interned: one string); the dot names alone, which are
        # probed everywhere (all names of 20,000 directories 400 deep were 28 MB)
        dots = [name for name in names if name[0] == "."]
        self._listed[sys.intern(below)] = frozenset(dots) if dots else _NO_NAMES

    def _unopened(self, directory: str) -> None:
        """`directory` could not be opened: the walk leaves it out."""

    def _gitignore_bytes(self, path: str) -> bytes:
        return read_regular_file(path)

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
            if ignored(specs, rel if last else rel + "/"):
                return True
        return False

    def files_under(self, key: str) -> list[str]:
        """The files a walk lists below directory `key` (one created after the walk)."""
        if not key or self.is_ignored(key + "/x"):
            return [] if key else self._walk()
        path = posixpath.join(self.root, key)
        parent = key.rsplit("/", 1)[0] if "/" in key else ""
        specs = self._specs_in(parent)
        return self._walk((path, key, os.path.realpath(path), frozenset(), False, specs))

    def _specs_in(self, directory: str) -> list[tuple[str, GitignoreSpec]]:
        """The .gitignore files in force in `directory` (its own included), root first."""
        specs: list[tuple[str, GitignoreSpec]] = []
        parts = directory.split("/") if directory else []
        for depth in range(len(parts) + 1):
            rel = "/".join(parts[:depth])
            if rel not in self._gitignores:
                self._gitignores[rel] = read_gitignore(
                    posixpath.join(self.root, rel, ".gitignore"), self._gitignore_bytes
                )
            spec = self._gitignores[rel]
            if spec is not None:
                specs.append((rel, spec))
        return specs

    def _walk(self, *starts: Start) -> list[str]:
        """The files below `starts` (each checked as a directory reached through a link), or
        below the root when none is given."""
        files: list[str] = []
        listed: dict[str, int] = {}  # real directory → times listed (through links)
        stack: list[_Pending] = (
            [(path, rel, real, above, plain, WalkIgnore(specs), True, None)
             for path, rel, real, above, plain, specs in reversed(starts)]
            if starts
            else [(self.root, "", self._real_root, frozenset(), True, WalkIgnore([]), True,
                   None)]
        )
        held: set[Held] = set()  # descriptors kept for subdirectories still on the stack
        # each start's path is the root's joined with its relative path, hence so is every
        # directory's below it: its listing is keyed by that relative path as it is (no copy
        # of a path kilobytes long per directory)
        root = self.root
        keyed = all(
            path == (f"{root}/{rel}" if rel else root) and not rel.endswith("/")
            for path, rel, *_ in (starts or [(root, "")])
        )
        try:
            while stack:
                directory, rel_dir, real, above, plain, ignore, linked, parent = stack.pop()
                # a link back up is a loop; a link out of the workspace is never followed; one
                # directory reached through many links is listed a bounded number of times (a
                # plain subdirectory is none of these: it is a new directory below its parent)
                if linked and (
                    is_above(real, above)
                    or not is_within(real, self._real_root)
                    or listed.get(real, 0) >= MAX_LISTINGS_PER_DIRECTORY
                ):
                    release(parent, held)
                    continue
                if linked:
                    listed[real] = listed.get(real, 0) + 1
                fd = None
                if parent is not None or directory.count("/") >= DEEP:
                    try:
                        fd = open_directory(directory, parent)
                    except OSError:
                        self._unopened(directory)
                        continue
                    finally:
                        release(parent, held)
                # kept while its subdirectories wait, as long as few are held (one per level
                # of the path being walked: the parents with subdirectories to go)
                holder = Held(fd) if fd is not None and len(held) < MAX_HELD else None
                try:
                    try:
                        entries = self._list_directory(directory, fd)  # the index sorts
                    except OSError:
                        continue
                    names = [e.name for e in entries]
                    self._note_listed(directory, rel_dir if keyed else None, names)
                    if ".gitignore" in names:
                        spec = read_gitignore(posixpath.join(directory, ".gitignore"),
                                              self._gitignore_bytes)
                        if spec is not None:
                            ignore = ignore.extended(rel_dir, spec)
                    self._entries(directory, rel_dir, real, above, plain, ignore, entries, files,
                                  stack, holder)
                finally:
                    if holder is not None and holder.waiting:
                        held.add(holder)
                    elif fd is not None:
                        os.close(fd)
        finally:
            for holder in held:
                os.close(holder.fd)
        return files

    def _entries(
        self,
        directory: str,
        rel_dir: str,
        real: str,
        above: Above,
        plain: bool,
        ignore: WalkIgnore,
        entries: list[os.DirEntry[str]],
        files: list[str],
        stack: list[_Pending],
        holder: Held | None,
    ) -> None:
        """The files of one listed directory, under the gitignores in force there (`ignore`,
        its own included), added to `files`; its subdirectories to walk pushed on `stack`,
        to be opened from `holder` (its descriptor, when held)."""
        below = (real, above)
        prefix = f"{rel_dir}/" if rel_dir else ""
        path_prefix = directory if directory.endswith("/") else directory + "/"
        # bound once: this loop runs once per entry of the tree (60,000 on a large one)
        add_plain = self._plain.add if plain else None
        add_file = files.append
        add_ignored = self._ignored.append
        tested = ignore if ignore.specs else None
        # the part of the answer a name alone settles, remembered (`WalkIgnore`)
        known = ignore.by_name_memo.get
        learn = ignore.name_ignored
        by_path = None if ignore.by_name else ignore.path_ignored
        for entry in entries:
            name = entry.name
            rel = prefix + name
            is_link = False
            try:
                # a regular file or a directory, not a link (most entries): one test, from the
                # type the listing gave, and none of the link handling below
                if entry.is_file(follow_symlinks=False):
                    if add_plain is not None:
                        add_plain(rel)
                    if tested is not None:
                        hit = known(name)
                        if hit is None:
                            hit = learn(name)
                        if hit or (by_path is not None and by_path(rel)):
                            add_ignored(rel)
                            continue
                    add_file(rel)
                    continue
                is_dir = entry.is_dir(follow_symlinks=False)
                if not is_dir:
                    is_link = entry.is_symlink()
                    is_dir = entry.is_dir()  # follows symlinks
                    if is_link and not is_dir and not entry.is_file() and not os.path.exists(
                        path_prefix + name
                    ):
                        self._add_dangling(rel, path_prefix + name)
                        continue
            except OSError as exc:
                # a symlink loop (`CLAUDE.md -> CLAUDE.md`, a -> b -> a): following it
                # fails with ELOOP. It leads to no file, as a dangling link does, so it is
                # reported as one (the git reader lists its loops there too); checks/files
                # tells the two apart by their targets.
                if is_link and exc.errno == errno.ELOOP:
                    self._add_dangling(rel, path_prefix + name)
                continue
            if is_dir:
                # one string per directory for this set, the listings and the index (20 MB
                # saved 400 levels deep, where a directory's path is a kilobyte)
                rel = sys.intern(rel)
            if add_plain is not None and not is_link:
                add_plain(rel)
            if is_dir:
                if name in ALWAYS_SKIPPED_DIRS:
                    continue
                if tested is not None:
                    key = name + "/"
                    hit = known(key)
                    if hit is None:
                        hit = learn(key)
                    if hit or (by_path is not None and by_path(rel + "/")):
                        continue
                path = path_prefix + name
                # only a link needs the (slow) real-path resolution
                child_real = os.path.realpath(path) if is_link else f"{real}/{name}"
                if holder is not None:
                    holder.waiting += 1
                stack.append((path, rel, child_real, below, plain and not is_link, ignore,
                              is_link, holder))
            elif tested is not None and tested.ignored(rel, name):
                add_ignored(rel)
            else:
                add_file(rel)

    def _add_dangling(self, rel: str, path: str) -> None:
        with contextlib.suppress(OSError):
            self._dangling.append((rel, os.readlink(path)))

