"""`name-case`: a file whose name differs only in letter case from one an agent opens by name
where it starts (`agents.md` for `AGENTS.md`, `claude.md` for `CLAUDE.md`), issue #39 item 4.

An agent that opens `dir/AGENTS.md` by name (`Profile.names_opened`) reads `dir/agents.md` on
a case-insensitive file system — macOS, Windows — and nothing on Linux. Which platform the
answer is for is the workspace's (`--platform`, `platform`, else the host's). Under Linux no
agent reads the file: a warning. Under macOS or Windows they read it, but a colleague on Linux,
CI or a container does not: information. Either way the fix is the rename, which `check --fix`
cannot make (its fixes edit text, they never move a file).

Only the directories an agent reads at start-up are looked at (the root down to the cwd): a
page of documentation called `docs/agents.md` is no instruction file, and a rename there would
turn it into one. The agents named are every agent that opens the name, selected or not (on
Linux such a file selects none, which is the very problem), but one selected by something
other than its files (`Profile.selected_by_name`: Mastra) only when selected.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulemap.model import Finding, Span
from rulemap.profiles import PROFILES
from rulemap.profiles.base import directory_chain, join, selected
from rulemap.workspace.letter_case import fold, folded_files

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

_PLATFORM_TITLES = {"linux": "Linux", "macos": "macOS", "windows": "Windows"}


def check(ws: Workspace) -> list[Finding]:
    return [_finding(ws, path, name, agents)
            for path, (name, agents) in case_files(ws).items()]


def case_files(ws: Workspace) -> dict[str, tuple[str, list[str]]]:
    """Each file (sorted) whose name differs only in letter case from a name an agent opens
    where it starts: the name it stands for (`AGENTS.md`) and the titles of those agents."""
    chosen = {p.name for p in selected(ws)}
    folded = folded_files(ws)
    # file → (the name it stands for, the agents that open that name), in registry order
    found: dict[str, tuple[str, list[str]]] = {}
    chain = directory_chain(ws.config.cwd)
    for profile in PROFILES.values():
        if not profile.selected_by_name and profile.name not in chosen:
            continue
        for name in profile.names_opened(ws):
            for directory in chain:
                exact = join(directory, name)
                for path in folded.get(fold(exact), ()):
                    if path == exact:
                        continue
                    entry = found.setdefault(path, (name.rsplit("/", 1)[-1], []))
                    if profile.title not in entry[1]:
                        entry[1].append(profile.title)
    return dict(sorted(found.items()))


def _finding(ws: Workspace, path: str, name: str, agents: list[str]) -> Finding:
    own = path.rsplit("/", 1)[-1]
    who = _listed(agents)
    verb = "looks" if len(agents) == 1 else "look"
    first = ws.document(path).lines[0] if not ws.document(path).unreadable else ""
    span = Span.at(0, 0, len(first))
    here = _PLATFORM_TITLES.get(ws.platform, ws.platform)
    if ws.case_insensitive:
        return Finding(path, span, "information", "name-case", (
            f"`{own}` is read as `{name}` by {who} on {here}, whose file system ignores "
            f"letter case, but not on Linux (a colleague's machine, CI, a container), "
            f"where {'it looks' if len(agents) == 1 else 'they look'} for `{name}` exactly; "
            f"rename it to `{name}`"))
    there = "it reads it" if len(agents) == 1 else "they read it"
    return Finding(path, span, "warning", "name-case", (
        f"`{own}` is not read on {here}: {who} {verb} for `{name}`, and {here}'s file "
        f"system tells letter case apart (on macOS and Windows {there}); rename it to "
        f"`{name}`"))


def _listed(titles: list[str]) -> str:
    if len(titles) <= 1:
        return "".join(titles)
    return ", ".join(titles[:-1]) + " and " + titles[-1]
