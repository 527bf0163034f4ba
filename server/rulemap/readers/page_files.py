"""The map page's files (docs/map.md): its packaged assets read, and the page the user asked
for written where they said — a new file, not a repository's: `rulemap check --fix` alone
edits those, through `safe_write.py`.

`write_page` writes atomically (a temporary file beside the target, then renamed over it: a
reader — a CI artifact upload, a browser reloading — sees the old page or the new one, never
part of one) and refuses what is not a page's place: a missing directory, a directory, a
symlink or special file in the target's place, a path inside a `.git` directory, a name that
does not end in `.html` or `.htm` (so a typo never replaces an instruction file or a source
file)."""

from __future__ import annotations

import contextlib
import os
import stat
from importlib import resources

ASSETS = "rulemap.repo_map"  # the package whose `assets/` directory holds the page's files
PAGE_SUFFIXES = (".html", ".htm")


class PageRefused(Exception):
    """The page cannot be written there; the message says why and what to do."""


def asset(name: str) -> str:
    """The text of the packaged asset `name` (`assets/<name>` of the map's package)."""
    return resources.files(ASSETS).joinpath("assets", name).read_text(encoding="utf-8")


def check_page_path(path: str) -> str:
    """`path` made absolute, or PageRefused saying why a page may not be written there."""
    target = os.path.abspath(path)
    if not target.lower().endswith(PAGE_SUFFIXES):
        raise PageRefused(f"{path}: the page's name must end in .html (it is written over "
                          "whatever file has that name)")
    directory = os.path.dirname(target)
    if not os.path.isdir(directory):
        raise PageRefused(f"{path}: no directory {directory}; create it first")
    if ".git" in target.split(os.sep):
        raise PageRefused(f"{path}: inside a .git directory; write the page elsewhere")
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        return target
    except OSError as exc:
        raise PageRefused(f"{path}: {exc.strerror}") from None
    if stat.S_ISDIR(info.st_mode):
        raise PageRefused(f"{path} is a directory; name a file, e.g. {path}/map.html")
    if not stat.S_ISREG(info.st_mode):
        kind = "a symlink" if stat.S_ISLNK(info.st_mode) else "not a regular file"
        raise PageRefused(f"{path} is {kind}; name a plain file")
    return target


def write_page(path: str, data: bytes) -> str:
    """Write `data` to `path` atomically (checked by `check_page_path`); its absolute path.
    PageRefused when it may not or could not be written."""
    target = check_page_path(path)
    directory, name = os.path.split(target)
    temporary = os.path.join(directory, f".{name}.{os.getpid()}.{os.urandom(6).hex()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(temporary, flags | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as exc:
        raise PageRefused(f"{path}: cannot write in {directory}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(temporary, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise PageRefused(f"{path}: {exc.strerror}") from None
    return target
