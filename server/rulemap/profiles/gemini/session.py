"""A Gemini CLI session replayed step by step (docs/profiles/gemini.md): the start-up load (the
global file, the git root down to the cwd), then per tool step what just-in-time loading adds.

Only the tools that discover context (`JIT_TOOLS`: read_file, list_directory, write_file,
replace, read_many_files) bring context files: from the git root of the cwd down to the
directory of the path they touch (a directory a tool lists: that directory), each file the
first time only (Gemini remembers what it loaded, by path and file identity), with its imports.
A step whose tool the log does not name (`ToolStep.tool` None) counts as one of them, read or
edit alike. With `jitContext = false` everything loads at start-up and no step brings more.
No shared budget."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rulemap.model import Budget
from rulemap.profiles.gemini.load import Loader
from rulemap.profiles.gemini.paths import JIT_TOOL_LIST, JIT_TOOLS
from rulemap.profiles.steps import SessionReplay, SessionStep, ToolStep, directory_of

if TYPE_CHECKING:
    from rulemap.profiles.base import Profile
    from rulemap.workspace import Workspace

JIT_NOTE = (
    f"Gemini CLI has no shared budget: each file joins whole; the context files of a "
    f"directory below the cwd join the first time {JIT_TOOL_LIST} touches a path there, "
    f"appended to that tool's output (grep_search, glob and shell commands bring none; a step "
    f"of an unnamed tool counts as one that does)"
)
EAGER_NOTE = (
    "Gemini CLI has no shared budget; with jitContext = false every context file loads at "
    "start-up, and no tool step brings more"
)


def triggers(step: ToolStep) -> bool:
    """Whether the step's tool discovers context just in time (an unnamed one is taken to)."""
    return step.tool is None or step.tool in JIT_TOOLS


def replay(profile: Profile, ws: Workspace, steps: Sequence[ToolStep], cwd: str) -> SessionReplay:
    cwd = "" if cwd in (".", "") else cwd.strip("/")
    loader = Loader(ws, profile)
    loader.load_all(loader.startup_tops(cwd))
    used = sum(f.chars for f in loader.files)
    out = [SessionStep(0, "start-up", (), tuple(loader.files), (), (), used, None,
                       skipped=tuple(loader.skipped))]
    for index, step in enumerate(steps, 1):
        files, skipped = len(loader.files), len(loader.skipped)
        if loader.jit and triggers(step):
            for path in step.paths:
                directory, _ = directory_of(path)
                loader.load_all([(key, "nested") for key in loader.jit_files(directory, cwd)])
        joined = tuple(loader.files[files:])
        used += sum(f.chars for f in joined)
        out.append(SessionStep(index, step.kind, step.paths, joined, (), (), used, None,
                               skipped=tuple(loader.skipped[skipped:])))
    notes = (JIT_NOTE if loader.jit else EAGER_NOTE, *dict.fromkeys(loader.notes))
    return SessionReplay(profile.name, profile.title, ws.root, cwd or ".",
                         Budget("none", "chars", 0), tuple(out), notes=notes)
