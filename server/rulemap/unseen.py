"""Unseen lines: the lines of an instruction file or rule that an agent never brings to its
model — inside an HTML comment it removes, or past the line where its budget stops it reading
— and, for one paragraph, how many of the files that load the file get it (docs/reach.md).

Plain data from one agent's `Glimpse` (`rulemap.reach.overview`: a pass over its load groups);
an agent without load groups is asked by the file's place, with one of the files it loads for
as the example load. The editor's gutter marks (`rulemap/unseenLines`) and its "who sees this
paragraph" hover show it.
"""

from __future__ import annotations

from collections.abc import Set
from typing import TYPE_CHECKING, Literal

from rulemap.reach import Glimpse, comment_lines, cut_line_of, strips_comments, why_never
from rulemap.records import record

if TYPE_CHECKING:
    from rulemap.profiles.base import Profile
    from rulemap.workspace import Workspace


@record(frozen=True)
class UnseenRange:
    start: int  # 0-based, inclusive
    end: int  # 0-based, inclusive
    kind: Literal["stripped", "cut"]
    files: int  # workspace files whose load misses these lines
    why: str

    def to_json(self) -> dict[str, object]:
        return {"start": self.start, "end": self.end, "kind": self.kind, "files": self.files,
                "why": self.why}


@record(frozen=True)
class AgentUnseen:
    profile: str
    title: str
    files: int  # workspace files whose load includes the file
    never: str | None  # why no file's load includes it (None: some do)
    ranges: tuple[UnseenRange, ...]
    by_place: bool = False  # no load groups: counted by the file's place, one example load

    def to_json(self) -> dict[str, object]:
        return {"profile": self.profile, "title": self.title, "files": self.files,
                "never": self.never, "byPlace": self.by_place,
                "ranges": [r.to_json() for r in self.ranges]}


def glimpse_by_place(ws: Workspace, profile: Profile, key: str, cwd: str) -> Glimpse:
    """A `Glimpse` for an agent without load groups: the file count its `load_status` gives,
    the cut and comments of one load that includes it (the start-up one, or its example)."""
    status = profile.load_status(ws, key)
    if not status.loads:
        return Glimpse()
    explanation = profile.explain(ws, status.target, cwd)
    loaded = next((f for f in explanation.files if f.path == key), None)
    if loaded is None:
        return Glimpse(files=status.files)
    line = cut_line_of(ws, loaded)
    glimpse = Glimpse(files=status.files, strips=strips_comments(ws, loaded, line))
    if line is not None:
        glimpse.cut, glimpse.cut_line, glimpse.cuts = status.files, line, {line: status.files}
    return glimpse


def agent_unseen(ws: Workspace, profile: Profile, key: str, glimpse: Glimpse | None,
                 cwd: str) -> AgentUnseen:
    """The lines of `key` that `profile` does not bring to its model, from its glimpse of the
    file (None: it has no load groups; asked by the file's place)."""
    by_place = glimpse is None
    if glimpse is None:
        glimpse = glimpse_by_place(ws, profile, key, cwd)
    if not glimpse.files:
        return AgentUnseen(profile.name, profile.title, 0,
                           why_never(ws, profile, key, bool(glimpse.left_out), cwd), (),
                           by_place)
    last = len(ws.document(key).lines) - 1
    ranges: list[UnseenRange] = []
    if glimpse.strips:
        for start, end in _runs(comment_lines(ws, key), ws.document(key).lines):
            ranges.append(UnseenRange(
                start, end, "stripped", glimpse.files,
                f"inside an HTML comment, which {profile.title} removes before the model "
                f"sees the file"))
    if glimpse.cuts:
        # read under another name (a symlink): that name, once, for the text
        via = "" if glimpse.through is None else f" (read as `{glimpse.through.path}`)"
        budget = profile.explain(ws, None, cwd).budget
        limit = f"its {budget.setting or 'budget'} ({budget.limit:,} {budget.unit})"
        cuts = sorted(glimpse.cuts.items())
        missed = 0
        for i, (line, files) in enumerate(cuts):
            missed += files
            end = cuts[i + 1][0] - 1 if i + 1 < len(cuts) else last
            if line > end:
                continue
            of = "every file" if missed == glimpse.files and missed > 1 else (
                "the one file" if glimpse.files == 1 else f"{missed:,} of {glimpse.files:,} files")
            ranges.append(UnseenRange(
                line, end, "cut", missed,
                f"{profile.title} stops reading `{key}`{via} at line {line + 1} for {of} that "
                f"load it: {limit} is used up"))
    return AgentUnseen(profile.name, profile.title, glimpse.files, None,
                       tuple(sorted(ranges, key=lambda r: (r.start, r.kind))), by_place)


@record(frozen=True)
class Sight:
    """How many of the files that load a file get one paragraph of it, for one agent."""

    files: int  # files whose load includes the file
    whole: int  # … of which the load brings the whole paragraph
    partly: int  # … brings its first lines only (the budget stops reading inside it)
    stripped: bool  # the paragraph is inside an HTML comment the agent removes


def sight(glimpse: Glimpse, comments: Set[int], start: int, end: int) -> Sight:
    """Who gets lines `start`..`end` (0-based, inclusive) of a file, from an agent's glimpse
    of it and the file's HTML-comment lines."""
    if glimpse.strips and all(n in comments for n in range(start, end + 1)):
        return Sight(glimpse.files, 0, 0, True)
    # a load cut at line c reads lines before c (and part of c): it misses line c onwards
    misses_start = sum(n for c, n in glimpse.cuts.items() if c <= start)
    misses_end = sum(n for c, n in glimpse.cuts.items() if c <= end)
    return Sight(glimpse.files, glimpse.files - misses_end, misses_end - misses_start, False)


def paragraph(lines: list[str], line: int, comments: Set[int] = frozenset()
              ) -> tuple[int, int] | None:
    """The paragraph or list item holding `line` (0-based, inclusive bounds); None on a blank
    line. A list item starts at its marker and runs over its indented continuation lines; a
    heading is one line; an HTML comment (`comments`: its lines) is a block of its own."""
    if not 0 <= line < len(lines) or not lines[line].strip():
        return None

    def joined(upper: int) -> bool:  # lines `upper` and `upper + 1` are one block
        lower = upper + 1
        return (bool(lines[upper].strip()) and bool(lines[lower].strip())
                and not _item(lines[lower]) and not _heading(lines[lower])
                and not _heading(lines[upper]) and (upper in comments) == (lower in comments))

    start = line
    while start > 0 and joined(start - 1):
        start -= 1
    end = line
    while end + 1 < len(lines) and joined(end):
        end += 1
    return start, end


def _heading(text: str) -> bool:
    return text.lstrip().startswith("#")


def _item(text: str) -> bool:
    stripped = text.lstrip()
    if stripped[:2] in ("- ", "* ", "+ "):
        return True
    digits = len(stripped) - len(stripped.lstrip("0123456789"))
    return 0 < digits < 10 and stripped[digits:digits + 2] in (". ", ") ")


def _runs(numbers: list[int], lines: list[str]) -> list[tuple[int, int]]:
    """Runs of sorted line numbers, as inclusive (first, last) pairs; only blank lines
    between two numbers do not break a run (a comment's blank lines are unseen too)."""
    runs: list[tuple[int, int]] = []
    for n in numbers:
        if runs and all(not lines[k].strip() for k in range(runs[-1][1] + 1, n)):
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    return runs
