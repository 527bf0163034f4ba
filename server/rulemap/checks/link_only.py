"""link-only: a file an agent reads that only points to an instruction file the agent never
loads — `GEMINI.md` holding `See [AGENTS.md](./AGENTS.md)` — so the agent gets the link, not
the instructions (its model may open the file with a tool, if it decides to; nothing loads it).

Asked per selected agent, of its own loads, so the finding holds for exactly the agents it
names: the default model reads `AGENTS.md` beside a `CLAUDE.md` that links it, Gemini CLI does
not. A target counts as loaded when the agent loads it with the pointing file
(`Profile.explain` for that file) *or* for work on the target itself: Gemini loads a linked
`packages/core/GEMINI.md` just in time when a tool touches that folder, and Mastra injects the
`CLAUDE.md` beside the `AGENTS.md` that points to it for any other file there — neither is
"never loads". What "only points" means is `profiles.pointers`.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from rulemap.model import Finding, Related, Span
from rulemap.profiles.base import Profile, prefixed, selected
from rulemap.profiles.documents import read_documents
from rulemap.profiles.pointers import points_only_to

if TYPE_CHECKING:
    from rulemap.workspace import Workspace


def check(ws: Workspace) -> list[Finding]:
    agents = selected(ws)
    if len(agents) == 0:
        return []
    documents = read_documents(ws, agents)
    known = set(documents)
    candidates = [(path, refs) for path in documents
                  if (refs := points_only_to(ws, path, known))]
    if not candidates:
        return []
    out: list[Finding] = []
    cwd = ws.config.cwd
    for profile in agents:
        found: list[Finding] = []
        for path, refs in candidates:
            if not profile.reads(ws, path):
                continue
            loaded = {f.path for f in profile.explain(ws, path, cwd).files}
            if path not in loaded:
                continue
            missing = [(target, span) for target, span in refs
                       if target not in loaded and not _loads_itself(ws, profile, target, cwd)]
            if len(missing) == len(refs):
                found.append(_finding(ws, profile, path, missing))
        out.extend(prefixed(profile, found))
    return out


def _loads_itself(ws: Workspace, profile: Profile, target: str, cwd: str) -> bool:
    """Whether the agent loads `target` for work on that file (or, just in time, its folder)."""
    return any(f.path == target for f in profile.explain(ws, target, cwd).files)


def _finding(
    ws: Workspace, profile: Profile, path: str, missing: list[tuple[str, Span]]
) -> Finding:
    names = ", ".join(f"`{target}`" for target, _ in missing)
    first, span = missing[0]
    if profile.follows_imports:
        token = "@" + posixpath.relpath(first, posixpath.dirname(path) or ".")
        advice = f"import it instead (`{token}`), or move the instructions here"
    else:
        advice = (f"{profile.title} has no imports: move the instructions here, or make this "
                  f"file a symlink to `{first}`")
    message = (
        f"`{path}` only points to {names}, which {profile.title} never loads: it gets the "
        f"link, not the instructions (the model may open the file with a tool, if it decides "
        f"to); {advice}"
    )
    related = [Related(target, Span.at(0, 0), f"what `{path}` points to; "
                       f"{profile.title} does not load it") for target, _ in missing]
    return Finding(path, span, "warning", "link-only", message, related=related)
