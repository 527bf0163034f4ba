"""`replay(ws, steps)`: what joins at each tool step of a run, through one profile's eyes.

The profile's own `replay` answers when it has a per-step model (cogitator's `reach`,
Mastra's one injection per model step, Claude Code's nested memory and scoped rules); any
other profile's start-up load stands, and the answer says so (`hasStepModel: false`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from rulemap.analysis import select_profiles
from rulemap.profiles import get_profile
from rulemap.profiles.steps import Problem, SessionReplay, ToolStep, without_step_model

if TYPE_CHECKING:
    from rulemap.workspace import Workspace


def replay(
    ws: Workspace,
    steps: Sequence[ToolStep],
    profile: str | None = None,
    cwd: str | None = None,
    problems: Iterable[Problem] = (),
) -> SessionReplay:
    """The run of `steps` from `cwd` (default: the configuration's) for `profile` (default:
    the configuration's), with the input's `problems` carried along. Raises UnknownProfile."""
    select_profiles(ws)
    chosen = get_profile(profile or ws.config.profile)
    where = ws.config.cwd if cwd is None else cwd
    marked = [_mark_directories(ws, step) for step in steps]
    model = getattr(chosen, "replay", None)
    if callable(model):
        result: SessionReplay = model(ws, marked, where)
    else:
        result = without_step_model(chosen.name, chosen.title, chosen.explain(ws, None, where),
                                    marked)
    return replace(result, problems=tuple(problems))


def _mark_directories(ws: Workspace, step: ToolStep) -> ToolStep:
    """A path that is a directory of the workspace (a Grep or Glob over it) ends in `/`: its
    nested instruction files join, but it is no file a rule matches."""
    paths = tuple(
        p + "/" if not p.endswith("/") and ws.reader.is_dir(ws.abs(p)) else p for p in step.paths
    )
    return step if paths == step.paths else replace(step, paths=paths)
