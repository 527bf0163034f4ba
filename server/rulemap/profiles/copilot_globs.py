"""GitHub Copilot's glob dialect for `applyTo`: root-relative globs matched as the coding agent
and code review document them (a slash-less `*.py` matches at the root only) or as VS Code's
chat matches them (`**/` before every relative glob, case ignored: `_matches` in
`computeAutomaticInstructions.ts`) — for its loads, its findings and the views' "matches N
files"."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

from rulemap.derived import Key, KeyFamily
from rulemap.globs import FileIndex, literal_prefix, prefiltered
from rulemap.profiles.rule_files import WrittenGlob
from rulemap.records import record

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

_LOWER: Final[Key[tuple[FileIndex, dict[str, list[str]]]]] = KeyFamily[
    tuple[FileIndex, dict[str, list[str]]]
]("copilot-lower").key()
_GLOB_ANY: Final = KeyFamily[bool]("copilot-glob-any")  # pattern, dialect
_GLOB_FILES: Final = KeyFamily[tuple[str, ...]]("copilot-glob-files")  # pattern, dialect
EVERYTHING = frozenset({"**", "**/*", "*"})  # VS Code applies these with no file at all


@record(frozen=True)
class Dialect:
    vscode: bool  # VS Code's chat: `**/` before every relative glob, case ignored


def prepared_glob(pattern: str, dialect: Dialect) -> tuple[str, bool]:
    """The glob as matched against root-relative paths, and whether it can match at all (a
    VS Code glob starting with `/` is matched against the absolute path: never a file here)."""
    if dialect.vscode:
        if pattern.startswith("/"):
            return pattern, False
        return (pattern if pattern.startswith("**/") else "**/" + pattern), True
    body = pattern[2:] if pattern.startswith("./") else pattern
    return body.lstrip("/"), True


@functools.lru_cache(maxsize=4096)
def glob_regex(pattern: str, ignore_case: bool = False) -> re.Pattern[str]:
    """A VS Code-style glob as a regex over a whole path: `*` and `?` within one segment,
    `[...]` classes, a `**` segment for any number of directories (`x/**` for everything
    below x). Braces are expanded before."""
    parts = pattern.split("/")
    out: list[str] = []
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if part == "**":
            out.append(".*" if last else "(?:[^/]*/)*")
            continue
        out.append(_segment(part) + ("" if last else "/"))
    return re.compile("".join(out), re.IGNORECASE if ignore_case else 0)


def _segment(part: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(part):
        ch = part[index]
        if ch == "*":
            out.append("[^/]*")
            while index + 1 < len(part) and part[index + 1] == "*":
                index += 1
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            close = part.find("]", index + 2)
            if close < 0:
                out.append(re.escape(ch))
            else:
                body = part[index + 1 : close]
                negate = body[:1] in ("!", "^")
                body = body[1:] if negate else body
                out.append("[" + ("^" if negate else "") + body.replace("\\", "\\\\") + "]")
                index = close
        else:
            out.append(re.escape(ch))
        index += 1
    return "".join(out)


def matches(target: str, glob: WrittenGlob, dialect: Dialect) -> bool:
    for expanded in glob.expanded:
        prepared, possible = prepared_glob(expanded, dialect)
        if possible and glob_regex(prepared, dialect.vscode).fullmatch(target):
            return True
    return False


def applies(ws: Workspace, globs: list[WrittenGlob], target: str | None,
             dialect: Dialect) -> bool:
    for glob in globs:
        if glob.error:
            continue
        if glob.pattern in EVERYTHING:
            return True
        if target is not None and matches(target, glob, dialect):
            return True
    return False


def lower_index(ws: Workspace) -> tuple[FileIndex, dict[str, list[str]]]:
    """The file list lower-cased, for case-insensitive globs (until a create or delete)."""
    cached = ws.derived.get(_LOWER)
    if cached is None:
        originals: dict[str, list[str]] = {}
        for path in ws.files:
            originals.setdefault(path.lower(), []).append(path)
        cached = (FileIndex(originals), originals)
        ws.derived.put(_LOWER, cached, reads=())
    return cached


def _searches(ws: Workspace, glob: WrittenGlob, dialect: Dialect) -> Iterator[_Search]:
    """Per brace expansion of `glob` that can match: the pattern as matched (lower-cased for
    VS Code), its regex, and the candidates the index gives by literal prefix and extension
    (lower-cased paths for VS Code, with the original paths behind each)."""
    for expanded in glob.expanded:
        prepared, possible = prepared_glob(expanded, dialect)
        if not possible:
            continue
        if dialect.vscode:
            prepared = prepared.lower()
        index, originals = lower_index(ws) if dialect.vscode else (ws.files, None)
        pool = prefiltered(index.candidates("", prepared), prepared)
        yield _Search(prepared, dialect.vscode, index, originals, pool,
                      _pool_is_exact(prepared))


def _pool_is_exact(prepared: str) -> bool:
    """Whether the candidates of `prepared` (`FileIndex.candidates`: the files below its
    literal directories, by the name's extension) are exactly the files it matches:
    `dir/**`, `dir/**/*.ts`, `**/*.ts`. Those need no regex at all (2,000 rules' globs
    compiled 310 regexes to say yes)."""
    head, star, tail = prepared.partition("**")
    # `!` too: the index reads a leading one as an exclusion (every file a candidate)
    if not star or (head and not head.endswith("/")) or any(c in head for c in "*?[]{}\\!"):
        return False
    if head.startswith("/") or "//" in head:
        return False  # an empty segment: the regex wants it, the index's prefix does not
    extension = tail[3:].replace("_", "").replace("-", "")
    return not tail or (tail.startswith("/*.") and extension.isascii() and extension.isalnum())


@record(frozen=True)
class _Search:
    prepared: str
    vscode: bool
    index: FileIndex
    originals: dict[str, list[str]] | None
    pool: list[str]
    exact: bool  # every file of `pool` matches

    @property
    def regex(self) -> re.Pattern[str]:
        """Compiled when first asked (memoized by `glob_regex`): a glob whose candidates are
        none never compiles (200 instruction files' dead globs compiled 318 regexes)."""
        return glob_regex(self.prepared, self.vscode)


def glob_has_matches(ws: Workspace, glob: WrittenGlob, dialect: Dialect) -> bool:
    """Whether a written glob matches any file of the workspace (git-ignored ones count: the
    agent knows nothing of git). One pass per glob over the candidates the index gives by
    literal prefix and extension. Cached until a file is created or deleted."""
    cache_key = _GLOB_ANY.key(glob.pattern, dialect)
    cached = ws.derived.get(cache_key)
    if cached is not None:
        return cached
    found = False
    for search in _searches(ws, glob, dialect):
        # only literal text before the first wildcard segment: a path without it never
        # matches, and the regex is not compiled for nothing
        prefix = literal_prefix(search.prepared)
        ignored = [q for q in (p.lower() if dialect.vscode else p
                               for p in ws.reader.ignored_files()) if q.startswith(prefix)]
        if (search.pool or ignored) and (
            (search.exact and bool(search.pool))
            or any(search.regex.fullmatch(p) for p in search.pool)
            or any(search.regex.fullmatch(q) for q in ignored)
        ):
            found = True
            break
        prefix = literal_prefix(search.prepared).rstrip("/")
        if prefix and not search.index.under(prefix + "/") and ws.reader.is_dir(ws.abs(prefix)):
            found = True  # a git-ignored directory is never walked: that it exists is enough
            break
    ws.derived.put(cache_key, found, reads=())
    return found


def glob_files(ws: Workspace, glob: WrittenGlob, dialect: Dialect) -> tuple[str, ...]:
    """The workspace files a written glob matches (sorted), for views: the candidates the index
    gives by literal prefix and extension, each tested. Cached until a create or delete."""
    cache_key = _GLOB_FILES.key(glob.pattern, dialect)
    cached = ws.derived.get(cache_key)
    if cached is not None:
        return cached
    found: set[str] = set()
    for search in _searches(ws, glob, dialect):
        for path in search.pool:
            if search.exact or search.regex.fullmatch(path):
                found.update(search.originals[path] if search.originals is not None
                             else (path,))
    result = tuple(sorted(found))
    ws.derived.put(cache_key, result, reads=())
    return result
