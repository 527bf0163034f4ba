"""Files that only point to other instruction files: `GEMINI.md` holding
`See [AGENTS.md](./AGENTS.md)`, `AGENTS.md` holding "Please read `./CLAUDE.md`". What such a
file gives an agent is the link, not the instructions — `link-only` reports it for agents that
do not load the target, and Claude Code's `instructions-shadowed` stays quiet about an
`AGENTS.md` that only points back to the `CLAUDE.md` that hides it.

"Only" means that once the links (Markdown links, or a bare mention of the file's path) are
taken out, at most `MAX_OTHER_WORDS` words remain: a heading and "read this first" are not
instructions. A pointer counts only when it names one of `known`, the instruction files.
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

from rulemap.model import Span

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

MAX_OTHER_WORDS = 40
MAX_CHARS = 2_000  # a longer file holds more than links: not looked at
_LINK = re.compile(r"\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_MENTION = re.compile(r"(?<![\w@/.\-`\[(])`?((?:\.{1,2}/)?[\w.\-]+(?:/[\w.\-]+)*\.md)`?(?![\w/\-])")
_WORD = re.compile(r"[^\W_]{2,}")
_FENCE = re.compile(r"^\s*(```|~~~)")


def points_only_to(
    ws: Workspace, path: str, known: set[str], max_words: int = MAX_OTHER_WORDS
) -> list[tuple[str, Span]]:
    """The instruction files `path` points to, with where, when pointing is all it does (at
    most `max_words` other words); [] otherwise."""
    doc = ws.document(path)
    if doc.unreadable or not doc.text.strip() or len(doc.text) > MAX_CHARS:
        return []
    # quick bounds first: a pointer is a Markdown link (`](`) or a mention ending `.md`, so a
    # file with neither points nowhere (most rules); each pointer takes a few words with it,
    # and most files have more
    marks = doc.text.count("](") + doc.text.count(".md")
    if not marks or len(doc.text.split()) > max_words + 6 * marks:
        return []
    body_line = doc.frontmatter.span.end.line + 1 if doc.frontmatter.span is not None else 0
    refs: list[tuple[str, Span]] = []
    words = 0
    in_fence = False
    in_comment = False
    for number, line in enumerate(doc.lines):
        if number < body_line:
            continue
        if _FENCE.match(line):
            in_fence = not in_fence
            words += 1
            continue
        if in_fence:
            words += len(_WORD.findall(line))
            continue
        text, in_comment = _without_comments(line, in_comment)
        rest = text
        for match in [*_LINK.finditer(text), *_MENTION.finditer(text)]:
            target = _resolve(ws, path, match.group(1))
            if target is None or target not in known or target == path:
                continue
            refs.append((target, Span.at(number, match.start(), match.end())))
            rest = rest.replace(match.group(0), " ")
        rest = _LINK.sub(" ", rest)
        if rest.lstrip().startswith("#"):
            continue  # a heading names, it does not instruct
        words += len(_WORD.findall(rest))
    if words > max_words or not refs:
        return []
    seen: dict[str, Span] = {}
    for target, span in refs:
        seen.setdefault(target, span)
    return list(seen.items())


def _without_comments(line: str, in_comment: bool) -> tuple[str, bool]:
    out: list[str] = []
    rest = line
    while rest:
        if in_comment:
            end = rest.find("-->")
            if end < 0:
                return "".join(out), True
            rest = rest[end + 3:]
            in_comment = False
        else:
            start = rest.find("<!--")
            if start < 0:
                out.append(rest)
                break
            out.append(rest[:start])
            rest = rest[start + 4:]
            in_comment = True
    return "".join(out), in_comment


def _resolve(ws: Workspace, importer: str, raw: str) -> str | None:
    """The workspace key a link or mention names: relative to the file's directory (or the
    root, with a leading `/`), `#fragment` and `?query` dropped; None for a URL."""
    if re.match(r"^[a-zA-Z][\w+.-]*:", raw):
        return None
    raw = raw.split("#", 1)[0].split("?", 1)[0]
    if not raw:
        return None
    if raw.startswith("/"):
        key = posixpath.normpath(raw.lstrip("/"))
    else:
        key = posixpath.normpath(posixpath.join(posixpath.dirname(importer), raw))
    if key.startswith("../") or key == "..":
        return None
    return key
