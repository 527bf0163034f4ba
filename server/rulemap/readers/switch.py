"""One workspace over two commits: a reader that switches from one ref to another, and what
differs between the two (for `rulemap diff`).

Opening and checking a second 20,000-file workspace for HEAD repeats what BASE did for every
file the change leaves alone; `SwitchReader` lets the BASE workspace become HEAD's instead:
it reads through BASE's reader until `switch`, then through HEAD's, and the workspace's
incremental `update` (the language server's path for file events) drops only what read a
changed file. `git_changes` lists those files from git itself (`git diff-tree` of the two
commits: no blob is read to compare).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from typing import Any

from rulemap.readers.base import ReadError, WalkingReader, is_within
from rulemap.readers.git import GitRefReader
from rulemap.readers.git_process import run_git
from rulemap.records import record


class SwitchReader:
    """Every question to `current`: BASE's reader, then HEAD's after `switch`. Until then
    it keeps what each read returned (`reads`: path → bytes, None for a ReadError), so that
    another reader can be compared on exactly the files BASE's answers depend on."""

    def __init__(self, first: WalkingReader):
        self.first = first
        self.current = first
        self.root = first.root
        self.reads: dict[str, bytes | None] = {}

    def switch(self, to: WalkingReader) -> None:
        if to.root != self.root:
            raise ValueError(f"cannot switch from {self.root} to another root {to.root}")
        self.current = to

    def __getattr__(self, name: str) -> Any:  # optional attributes (lexical_identity)
        return getattr(self.current, name)

    def exists(self, path: str) -> bool:
        return self.current.exists(path)

    def is_dir(self, path: str) -> bool:
        return self.current.is_dir(path)

    def read_bytes(self, path: str) -> bytes:
        if self.current is not self.first:
            return self.current.read_bytes(path)
        try:
            data = self.current.read_bytes(path)
        except ReadError:
            self.reads[path] = None
            raise
        self.reads[path] = data
        return data

    def identity(self, path: str) -> str:
        return self.current.identity(path)

    def list_files(self) -> Iterable[str]:
        return self.current.list_files()

    def ignored_files(self) -> Iterable[str]:
        return self.current.ignored_files()

    def is_ignored(self, key: str) -> bool:
        return self.current.is_ignored(key)

    def files_under(self, key: str) -> list[str]:
        return self.current.files_under(key)

    def dangling_links(self) -> Iterable[tuple[str, str]]:
        return self.current.dangling_links()


@record(frozen=True)
class Changes:
    """Workspace keys (root-relative) that differ from one commit to the other."""

    changed: frozenset[str]
    created: frozenset[str]
    deleted: frozenset[str]


def git_changes(base: GitRefReader, head: GitRefReader) -> Changes | None:
    """The files of the workspace root that differ between the two readers' commits, or None
    when an update cannot stand for a fresh workspace: another repository or root, a symlink
    or a submodule among the changes (what reads through it is not named by the diff), or a
    git error — a `diff-tree` that did not finish within the git time limit too (killed by
    `run_git`): both commits' trees were just listed, so the fresh workspace the caller opens
    instead needs no diff-tree, and each of its git calls has its own limit."""
    if (base.top, base.prefix, base.root) != (head.top, head.prefix, head.root):
        return None
    try:
        done = run_git(
            ["diff-tree", "-r", "-z", "--no-renames", "--raw", base.commit, head.commit],
            base.top,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    fields = os.fsdecode(done.stdout).split("\0")
    prefix = base.prefix + "/" if base.prefix else ""
    changed: set[str] = set()
    created: set[str] = set()
    deleted: set[str] = set()
    # ":<old mode> <new mode> <old sha> <new sha> <status>" NUL "<path>" NUL, per file
    for meta, path in zip(fields[0::2], fields[1::2], strict=False):
        parts = meta.lstrip(":").split(" ")
        if len(parts) < 5:
            continue
        old_mode, new_mode, status = parts[0], parts[1], parts[4]
        if not {old_mode, new_mode} <= {"100644", "100755", "000000"}:
            return None  # a symlink, a submodule, a type change
        if prefix and not path.startswith(prefix):
            continue  # outside the workspace root
        key = path[len(prefix):]
        if base.is_ignored(key):
            continue  # never listed (node_modules, .git)
        if status == "A":
            created.add(key)
        elif status == "D":
            deleted.add(key)
        else:
            changed.add(key)
    return Changes(frozenset(changed), frozenset(created), frozenset(deleted))


def content_changes(
    switch: SwitchReader, head: WalkingReader, base_files: Iterable[str],
    head_files: Iterable[str],
) -> Changes:
    """What differs from the reader `switch` read so far to `head`, for readers git cannot
    compare (the working tree): files listed on one side only, and every file inside the root
    that BASE read whose bytes (or readability, or identity: a symlink retargeted) differ on
    `head`. Files BASE never read fed nothing that a change of theirs could alter."""
    before, after = set(base_files), set(head_files)
    created, deleted = after - before, before - after
    changed: set[str] = set()
    root = switch.root
    for path, old in switch.reads.items():
        if not is_within(path, root) or path == root:
            continue  # outside the workspace: a directory the user granted, the same disk
        key = path[len(root) + 1:]
        if key in created or key in deleted:
            continue
        try:
            new: bytes | None = head.read_bytes(path)
        except ReadError:
            new = None
        if new != old or switch.first.identity(path) != head.identity(path):
            changed.add(key)
    return Changes(frozenset(changed), frozenset(created), frozenset(deleted))
