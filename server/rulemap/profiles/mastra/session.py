"""A Mastra run replayed model step by model step (the seed: the injector runs before every
model step, scans the completed tool calls newest first, and injects at most one instruction
file not yet covered; ignored paths never).

Session step N is the model step after input step N's tool calls completed: it searches the
paths of every completed call so far, the newest step first (a step's paths in their order),
each path's ancestry nearest first (`inject.candidates`), and injects the first file that is
neither injected already (by identity) nor in `ignoredInstructionPaths`. Step 0, before any
tool call, injects nothing."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rulemap.model import Budget, LoadedFile, Skipped
from rulemap.profiles.mastra.identity import path_identity
from rulemap.profiles.mastra.inject import NOTE_DISABLED, Settings, _Search, candidates
from rulemap.profiles.steps import SessionReplay, SessionStep, ToolStep, directory_of

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

NOTE_STEPS = (
    "each model step injects at most one new instruction file: the newest completed tool "
    "call's nearest uncovered file first; files are cut at maxTokens each (no shared budget)"
)


def _tool_path(path: str) -> str:
    """The path as the tool call named it: `a/` → `a`, `./` → `` (the root directory; the
    injector searches a directory from itself)."""
    directory, is_dir = directory_of(path)
    return directory if is_dir else path


class _Run:
    def __init__(self, ws: Workspace, settings: Settings):
        self.ws = ws
        self.search = _Search(ws, settings, [], [], [])
        self.ignored = self.search.ignored_identities()
        self.covered: set[str] = set()  # identities injected, or passed over for good
        self.found: dict[str, list[str]] = {}  # path → its candidates (nearest first)
        self.skips: list[Skipped] = []
        # calls (by position) whose every candidate is covered: covered only grows, so they
        # are never searched again and a long run stays linear
        self.exhausted: set[int] = set()

    def candidates(self, path: str) -> list[str]:
        found = self.found.get(path)
        if found is None:
            found = self.found[path] = candidates(self.ws, path, self.search.settings)[0]
        return found

    def next_file(self, calls: Sequence[ToolStep], step: int) -> LoadedFile | None:
        """What the injector adds before model step `step`: the first uncovered file of the
        completed calls, newest first."""
        for position in range(len(calls) - 1, -1, -1):
            if position in self.exhausted:
                continue
            found = self._first_uncovered(calls[position], step)
            if found is not None:
                return found
            self.exhausted.add(position)
        return None

    def _first_uncovered(self, call: ToolStep, step: int) -> LoadedFile | None:
        """The first file of `call`'s paths not covered yet, injected at `step` (None: all
        are covered)."""
        for path in call.paths:
            for key in self.candidates(_tool_path(path)):
                identity = path_identity(self.ws, key)
                if identity in self.covered:
                    continue
                self.covered.add(identity)  # injected now, or never (the reasons below)
                if identity in self.ignored:
                    self.skips.append(Skipped(
                        key, f"in ignoredInstructionPaths (`{self.ignored[identity]}`): "
                        "part of the static instructions, never injected", "duplicate-load"))
                    continue
                entry = self.search.entry(key, step)
                if isinstance(entry, Skipped):
                    self.skips.append(entry)
                    continue
                return entry
        return None


def replay(
    name: str, title: str, ws: Workspace, settings: Settings, steps: Sequence[ToolStep],
    cwd: str,
) -> SessionReplay:
    budget = Budget("per-file", "tokens", settings.max_tokens, "maxTokens")
    run = _Run(ws, settings)
    out = [SessionStep(0, "start-up", (), (), (), (), 0, None)]
    used = 0
    for index, step in enumerate(steps, 1):
        skips_before = len(run.skips)
        entry = run.next_file(steps[:index], index) if settings.enabled else None
        joined: tuple[LoadedFile, ...] = ()
        cut: tuple[str, ...] = ()
        if entry is not None:
            joined = (entry,)
            used += entry.tokens or 0
            cut = (entry.path,) if entry.truncated else ()
        out.append(SessionStep(index, step.kind, step.paths, joined, (), cut, used, None,
                               skipped=tuple(run.skips[skips_before:])))
    notes = [NOTE_STEPS] if settings.enabled else [NOTE_DISABLED]
    pending: list[str] = []
    if settings.enabled:
        while (entry := run.next_file(steps, len(steps) + len(pending) + 1)) is not None:
            pending.append(entry.path)
    if pending:
        notes.append(
            f"{len(pending)} more file{'s' if len(pending) != 1 else ''} would be injected at "
            f"the next model steps, one a step: {', '.join(pending)}"
        )
    notes.extend(run.search.notes)
    return SessionReplay(
        name, title, ws.root, "." if cwd in ("", ".") else cwd, budget, tuple(out),
        notes=tuple(notes),
    )
