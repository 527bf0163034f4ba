"""A run replayed step by step: the input (`ToolStep`, what one tool step reads or edits) and
the answer (`SessionStep` per step, `SessionReplay` for the run), plain frozen data.

A profile with a per-step model implements the optional `replay(ws, steps, cwd) ->
SessionReplay` (`rulemap.session.replay` asks it); step 0 is always the start-up load. A
profile without one gets `without_step_model`: its start-up load, and a note that nothing
joins later by its model (what it loads for one file is `explain`'s answer).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from rulemap.model import Budget, Explanation, LoadedFile, Skipped, _loaded_json
from rulemap.profiles.budget import budget_notice
from rulemap.records import record

StepKind = Literal["read", "edit"]
STEP_KINDS: tuple[str, ...] = ("read", "edit")


@record(frozen=True)
class ToolStep:
    """One tool step of a run: the workspace paths it reads or edits (the seed's
    `ToolConfig.access`). A path ending in `/` is a directory (a search over it; `./` the
    root): see `directory_of`."""

    kind: StepKind
    paths: tuple[str, ...]
    source: int | None = None  # the line (transcript) or index (JSON) it came from, 1-based
    # the agent's own tool name when the log names it (`Read`, `read_file`): some agents load
    # nested instructions for some tools only; None = unknown (any tool of `kind`)
    tool: str | None = None


@record(frozen=True)
class SessionStep:
    """What joined at one step: `index` 0 is the start-up load (`kind` "start-up")."""

    index: int
    kind: str  # "start-up", "read" or "edit"
    paths: tuple[str, ...]
    joined: tuple[LoadedFile, ...]  # in prompt order, cut where the budget cuts
    left_out: tuple[str, ...]  # brought by this step but past the budget
    cut: tuple[str, ...]  # the joined files the budget cut
    used: int  # the run's budget used after this step (the budget's unit)
    left: int | None  # what is left of a shared budget (None: no shared budget)
    notice: str | None = None  # the notice ending this step's message, when it cut
    skipped: tuple[Skipped, ...] = ()  # what the step reached but did not bring, and why

    def message(self) -> str:
        """This step's system message exactly as the agent gets it ("" when none)."""
        text = "\n\n".join(f.text.rstrip("\n") for f in self.joined if f.text)
        if self.notice:
            text = f"{text}\n\n{self.notice}" if text else self.notice
        return text

    def to_json(self) -> dict[str, object]:
        return {
            "index": self.index,
            "kind": self.kind,
            "paths": list(self.paths),
            "joined": [_loaded_json(f) for f in self.joined],
            "leftOut": list(self.left_out),
            "cut": list(self.cut),
            "used": self.used,
            "left": self.left,
            "notice": self.notice,
            "skipped": [{"path": k.path, "why": k.why} for k in self.skipped],
        }


@record(frozen=True)
class Problem:
    """An input line or entry that was not understood (skipped)."""

    line: int | None  # 1-based line (transcripts) or entry index (JSON lists); None: input
    message: str

    def to_json(self) -> dict[str, object]:
        return {"line": self.line, "message": self.message}


@record(frozen=True)
class SessionReplay:
    profile: str
    title: str
    root: str
    cwd: str
    budget: Budget
    steps: tuple[SessionStep, ...]
    has_step_model: bool = True
    note: str | None = None  # what the model does not show (no per-step model, ...)
    problems: tuple[Problem, ...] = ()
    notes: tuple[str, ...] = ()  # the profile's notes on its start-up load

    @property
    def first_cut_step(self) -> int | None:
        """The first step at which the budget cut or left something out."""
        return next((s.index for s in self.steps if s.cut or s.left_out), None)

    @property
    def notice(self) -> str | None:
        """A notice naming everything the run's budget cut and left out (a profile without a
        step model: its start-up load's own notice, in its own words)."""
        if not self.has_step_model:
            return self.steps[0].notice if self.steps else None
        cut = [p for s in self.steps for p in s.cut]
        left_out = [p for s in self.steps for p in s.left_out]
        if not cut and not left_out or self.budget.kind != "shared":
            return None
        return budget_notice(self.budget.limit, cut, left_out, self.budget.unit)

    def messages(self) -> list[tuple[SessionStep, str]]:
        """The system messages in order: (step, text), steps that bring nothing left out."""
        return [(s, text) for s in self.steps if (text := s.message())]

    def to_json(self) -> dict[str, object]:
        return {
            "profile": self.profile,
            "title": self.title,
            "root": self.root,
            "cwd": self.cwd,
            "hasStepModel": self.has_step_model,
            "note": self.note,
            "budget": self.budget.to_json(),
            "steps": [s.to_json() for s in self.steps],
            "firstCutStep": self.first_cut_step,
            "notice": self.notice,
            "notes": list(self.notes),
            "problems": [p.to_json() for p in self.problems],
        }


ROOT_DIRECTORY = "./"  # a step over the workspace root itself (a Grep with no narrower path)


def directory_of(path: str) -> tuple[str, bool]:
    """(the directory a step path leads into, whether the path is a directory): `a/b.ts` →
    (`a`, False); `a/` → (`a`, True); `./` → (`` the root, True)."""
    if path.endswith("/"):
        directory = path[:-1]
        return ("" if directory == "." else directory), True
    slash = path.rfind("/")
    return (path[:slash] if slash > 0 else ""), False


def no_step_model_note(title: str, name: str) -> str:
    return (
        f"{title} has no per-step model in Rulemap: its start-up load stands, and nothing is "
        f"shown joining when a tool reads or edits a file (what it loads for one file is "
        f"`rulemap explain FILE --profile {name}`)"
    )


def without_step_model(
    name: str, title: str, start_up: Explanation, steps: Sequence[ToolStep]
) -> SessionReplay:
    """The replay of a profile without a per-step model: step 0 its start-up load (as
    `explain` answers it), every later step bringing nothing."""
    total = sum(_size(f, start_up.budget) for f in start_up.files)
    shared = start_up.budget.kind == "shared" and start_up.budget.limit > 0
    left = max(start_up.budget.limit - total, 0) if shared else None
    first = SessionStep(
        0, "start-up", (), tuple(start_up.files), tuple(start_up.left_out),
        tuple(f.path for f in start_up.files if f.cut or f.truncated), total, left,
        start_up.notice, tuple(start_up.skipped),
    )
    later = [
        SessionStep(i, s.kind, s.paths, (), (), (), total, left) for i, s in enumerate(steps, 1)
    ]
    return SessionReplay(
        name, title, start_up.root, start_up.cwd, start_up.budget, (first, *later),
        has_step_model=False, note=no_step_model_note(title, name), notes=start_up.notes,
    )


def _size(f: LoadedFile, budget: Budget) -> int:
    if budget.unit == "bytes" and f.bytes is not None:
        return f.bytes
    if budget.unit == "tokens" and f.tokens is not None:
        return f.tokens
    return f.chars

