"""`replay(ws, steps)`: what joins at each tool step of a run, through one profile's eyes.

The profile's own `replay` answers when it has a per-step model (cogitator's `reach`,
Mastra's one injection per model step, Claude Code's nested memory and scoped rules); any
other profile's start-up load stands, and the answer says so (`hasStepModel: false`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, overload

from rulemap.analysis import active_profile, select_profiles
from rulemap.profiles.steps import Problem, SessionReplay, ToolStep, without_step_model

if TYPE_CHECKING:
    from rulemap.workspace import Workspace


def replay(
    ws: Workspace,
    steps: Sequence[ToolStep],
    profile: str | None = None,
    cwd: str | None = None,
    problems: Iterable[Problem] = (),
    check: Callable[[], None] | None = None,
) -> SessionReplay:
    """The run of `steps` from `cwd` (default: the configuration's) for `profile` (default:
    the configuration's), with the input's `problems` carried along. Raises UnknownProfile.
    `check` is called at every step the agent's model takes (a cancelled request's token
    raises there, so a long run stops at its next step)."""
    select_profiles(ws)
    chosen = active_profile(ws, profile)
    where = ws.config.cwd if cwd is None else cwd
    marked: Sequence[ToolStep] = [_mark_directories(ws, step) for step in steps]
    if check is not None:
        marked = _Checked(marked, check)
    result = chosen.replay(ws, marked, where)
    if result is None:
        result = without_step_model(chosen.name, chosen.title, chosen.explain(ws, None, where),
                                    marked)
    return replace(result, problems=tuple(problems))


class _Checked(Sequence[ToolStep]):
    """The steps, with `check` called at each one a loop takes: any agent's `replay` stops at
    its next step once `check` raises, without knowing of it."""

    def __init__(self, steps: Sequence[ToolStep], check: Callable[[], None]) -> None:
        self._steps = steps
        self._check = check

    @overload
    def __getitem__(self, index: int) -> ToolStep: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[ToolStep]: ...

    def __getitem__(self, index: int | slice) -> ToolStep | Sequence[ToolStep]:
        self._check()
        return self._steps[index]

    def __iter__(self) -> Iterator[ToolStep]:
        for step in self._steps:
            self._check()
            yield step

    def __len__(self) -> int:
        return len(self._steps)


def _mark_directories(ws: Workspace, step: ToolStep) -> ToolStep:
    """A path that is a directory of the workspace (a Grep or Glob over it) ends in `/`: its
    nested instruction files join, but it is no file a rule matches."""
    paths = tuple(
        p + "/" if not p.endswith("/") and ws.reader.is_dir(ws.abs(p)) else p for p in step.paths
    )
    return step if paths == step.paths else replace(step, paths=paths)
