"""The listing from git, opt-in (`RULEMAP_GIT_LIST=1`), for `LocalReader` (readers/local.py):
git's paths, typed by a scan of the directories that hold them.

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

from rulemap.readers import git_listing
from rulemap.readers.base import ALWAYS_SKIPPED_DIRS
from rulemap.readers.gitignore import GitignoreSpec, ignored

# where `_walk` starts: (path, root-relative path, real path, real paths above it, no symlink
# on the way, gitignores in force)
Start = tuple[str, str, str, frozenset[str], bool, list[tuple[str, GitignoreSpec]]]


class GitScan:
    """`LocalReader`'s listing from git: its methods, apart for length. What they share with
    the walk is `LocalReader`'s (declared here for the type checker)."""

    root: str
    _real_root: str
    _ignored: list[str]
    _plain: set[str]
    _dangling: list[tuple[str, str]]

    def _specs_in(self, directory: str) -> list[tuple[str, GitignoreSpec]]:
        raise NotImplementedError

    def _walk(self, *starts: Start) -> list[str]:
        raise NotImplementedError

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


def _has_entries(path: str) -> bool:
    try:
        with os.scandir(path) as entries:
            return next(entries, None) is not None
    except OSError:
        return False
