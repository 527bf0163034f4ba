"""duplicate-text: a paragraph one agent's load brings twice — the same words (whitespace
aside) in two files of the load, or twice in one file — reported at the copy it pays for
again, with the size wasted in each agent's unit and how many workspace files pay it. Every file
of the load counts, those its imports bring included (a `CLAUDE.md` importing a file that
repeats it); the copy kept is one another agent loads alone, when there is one (Codex's
`AGENTS.md`), so the finding never points at the text another agent needs.

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
from dataclasses import field
from typing import TYPE_CHECKING, Final

from rulemap.checks.paragraphs import Paragraph, paragraphs_of
from rulemap.model import Explanation, Finding, LoadedFile, Related, Span
from rulemap.profiles.base import Profile, prefixed, selected
from rulemap.profiles.documents import read_documents
from rulemap.records import record

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


@record
class _Paid:
    """One agent's repeat of one paragraph: its size in that agent's unit, the files whose
    load pays it, and where the other copy is."""

    size: int
    unit: str
    files: int
    first: tuple[str, int, int]  # the other copy: path, first and last original line
    # the files that imported the other copy and this one into the load (None: read by its
    # name), so that a message says how two files came to be loaded together
    via: tuple[str | None, str | None] = (None, None)
    # reported at the copy loaded first, not the repeat: another agent loads the repeat's
    # file alone, so it is the copy to keep
    swapped: bool = False


@record
class _Repeat:
    path: str
    index: int  # the paragraph's place among its file's paragraphs
    first: int
    last: int
    by: dict[str, _Paid] = field(default_factory=dict)  # profile name → what it pays


@record(frozen=True)
class _Copy:
    """Where one copy of a paragraph lies in a load, and what imported its file."""

    path: str  # the real file's key
    index: int
    first: int
    last: int
    via: str | None


def check(ws: Workspace) -> list[Finding]:
    agents = selected(ws)
    if not agents:
        return []
    documents = read_documents(ws, agents)
    grouped = len(documents) <= MAX_GROUPED_DOCUMENTS
    cwd = ws.config.cwd
    starts = {p.name: p.explain(ws, None, cwd) for p in agents}
    at_start = {f.path for load in starts.values() for f in load.files
                if not f.path.startswith("/")}
    if grouped:
        # every file of a load counts, imported ones too (a `CLAUDE.md` importing a file that
        # repeats it, two files one `CLAUDE.md` imports): those the workspace's imports reach,
        # and each agent's own start-up load
        documents = tuple(sorted({*documents, *ws.imported_documents(), *at_start}))
    else:  # only the start-up loads are asked: only their files can repeat
        documents = tuple(sorted(at_start))
    repeated = _repeated(ws, documents)
    if not repeated:
        return []
    holders = {path for paths in repeated.values() for path in paths}
    imported = {resolved.target for path in documents for _ref, resolved in ws.imports(path)}
    repeats: dict[tuple[str, int], _Repeat] = {}
    titles = {p.name: p for p in agents}
    brought = {name: frozenset(ws.canonical(f.path) for f in load.files
                               if not f.path.startswith("/"))
               for name, load in starts.items()}
    for profile in agents:
        start = starts[profile.name]
        groups = None
        if grouped and not _start_up_is_enough(ws, profile, start, repeated, imported):
            groups = profile.load_groups(ws, ws.config.cwd)
        if groups is None:
            groups = [(start, list(ws.files))]
        others = {name: files for name, files in brought.items() if name != profile.name}
        for load, members in groups:
            _scan(ws, profile, load, len(members), repeated, holders, repeats, others)
    return [_finding(ws, run, titles, brought) for run in _runs(repeats)]


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
    from the same other file: one finding for a copied section, not one per paragraph."""
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


def _from(repeat: _Repeat) -> dict[str, tuple[str, bool]]:
    return {name: (paid.first[0], paid.swapped) for name, paid in repeat.by.items()}


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
          repeated: dict[str, list[str]], holders: set[str],
          repeats: dict[tuple[str, int], _Repeat], others: dict[str, frozenset[str]]) -> None:
    copies: dict[str, list[tuple[_Copy, int]]] = defaultdict(list)  # norm → copies, sizes
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
            if paragraph.norm in repeated:
                copies[paragraph.norm].append(
                    (_Copy(real, index, paragraph.first, paragraph.last, entry.imported_by),
                     _size(paragraph, entry, unit)))
    for found in copies.values():
        if len(found) < 2:
            continue
        kept = _kept([copy for copy, _ in found], others)
        there = found[kept][0]
        for at, (here, size) in enumerate(found):
            if at == kept:
                continue
            repeat = repeats.get((here.path, here.first))
            if repeat is None:
                repeat = repeats[(here.path, here.first)] = _Repeat(
                    here.path, here.index, here.first, here.last)
            paid = repeat.by.get(profile.name)
            if paid is None:
                repeat.by[profile.name] = _Paid(
                    size, unit, members, (there.path, there.first, there.last),
                    (there.via, here.via), at < kept)
            else:
                paid.files += members


def _kept(copies: list[_Copy], others: dict[str, frozenset[str]]) -> int:
    """Which copy of a paragraph one load brings several times is the one to keep (the others
    are reported): the first, unless another agent loads a later one's file without the
    first's (and none loads the first's without that one) — the copy it needs."""
    first = copies[0].path
    for at, copy in enumerate(copies[1:], 1):
        if _alone(others, copy.path, first) and not _alone(others, first, copy.path):
            return at
    return 0


def _alone(loads: dict[str, frozenset[str]], copy: str, other: str) -> list[str]:
    """The agents of `loads` (their start-up files) that load `copy`'s file and not `other`'s:
    the copy there is the only one they get."""
    if copy == other:
        return []
    return [name for name, files in loads.items() if copy in files and other not in files]


def _size(paragraph: Paragraph, entry: LoadedFile, unit: str) -> int:
    """The paragraph's size in the agent's unit (tokens: its share of the file's tokens)."""
    if unit == "bytes":
        return len(paragraph.raw.encode("utf-8"))
    if unit == "tokens" and entry.tokens is not None and entry.chars:
        return max(1, round(entry.tokens * len(paragraph.raw) / entry.chars))
    return len(paragraph.raw)


def _finding(ws: Workspace, run: list[_Repeat], profiles: dict[str, Profile],
             brought: dict[str, frozenset[str]]) -> Finding:
    head, tail = run[0], run[-1]
    names = sorted(head.by)
    path, top, _ = head.by[names[0]].first
    bottom = tail.by[names[0]].first[2]
    swaps = {head.by[name].swapped for name in names}
    vias = {name: head.by[name].via for name in names}
    shared = len(set(vias.values())) == 1
    total = len(ws.files)
    parts = []
    for name in names:
        size = sum(repeat.by[name].size for repeat in run)
        files = min(repeat.by[name].files for repeat in run)
        unit = head.by[name].unit
        counted = ("every file" if files >= total else
                   f"{files:,} file{'' if files == 1 else 's'}")
        how = "" if shared else _how(path, head.path, vias[name], "; ")
        parts.append(f"{profiles[name].title} ({size:,} {_UNIT_WORDS.get(unit, unit)} again, "
                     f"for {counted}{how})")
    how = _how(path, head.path, vias[names[0]], ", ") if shared else ""
    what = "this paragraph is" if len(run) == 1 else f"these {len(run)} paragraphs are"
    where = (f"in `{path}`" if path != head.path else
             "later in this file" if swaps == {True} else "earlier in this file")
    when = "already" if swaps == {False} else "loaded again" if swaps == {True} else "also"
    said = f"{what} {when} {where}" if when == "loaded again" else f"{what} {when} loaded {where}"
    others = {name: files for name, files in brought.items() if name not in head.by}
    keep_there = [profiles[n].title for n in _alone(others, path, head.path)]
    keep_here = [profiles[n].title for n in _alone(others, head.path, path)]
    payers = "it reads" if len(parts) == 1 else "they read"
    if keep_there and keep_here:
        advice = (f"keep one copy where {payers} both ({_join(keep_here)} "
                  f"load{_s(keep_here)} only this one, {_join(keep_there)} only the one in "
                  f"`{path}`)")
    elif keep_there and swaps != {False}:  # (else the copy to drop is the one reported)
        advice = (f"keep the copy in `{path}`, which {_join(keep_there)} load{_s(keep_there)} "
                  f"without this file")
    else:
        advice = f"keep one copy where {payers} both"
    message = (f"{said} (line {top + 1}){how}: {_join(parts)} pay{'s' if len(parts) == 1 else ''}"
               f" for {'it' if len(run) == 1 else 'them'} twice; {advice}")
    finding = Finding(head.path, _lines_span(ws, head.path, head.first, tail.last),
                      "information", "duplicate-text", message,
                      related=[Related(path, _lines_span(ws, path, top, bottom),
                                       "the copy loaded again" if swaps == {True}
                                       else "the copy loaded first")])
    if len(names) == 1:
        return prefixed(profiles[names[0]], [finding])[0]
    return finding


def _s(names: list[str]) -> str:
    return "s" if len(names) == 1 else ""


def _lines_span(ws: Workspace, path: str, top: int, bottom: int) -> Span:
    lines = ws.document(path).lines
    bottom = min(bottom, len(lines) - 1) if lines else 0
    return Span(Span.at(top, 0).start, Span.at(bottom, len(lines[bottom]) if lines else 0).start)


def _how(other: str, here: str, via: tuple[str | None, str | None], lead: str) -> str:
    """How the file of the other copy and this one come to be loaded together, when an import
    brings either (`via`: what imported each; None: read by its own name)."""
    there, this = via
    if other == here or (there is None and this is None):
        return ""
    if this == other:
        return f"{lead}which imports this file"
    if there == here:
        return f"{lead}which this file imports"
    if there is not None and there == this:
        return f"{lead}`{this}` imports both files"
    if this is not None and there is not None:
        return f"{lead}`{there}` imports that file and `{this}` this one"
    if this is not None:
        return f"{lead}`{this}` imports this file"
    return f"{lead}`{there}` imports that file"


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
