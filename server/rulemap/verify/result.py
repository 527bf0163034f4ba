"""The answer of `rulemap verify`, plain frozen data: a row per file and step (`Row`), what was
not compared (`Apart`), and the whole (`Verification`, with its JSON form)."""

from __future__ import annotations

from typing import Literal

from rulemap.records import record

# agree: the log and Rulemap both have it at this step; missing: Rulemap predicted it, the log
# does not have it; unexpected: the log has it, Rulemap did not predict it; step: both have
# it, at different steps
Verdict = Literal["agree", "missing", "unexpected", "step"]
ApartKind = Literal["user", "outside", "reload", "text"]
DISAGREEMENTS: tuple[Verdict, ...] = ("missing", "unexpected", "step")


@record(frozen=True)
class Row:
    """One file at one step: what the log says, what Rulemap predicted, and why."""

    step: int | None  # the log's step (None: the log does not say); for `missing`, Rulemap's
    access: str  # the step for people: `start-up`, `touch src/a.ts`, `unknown step`
    path: str  # workspace-relative (absolute for a user-level file, with --home)
    verdict: Verdict
    observed: str | None  # the agent's own reason, None when the log does not have it
    predicted: str | None  # Rulemap's reason (`project`, `nested`, …), None when not predicted
    why: str  # what Rulemap expected, and why (or why not)
    line: int | None = None  # the log's line that shows the load
    predicted_step: int | None = None  # where Rulemap has it (`step`)
    predicted_access: str | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "step": self.step, "access": self.access, "path": self.path,
            "verdict": self.verdict, "observed": self.observed, "predicted": self.predicted,
            "why": self.why, "line": self.line, "predictedStep": self.predicted_step,
        }


@record(frozen=True)
class Apart:
    """A load reported apart, not compared: a user-level (global) file without --home, a
    path outside the workspace, a re-load after compaction, prompt text no file accounts
    for."""

    what: str  # the path as logged, or `N characters of text`
    kind: ApartKind
    line: int | None
    step: int | None = None

    def to_json(self) -> dict[str, object]:
        return {"what": self.what, "kind": self.kind, "line": self.line, "step": self.step}


@record(frozen=True)
class Verification:
    profile: str
    title: str
    format: str  # the log's format, for people
    root: str
    cwd: str
    rows: tuple[Row, ...]
    apart: tuple[Apart, ...] = ()
    notes: tuple[str, ...] = ()  # what the log cannot show, the model's own notes

    @property
    def disagreements(self) -> tuple[Row, ...]:
        return tuple(r for r in self.rows if r.verdict in DISAGREEMENTS)

    @property
    def agree(self) -> bool:
        return not self.disagreements

    def counts(self) -> dict[str, int]:
        out = {"agree": 0, "missing": 0, "unexpected": 0, "step": 0}
        for row in self.rows:
            out[row.verdict] += 1
        return out

    def to_json(self) -> dict[str, object]:
        return {
            "profile": self.profile, "title": self.title, "format": self.format,
            "root": self.root, "cwd": self.cwd, "agree": self.agree,
            "counts": self.counts(), "rows": [r.to_json() for r in self.rows],
            "apart": [a.to_json() for a in self.apart], "notes": list(self.notes),
        }
