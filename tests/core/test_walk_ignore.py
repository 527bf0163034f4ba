"""The walk's `.gitignore` test remembered per name (readers/gitignore.py `WalkIgnore`): over
random trees and random `.gitignore` files it must leave out exactly what the test it replaced
(`ignored_in_walk`, every spec asked for every entry) left out, with one memo shared by every
directory under the same `.gitignore` files."""

from __future__ import annotations

import os
import tempfile

from hypothesis import given, settings
from hypothesis import strategies as st

from rulemap.readers.base import ALWAYS_SKIPPED_DIRS
from rulemap.readers.gitignore import (
    GitignoreSpec,
    WalkIgnore,
    ignored_in_walk,
    read_gitignore,
)
from rulemap.readers.local import LocalReader
from rulemap.readers.regular_file import read_regular_file

NAMES = ["a", "b", "build", "x.log", "keep.md", "AGENTS.md", "dist", "node_modules"]
PATTERNS = [
    "*.log", "build/", "build", "/b", "a/b", "a/**/x.log", "**/dist", "!keep.md", "!x.log",
    "*.md", "b/*", "dist/", "\\!a", "a", "[ab]", "#comment", "keep.md", "a/build/",
]

# the .gitignore files in force in a directory: its own and those above it, root first
specs_of = st.lists(
    st.tuples(st.booleans(), st.lists(st.sampled_from(PATTERNS), min_size=1, max_size=4)),
    max_size=4,
)
paths_of = st.lists(
    st.tuples(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4), st.booleans()),
    min_size=1,
    max_size=30,
)


@given(specs_of, st.lists(st.sampled_from(NAMES), max_size=4), paths_of)
def test_a_shared_memo_answers_as_every_spec_asked(
    raw: list[tuple[bool, list[str]]], down: list[str], paths: list[tuple[list[str], bool]]
) -> None:
    # the spec of depth i sits in the directory of the first i names of `down` (kept: True)
    specs = [
        ("/".join(down[:depth]), GitignoreSpec.of(patterns))
        for depth, (kept, patterns) in enumerate(raw)
        if kept and depth <= len(down)
    ]
    ignore = WalkIgnore(specs)
    for parts, is_dir in paths:
        rel = "/".join([*down, *parts])  # an entry the walk meets below all of them
        name = parts[-1]
        if is_dir:
            rel, name = rel + "/", name + "/"
        assert ignore.ignored(rel, name) == ignored_in_walk(specs, rel), (specs, rel)


def _reference_walk(root: str) -> tuple[list[str], list[str]]:
    """The walk's listing as it was: every entry asked of every spec in force."""
    files: list[str] = []
    left_out: list[str] = []

    def walk(directory: str, rel_dir: str, specs: list[tuple[str, GitignoreSpec]]) -> None:
        spec = read_gitignore(os.path.join(directory, ".gitignore"), read_regular_file)
        if spec is not None:
            specs = [*specs, (rel_dir, spec)]
        for entry in os.scandir(directory):
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            if entry.is_dir(follow_symlinks=False):
                if entry.name not in ALWAYS_SKIPPED_DIRS and not (
                    specs and ignored_in_walk(specs, rel + "/")
                ):
                    walk(entry.path, rel, specs)
            elif specs and ignored_in_walk(specs, rel):
                left_out.append(rel)
            else:
                files.append(rel)

    walk(root, "", [])
    return sorted(files), sorted(left_out)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4), min_size=1, max_size=25),
    st.dictionaries(
        st.sampled_from(["", "a", "b", "a/b", "build", "a/build"]),
        st.lists(st.sampled_from(PATTERNS), min_size=1, max_size=4),
        max_size=3,
    ),
)
def test_the_walk_leaves_out_what_it_did(
    tree: list[list[str]], gitignores: dict[str, list[str]]
) -> None:
    with tempfile.TemporaryDirectory() as root:
        for parts in tree:
            directory = os.path.join(root, *parts[:-1])
            if os.path.isfile(directory) or os.path.isdir(os.path.join(directory, parts[-1])):
                continue
            try:
                os.makedirs(directory, exist_ok=True)
            except (FileExistsError, NotADirectoryError):
                continue  # a file already holds a name on the way
            with open(os.path.join(directory, parts[-1]), "w") as f:
                f.write("x\n")
        for where, patterns in gitignores.items():
            directory = os.path.join(root, where)
            if os.path.isdir(directory):
                with open(os.path.join(directory, ".gitignore"), "w") as f:
                    f.write("\n".join(patterns) + "\n")
        reader = LocalReader(root)
        files = sorted(reader.list_files())
        assert (files, sorted(reader.ignored_files())) == _reference_walk(root)
