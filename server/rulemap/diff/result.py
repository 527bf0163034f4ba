"""What `rulemap diff` answers, as plain data: changes, the groups of files they apply to, and
the findings that appeared or went away. Views (text, JSON, Markdown) only lay it out."""

from __future__ import annotations

from typing import Literal

from rulemap.records import record

WORKTREE = "the working tree"  # the HEAD side's name when it is not a ref

# added: loaded on HEAD, not on BASE; removed: the reverse; cut: the budget (or a per-file
# limit) cuts it now, or at another point; uncut: it loads whole now; left-out: the budget
# leaves it out now; restored: left out on BASE, loaded on HEAD; edited: loaded on both sides,
# its text as brought differs; reason: loaded for another reason (a scoped rule that became
# unconditional); reordered: loaded on both sides, at another place in the order
Kind = Literal[
    "added", "removed", "cut", "uncut", "left-out", "restored", "edited", "reason", "reordered"
]
KINDS: tuple[Kind, ...] = (
    "added", "removed", "cut", "uncut", "left-out", "restored", "edited", "reason", "reordered"
)


@record(frozen=True, order=True)
class Change:
    """One difference in one instruction file of a load."""

    kind: Kind
    path: str  # the instruction file, rule or import
    detail: str = ""  # "4,000 of 9,100 chars kept", "+120 chars", "now after AGENTS.md"

    def phrase(self) -> str:
        """`now also load X` — what the files of a group now do, for people."""
        text = _PHRASES[self.kind].format(path=self.path)
        return f"{text} ({self.detail})" if self.detail else text

    def to_json(self) -> dict[str, str]:
        out = {"kind": self.kind, "path": self.path}
        if self.detail:
            out["detail"] = self.detail
        return out


_PHRASES: dict[str, str] = {
    "added": "now also load {path}",
    "removed": "no longer load {path}",
    "cut": "now get {path} cut by the budget",
    "uncut": "now get {path} whole",
    "left-out": "now have {path} left out by the budget",
    "restored": "no longer have {path} left out",
    "edited": "load a changed {path}",
    "reason": "load {path} for another reason",
    "reordered": "load {path} at another place",
}


@record(frozen=True)
class Where:
    """A set of workspace files summarized: how many, the deepest directory holding them all
    ('' is the root), whether they are every file under it, and the largest subdirectories
    one level below it with their counts."""

    count: int
    under: str
    every: bool
    areas: tuple[tuple[str, int], ...]

    def phrase(self) -> str:
        """`412 files under packages/web/`, `every file under apps/`, `src/a.ts`."""
        place = f"{self.under}/" if self.under else "the workspace"
        if self.every:
            return f"every file ({self.count:,})" if not self.under else (
                f"every file under {place} ({self.count:,})")
        noun = "file" if self.count == 1 else "files"
        return f"{self.count:,} {noun} under {place}" if self.under else (
            f"{self.count:,} {noun}")


@record(frozen=True)
class Group:
    """Changes that apply to exactly the same files, for the same agents."""

    profiles: tuple[str, ...]
    changes: tuple[Change, ...]
    files: tuple[str, ...]  # sorted
    startup: bool  # the start-up load (no target) changes the same way
    where: Where

    def to_json(self) -> dict[str, object]:
        return {
            "profiles": list(self.profiles),
            "changes": [c.to_json() for c in self.changes],
            "startup": self.startup,
            "count": self.where.count,
            "under": self.where.under,
            "everyFileUnder": self.where.every,
            "areas": [{"dir": d, "count": n} for d, n in self.where.areas],
            "summary": self.where.phrase(),
            "files": list(self.files),
        }


@record(frozen=True)
class FindingChange:
    """A finding of `rulemap check` found on one side only."""

    profile: str | None
    code: str
    severity: str
    path: str
    line: int  # 1-based, on the side it was found
    message: str

    def to_json(self) -> dict[str, object]:
        return {
            "profile": self.profile,
            "code": self.code,
            "severity": self.severity,
            "path": self.path,
            "line": self.line,
            "message": self.message,
        }


@record(frozen=True)
class Diff:
    base: str  # as the user named them: `main`, `HEAD~1`, `the working tree`
    head: str
    profiles: tuple[str, ...]
    files: int  # targets compared: the files of either side
    only_base: int  # files only BASE has (deleted on HEAD)
    only_head: int
    groups: tuple[Group, ...]
    new_findings: tuple[FindingChange, ...]
    fixed_findings: tuple[FindingChange, ...]

    @property
    def changed(self) -> bool:
        return bool(self.groups or self.new_findings or self.fixed_findings)

    @property
    def files_changed(self) -> int:
        """Files whose load changes for at least one agent."""
        return len({f for g in self.groups for f in g.files})

    def to_json(self) -> dict[str, object]:
        return {
            "base": self.base,
            "head": self.head,
            "profiles": list(self.profiles),
            "changed": self.changed,
            "files": self.files,
            "onlyBase": self.only_base,
            "onlyHead": self.only_head,
            "filesChanged": self.files_changed,
            "startupChanged": any(g.startup for g in self.groups),
            "groups": [g.to_json() for g in self.groups],
            "findings": {
                "new": [f.to_json() for f in self.new_findings],
                "fixed": [f.to_json() for f in self.fixed_findings],
            },
        }
