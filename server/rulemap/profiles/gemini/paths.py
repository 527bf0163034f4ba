"""Gemini's names and places: context files, the git root, user-level files, and how an `@path`
resolves (relative to the importing file, refused outside the project root)."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from typing import TYPE_CHECKING, Final, Literal

from rulemap.derived import KeyFamily
from rulemap.profiles.base import join, parent_dir
from rulemap.profiles.gemini.names import cwd_of as cwd_of
from rulemap.profiles.gemini.names import named_files as named_files
from rulemap.profiles.gemini.names import names_of as names_of
from rulemap.profiles.gemini.names import settings_names as settings_names
from rulemap.readers.base import Reader, ReadError, is_within
from rulemap.records import record
from rulemap.text.decoding import decode

if TYPE_CHECKING:
    from rulemap.profiles.gemini.imports import GeminiToken
    from rulemap.workspace import Workspace

MAX_DEPTH = 5  # Gemini's import depth: a file reached at depth 5 loads, its imports do not
MAX_LISTED = 5000  # import entries (loaded or skipped) listed per explanation

_HOME_TEXT: Final = KeyFamily[tuple[str, str | None]]("gemini-home-text")  # user-level file
_TOKENS: Final[KeyFamily[list[GeminiToken]]] = KeyFamily("gemini-tokens")  # file
GLOBAL_DIR = ".gemini"
IGNORE_FILE = ".geminiignore"
# the tools that discover context just in time (packages/core/src/tools/jit-context.ts and
# its callers: read-file.ts, ls.ts, write-file.ts, edit.ts, read-many-files.ts); grep_search,
# glob and run_shell_command bring none
JIT_TOOLS = frozenset({"read_file", "list_directory", "write_file", "replace", "read_many_files"})
JIT_TOOL_LIST = "read_file, list_directory, write_file, replace or read_many_files"

Status = Literal["ok", "missing", "directory", "outside", "url"]


@record(frozen=True)
class Target:
    status: Status
    key: str  # root-relative inside the workspace, else absolute
    absolute: str  # the lexical absolute path: what Gemini's chain tracking compares


@record(frozen=True)
class Root:
    """The directory imports must stay in (Gemini's project root for one context file)."""

    key: str  # for messages ('' = the workspace root)
    absolute: str
    real: str


def is_named(key: str, names: Iterable[str]) -> bool:
    return any(key == n or key.endswith("/" + n) for n in names)


def file_exists(ws: Workspace, key: str) -> bool:
    if key in ws.files:
        return True
    full = ws.abs(key)
    return ws.reader.exists(full) and not ws.reader.is_dir(full)


def git_root(ws: Workspace, directory: str) -> str:
    """The nearest directory from `directory` up with a `.git` (directory or file, as current
    releases check), else the workspace root."""
    while directory:
        if ws.reader.exists(ws.abs(join(directory, ".git"))):
            return directory
        directory = parent_dir(directory)
    return ""


def home_gemini(ws: Workspace) -> str | None:
    if ws.home_reader is None:
        return None
    return posixpath.join(ws.home_reader.root, GLOBAL_DIR)


def in_home(ws: Workspace, absolute: str) -> bool:
    return ws.home_reader is not None and is_within(absolute, ws.home_reader.root) and not (
        is_within(absolute, ws.root))


def reader_for(ws: Workspace, absolute: str) -> Reader:
    if in_home(ws, absolute):
        assert ws.home_reader is not None
        return ws.home_reader
    return ws.reader


def key_of(ws: Workspace, absolute: str) -> str:
    return absolute if in_home(ws, absolute) else ws.key(absolute)


def read_text(ws: Workspace, key: str) -> tuple[str, str | None]:
    """(text, why not) of a file: workspace files through the workspace's documents, user-level
    ones through the home reader (cached until a file is created or deleted)."""
    if not key.startswith("/") or not in_home(ws, key):
        doc = ws.document(key)
        return doc.text, doc.unreadable
    cache_key = _HOME_TEXT.key(key)
    cached = ws.derived.get(cache_key)
    if cached is None:
        assert ws.home_reader is not None
        try:
            cached = decode(ws.home_reader.read_bytes(key))
        except ReadError as exc:
            cached = ("", str(exc))
        ws.derived.put(cache_key, cached, reads=())
    return cached


def tokens_of(ws: Workspace, key: str) -> list[GeminiToken]:
    cache_key = _TOKENS.key(key)
    cached = ws.derived.get(cache_key)
    if cached is None:
        text, why = read_text(ws, key)
        # the scanner is imported by the first file Gemini reads, not by its detection
        from rulemap.profiles.gemini.imports import scan_gemini

        cached = [] if why else scan_gemini(text)
        ws.derived.put(cache_key, cached, reads=(key,) if not key.startswith("/") else ())
    return cached


def project_root(ws: Workspace, top: str) -> Root:
    """Where the imports of context file `top` (and of everything it imports) must stay:
    the nearest directory from the file's own up with a `.git`; the workspace root when there
    is none inside it (Rulemap opens at the nearest `.git` by default). For the global file:
    `~/.gemini`, or the home directory when it holds a `.git` (Gemini's fallback is the
    file's own directory)."""
    if top.startswith("/") and in_home(ws, top):
        assert ws.home_reader is not None
        base = posixpath.dirname(top)
        for directory in (base, ws.home_reader.root):
            if ws.home_reader.exists(posixpath.join(directory, ".git")):
                base = directory
                break
        return Root(base, base, ws.home_reader.identity(base))
    directory = git_root(ws, parent_dir(top))
    absolute = ws.abs(directory) if directory else ws.root
    return Root(directory, absolute, ws.reader.identity(absolute))


def resolve(ws: Workspace, importer: str, token: GeminiToken, root: Root) -> Target:
    if token.is_url:
        return Target("url", token.path, token.path)
    absolute = posixpath.normpath(posixpath.join(posixpath.dirname(ws.abs(importer)), token.path))
    key = key_of(ws, absolute)
    if not is_within(absolute, root.absolute):
        return Target("outside", key, absolute)
    if not key.startswith("/") and key in ws.files:
        # a link out of the project root counts as out (current releases compare real paths)
        if not is_within(ws.identity(key), root.real):
            return Target("outside", key, absolute)
        return Target("ok", key, absolute)
    reader = reader_for(ws, absolute)
    if not reader.exists(absolute):
        return Target("missing", key, absolute)
    if not is_within(reader.identity(absolute), root.real):
        return Target("outside", key, absolute)
    if reader.is_dir(absolute):
        return Target("directory", key, absolute)
    return Target("ok", key, absolute)


def is_named_here(path: str, names: tuple[str, ...]) -> bool:
    """The scan compares base names: a configured name with a `/` is never found below."""
    return path.rsplit("/", 1)[-1] in names
