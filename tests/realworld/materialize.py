"""Rebuild a real-world entry's repository tree (tests/realworld/entries/<owner>__<name>/).

usage: python tests/realworld/materialize.py ENTRY DEST

1. every path of ENTRY/FILES.txt becomes an empty file (symlink paths excepted);
2. ENTRY/files/ (the instruction files, their import targets and the files behind instruction
   symlinks, byte-identical) is copied over the placeholders;
3. every `path -> target` line of ENTRY/SYMLINKS.txt becomes a symbolic link with the target
   exactly as git stores it (a dangling or odd target stays so);
4. an empty `.git` directory marks the root, as in a checkout (agents such as Codex find the
   project root by it).

A path that is absolute, has an empty, `.` or `..` part, or would be written through a symlink
is refused (ValueError): nothing is ever written outside DEST.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path


def _lines(path: Path) -> list[str]:
    if not path.is_file():
        return []
    return [line for line in path.read_text(encoding="utf-8").split("\n") if line]


def _checked(dest: Path, rel: str, safe: set[Path] | None = None) -> Path:
    """DEST/rel, refusing any path that could land outside DEST (`safe`: directories already
    known to be real directories, or not yet created, below DEST)."""
    parts = rel.split("/")
    if rel.startswith("/") or "\\" in rel or any(p in ("", ".", "..") for p in parts):
        raise ValueError(f"refusing path {rel!r}")
    target = dest.joinpath(*parts)
    parent = target.parent
    # no component between DEST and the file may be a symlink (writes never go through one)
    while parent != dest and (safe is None or parent not in safe):
        if parent.is_symlink():
            raise ValueError(f"refusing path {rel!r}: {parent} is a symlink")
        if safe is not None:
            safe.add(parent)
        parent = parent.parent
    return target


def symlinks(entry: Path) -> list[tuple[str, str]]:
    """The entry's `(path, target)` symlinks, targets exactly as stored in git."""
    pairs = []
    for line in _lines(entry / "SYMLINKS.txt"):
        path, sep, target = line.partition(" -> ")
        if sep:
            pairs.append((path, target))
    return pairs


def materialize(entry: Path, dest: Path) -> int:
    """Build the tree of `entry` in `dest` (which must not exist or be empty); return the number
    of paths created."""
    dest.mkdir(parents=True, exist_ok=True)
    if any(dest.iterdir()):
        raise ValueError(f"{dest} is not empty")
    dest = dest.resolve()
    links = symlinks(entry)
    linked = {path for path, _ in links}

    def below_link(rel: str) -> bool:
        parts = rel.split("/")
        return any("/".join(parts[:i]) in linked for i in range(1, len(parts)))

    made: set[Path] = set()  # directories created
    checked: set[Path] = set()  # directories known not to be symlinks (none exist before step 3)
    count = 0
    for rel in _lines(entry / "FILES.txt"):
        if rel in linked:
            continue
        if below_link(rel):
            raise ValueError(f"refusing path {rel!r}: it is below a symlink")
        target = _checked(dest, rel, checked)
        if target.parent not in made:
            target.parent.mkdir(parents=True, exist_ok=True)
            made.add(target.parent)
        target.touch()
        count += 1
    files = entry / "files"
    for src in sorted(files.rglob("*")):
        if src.is_file() and not src.is_symlink():
            rel = src.relative_to(files).as_posix()
            if rel in linked or below_link(rel):
                raise ValueError(f"refusing path {rel!r}: it is a symlink or below one")
            target = _checked(dest, rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, target)
    for rel, link_target in links:
        if below_link(rel):
            raise ValueError(f"refusing symlink {rel!r}: it is below another symlink")
        target = _checked(dest, rel)
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists() or target.is_symlink():
            raise ValueError(f"refusing symlink {rel!r}: the path exists")
        os.symlink(link_target, target)
        count += 1
    (dest / ".git").mkdir()
    return count


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    count = materialize(Path(argv[0]), Path(argv[1]))
    print(f"{argv[1]}: {count} paths")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
