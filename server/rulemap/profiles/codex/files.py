"""Where Codex looks and what its byte budget does to one file (shared by the load and the
findings): the file names per directory, `.git` markers, raw bytes, lossy decoding."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from rulemap.derived import KeyFamily
from rulemap.profiles.base import join, parent_dir
from rulemap.readers.base import ReadError, is_within

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

OVERRIDE = "AGENTS.override.md"
AGENTS = "AGENTS.md"
MAX_BYTES = 32768
GLOBAL_DIR = ".codex"  # under the home directory ($CODEX_HOME moves it; --home names the home)
ROOT_MODES = ("workspace", "cwd")

_NAMES: Final = KeyFamily[dict[str, dict[str, str]]]("codex-names")  # file names
_GIT: Final = KeyFamily[bool]("codex-git")  # directory
_BYTES: Final = KeyFamily[bytes | str]("codex-bytes")  # file


@dataclass(frozen=True)
class CodexOptions:
    max_bytes: int
    names: tuple[str, ...]  # AGENTS.override.md, AGENTS.md, then the fallbacks
    root_without_git: str
    problems: tuple[str, ...]


@dataclass(frozen=True)
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
    if any(n.rfind(".") <= 0 for n in names):  # a name without an extension: every file
        pool = list(ws.files)
    index: dict[str, dict[str, str]] = {}
    for path in [*pool, *ws.reader.ignored_files()]:
        directory, _, name = path.rpartition("/")
        if name in wanted and "/.git/" not in f"/{path}":
            index.setdefault(directory, {})[name] = path
    ws.derived.put(key, index, reads=())
    return index


def has_git(ws: Workspace, directory: str) -> bool:
    key = _GIT.key(directory)
    cached = ws.derived.get(key)
    if cached is None:
        cached = ws.reader.exists(ws.abs(join(directory, ".git")))
        ws.derived.put(key, cached, reads=())
    return cached


def file_bytes(ws: Workspace, key: str) -> bytes | str:
    """The file's bytes as Codex reads them (no decoding: the budget counts bytes), or why
    it cannot be read. Cached until the file changes."""
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
    """Bytes → text as Codex builds it (lossy: a character cut in two becomes U+FFFD); a
    byte-order mark is not shown (its bytes still count)."""
    text = data.decode("utf-8", errors="replace")
    return text[1:] if text.startswith("\ufeff") else text


def apply_budget(data: bytes, remaining: int) -> Verdict:
    if remaining <= 0:
        return Verdict(None, False, False)
    kept = data[:remaining]
    if not decode_lossy(kept).strip():
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
    empty = not isinstance(data, str) and not decode_lossy(data).strip()
    but = " (it is empty, yet still comes first)" if empty else ""
    return f"hidden: Codex reads one file per directory, and `{first}` comes first{but}"
