"""Where Codex looks and what its byte budget does to one file (shared by the load and the
findings): the file names per directory, `.git` markers, raw bytes, lossy decoding."""

from __future__ import annotations

import posixpath
import sys
from typing import TYPE_CHECKING, Final

from rulemap.derived import KeyFamily
from rulemap.profiles.base import join, parent_dir
from rulemap.readers.base import ReadError, is_within
from rulemap.records import record
from rulemap.workspace.letter_case import named_as

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

OVERRIDE = "AGENTS.override.md"
AGENTS = "AGENTS.md"
MAX_BYTES = 32768
GLOBAL_DIR = ".codex"  # under the home directory ($CODEX_HOME moves it; --home names the home)
ROOT_MARKERS = (".git",)  # Codex's default project_root_markers
ROOT_MODES = ("auto", "cwd", "workspace")
# what Rust's `str::trim` strips (Unicode White_Space): a file of only these is empty to Codex;
# unlike Python's `str.strip`, neither U+001C..U+001F nor a byte-order mark is in it
RUST_WHITESPACE = ("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
                   "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")

_NAMES: Final = KeyFamily[dict[str, dict[str, str]]]("codex-names")  # file names
_MARKED: Final = KeyFamily[bool]("codex-marked")  # directory, project_root_markers
_ABOVE: Final = KeyFamily[str]("codex-marker-above")  # project_root_markers
_BYTES: Final = KeyFamily[bytes | str]("codex-bytes")  # file


@record(frozen=True)
class CodexOptions:
    max_bytes: int
    names: tuple[str, ...]  # AGENTS.override.md, AGENTS.md, then the fallbacks
    root_markers: tuple[str, ...]  # project_root_markers; () reads cwd only
    root_without_git: str
    problems: tuple[str, ...]


@record(frozen=True)
class Verdict:
    """What the byte budget does to one file: bytes kept (None: left out), cut or not, and
    whether it was skipped as empty."""

    kept: int | None
    cut: bool
    empty: bool


def name_index(ws: Workspace, names: tuple[str, ...]) -> dict[str, dict[str, str]]:
    """directory → {name: key} of the walked files (and git-ignored ones) with those names.
    Kept until a file is created or deleted (names change only then)."""
    key = _NAMES.key(names)
    cached = ws.derived.get(key)
    if cached is not None:
        return cached
    wanted = frozenset(names)
    suffixes = {n[n.rfind("."):] for n in names if n.rfind(".") > 0}
    pool: list[str] = [p for s in sorted(suffixes) for p in ws.files.with_suffix(s)]
    if any(n.rfind(".") <= 0 for n in names) or ws.case_insensitive:
        pool = list(ws.files)  # a name without an extension, or `.MD` for `.md`: every file
    index: dict[str, dict[str, str]] = {}
    for path in [*pool, *ws.reader.ignored_files()]:
        directory, _, name = path.rpartition("/")
        if "/.git/" in f"/{path}":
            continue
        if name in wanted:
            # interned: the walk's directories, kilobytes each in a deep tree, kept once
            index.setdefault(sys.intern(directory), {})[name] = path
        elif ws.case_insensitive:
            # Codex opens `dir.join(name)` (project_doc.rs): a case-insensitive file system
            # hands it `agents.md` for `AGENTS.md`; the exact name wins when both are listed
            found = named_as(ws, name, names)
            if found is not None:
                index.setdefault(sys.intern(directory), {}).setdefault(found, path)
    ws.derived.put(key, index, reads=())
    return index


def has_marker(ws: Workspace, directory: str, markers: tuple[str, ...]) -> bool:
    """Whether `directory` holds one of the project root markers (a file or a directory:
    Codex asks only that the path exists)."""
    key = _MARKED.key(directory, markers)
    cached = ws.derived.get(key)
    if cached is None:
        cached = any(ws.reader.exists(ws.abs(join(directory, m))) for m in markers)
        ws.derived.put(key, cached, reads=())
    return cached


def marker_above(ws: Workspace, markers: tuple[str, ...]) -> str:
    """The nearest directory above the workspace root holding a marker ("" if none): Codex
    walks up the whole file system; Rulemap asks the reader only whether a marker exists
    there, and reads nothing above the root."""
    key = _ABOVE.key(markers)
    cached = ws.derived.get(key)
    if cached is None:
        cached = ""
        current = ws.root.rstrip("/") or "/"
        while current != "/" and not cached:
            current = posixpath.dirname(current) or "/"
            if any(ws.reader.exists(posixpath.join(current, m)) for m in markers):
                cached = current
        ws.derived.put(key, cached, reads=())
    return cached


def unmarked_root(ws: Workspace, opts: CodexOptions, cwd: str) -> str:
    """The project root when no marker lies between cwd and the workspace root: "auto" takes
    the workspace root when a marker lies above it (the real root is there, out of sight),
    else cwd, as Codex does outside any project."""
    mode = opts.root_without_git
    if mode == "auto":
        mode = "workspace" if marker_above(ws, opts.root_markers) else "cwd"
    return "" if mode == "workspace" else cwd


def file_bytes(ws: Workspace, key: str) -> bytes | str:
    """The file's bytes as Codex reads them (no decoding: the budget counts bytes), or why
    it cannot be read: a parsed document's own, else read and cached until the file
    changes."""
    parsed = ws.document_bytes(key)
    if parsed is not None:
        return parsed
    cache_key = _BYTES.key(key)
    cached = ws.derived.get(cache_key)
    if cached is None:
        try:
            cached = ws.reader.read_bytes(ws.abs(key))
        except ReadError as exc:
            cached = str(exc)
        ws.derived.put(cache_key, cached, reads=(key,))
    return cached


def raw_bytes(ws: Workspace, key: str) -> bytes:
    data = file_bytes(ws, key)
    return b"" if isinstance(data, str) else data


def decode_lossy(data: bytes) -> str:
    """Bytes → text as the workspace shows them (for positions): lossy, without a leading
    byte-order mark."""
    text = data.decode("utf-8", errors="replace")
    return text[1:] if text.startswith("\ufeff") else text


def codex_text(data: bytes) -> str:
    """Bytes → the text Codex hands the model (`String::from_utf8_lossy`): a character cut
    in two becomes U+FFFD, and a byte-order mark stays (as U+FEFF)."""
    return data.decode("utf-8", errors="replace")


def is_blank(text: str) -> bool:
    """Whether Codex skips this text as empty (`text.trim().is_empty()`)."""
    return not text.strip(RUST_WHITESPACE)


def apply_budget(data: bytes, remaining: int) -> Verdict:
    if remaining <= 0:
        return Verdict(None, False, False)
    kept = data[:remaining]
    if is_blank(codex_text(kept)):
        return Verdict(len(kept), False, True)
    return Verdict(len(kept), len(data) > remaining, False)


def remaining_after(remaining: int, data: bytes, verdict: Verdict) -> int:
    if verdict.kept is None or verdict.empty:
        return remaining  # an empty file uses no budget
    return remaining - verdict.kept


def nearest_above(directory: str, root: str, chosen: dict[str, str]) -> str | None:
    """The nearest directory strictly above `directory`, at or below `root`, with a file."""
    if directory == root:
        return None
    current = directory
    while current:
        current = parent_dir(current)
        if not (current == root or is_within(current, root) or not root):
            return None
        if current in chosen:
            return current
        if current == root:
            return None
    return None


def hidden_why(ws: Workspace, chosen: str | None) -> str:
    first = (chosen or "").rsplit("/", 1)[-1]
    data = file_bytes(ws, chosen) if chosen else b""
    empty = not isinstance(data, str) and is_blank(codex_text(data))
    but = " (it is empty, yet still comes first)" if empty else ""
    return f"hidden: Codex reads one file per directory, and `{first}` comes first{but}"
