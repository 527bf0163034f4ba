"""A cogitator run replayed step by step (the seed: start-up load, then a batch per tool step,
one `maxChars` for the whole run, a file never brought twice).

Each step is `reach` (reach.py) on the run's state; what the step joined are the links it
added. The shared budget's verdict per link (`Load.budget_pass`) already carries everything
before it, so a later step's file is cut or left out because of earlier steps' files, and
once something is left out every later file is too."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from rulemap.model import Budget, LoadedFile
from rulemap.profiles.base import Profile, directory_chain
from rulemap.profiles.budget import budget_notice
from rulemap.profiles.cogitator import reach
from rulemap.profiles.cogitator.load import Load
from rulemap.profiles.cogitator.settings import settings_of
from rulemap.profiles.steps import SessionReplay, SessionStep, ToolStep

if TYPE_CHECKING:
    from rulemap.workspace import Workspace


def replay(
    profile: Profile, ws: Workspace, steps: Sequence[ToolStep], cwd: str
) -> SessionReplay:
    limit = settings_of(ws).max_chars
    state = reach.start(ws, tuple(directory_chain(cwd)))
    reported: Load | None = None  # the run's load as of the step before
    out: list[SessionStep] = []
    # the steps are taken one at a time (a caller's `steps` may stop a cancelled run)
    batches = itertools.chain([("start-up", ())], ((s.kind, s.paths) for s in steps))
    for index, (kind, paths) in enumerate(batches):
        if index:
            state = reach.reach(ws, state, paths)
        used = out[-1].used if out else 0
        out.append(_batch(index, kind, tuple(paths), _since(state.load, reported), limit, used))
        reported = state.load
    return SessionReplay(
        profile.name, profile.title, ws.root, state.cwd_dir or ".",
        Budget("shared", "chars", limit, "maxChars"), tuple(out),
    )


def _since(load: Load, before: Load | None) -> list[Load]:
    """The links of `load` after `before` (a link it goes on from), first to last: walked
    from the end, so a long run costs its new links, not its whole chain, per step."""
    out: list[Load] = []
    link: Load | None = load
    while link is not None and link is not before:
        out.append(link)
        link = link.parent
    out.reverse()
    return out


def _batch(index: int, kind: str, paths: tuple[str, ...], links: list[Load],
           limit: int, used: int) -> SessionStep:
    """The files of a step's new links, as the run's shared budget leaves them (`used`: the
    run's use before the step)."""
    joined: list[LoadedFile] = []
    left_out: list[str] = []
    cut: list[str] = []
    for link in links:
        verdict = link.budget_pass(limit)
        kept = dict(verdict.cut)
        dropped = set(verdict.left_out)
        for entry in link.own_files:
            if entry.path in dropped:
                left_out.append(entry.path)
            elif entry.path in kept:
                chars = kept[entry.path]
                joined.append(replace(entry, text=entry.text[:chars], chars=chars, cut=True))
                cut.append(entry.path)
            else:
                joined.append(entry)
        used = verdict.used
    notice = budget_notice(limit, cut, left_out) if cut or left_out else None
    skipped = tuple(skip for link in links for skip in link.own_skipped)
    return SessionStep(index, kind, paths, tuple(joined), tuple(left_out), tuple(cut), used,
                       max(limit - used, 0), notice, skipped)
