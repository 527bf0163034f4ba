"""Repository paths named in a Markdown document's prose: in code spans (`` `src/api.ts` ``), as
Markdown link targets (`[guide](docs/guide.md)`) and, where asked, as `@` mentions — found in
one compiled regex pass over the text, for `stale-reference` (checks/stale_reference.py).

What counts as a path is decided here, conservatively (docs/checks.md, `stale-reference`):
a code span counts when it is one word with a slash that reads as a path (`src/api/users.ts`,
`./scripts/build.sh`, `docs/`) — never a URL, a glob (`*`, `{}`, `[]`), a placeholder
(`<name>`, `$VAR`, `{{x}}`, `...`), an absolute or home path (`/usr/bin`, `~/.config`), a
scoped package (`@scope/pkg`), a command line (anything with a space) or a bare file name (a
`package.json` names a file *somewhere*, or one to create). A link counts when its target is a
relative path (no scheme, no `#` alone). An `@` mention counts like a code span. Where the
path is relative to (the file's folder or the workspace root) is the check's to try.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Literal

from rulemap.model import Pos, Span
from rulemap.records import record
from rulemap.text.lazy_pattern import lazy_pattern
from rulemap.text.positions import line_of, line_starts

# `agent-link`: a link in an agent's own syntax, which its profile finds (`Profile.own_links`)
RefKind = Literal["code", "link", "agent-link", "mention"]

# one pass: a code span (a run of backticks, its content on one line, the same run closing), a
# Markdown link or image target (`](target)`, `<target>` form too), or an `@` mention at a
# word start. Alternatives are tried left to right, so a link inside a code span is code.
# Every branch starts with a literal character, not a group: only then does the engine skip
# to the next candidate at C speed (`(?P<ticks>`+)` first made the pass 4x slower).
_CODE_OR_LINK = (
    r"`(?P<ticks>`*)(?P<code>[^`\n]+)`(?P=ticks)(?!`)"
    r"|\]\((?:<(?P<angle>[^>\n]+)>|(?P<link>[^)\s]+))(?:\s+[\"'][^\"'\n]*[\"'])?\)"
)
# every branch starts with a literal (the lookbehind follows the `@`), so the engine skips to
# the next backtick, `]` or `@` at C speed
_PATTERN = lazy_pattern(_CODE_OR_LINK)
_WITH_MENTIONS = lazy_pattern(_CODE_OR_LINK + r"|@(?<![^\s(\[]@)(?P<mention>[^\s`]+)")

_WHITESPACE = lazy_pattern(r"\s")  # what `str.isspace` says of a character, at C speed
_SCHEME = lazy_pattern(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_LINE_SUFFIX = lazy_pattern(r"(?::\d+){1,2}$|#L\d+(?:-L?\d+)?$")
# characters no path the check looks at holds: globs, placeholders, shell syntax, quotes
_NOT_PATH = lazy_pattern(r"[*?\[\]{}<>$|;&=(),'\"\\!%^`]|\.\.\.|…")
_SEGMENT = lazy_pattern(r"^[A-Za-z0-9_.@+-]+$")
_EXTENSION = lazy_pattern(r"\.([A-Za-z][A-Za-z0-9]{0,9})$")
_TRAILING = ".,:;!?)"
# a name that stands for any name (`foo.md`, `your-file.ts`, `test-XX-name/`, `NNN-feature/`)
_PLACEHOLDER = lazy_pattern(
    r"^(?:foo|bar|baz|qux|example|sample|path|to|file|dir|folder|name)(?:\.[A-Za-z0-9]+)*$"
    r"|^(?:your|my|some|new|other)[-_]|XX|NNN|xxx|YYYY|\bN{2,}\b", re.IGNORECASE)
# a version written as a letter (`traces-limits-vV.toml`, `api-vX.json`): case-sensitive
_VERSION = lazy_pattern(r"(?:^|[-_.])v[A-Z](?:[-_.]|$)")
# a tool's settings file in its dot-folder at the top (`.X/settings.json`): an instruction
# naming one tells the reader to configure the tool, whether or not it has been yet
_TOOL_SETTINGS = frozenset({"settings.json", "settings.local.json", "config.json",
                            "config.toml", "mcp.json"})
# what a build writes, a package manager fetches or a tool caches: named before it exists
_OUTPUT = frozenset({
    "dist", "build", "out", "target", "generated", "gen", "cache", ".cache", "tmp", "temp",
    "artifacts", "coverage", "node_modules", "bin", "obj", ".next", "__pycache__", "venv",
    ".venv", ".turbo", ".output", "vendor",
})
_MY_NAME = lazy_pattern(r"^(?:my|your|some)[A-Z]")  # `myFeatureApi.ts`
# files kept out of git on purpose: secrets and local settings
_LOCAL = lazy_pattern(r"^\.env|\.env$|\.local\b|^\.(?:npmrc|netrc|pypirc)$|\.(?:pem|key)$")
# a file the sentence asks to make (`add … to `x.css``): it may not exist yet
_TO_MAKE = lazy_pattern(
    r"\b(?:create|creates|add|adds|generate|generates|new|exports? to|writes? to|outputs? to"
    r"|saves? to)\b", re.IGNORECASE)
# a file the sentence tells the agent to write, the path the verb's object: `update `x``,
# `append an entry to `x``, `log to `x``, `update `a` and `b`` — a log or a plan the agent
# keeps, absent until it writes it. Only the write verb nearest before the path counts, and
# only with the path in its clause: no sentence end and no word of reading or of a second
# action between them (`update the docs, then read `x``; `write tests for `x``). A
# determiner before the word makes it a noun (`the log in `x``).
_WRITE_VERB = lazy_pattern(
    r"(?<![\w-])(?:update|updates|updating|append|appends|appending|write|writes|writing"
    r"|log|logs|logging|save|saves|saving|record|records|recording|overwrite|overwrites"
    r"|overwriting|touch|touches|touching)(?![\w-])", re.IGNORECASE)
_NOUN_BEFORE = lazy_pattern(r"\b(?:the|a|an|this|that|its|our|your|their|my|each|every)\s+$",
                          re.IGNORECASE)
_CLAUSE_END = lazy_pattern(r"[.;:!?](?:\s|$)|\s[-–—]\s")
# words that make the path one to read, or the object of another action, wherever they are
_NOT_WRITTEN = frozenset({
    "see", "read", "reading", "if", "when", "whenever", "unless", "before", "after", "until",
    "because", "since", "following", "follow", "check", "run", "open", "consult", "based",
    "that", "which", "where", "then", "but", "not", "never", "instead",
})
# the preposition nearest before the path says what it is to the verb: where the text goes
# (`to`, `into`, `in`, `at`, `as`) or something else (`tests for`, `a copy of`, `with`)
_WRITTEN_TO = frozenset({"to", "into", "in", "at", "as", "under", "inside", "onto"})
_PREPOSITIONS = _WRITTEN_TO | {
    "for", "of", "from", "with", "by", "about", "against", "like", "per", "via", "using",
    "than", "without", "except", "on", "over", "near", "beside", "through", "within",
}
_MAX_GAP_WORDS = 8
# a path of another repository: `docs/x.md` in `owner/repo`
_ELSEWHERE = lazy_pattern(r"`?\s+(?:in|of|from)\s+(?:the\s+)?`[\w.-]+/[\w.-]+`")
# a counter-example: `./foo`, not `./foo.mdx`
_COUNTER = lazy_pattern(r"\b(?:not|never|avoid|instead of|rather than)\s+$", re.IGNORECASE)
# a line that shows how (not) to name things: its paths are examples
_EXAMPLE_LINE = lazy_pattern(r"❌|✅|✔|✗|\be\.g\.|\bfor example\b", re.IGNORECASE)


@record(frozen=True)
class PathRef:
    """One repository path the text names."""

    kind: RefKind
    written: str  # as written (a link's whole target, a code span's content)
    path: str  # the path to look up: fragment, query, `:line` dropped; `./` kept
    span: Span  # of `written` (a mention's span includes its `@`)


@record(frozen=True)
class PathResolution:
    """A path reference and what it names: the existing file or folder ('' when the path is
    not one the workspace is asked about), else None (stale)."""

    ref: PathRef
    candidates: tuple[str, ...]  # root-relative readings, the file's folder first
    found: str | None


def has_marks(text: str, mentions: bool) -> bool:
    """Whether `text` may name a path at all: a link, or a slash with a backtick (or an `@`
    when asked) — a code span or a mention names a path only with a slash. A cheap test
    before the pass."""
    return ("/" in text and ("`" in text or (mentions and "@" in text))) or "](" in text


def path_refs(
    text: str,
    mentions: bool,
    skipped: Callable[[int], bool],
) -> Iterator[PathRef]:
    """The paths `text` names, on lines `skipped` does not rule out (fenced code, frontmatter,
    what the agent never receives; asked only of a line with a path on it, so a document
    naming no path costs the regex pass alone). `mentions`: also `@path` tokens (for readers
    that do not import)."""
    starts: list[int] | None = None
    code_path: str | None = None
    for match in (_WITH_MENTIONS if mentions else _PATTERN).finditer(text):
        group = match.lastgroup
        if group == "code":
            written, at = match.group("code"), match.start("code")
            inner = written.strip()
            if not inner or "/" not in inner:
                continue
            code_path = path_like(inner, False)
            if code_path is None:
                continue
        elif group in ("link", "angle"):
            written, at = match.group(group), match.start(group)
        elif group == "mention" and mentions:
            written, at = match.group("mention"), match.start("mention")
            if "/" not in written:
                continue
        else:
            continue
        if starts is None:
            starts = line_starts(text)
        line = line_of(starts, at)
        if skipped(line):
            continue
        end = starts[line + 1] if line + 1 < len(starts) else len(text)
        if _EXAMPLE_LINE.search(text, starts[line], end):
            continue
        if group in ("code", "mention") and (
                _TO_MAKE.search(text, starts[line], match.start())
                or to_write(text[starts[line]:match.start()])
                or _COUNTER.search(text, max(starts[line], match.start() - 16), match.start())
                or _ELSEWHERE.match(text, match.end(), end)):
            continue
        if group == "code":
            ref = _code(written, code_path, at, starts, line)
        elif group == "mention":
            ref = _mention(written, at, starts, line)
        else:
            ref = _link(written, at, starts, line)
        if ref is not None:
            yield ref


def _span(starts: list[int], line: int, offset: int, length: int) -> Span:
    col = offset - starts[line]
    return Span(Pos(line, col), Pos(line, col + length))


def _code(content: str, path: str | None, offset: int, starts: list[int], line: int
          ) -> PathRef | None:
    """The code span `content` at `offset`, which reads as `path` (`path_like`)."""
    inner = content.strip()
    if inner != content:
        offset += len(content) - len(content.lstrip())
    if path is None or not has_extension(path):
        return None  # a folder or module named in prose is often a convention, not a file
    return PathRef("code", inner, path, _span(starts, line, offset, len(inner)))


def _mention(token: str, offset: int, starts: list[int], line: int) -> PathRef | None:
    written = token.rstrip(_TRAILING)
    path = path_like(written, bare_names=False)
    if path is None or not has_extension(path):
        return None
    return PathRef("mention", "@" + written, path, _span(starts, line, offset - 1,
                                                          len(written) + 1))


def _link(target: str, offset: int, starts: list[int], line: int) -> PathRef | None:
    if target.startswith(("#", "//")) or _SCHEME.match(target):
        return None  # an anchor of this page, a URL (an agent's own links are its profile's)
    path = target.split("#", 1)[0].split("?", 1)[0]
    if "%" in path:
        from urllib.parse import unquote  # urllib and ipaddress (3 ms) for a %-escape only

        path = unquote(path)
    if not path or _NOT_PATH.search(path.replace(" ", "")):
        return None
    if path.startswith("/"):
        path = path.lstrip("/")  # GitHub reads a link from `/` as from the repository's top
        if not path:
            return None
    found = _normal_segments(path, allow_bare=True)
    if found is None:
        return None
    return PathRef("link", target, path, _span(starts, line, offset, len(target)))


def path_like(text: str, bare_names: bool) -> str | None:
    """The path `text` reads as — a `:12` line suffix dropped — or None when it is not one
    (see the module docstring)."""
    if not text or len(text) > 300 or _WHITESPACE.search(text):
        return None
    if text.startswith(("/", "~", "@", "-", "#", "+")) or "://" in text:
        return None
    path = _LINE_SUFFIX.sub("", text)
    if ":" in path or _NOT_PATH.search(path):
        return None
    if "/" not in path and not bare_names:
        return None
    return _normal_segments(path, allow_bare=bare_names)


def _normal_segments(path: str, allow_bare: bool) -> str | None:
    segments = path.split("/")
    if segments[-1] == "":
        segments.pop()  # `docs/`: a folder
    if not segments or any(s == "" for s in segments):
        return None
    words = [s for s in segments if s not in (".", "..")]
    if not words or not all(_SEGMENT.match(s) for s in words):
        return None
    if any(_PLACEHOLDER.search(w) or _VERSION.search(w) or w in _OUTPUT or _MY_NAME.match(w)
           or _LOCAL.search(w) for w in words):
        return None  # an example name, a build's output, a local secrets file
    if len(words) == 2 and words[0].startswith(".") and words[1] in _TOOL_SETTINGS:
        return None  # a tool's settings in its own folder: made when it is first configured
    if any(s in (".", "..") for s in segments[segments.index(words[0]):]):
        return None  # `src/../x`: leave it to the reader
    if len(words) == 1 and not allow_bare and path == words[0]:
        return None
    last = words[-1]
    if path.endswith("/"):
        return path
    if _EXTENSION.search(last) is None and len(words) == 1 and not path.startswith("."):
        return None  # `foo` or `[x](setup)`: a word or a page slug, not a file
    if last.replace(".", "").isdigit() or all(w.isdigit() for w in words):
        return None  # `1/2`, `3.5/4`: numbers
    return path


def to_write(before: str) -> bool:
    """Whether the text of a line `before` a path tells the agent to write that path (see
    `_WRITE_VERB`)."""
    verb = None
    for verb in _WRITE_VERB.finditer(before):  # noqa: B007 (the last one: nearest the path)
        pass
    if verb is None or _NOUN_BEFORE.search(before, 0, verb.start()):
        return False
    gap = before[verb.end():]
    if _CLAUSE_END.search(gap):
        return False
    words = [w.lower() for w in re.findall(r"[A-Za-z]+", re.sub(r"`[^`]*`", " ", gap))]
    if len(words) > _MAX_GAP_WORDS or any(w in _NOT_WRITTEN for w in words):
        return False
    prepositions = [w for w in words if w in _PREPOSITIONS]
    return not prepositions or prepositions[-1] in _WRITTEN_TO


def has_extension(path: str) -> bool:
    return _EXTENSION.search(path.rstrip("/").rsplit("/", 1)[-1]) is not None
