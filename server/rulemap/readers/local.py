"""Reads the working tree: honours .gitignore and never follows a symlink out of the root.

The file list comes from our own walk (`_walk`), or — opt-in, `RULEMAP_GIT_LIST=1` — from git
(`_git_list`): on the 20,000-file monorepo the git listing took 87 ms against the walk's 68 ms
(median of 9, in process), so the walk stays the default until the scan below is cut.

With RULEMAP_GIT_LIST=1, in a git work tree (git on PATH) git says which paths belong to the
project — one `git ls-files -co --exclude-standard -z`, git's ignore rules exactly — and a scan
of just the directories holding those paths says what each one is (a file, a symlink, a FIFO,
gone). The walk's rules where git has no say, so both give the same listing, ignored files,
dangling links and plain paths wherever git's rules and the walk's agree:
- `.git` and `node_modules` are never entered, even when git lists files there;
- a symlink to a directory inside the root is followed and its tree walked (the walk's rules
  below it: git lists the link, never what it leads to); a dangling or looping link is reported
  wherever it is, ignored or not; a link out of the root is not followed;
- a nested repository (`sub/` to git) or a submodule (a gitlink) is walked, as the walk does;
- FIFOs, sockets and devices, which git never lists, are listed unless a .gitignore matches them;
- ignored files are the files of the scanned directories git leaves out; a directory git lists
  nothing in is asked about (`git check-ignore`, only when one is found that the .gitignore
  files do not already leave out) and scanned when git does not ignore it.
Where git and the walk differ, git wins: a tracked file is listed even where a .gitignore
matches it (git's rules never apply to tracked files: it is part of the project as committed);
the .gitignore files above the root, .git/info/exclude and core.excludesFile apply. A root git
ignores as a whole is walked (git would list nothing there). `is_ignored` and `files_under`
(files created after the listing, for the language server) keep the walk's rules. Any failure
of git (none installed, not a work tree, a timeout — a FIFO `.gitignore` blocks git) falls back
to the walk; after a timeout this reader asks git no more. Cost, 20,000-file monorepo on a
busy 2-core machine: `git ls-files` ~37 ms, the scan ~45 ms (its readdir calls alone ~24 ms),
the walk 70-100 ms — the scan, not git, is what is left to cut (run git and the scan at once,
or take the file types from the index).
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

# where `_walk` starts: (path, root-relative path, real path, real paths above it, no symlink
# on the way, gitignores in force)
Start = tuple[str, str, str, frozenset[str], bool, list[tuple[str, GitignoreSpec]]]


_NO_NAMES: frozenset[str] = frozenset()

# a directory the walk has yet to list: (path, root-relative path, real path, real paths above
# it, no symlink on the way, gitignores in force, reached through a link, its parent's
# descriptor when held)
_Pending = tuple[str, str, str, Above, bool, WalkIgnore, bool, Held | None]


class LocalReader:
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

    def _git_list(self) -> list[str]:
        """The listing from git (module docstring): git's paths, typed by a scan of the
        directories that hold them. Raises GitListingUnavailable for the walk to take over."""
        root = self.root
        if git_listing.root_is_ignored(root):
            raise git_listing.GitListingUnavailable("git ignores the root")
        listed = set(git_listing.tracked_and_untracked(root))  # (`sub/`: a nested repository)
        directories = {path.rpartition("/")[0] for path in listed}
        for directory in list(directories):
            while directory:  # and the directories above, up to one already known
                directory = directory.rpartition("/")[0]
                if directory in directories:
                    break
                directories.add(directory)
        files: list[str] = []
        starts: list[Start] = []
        pending: list[tuple[str, bool]] = [("", True)]
        while pending:
            asked: list[str] = []
            while pending:
                rel_dir, in_listing = pending.pop()
                self._scan(rel_dir, in_listing, listed, directories, files, starts, pending,
                           asked)
            # directories git lists nothing in, that no .gitignore leaves out: the ones git does
            # not ignore either are scanned for what git never lists (FIFOs, ignored files)
            ignored = git_listing.ignored_of(root, asked) if asked else set()
            pending = [(rel, False) for rel in asked if rel not in ignored]
        if starts:  # (no start: the walk would start at the root)
            files.extend(self._walk(*starts))
        return files

    def _scan(
        self,
        rel_dir: str,
        in_listing: bool,
        listed: set[str],
        directories: set[str],
        files: list[str],
        starts: list[Start],
        pending: list[tuple[str, bool]],
        asked: list[str],
    ) -> None:
        """One plain directory of the git listing: its entries typed and sorted into `files`,
        the ignored files and the dangling links; the directories below go to `pending` (ones
        git lists files in: scanned next), `starts` (walked) or `asked` (git is asked whether
        it ignores them). `in_listing`: git lists files here (else it lists nothing here and
        does not ignore the directory)."""
        directory = f"{self.root}/{rel_dir}" if rel_dir else self.root
        try:
            with os.scandir(directory) as found:
                entries = list(found)
        except OSError:
            return
        prefix = f"{rel_dir}/" if rel_dir else ""
        # regular files (most entries) in bulk: set operations against git's listing
        regular = {prefix + e.name for e in entries if e.is_file(follow_symlinks=False)}
        self._plain |= regular
        if regular:
            files.extend(regular & listed)
            left_out = regular - listed
            if left_out:
                dot_git = prefix + ".git"  # git lists no `.git` file: the walk's rules
                if dot_git in left_out and not ignored(self._specs_in(rel_dir), dot_git):
                    left_out.discard(dot_git)
                    files.append(dot_git)
                self._ignored.extend(left_out)
        if len(regular) == len(entries):
            return
        for entry in entries:
            rel = prefix + entry.name
            if rel in regular:
                continue
            try:
                if entry.is_symlink():
                    self._scan_link(entry, rel_dir, rel, rel in listed, files, starts)
                    continue
                is_dir = entry.is_dir()
            except OSError:
                continue
            self._plain.add(rel)
            if not is_dir:  # a FIFO, a socket, a device: git never lists one, the walk's rules
                if rel in listed or not ignored(self._specs_in(rel_dir), rel):
                    files.append(rel)
                else:
                    self._ignored.append(rel)
            elif entry.name in ALWAYS_SKIPPED_DIRS:
                continue
            elif rel + "/" in listed or rel in listed:
                # a nested repository (`sub/`), a submodule (a gitlink `sub`): walked
                starts.append((entry.path, rel, f"{self._real_root}/{rel}", self._above(rel_dir),
                               True, self._specs_in(rel_dir)))
            elif in_listing and rel in directories:
                pending.append((rel, True))
            elif not ignored(self._specs_in(rel_dir), rel + "/") and _has_entries(entry.path):
                asked.append(rel)

    def _scan_link(
        self,
        entry: os.DirEntry[str],
        rel_dir: str,
        rel: str,
        is_listed: bool,
        files: list[str],
        starts: list[Start],
    ) -> None:
        """A symlink in a scanned directory, as the walk takes it: dangling (or looping) is
        reported, a directory is followed if git lists the link and it stays inside the root
        (`_walk` checks that), anything else is a file, listed or ignored as git says."""
        try:
            is_dir = entry.is_dir()  # follows the link
            if not is_dir and not entry.is_file() and not os.path.exists(entry.path):
                with contextlib.suppress(OSError):
                    self._dangling.append((rel, os.readlink(entry.path)))
                return
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                with contextlib.suppress(OSError):
                    self._dangling.append((rel, os.readlink(entry.path)))
            return
        if is_dir:
            specs = self._specs_in(rel_dir)
            if is_listed and entry.name not in ALWAYS_SKIPPED_DIRS and not ignored(
                specs, rel + "/"
            ):
                starts.append((entry.path, rel, os.path.realpath(entry.path),
                               self._above(rel_dir), False, specs))
        elif is_listed:
            files.append(rel)
        else:
            self._ignored.append(rel)

    def _above(self, rel_dir: str) -> frozenset[str]:
        """The real paths of plain directory `rel_dir` and of those above it, up to the root."""
        above = {self._real_root}
        parts = rel_dir.split("/") if rel_dir else []
        for depth in range(1, len(parts) + 1):
            above.add(f"{self._real_root}/{'/'.join(parts[:depth])}")
        return frozenset(above)

    # What the walk asks the disk beyond `read_bytes`, each a method so that the check cache's
    # recording reader (readers/recording_reader.py) can note it: a directory's entries, a
    # directory that could not be opened, a .gitignore.
    def _list_directory(self, directory: str, fd: int | None) -> list[os.DirEntry[str]]:
        """The entries of `directory`, listed from its open descriptor `fd` (None: by path,
        where descriptors cannot be listed)."""
        return list(os.scandir(directory if fd is None else fd))

    def _note_listed(self, directory: str, names: list[str]) -> None:
        """`names`, the listing of `directory`, kept for `exists` (a one-shot reader)."""
        if self._listed is not None and (
            directory == self.root or directory.startswith(self.root + "/")
        ):
            # keyed as the index keys it (interned: one string); the dot names alone, which
            # are probed everywhere (all names of 20,000 directories 400 deep were 28 MB)
            dots = [name for name in names if name[0] == "."]
            below = sys.intern(directory[len(self.root) + 1:].rstrip("/"))
            self._listed[below] = frozenset(dots) if dots else _NO_NAMES

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
                    self._note_listed(directory, names)
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
        by_name = ignore.by_name
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
                    if tested is not None and (
                        hit if (hit := known(name)) is not None and (hit or by_name)
                        else tested.ignored(rel, name)
                    ):
                        add_ignored(rel)
                    else:
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
                if name in ALWAYS_SKIPPED_DIRS or (
                    tested is not None and tested.ignored(rel + "/", name + "/")
                ):
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


def _has_entries(path: str) -> bool:
    try:
        with os.scandir(path) as entries:
            return next(entries, None) is not None
    except OSError:
        return False
