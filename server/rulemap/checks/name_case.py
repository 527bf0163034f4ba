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

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from rulemap.model import Finding, LoadStatus, Span
from rulemap.profiles import PROFILES
from rulemap.profiles.base import directory_chain, join, selected
from rulemap.workspace.letter_case import fold, folded_paths

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
    chain = directory_chain(ws.config.cwd)
    # folded path → [(the exact path, the name it stands for, the agent's title)]
    wanted: dict[str, list[tuple[str, str, str]]] = {}
    for profile in PROFILES.facts():  # light facts: an agent not selected is never made
        if not profile.selected_by_name and profile.name not in chosen:
            continue
        for name in profile.names_opened(ws):
            for directory in chain:
                exact = join(directory, name)
                wanted.setdefault(fold(exact), []).append((exact, name, profile.title))
    # file → (the name it stands for, the agents that open that name), in registry order
    found: dict[str, tuple[str, list[str]]] = {}
    for path in _candidates(ws, wanted):
        for exact, name, title in wanted.get(fold(path), ()):
            if path == exact:
                continue
            entry = found.setdefault(path, (name.rsplit("/", 1)[-1], []))
            if title not in entry[1]:
                entry[1].append(title)
    return dict(sorted(found.items()))


def case_why(ws: Workspace, title: str, key: str) -> str | None:
    """Why the agent titled `title` does not read `key`, when that is its name's letter case
    (`check`'s words, for `rulemap why`); None when it is not one of its files in other case
    or the platform assumed ignores case (the agent then reads it)."""
    if ws.case_insensitive:
        return None
    # most keys asked (every file a view shows as not loaded) bear no agent's name in any
    # letter case: answered without listing the workspace's candidates
    own = fold(key.rsplit("/", 1)[-1])
    if not any(own == fold(name.rsplit("/", 1)[-1]) for profile in PROFILES.facts()
               for name in profile.names_opened(ws)):
        return None
    found = case_files(ws).get(key)
    if found is None or title not in found[1]:
        return None
    return _finding(ws, key, found[0], found[1]).message


def in_case_words(ws: Workspace, title: str, key: str, status: LoadStatus) -> LoadStatus:
    """`status` (an agent's `load_status` of `key`) with `check`'s words as its why-not when
    the agent does not read `key` because of its name's letter case (`reach`, the editor)."""
    if status.loads:
        return status
    cased = case_why(ws, title, key)
    return status if cased is None else LoadStatus(False, why_not=cased)


def _candidates(ws: Workspace, wanted: Mapping[str, object]) -> Iterable[str]:
    """The walked (and git-ignored) files that may fold to a wanted path: those whose
    extension is a wanted one in any letter case (`.md`, `.MD`), every file when a wanted
    name has none. Linux asks this on every check, so it never folds the whole tree."""
    suffixes: set[str] = set()
    for key in wanted:
        name = key.rsplit("/", 1)[-1]
        dot = name.rfind(".")
        if dot <= 0:
            return folded_paths(ws)
        suffixes.add(name[dot:])
    pools = [ws.files.with_suffix(s) for s in sorted(_cased(suffixes))]
    return [*(p for pool in pools for p in pool), *ws.reader.ignored_files()]


def _cased(suffixes: set[str]) -> set[str]:
    """Every spelling in letter case of each (folded) suffix: `.md` → `.md`, `.MD`, `.Md`,
    `.mD` (a suffix of more than four letters: its lower and upper forms only)."""
    out: set[str] = set()
    for suffix in suffixes:
        letters = suffix[1:]
        if len(letters) > 4:
            out.update({suffix, suffix.upper()})
            continue
        spellings = [""]
        for char in letters:
            spellings = [s + c for s in spellings for c in {char.lower(), char.upper()}]
        out.update("." + s for s in spellings)
    return out


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
