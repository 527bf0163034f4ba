"""Claude Code's `@import` dialect: which tokens are imports and where they point.

Tokens: `@` at the start of a line or after whitespace, outside code spans, fenced *and
indented* code blocks and HTML comments (the shared scanner with `indented_code=True`); the path
runs to whitespace or a backslash that escapes no space (`\\ ` is a space); a `#fragment` is
dropped (the whole file is imported); the path must start with `./`, `~/`, `/` and something,
or one of `A-Z a-z 0-9 . _ -` — so `@@x`, `@#x` and `@~x` are no imports, while `@_x.md`,
`@1.md` and `@scope/pkg` are (the last one is tried and, missing, dropped silently).

Resolution: relative to the directory the importer *really* is in (its symlinks resolved);
`~/` is the home directory of `--home` (none: such an import cannot be read); only files with
no extension or a text extension are followed (`.mdc`, `.mdx` are not)."""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING, Final, Literal

from rulemap.derived import KeyFamily
from rulemap.documents import parse_document, unreadable_document
from rulemap.model import Document, ImportRef, Pos, Span, pickled_by_fields
from rulemap.readers.base import ReadError, is_within
from rulemap.records import record
from rulemap.text.decoding import decode
from rulemap.text.markdown import ImportSyntax, scan

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

# Extensions Claude Code follows an import to (text files). Unconfirmed in detail: the point
# that matters, and is documented, is that Cursor's `.mdc` and MDX's `.mdx` are not among them.
TEXT_EXTENSIONS = frozenset({
    "md", "markdown", "txt", "text", "rst", "adoc", "asciidoc", "org", "tex", "json", "jsonc",
    "json5", "yaml", "yml", "toml", "ini", "cfg", "conf", "config", "properties", "env", "xml",
    "csv", "tsv", "html", "htm", "css", "scss", "sass", "less", "js", "jsx", "ts", "tsx", "mjs",
    "cjs", "mts", "cts", "vue", "svelte", "astro", "py", "pyi", "rb", "go", "rs", "java", "kt",
    "kts", "scala", "groovy", "gradle", "c", "h", "cc", "cpp", "cxx", "hpp", "hh", "cs", "fs",
    "swift", "m", "mm", "php", "pl", "pm", "lua", "r", "jl", "dart", "ex", "exs", "erl", "hs",
    "clj", "elm", "zig", "nim", "sh", "bash", "zsh", "fish", "ps1", "bat", "cmd", "sql",
    "graphql", "gql", "proto", "tf", "hcl", "dockerfile", "makefile", "mk", "cmake", "lock",
    "log", "diff", "patch",
})
_PATH_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
_UNTIL_BACKSLASH = re.compile(r"(?:\\ |[^\s\\])+")
# a line that may open an indented code block: only such documents need a second scan
_INDENTED_LINE = re.compile(r"^(?: {4}| {0,3}\t)", re.MULTILINE)
MAX_HOPS = 4

Status = Literal["ok", "missing", "directory", "extension", "outside", "no-home"]

_HOME_DOC: Final = KeyFamily[Document]("claude-code-home-doc")  # user-level file
# file, user-level, home → its tokens with their targets, the offsets in indented code
_IMPORTS: Final[KeyFamily[tuple[tuple[tuple[Token, Target], ...], frozenset[int]]]] = KeyFamily(
    "claude-code-imports"
)


@pickled_by_fields
@record(frozen=True)
class Token:
    ref: ImportRef  # the token as Claude Code reads it (span shortened at a backslash)
    path: str  # unescaped, `#fragment` dropped
    fragment: str  # the dropped `#...`, or ''


@pickled_by_fields
@record(frozen=True)
class Target:
    status: Status
    key: str  # workspace key; an absolute path for a home or outside file; `~/…` without home
    home: bool  # read through the home reader
    absolute: str  # the resolved absolute path (lexical, from the importer's real directory)
    identity: str | None  # real path, when it exists


@record(frozen=True)
class Tokens:
    tokens: tuple[Token, ...]
    # offsets of `@` tokens the default scanner finds but Claude Code's does not, because they
    # sit in an indented code block
    in_indented_code: frozenset[int]


# what most documents have: one shared instance, not one each (10,000 on a large workspace)
_NO_TOKENS: Final = Tokens((), frozenset())


def tokens_of(doc: Document, imports: ImportSyntax | None) -> Tokens:
    """Claude Code's import tokens of a parsed document, whose tokens the workspace found by
    `imports` (its layout's syntax; Claude Code reads the same ones, less indented code)."""
    if doc.unreadable or "@" not in doc.text:
        return _NO_TOKENS
    refs = doc.imports
    hidden: frozenset[int] = frozenset()
    if _INDENTED_LINE.search(doc.text):
        first = doc.frontmatter.span.end.line + 1 if doc.frontmatter.span and doc.is_rule else 0
        refs = scan(doc.text, first, doc.lines, indented_code=True, imports=imports).imports
        hidden = frozenset(r.offset for r in doc.imports) - {r.offset for r in refs}
    out: list[Token] = []
    for ref in refs:
        token = _token(ref)
        if token is not None:
            out.append(token)
    return Tokens(tuple(out), hidden)


def _token(ref: ImportRef) -> Token | None:
    raw = ref.raw
    if "\\" in raw:  # a backslash that escapes no space ends the path
        match = _UNTIL_BACKSLASH.match(raw)
        if match is None:
            return None
        raw = match.group(0)
    path = raw.replace("\\ ", " ") if "\\ " in raw else raw
    fragment = ""
    hash_at = path.find("#")
    if hash_at >= 0:
        path, fragment = path[:hash_at], path[hash_at:]
    if not path:
        return None
    first = path[0]
    valid = (
        first in _PATH_START
        or (first == "/" and len(path) > 1)
        or path.startswith("~/")
    )
    if not valid:
        return None
    if raw == ref.raw and path == ref.path:
        return Token(ref, path, fragment)
    start = ref.span.start
    shortened = ImportRef(
        raw=raw,
        path=path,
        span=Span(start, Pos(start.line, start.col + 1 + len(raw))),
        offset=ref.offset,
    )
    return Token(shortened, path, fragment)


def home_root(ws: Workspace) -> str | None:
    return ws.home_reader.root if ws.home_reader is not None else None


def document(ws: Workspace, key: str, home: bool) -> Document:
    """A workspace document, or a user-level one read through the home reader (parsed here:
    the workspace reads only its own root). Home files are not watched: kept for the
    workspace's life."""
    if not home:
        return ws.document(key)
    cache_key = _HOME_DOC.key(key)
    cached = ws.derived.get(cache_key)
    if cached is not None:
        return cached
    reader = ws.home_reader
    is_rule = "/.claude/rules/" in key and key.endswith(".md")
    doc: Document
    if reader is None:
        doc = unreadable_document(key, "no home directory was given (--home)", is_rule)
    else:
        try:
            data = reader.read_bytes(key)
        except ReadError as exc:
            doc = unreadable_document(key, str(exc), is_rule)
        else:
            text, why = decode(data)
            doc = (
                unreadable_document(key, why, is_rule)
                if why is not None
                else parse_document(key, text, is_rule, syntax=ws.layout.syntax)
            )
    ws.derived.put(cache_key, doc, reads=())
    return doc


def identity(ws: Workspace, key: str, home: bool) -> str:
    if home and ws.home_reader is not None:
        return ws.home_reader.identity(key)
    return ws.identity(key)


def resolved_imports(ws: Workspace, key: str, home: bool) -> tuple[tuple[Token, Target], ...]:
    """Each Claude Code import token of `key` with its target (cached until the file, or a
    file its tokens name, changes)."""
    return _resolved(ws, key, home)[0]


def in_indented_code(ws: Workspace, key: str) -> frozenset[int]:
    """Offsets of the `@` tokens of workspace file `key` that only Claude Code's dialect
    reads as code (indented code blocks)."""
    return _resolved(ws, key, False)[1]


def _resolved(
    ws: Workspace, key: str, home: bool
) -> tuple[tuple[tuple[Token, Target], ...], frozenset[int]]:
    cache_key = _IMPORTS.key(key, home, home_root(ws))
    cached = ws.derived.get(cache_key)
    if cached is not None:
        return cached
    doc = document(ws, key, home)
    found = tokens_of(doc, ws.layout.syntax.imports)
    pairs: tuple[tuple[Token, Target], ...] = ()
    if found.tokens:
        base = posixpath.dirname(identity(ws, key, home))
        pairs = tuple((token, resolve(ws, base, token.path)) for token in found.tokens)
    reads = [key] if not home else []
    reads.extend(t.key for _, t in pairs if not t.home and t.status != "no-home")
    result = (pairs, found.in_indented_code)
    ws.derived.put(cache_key, result, reads=reads)
    return result


def resolve(ws: Workspace, base: str, path: str) -> Target:
    """Where `path` (an import's) points from the real directory `base`."""
    root = home_root(ws)
    if path.startswith("~/"):
        if root is None:
            return Target("no-home", path, False, path, None)
        absolute = posixpath.normpath(root + path[1:])
    elif path.startswith("/"):
        absolute = posixpath.normpath(path)
    else:
        absolute = posixpath.normpath(posixpath.join(base, path))
    extension = posixpath.splitext(absolute)[1].lower().lstrip(".")
    status: Status = "ok"
    if extension and extension not in TEXT_EXTENSIONS:
        status = "extension"
    for prefix in dict.fromkeys((ws.real_root, ws.root)):
        if is_within(absolute, prefix):
            if absolute == prefix:
                return Target("directory", ".", False, absolute, None)
            key = absolute[len(prefix) + 1 :]
            return _in_workspace(ws, key, absolute, status)
    if root is not None and is_within(absolute, root):
        reader = ws.home_reader
        assert reader is not None
        if not reader.exists(absolute):
            return Target("missing", absolute, True, absolute, None)
        if reader.is_dir(absolute):
            return Target("directory", absolute, True, absolute, None)
        return Target(status, absolute, True, absolute, reader.identity(absolute))
    if any(is_within(absolute, a) for a in ws.allowed):  # the user's grant (allowImportsFrom)
        return _in_workspace(ws, absolute, absolute, status)
    return Target("outside", absolute, False, absolute, None)


def _in_workspace(ws: Workspace, key: str, absolute: str, status: Status) -> Target:
    if key not in ws.files:
        full = ws.abs(key)
        if not ws.reader.exists(full):
            return Target("missing", key, False, absolute, None)
        if ws.reader.is_dir(full):
            return Target("directory", key, False, absolute, None)
    real = ws.identity(key)
    if not ws.inside(real):  # a symlink out of the workspace: Rulemap never reads it
        return Target("outside", key, False, absolute, real)
    return Target(status, key, False, absolute, real)
