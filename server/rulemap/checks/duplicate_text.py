"""duplicate-text: a paragraph one agent's load brings twice — the same words (whitespace
aside) in two files of the load, or twice in one file — reported at the copy it pays for
again, with the size wasted in each agent's unit and how many workspace files pay it.

A whole file loaded twice is `loaded-twice`'s (or the default model's `duplicate-load`): a
file this load already brought, or whose text is one it already brought, is not looked into
again here. Asked of each selected agent's load groups (the files that load the same thing,
`Profile.load_groups`), so the count is a sum of group sizes, not an explanation per file —
only when a repeat lies beyond the agent's start-up load: when both copies are start-up files
that load alone finds it, for every file. Grouping every file costs as much as the rest of a
check in a workspace of hundreds of instruction files (0.44 s against 0.42 s on the
20,000-file benchmark, whose 600 instruction files repeat a table 463 times), so past
MAX_GROUPED_DOCUMENTS only the start-up load, which every session has, is asked.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from rulemap.checks.paragraphs import Paragraph, paragraphs_of
from rulemap.model import Explanation, Finding, LoadedFile, Related, Span
from rulemap.profiles.base import Profile, prefixed, selected
from rulemap.profiles.documents import read_documents

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

# A repeated paragraph shorter than this (whitespace collapsed) is not reported: in the
# real-world corpus the shorter repeats are a line of boilerplate ("Run `npm test` before
# committing.", a "See AGENTS.md" pointer, a two-cell table) that reads as deliberate in each
# file, and they waste a few tokens; from 80 characters on they are instructions in full.
MIN_CHARS: Final = 80
# Past this many instruction files the agents read, only the start-up load is asked (above).
MAX_GROUPED_DOCUMENTS: Final = 200
_UNIT_WORDS = {"chars": "characters", "bytes": "bytes", "tokens": "tokens"}


@dataclass
class _Paid:
    """One agent's repeat of one paragraph: its size in that agent's unit, the files whose
    load pays it, and where the copy it already had is."""

    size: int
    unit: str
    files: int
    first: tuple[str, int, int]  # path, first and last original line


@dataclass
class _Repeat:
    path: str
    index: int  # the paragraph's place among its file's paragraphs
    first: int
    last: int
    by: dict[str, _Paid] = field(default_factory=dict)  # profile name → what it pays


def check(ws: Workspace) -> list[Finding]:
    agents = selected(ws)
    if not agents:
        return []
    documents = read_documents(ws, agents)
    grouped = len(documents) <= MAX_GROUPED_DOCUMENTS
    if not grouped:  # only the start-up loads are asked: only their files can repeat
        cwd = ws.config.cwd
        documents = tuple(sorted({f.path for p in agents for f in p.explain(ws, None, cwd).files
                                  if not f.path.startswith("/")}))
    repeated = _repeated(ws, documents)
    if not repeated:
        return []
    holders = {path for paths in repeated.values() for path in paths}
    imported = {resolved.target for path in documents for _ref, resolved in ws.imports(path)}
    repeats: dict[tuple[str, int], _Repeat] = {}
    titles = {p.name: p for p in agents}
    for profile in agents:
        start = profile.explain(ws, None, ws.config.cwd)
        groups = None
        if grouped and not _start_up_is_enough(ws, profile, start, repeated, imported):
            groups = profile.load_groups(ws, ws.config.cwd)
        if groups is None:
            groups = [(start, list(ws.files))]
        for load, members in groups:
            _scan(ws, profile, load, len(members), repeated, holders, repeats)
    return [_finding(ws, run, titles) for run in _runs(repeats)]


def _start_up_is_enough(ws: Workspace, profile: Profile, start: Explanation,
                        repeated: dict[str, list[str]], imported: set[str]) -> bool:
    """Whether every repeat `profile` can load lies in its start-up load, which every load
    begins with (`startup_prefix`): then that load alone finds them, for every file, and the
    load groups — the costly part (Claude Code matches every rule's globs over every file:
    0.18 s on a 10,000-file repository) — are not needed."""
    if not profile.startup_prefix:
        return False
    at_start = {f.path for f in start.files}
    for paths in repeated.values():
        loadable = [p for p in paths
                    if p in at_start or p in imported or profile.reads(ws, p)]
        if len(loadable) > 1 and not all(p in at_start for p in loadable):
            return False
    return True


def _runs(repeats: dict[tuple[str, int], _Repeat]) -> list[list[_Repeat]]:
    """Repeats side by side in one file (consecutive paragraphs) that the same agents pay, each
    from the same earlier file: one finding for a copied section, not one per paragraph."""
    out: list[list[_Repeat]] = []
    for repeat in sorted(repeats.values(), key=lambda r: (r.path, r.index)):
        if out:
            last = out[-1][-1]
            if last.path == repeat.path and last.index + 1 == repeat.index \
                    and _from(last) == _from(repeat):
                out[-1].append(repeat)
                continue
        out.append([repeat])
    return out


def _from(repeat: _Repeat) -> dict[str, str]:
    return {name: paid.first[0] for name, paid in repeat.by.items()}


def _repeated(ws: Workspace, documents: tuple[str, ...]) -> dict[str, list[str]]:
    """Normalised paragraphs (MIN_CHARS or more) that two places of the documents hold — the
    only ones a load can bring twice — mapped to the documents holding them."""
    where: dict[str, list[str]] = defaultdict(list)
    for path in documents:
        doc = ws.document(path)
        if doc.unreadable:
            continue
        for paragraph in paragraphs_of(ws, path, doc.brought):
            if len(paragraph.norm) >= MIN_CHARS:
                where[paragraph.norm].append(path)
    return {norm: paths for norm, paths in where.items() if len(paths) > 1}


def _scan(ws: Workspace, profile: Profile, load: Explanation, members: int,
          repeated: dict[str, list[str]], holders: set[str], repeats: dict[tuple[str, int], _Repeat]
          ) -> None:
    first: dict[str, tuple[str, int, int]] = {}
    paths: set[str] = set()
    texts: set[str] = set()
    unit = load.budget.unit
    for entry in load.files:
        if entry.path.startswith("/") or entry.path in paths:
            continue  # a file brought again: loaded-twice's (or duplicate-load's)
        paths.add(entry.path)
        doc = ws.document(entry.path)
        if doc.unreadable or doc.text in texts:
            continue  # a copy of a whole file already brought: loaded-twice's
        texts.add(doc.text)
        if entry.path not in holders or not entry.text:
            continue
        # a file under a symlinked name is reported under its real one: one finding for
        # the agents that read it by either name
        real = ws.canonical(entry.path)
        for index, paragraph in enumerate(paragraphs_of(ws, entry.path, entry.text)):
            if paragraph.norm not in repeated:
                continue
            top, bottom = paragraph.first, paragraph.last
            earlier = first.get(paragraph.norm)
            if earlier is None:
                first[paragraph.norm] = (real, top, bottom)
                continue
            repeat = repeats.get((real, top))
            if repeat is None:
                repeat = repeats[(real, top)] = _Repeat(real, index, top, bottom)
            paid = repeat.by.get(profile.name)
            if paid is None:
                repeat.by[profile.name] = _Paid(_size(paragraph, entry, unit), unit, members,
                                                earlier)
            else:
                paid.files += members


def _size(paragraph: Paragraph, entry: LoadedFile, unit: str) -> int:
    """The paragraph's size in the agent's unit (tokens: its share of the file's tokens)."""
    if unit == "bytes":
        return len(paragraph.raw.encode("utf-8"))
    if unit == "tokens" and entry.tokens is not None and entry.chars:
        return max(1, round(entry.tokens * len(paragraph.raw) / entry.chars))
    return len(paragraph.raw)


def _finding(ws: Workspace, run: list[_Repeat], profiles: dict[str, Profile]) -> Finding:
    head, tail = run[0], run[-1]
    doc = ws.document(head.path)
    last = min(tail.last, len(doc.lines) - 1) if doc.lines else 0
    span = Span(Span.at(head.first, 0).start,
                Span.at(last, len(doc.lines[last]) if doc.lines else 0).start)
    names = sorted(head.by)
    path, top, _ = head.by[names[0]].first
    bottom = tail.by[names[0]].first[2]
    where = "earlier in this file" if path == head.path else f"in `{path}`"
    total = len(ws.files)
    parts = []
    for name in names:
        size = sum(repeat.by[name].size for repeat in run)
        files = min(repeat.by[name].files for repeat in run)
        unit = head.by[name].unit
        counted = ("every file" if files >= total else
                   f"{files:,} file{'' if files == 1 else 's'}")
        parts.append(f"{profiles[name].title} ({size:,} {_UNIT_WORDS.get(unit, unit)} again, "
                     f"for {counted})")
    what = "this paragraph is" if len(run) == 1 else f"these {len(run)} paragraphs are"
    message = (f"{what} already loaded {where} (line {top + 1}): {_join(parts)} "
               f"pay{'s' if len(parts) == 1 else ''} for {'it' if len(run) == 1 else 'them'} "
               f"twice; keep one copy where {'it reads' if len(parts) == 1 else 'they read'} "
               f"both")
    first_doc = ws.document(path)
    bottom = min(bottom, len(first_doc.lines) - 1) if first_doc.lines else 0
    end = len(first_doc.lines[bottom]) if first_doc.lines else 0
    finding = Finding(head.path, span, "information", "duplicate-text", message,
                      related=[Related(path, Span(Span.at(top, 0).start,
                                                  Span.at(bottom, end).start),
                                       "the copy loaded first")])
    if len(names) == 1:
        return prefixed(profiles[names[0]], [finding])[0]
    return finding


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
