"""Rule globs: brace expansion, validation, pathspec compilation and a prefix index.

pathspec (gitignore dialect) does the matching; it has no brace expansion, so `expand_braces`
does that first. `FileIndex` answers "which files could this pattern match" by literal directory
prefix and extension, so matching a rule against a 20,000-file workspace only tests candidates.
"""

from __future__ import annotations

import bisect
import functools
import re
import warnings
from collections.abc import Iterable, Iterator

from rulemap.records import record

MAX_EXPANSIONS = 256
_SPECIAL = re.compile(r"[*?\[]")


class GlobError(ValueError):
    pass


def expand_braces(pattern: str, limit: int = MAX_EXPANSIONS) -> list[str]:
    """`src/**/*.{ts,tsx}` → ['src/**/*.ts', 'src/**/*.tsx']; nested braces; no numeric ranges.

    A brace group without a top-level comma is literal, as in bash and minimatch.
    """
    return list(_expanded(pattern, limit))  # a list of its own: callers may change it


# Memoized, as `validate`: 1,600 rules write the same few globs (`**/*.ts` in hundreds), and
# each is expanded by the document, by each agent's reading and by each matcher.
@functools.lru_cache(maxsize=8192)
def _expanded(pattern: str, limit: int) -> tuple[str, ...]:
    results = [pattern]
    out: list[str] = []
    while results:
        current = results.pop()
        group = _first_group(current)
        if group is None:
            out.append(current)
            if len(out) > limit:
                raise GlobError(f"brace expansion makes more than {limit} patterns")
            continue
        start, end, options = group
        for option in reversed(options):
            results.append(current[:start] + option + current[end + 1 :])
        if len(results) + len(out) > limit:
            raise GlobError(f"brace expansion makes more than {limit} patterns")
    return tuple(out)


def _first_group(pattern: str) -> tuple[int, int, list[str]] | None:
    """The first `{...}` holding a top-level comma: (open index, close index, options)."""
    search_from = 0
    while True:
        start = pattern.find("{", search_from)
        if start < 0:
            return None
        depth = 0
        options: list[str] = []
        piece_start = start + 1
        for index in range(start, len(pattern)):
            ch = pattern[index]
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    options.append(pattern[piece_start:index])
                    if len(options) > 1:
                        return start, index, options
                    break
            elif ch == "," and depth == 1:
                options.append(pattern[piece_start:index])
                piece_start = index + 1
        else:
            return None  # unbalanced: literal
        search_from = start + 1


@functools.lru_cache(maxsize=8192)
def validate(pattern: str) -> str | None:
    """Why `pattern` can never work as a `paths` glob, or None."""
    if not pattern.strip():
        return "the glob is empty"
    if pattern != pattern.strip():
        return "the glob has leading or trailing spaces, which are part of the pattern"
    if "\\" in pattern and not re.search(r"\\[*?\[\]{}!]", pattern):
        return "use `/` as the path separator in globs, not `\\`"
    if pattern.startswith("~") or re.match(r"^[A-Za-z]:[\\/]", pattern):
        return ("globs are relative to the directory that holds the rules directory, not "
                "absolute paths")
    parts = pattern.strip("/").split("/")
    if ".." in parts:
        return ("`..` cannot match: globs only match files below the directory that holds the "
                "rules directory")
    if pattern.count("[") != pattern.count("]"):
        return "unbalanced `[` `]` in the glob"
    if pattern.count("{") != pattern.count("}"):
        return "unbalanced `{` `}` in the glob"
    if re.search(r"\*{3,}", pattern):
        return "`***` is not a valid wildcard; use `**` for any depth"
    return None


_NAMED_GROUP = re.compile(r"\(\?P<[^>]+>")


@record
class CompiledGlobs:
    """Gitignore-style patterns, translated to regexes by pathspec.

    When no pattern negates, they fold into one regex (one C-level search per path instead of
    a Python loop over patterns: the hot path of matching 200 rules against 20,000 files).
    With negations, the last pattern that matches decides, as in gitignore."""

    patterns: list[str]  # expanded, in order
    _parts: list[tuple[re.Pattern[str], bool]] | None = None
    _combined: re.Pattern[str] | None = None

    def _compile(self) -> None:
        self._combined, self._parts = _compiled(tuple(self.patterns))

    def match(self, path: str) -> bool:
        if self._parts is None:
            self._compile()
        if self._combined is not None:
            return self._combined.search(path) is not None
        matched = False
        for regex, include in self._parts or ():
            if regex.search(path) is not None:
                matched = include
        return matched


# Memoized: the same patterns are compiled again and again (each rule per agent, each
# suggestion candidate), and with thousands of globs Python's own regex cache (512 entries)
# thrashed — 2,000 rules spent 5 s of a 17 s profile in `re.compile`. Bounded: a pattern is a
# line of a user's file, and an LSP session may see many versions of it.
@functools.lru_cache(maxsize=8192)
def _compiled(
    patterns: tuple[str, ...]
) -> tuple[re.Pattern[str] | None, list[tuple[re.Pattern[str], bool]]]:
    """`patterns` as one combined regex (no negation), or their regexes in order."""
    translated = [t for t in map(_translate, patterns) if t is not None]
    if len(translated) == 1 and translated[0][1]:
        return translated[0][0], []  # one pattern: its own regex (a second compile for nothing)
    if translated and all(include for _, include in translated):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # `[[` in a user's glob: "possible nested set"
            return re.compile("|".join(f"(?:{r.pattern})" for r, _ in translated)), []
    return None, translated


def _translate(pattern: str) -> tuple[re.Pattern[str], bool] | None:
    """One pattern as a compiled regex and whether it includes; None when it cannot match
    anything (a comment or blank line, or a pattern no regex engine accepts: `[z-a]` in a
    `.gitignore` must not take the walk down)."""
    source, include, error = _translation(pattern)
    if source is None or error is not None:
        return None
    regex = _regex(source)
    return None if regex is None else (regex, include)


def pattern_regex(pattern: str) -> re.Pattern[str] | None:
    """The compiled regex of one including pattern (None: it matches nothing or negates)."""
    translated = _translate(pattern)
    return translated[0] if translated is not None and translated[1] else None


def pattern_error(pattern: str) -> str | None:
    """Why the (brace-expanded) `pattern` cannot be compiled, in words, or None.

    Only a pattern with a `[` is compiled to find out: pathspec escapes everything else, and
    its translation of such a pattern always compiles (`tests/core/test_glob_buckets.py`
    holds that over random patterns). Compiling every glob of 1,600 rules while parsing was
    0.25 s of a cold check; most are never tested against a file by regex at all.

    Nor is one without a `\\` or a `[` translated: pathspec raises only for a trailing
    escape or a pattern that normalizes to no segment (`!` alone), so the error of any other
    is None without asking (the same property test); the translation, 0.1 s for 2,189
    patterns, is left to the few a regex is searched with."""
    if "\\" not in pattern and "[" not in pattern and pattern.rstrip() != "!":
        return None
    source, _, error = _translation(pattern)
    if error is None and source is not None and "[" in pattern and _regex(source) is None:
        return _compile_error(source)
    return error


@functools.lru_cache(maxsize=8192)
def _translation(pattern: str) -> tuple[str | None, bool, str | None]:
    """The regex source of `pattern` (None: it matches nothing), whether it includes, and
    why pathspec cannot translate it (None: it can)."""
    # pathspec (31 modules) is imported by the first glob compiled, not by start-up
    from pathspec.patterns.gitignore.basic import GitIgnoreBasicPattern

    try:
        regex, include = GitIgnoreBasicPattern.pattern_to_regex(pattern)
        if regex is None or include is None:
            return None, False, None
        return _NAMED_GROUP.sub("(?:", regex), bool(include), None
    except re.error as exc:
        return None, False, f"the glob is not valid: {exc.msg}"
    except (ValueError, RecursionError) as exc:
        return None, False, f"the glob is not valid: {exc}"


@functools.lru_cache(maxsize=8192)
def _regex(source: str) -> re.Pattern[str] | None:
    """`source` compiled, once (None: no regex engine accepts it)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # `[[` in a user's glob: "possible nested set"
            return re.compile(source)
    except (re.error, RecursionError, OverflowError):
        return None


def _compile_error(source: str) -> str:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            re.compile(source)
    except re.error as exc:
        return f"the glob is not valid: {exc.msg}"
    except (RecursionError, OverflowError) as exc:
        return f"the glob is not valid: {exc}"
    return "the glob is not valid"


def compile_patterns(patterns: Iterable[str]) -> CompiledGlobs:
    expanded = [
        p.lstrip("/") if not p.startswith("!") else "!" + p[1:].lstrip("/") for p in patterns
    ]
    return CompiledGlobs(patterns=expanded)


# The literal parts of a pattern are asked for per (pattern, path) by `could_match` and per
# pattern by every matcher (12,600 times for 1,400 dead globs): pure functions of one line of
# a user's file, memoized like its regex, bounded alike.
@functools.lru_cache(maxsize=8192)
def literal_prefix(pattern: str) -> str:
    """The leading directories of an anchored pattern that contain no wildcard ('' if none)."""
    body = pattern.lstrip("/")
    if "/" not in body.rstrip("/"):
        return ""  # slash-less: matches at any depth
    parts = body.split("/")
    prefix: list[str] = []
    for part in parts[:-1]:
        if _SPECIAL.search(part):
            break
        prefix.append(part)
    return "/".join(prefix) + "/" if prefix else ""


@functools.lru_cache(maxsize=8192)
def literal_suffix(pattern: str) -> str:
    """A literal extension the last segment requires (`*.ts` → '.ts'), or ''."""
    last = pattern.rstrip("/").rsplit("/", 1)[-1]
    match = re.fullmatch(r"\*+(\.[A-Za-z0-9_.-]+)", last)
    if not match or match.group(1).endswith("."):
        return ""
    return "." + match.group(1).rsplit(".", 1)[-1]


@functools.lru_cache(maxsize=8192)
def literal_tail(pattern: str) -> str:
    """Literal characters every matching file name ends with: what follows the last wildcard
    of a last segment that has one (`*-3.py` → '-3.py'), else ''. Like `literal_suffix`, it
    reads the last segment as a file name (the candidate pools do the same)."""
    if pattern.endswith("/"):
        return ""
    last = pattern.rsplit("/", 1)[-1]
    if not _SPECIAL.search(last) or "{" in last or "\\" in last:
        return ""
    cut = max(last.rfind("*"), last.rfind("?"), last.rfind("]"))
    return last[cut + 1 :]


@functools.lru_cache(maxsize=8192)
def required_parts(pattern: str) -> tuple[str, ...]:
    """Substrings every path the pattern matches holds once `/` is put in front of it: each
    wildcard-free segment, as `/name/` (or `/name` for the last). Checking them with `in` costs
    a fraction of a regex search, so a rule like `**/__tests__/**` tests its regex only on
    the files under a `__tests__` directory, however many files the workspace has."""
    if "\\" in pattern or "{" in pattern:
        return ()
    body = pattern.lstrip("/").rstrip("/")
    segments = body.split("/")
    parts: list[str] = []
    for index, segment in enumerate(segments):
        if not segment or segment == "**" or _SPECIAL.search(segment):
            continue
        last = index == len(segments) - 1 and not pattern.endswith("/")
        parts.append(f"/{segment}" if last else f"/{segment}/")
    return tuple(parts)


def could_match(pattern: str, path: str) -> bool:
    """Whether `path` (relative to the pattern's base) has every literal part an including
    `pattern` requires — its literal leading directories, each wildcard-free segment, its
    last segment's literal tail — so that its regex is worth compiling. Never False for a
    path the regex matches, directories that look like file names included (`a.py/x` for
    `**/*.py`): a substring test, not `prefiltered`'s name endings. The files git ignores
    are tested against every glob this way: 2,000 dead globs compiled a regex each to look
    at two files (0.35 s of a check)."""
    body = pattern.lstrip("/")
    if not path.startswith(literal_prefix(body)):
        return False
    tail = literal_tail(pattern)
    if tail and tail not in path:
        return False
    slashed = "/" + path
    return all(part in slashed for part in required_parts(pattern))


@functools.lru_cache(maxsize=8192)
def literal_path(pattern: str) -> bool:
    """An anchored pattern with no wildcard (`src/app.ts`, `docs/api/`): it matches that path
    and everything below it (only below it, with a trailing `/`), as in gitignore."""
    body = pattern.lstrip("/")
    return "/" in body.rstrip("/") and not any(ch in body for ch in "*?[]{}\\!")


@functools.lru_cache(maxsize=8192)
def candidates_are_exact(pattern: str) -> bool:
    """Whether `FileIndex.candidates` returns exactly the files `pattern` matches: a literal
    path, a literal directory prefix followed by `**`, `**/*` or `**/*.ext`, or `*.ext` /
    `**/*.ext` alone."""
    body = pattern.lstrip("/")
    if "{" in body or "[" in body or "?" in body or "\\" in body:
        return False
    if literal_path(body):
        return True
    prefix = literal_prefix(body)
    rest = body[len(prefix) :]
    if rest in ("**", "**/*"):
        return True  # every file below the prefix (or the base)
    if not prefix and rest == "*":
        return True  # slash-less: a name at any depth, so every file
    if re.fullmatch(r"\*\*/\*\.[A-Za-z0-9_-]+", rest):
        return True
    return not prefix and re.fullmatch(r"\*\.[A-Za-z0-9_-]+", rest) is not None


class FileIndex:
    """A sorted list of workspace-relative file paths with prefix and suffix look-ups."""

    def __init__(self, paths: Iterable[str]) -> None:
        # a set beside the sorted list for membership: a bisection compares whole paths, a
        # kilobyte of shared prefix each 400 directories deep
        self._set = set(paths)
        self._paths = sorted(self._set)
        self._by_suffix: dict[str, list[str]] | None = None

    def __len__(self) -> int:
        return len(self._paths)

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and path in self._set

    def add(self, path: str) -> None:
        if path not in self._set:
            self._set.add(path)
            bisect.insort(self._paths, path)
            self._by_suffix = None

    def remove(self, path: str) -> None:
        if path in self._set:
            self._set.discard(path)
            del self._paths[bisect.bisect_left(self._paths, path)]
            self._by_suffix = None

    def under(self, prefix: str) -> list[str]:
        """Paths starting with `prefix` ('' = all)."""
        if not prefix:
            return self._paths
        lo = bisect.bisect_left(self._paths, prefix)
        hi = bisect.bisect_left(self._paths, prefix[:-1] + chr(ord(prefix[-1]) + 1))
        return self._paths[lo:hi]

    def with_suffix(self, suffix: str) -> list[str]:
        if self._by_suffix is None:
            table: dict[str, list[str]] = {}
            for path in self._paths:
                name = path.rsplit("/", 1)[-1]
                dot = name.rfind(".")
                if dot > 0:
                    table.setdefault(name[dot:], []).append(path)
            self._by_suffix = table
        return self._by_suffix.get(suffix, [])

    def candidates(self, base: str, pattern: str) -> list[str]:
        """Files below directory `base` ('' = root) that `pattern` could match."""
        base_prefix = f"{base}/" if base else ""
        if pattern.startswith("!"):
            return self.under(base_prefix)
        if literal_path(pattern):
            body = pattern.lstrip("/")
            exact = base_prefix + body.rstrip("/")
            below = self.under(exact + "/")
            return below if body.endswith("/") or exact not in self else [exact, *below]
        prefix = base_prefix + literal_prefix(pattern)
        suffix = literal_suffix(pattern)
        if suffix:
            pool = self.with_suffix(suffix)
            if prefix:
                lo = bisect.bisect_left(pool, prefix)
                hi = bisect.bisect_left(pool, prefix[:-1] + chr(ord(prefix[-1]) + 1))
                return pool[lo:hi]
            return pool
        return self.under(prefix)


def prefiltered(pool: list[str], pattern: str) -> list[str]:
    """The candidates that can match `pattern` by its literal parts (its name's ending, its
    wildcard-free directories): cheap string tests before the regex. `pool` holds paths below
    the pattern's literal leading directories, as `FileIndex.candidates` gives them: those are
    not tested again, and every later literal directory comes after them, so a plain substring
    test finds it (no `"/" + path` per candidate: with 1,600 rules over 22,000 files that
    concatenation and a generator per path were 4 s of a profile)."""
    tail = literal_tail(pattern)
    if tail and tail != literal_suffix(pattern):  # the pool's own suffix: already true of all
        pool = [c for c in pool if c.endswith(tail)]
    parts = required_parts(pattern)
    lead = literal_prefix(pattern.lstrip("/"))
    # deepest part first: `/jobs/` in `packages/*/src/jobs/*.ts` keeps a tenth of the pool,
    # `/src/` nearly all of it (the same files either way: every part must be there)
    if lead:
        for part in reversed(parts[lead.count("/"):]):
            pool = [c for c in pool if part in c]
    else:
        for part in reversed(parts):  # `/x/` in "/" + c: inside c, or c starts with `x/`
            start = part[1:]
            pool = [c for c in pool if part in c or c.startswith(start)]
    return pool


def safe_expand(pattern: str) -> list[str]:
    """Brace expansion that gives nothing (rather than raising) for a glob over the cap."""
    try:
        return expand_braces(pattern)
    except GlobError:
        return []
