"""Reach: who loads a file — the reverse of `explain` (docs/reach.md).

For one instruction file, rule or imported file (or one line of it) and each selected agent:
the workspace files whose load includes it, grouped by how (why it is loaded, who imports it,
its place in the load and what comes before it in the agent's budget unit, where the agent
stops reading it), the files whose load leaves it out over the budget, and, when no file's
load includes it, why. Computed from each profile's load groups (the files that load the same
thing: what `rulemap diff` and the budget check use), not an explanation per file; a profile
without load groups is explained file by file. The file is found in a load under any of its
names (a symlink either way: `rulemap.aliases`), and a way read under another name says which.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Sequence
from dataclasses import field, replace
from typing import TYPE_CHECKING

from rulemap.aliases import Through, entries_of, left_out_as, through
from rulemap.diff.groups import FileSet, summarize
from rulemap.diff.result import Where
from rulemap.records import record

if TYPE_CHECKING:
    from rulemap.model import Explanation, LoadedFile
    from rulemap.profiles.base import Profile
    from rulemap.workspace import Workspace


@record(frozen=True)
class Way:
    """One way an agent loads the file, for a set of workspace files."""

    reason: str  # project, nested, rule, scoped, import, user, requested
    imported_by: str | None
    position: int  # 1-based place in the load
    before: int  # the size of the load before it, in the agent's unit
    size: int  # its own size in that load, in the agent's unit (after any cut)
    cut_line: int | None  # 0-based line where the agent stops reading it (None: read whole)
    seen: bool  # the line asked about (or, with no line, the file) reaches the model
    start_up: bool  # loaded at start-up, so for every file
    where: Where
    example: str
    # the other name the agent reads the file's text under (a symlink either way; None: its
    # own), and the other names the same load reads it under again
    through: Through | None = None
    also: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "reason": self.reason,
            "through": None if self.through is None else self.through.to_json(),
            "alsoAs": list(self.also),
            "importedBy": self.imported_by,
            "position": self.position,
            "before": self.before,
            "size": self.size,
            "cutLine": None if self.cut_line is None else self.cut_line + 1,
            "seen": self.seen,
            "startUp": self.start_up,
            "files": self.where.count,
            "under": self.where.under,
            "everyFileUnder": self.where.every,
            "areas": [{"path": path, "files": n} for path, n in self.where.areas],
            "example": self.example,
        }


@record(frozen=True)
class AgentReach:
    """Who loads the file for one agent."""

    profile: str
    title: str
    unit: str  # the agent's budget unit: chars, bytes, tokens
    limit: int  # its budget (0: none)
    setting: str | None  # the agent's own name for that budget (`maxChars`)
    ways: tuple[Way, ...]
    left_out: Where | None  # files whose load leaves it out over the budget
    never: str | None  # why no file's load includes it (None: some do)
    stripped: bool = False  # the line asked about is an HTML comment the agent removes

    @property
    def files(self) -> int:
        return sum(w.where.count for w in self.ways)

    @property
    def cut(self) -> int:
        """Files whose load cuts it (the agent stops reading it part way)."""
        return sum(w.where.count for w in self.ways if w.cut_line is not None)

    @property
    def seen(self) -> int:
        """Files for which the line asked about (or the file) reaches the model."""
        return sum(w.where.count for w in self.ways if w.seen)

    def to_json(self) -> dict[str, object]:
        return {
            "profile": self.profile,
            "title": self.title,
            "unit": self.unit,
            "limit": self.limit,
            "setting": self.setting,
            "files": self.files,
            "seen": self.seen,
            "cut": self.cut,
            "ways": [w.to_json() for w in self.ways],
            "leftOut": None if self.left_out is None else {
                "files": self.left_out.count, "under": self.left_out.under,
                "areas": [{"path": p, "files": n} for p, n in self.left_out.areas]},
            "never": self.never,
            "stripped": self.stripped,
        }


@record(frozen=True)
class Reach:
    path: str
    line: int | None  # 0-based; None: the whole file
    files: int  # workspace files
    cwd: str
    agents: tuple[AgentReach, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "path": self.path,
            "line": None if self.line is None else self.line + 1,
            "workspaceFiles": self.files,
            "cwd": self.cwd,
            "agents": [a.to_json() for a in self.agents],
        }


def reach(ws: Workspace, key: str, line: int | None, profiles: Sequence[Profile],
          cwd: str) -> Reach:
    """Who loads `key` (line `line`, 0-based, or the whole file) for each of `profiles`,
    with the agents working in `cwd`."""
    every = FileSet(ws.files)
    return Reach(key, line, len(ws.files), cwd or ".",
                 tuple(_agent_reach(ws, p, key, line, cwd, every) for p in profiles))


def _agent_reach(ws: Workspace, profile: Profile, key: str, line: int | None, cwd: str,
                 every: FileSet) -> AgentReach:
    start = profile.explain(ws, None, cwd)
    budget = start.budget
    at_start = _find(ws, start, key)
    in_comment = line is not None and line in comment_lines(ws, key)
    if profile.startup_prefix and (at_start is not None
                                   or left_out_as(ws, start, key) is not None):
        # every target's load begins with the start-up load: one way, for every file
        return _from_start_up(ws, profile, start, key, line, in_comment, cwd, every)
    groups = profile.load_groups_for(ws, cwd, key)
    ways: dict[_WayKey, list[str]] = {}
    left: list[str] = []
    stripped: bool | None = None  # whether the agent drops that comment line (asked once)
    for explanation, members in groups if groups is not None else _one_by_one(ws, profile, cwd):
        found = _find(ws, explanation, key)
        if found is None:
            if left_out_as(ws, explanation, key) is not None:
                left.extend(members)
            continue
        index, loaded = found
        cut_line = cut_line_of(ws, loaded)
        if in_comment and stripped is None:
            stripped = strips_comments(ws, loaded, cut_line)
        way = (loaded.reason, loaded.imported_by, index + 1,
               sum(_size(f, budget.unit) for f in explanation.files[:index]),
               _size(loaded, budget.unit), cut_line, loaded.path,
               _again(ws, explanation, key, loaded))
        ways.setdefault(way, []).extend(members)
    # where each name stands in the start-up load: a way at the same place under the same
    # name is that load's (a name read under another name may stand elsewhere)
    at_start_up = {(i + 1, f.path) for i, f in enumerate(start.files)}
    out: list[Way] = []
    for (reason, imported_by, position, before, size, cut_line, read_as, again), members \
            in ways.items():
        members.sort()
        seen = cut_line is None or (line is not None and line < cut_line)
        if line is None and cut_line is not None:
            seen = size > 0  # cut, but its start is read
        if stripped:
            seen = False  # the line is inside an HTML comment the agent removes
        out.append(Way(reason, imported_by, position, before, size, cut_line, seen,
                       (position, read_as) in at_start_up,
                       summarize(members, every), members[0], through(ws, key, read_as),
                       again))
    out.sort(key=lambda w: (-w.where.count, w.position, w.example))
    never = None if out else why_never(ws, profile, key, bool(left), cwd)
    return AgentReach(profile.name, profile.title, budget.unit, budget.limit, budget.setting,
                      tuple(out), summarize(sorted(left), every) if left else None, never,
                      bool(stripped))


def _from_start_up(ws: Workspace, profile: Profile, start: Explanation, key: str,
                   line: int | None, in_comment: bool, cwd: str, every: FileSet
                   ) -> AgentReach:
    """The reach of a file of the start-up load (or left out of it) for a profile whose every
    load begins with that load (`startup_prefix`): the same place, before-size and cut for
    every workspace file."""
    budget = start.budget
    files = sorted(ws.files)
    found = _find(ws, start, key)
    if found is None:  # left out of the start-up load, so of every load
        return AgentReach(profile.name, profile.title, budget.unit, budget.limit,
                          budget.setting, (), summarize(files, every) if files else None,
                          why_never(ws, profile, key, True, cwd) if files else
                          "the workspace has no files")
    index, loaded = found
    cut_line = cut_line_of(ws, loaded)
    stripped = in_comment and bool(strips_comments(ws, loaded, cut_line))
    size = _size(loaded, budget.unit)
    seen = cut_line is None or (line is not None and line < cut_line)
    if line is None and cut_line is not None:
        seen = size > 0
    way = Way(loaded.reason, loaded.imported_by, index + 1,
              sum(_size(f, budget.unit) for f in start.files[:index]), size, cut_line,
              seen and not stripped, True, summarize(files, every), files[0],
              through(ws, key, loaded.path), _again(ws, start, key, loaded))
    return AgentReach(profile.name, profile.title, budget.unit, budget.limit, budget.setting,
                      (way,) if files else (), None, None if files else
                      "the workspace has no files", stripped)


# reason, imported by, position, size before it, its size, cut line, the name it is read as,
# the other names the load reads it under again
_WayKey = tuple[str, "str | None", int, int, int, "int | None", str, tuple[str, ...]]


@record
class Glimpse:
    """One file's reach for one agent, in a line: how many workspace files load it, how
    many of those loads cut it (and the earliest line where one does, and how many files at
    each cut line), how many leave it out over the budget, and whether the agent removes its
    HTML comments. For the editor's code lens, hover and unseen-line marks (`overview`)."""

    files: int = 0
    cut: int = 0
    cut_line: int | None = None  # 0-based
    left_out: int = 0
    cuts: dict[int, int] = field(default_factory=dict)  # 0-based cut line -> files
    # whether the agent's load drops the file's HTML-comment lines (None: no load reads
    # far enough to tell, or the file has none)
    strips: bool | None = None
    # the other name the agent reads this file's text under (None: its own): the glimpse is
    # that name's (`aliases.Through`)
    through: Through | None = None


def overview(ws: Workspace, profile: Profile, cwd: str) -> dict[str, Glimpse] | None:
    """Every file's `Glimpse` for `profile`, in one pass over its load groups' shares
    (`Profile.load_shares`; None: the profile has no load groups, and explaining every file
    one by one is not worth a lens)."""
    shares = profile.load_shares(ws, cwd)
    if shares is None:
        return None
    out: dict[str, Glimpse] = {}
    asked: set[tuple[str, int | None]] = set()
    for files, left_out, size in shares:
        for loaded in files:
            glimpse = out.get(loaded.path)
            if glimpse is None:
                glimpse = out[loaded.path] = Glimpse()
            glimpse.files += size
            line = cut_line_of(ws, loaded)
            if glimpse.strips is None and (loaded.path, line) not in asked:
                asked.add((loaded.path, line))  # a file without comments is asked once
                glimpse.strips = strips_comments(ws, loaded, line)
            if line is not None:
                glimpse.cut += size
                glimpse.cut_line = line if glimpse.cut_line is None else min(glimpse.cut_line,
                                                                              line)
                glimpse.cuts[line] = glimpse.cuts.get(line, 0) + size
        for path in left_out:
            out.setdefault(path, Glimpse()).left_out += size
    _add_other_names(ws, profile, out)
    return out


def _add_other_names(ws: Workspace, profile: Profile, out: dict[str, Glimpse]) -> None:
    """The documents the agent reads only under another name (a `CLAUDE.md` symlinked to
    `AGENTS.md`: Claude Code reads `AGENTS.md`'s text as `CLAUDE.md`) get that name's
    glimpse, saying so."""
    from rulemap.profiles.documents import read_documents

    by_real: dict[str, str] = {}  # a name some load reads, by the file it is
    for key in sorted(out):
        if out[key].files and not key.startswith("/"):
            by_real.setdefault(ws.identity(key), key)
    names = {*ws.all_documents(), *ws.imported_documents(), *read_documents(ws, [profile])}
    for name in sorted(names):
        if name in out or name.startswith("/"):
            continue
        read_as = by_real.get(ws.identity(name))
        if read_as is not None:
            out[name] = replace(out[read_as], through=through(ws, name, read_as))


def cut_line_of(ws: Workspace, loaded: LoadedFile) -> int | None:
    """The 0-based line of the original file where the agent stops reading `loaded` (None:
    it reads it whole). A profile that does not say (a cut counted in characters) is cut
    where the text it brings ends, mapped back through the lines the file brings."""
    if not (loaded.cut or loaded.truncated):
        return None
    if loaded.cut_line is not None:
        return loaded.cut_line
    kept = ws.document(loaded.path).kept_lines if not loaded.path.startswith("/") else []
    brought_line = loaded.text.count("\n")
    if not kept:
        return brought_line
    return kept[min(brought_line, len(kept) - 1)]


def comment_lines(ws: Workspace, key: str) -> list[int]:
    """The 0-based lines of `key` with text that sit inside a block HTML comment (the lines
    an agent that strips comments never brings; a rule's frontmatter aside)."""
    if key.startswith("/"):
        return []
    doc = ws.document(key)
    if doc.unreadable is not None:
        return []
    kept = set(doc.kept_lines)
    first = 0
    if doc.is_rule and doc.frontmatter.span is not None:
        first = doc.frontmatter.span.end.line + 1
    return [n for n in range(first, len(doc.lines)) if n not in kept and doc.lines[n].strip()]


def strips_comments(ws: Workspace, loaded: LoadedFile, cut_line: int | None) -> bool | None:
    """Whether the load `loaded` dropped its file's HTML comments: the text of the first
    comment line it reads up to is missing from what it brought (None: no comment line to
    tell by, or the agent stops reading before the first)."""
    lines = comment_lines(ws, loaded.path)
    for number in lines:
        if cut_line is not None and number >= cut_line:
            return None
        text = ws.document(loaded.path).lines[number].strip()
        if text in ("<!--", "-->"):
            continue
        return text not in loaded.text
    return None


def _find(ws: Workspace, explanation: Explanation, key: str
          ) -> tuple[int, LoadedFile] | None:
    """The entry of a load that holds the text of `key`: by its own name, else under another
    (a symlink either way)."""
    found = entries_of(ws, explanation, key)
    return found[0] if found else None


def _again(ws: Workspace, explanation: Explanation, key: str, first: LoadedFile
           ) -> tuple[str, ...]:
    """The other names under which the load reads the text of `key` again after `first`
    (Codex and Copilot's coding agent read a symlinked file twice)."""
    return tuple(f.path for _, f in entries_of(ws, explanation, key) if f is not first)


def _size(loaded: LoadedFile, unit: str) -> int:
    if unit == "bytes" and loaded.bytes is not None:
        return loaded.bytes
    if unit == "tokens" and loaded.tokens is not None:
        return loaded.tokens
    return loaded.chars


def _one_by_one(ws: Workspace, profile: Profile, cwd: str
                ) -> Iterable[tuple[Explanation, list[str]]]:
    """Every workspace file's own explanation, for a profile without load groups; files
    whose loads are the same list are one group."""
    groups: dict[tuple[object, ...], tuple[Explanation, list[str]]] = {}
    for target in ws.files:
        explanation = profile.explain(ws, target, cwd)
        signature = (tuple((f.path, f.reason, f.imported_by, f.cut, f.cut_line, f.chars)
                           for f in explanation.files), tuple(explanation.left_out))
        found = groups.get(signature)
        if found is None:
            groups[signature] = (explanation, [target])
        else:
            found[1].append(target)
    return groups.values()


def why_never(ws: Workspace, profile: Profile, key: str, left_out: bool, cwd: str) -> str:
    if left_out:
        return "every load that would hold it leaves it out over the budget"
    # the start-up load reached it and said why it did not bring it: an import past the
    # depth limit, a cycle, the same file as one already loaded (a symlink, a copy)
    start = profile.explain(ws, None, cwd)
    skipped = next((s for s in start.skipped if s.path == key), None)
    if skipped is not None:
        by = f" (imported by `{skipped.importer}`)" if skipped.importer else ""
        return f"{profile.title} skips it at start-up: {skipped.why}{by}"
    from rulemap.checks.name_case import in_case_words

    status = in_case_words(ws, profile.title, key, profile.load_status(ws, key))
    ws.import_reach()  # every reachable document parsed: the importers are known
    # the importers this agent gets to (loads, or reaches and skips): one it never reads
    # says nothing about this file
    met = {f.path for f in start.files} | {s.path for s in start.skipped}
    importers = [i for i in sorted(ws.resolver.importers_of(key))
                 if i in met or profile.load_status(ws, i).loads]
    if importers and not profile.follows_imports:
        return (f"`{importers[0]}` imports it, but {profile.title} does not follow `@` "
                f"imports" + (f"; {status.why_not}" if status.why_not else ""))
    if status.why_not and importers:
        return (f"`{importers[0]}` imports it, but no load of {profile.title} follows that "
                f"import (`rulemap reach {importers[0]}` says why); by its own name or place: "
                f"{status.why_not}")
    if status.why_not:
        return status.why_not
    if status.loads:
        # it loads by its place, but not with the agent working in `cwd` (Codex reads
        # AGENTS.md from the project root down to its working directory only)
        there = posixpath.dirname(key)
        if there != (cwd or "") and _find(ws, profile.explain(ws, None, there), key) \
                is not None:
            return (f"not with {profile.title} working in `{cwd or '.'}`: it loads at "
                    f"start-up when the agent works in `{there or '.'}` (--cwd {there or '.'})")
        return f"not with {profile.title} working in `{cwd or '.'}`"
    return (f"no workspace file's load includes it: {profile.title} does not read it by its "
            f"name or place, and no file it loads imports it")


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st, 1,002nd."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n:,}{suffix}"
