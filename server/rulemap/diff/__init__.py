"""`rulemap diff`: what agents load, file by file, on two sides of a change (docs/diff.md).

`diff_workspaces(base, head)` takes two workspaces (a git ref and the working tree, two refs,
or any two readers) and answers, per agent, which files' effective instructions differ and how
— added, removed, cut differently, left out, edited, reordered — grouped by the files each
change applies to, with the findings of `check` that are new or fixed. Pure: it reads only
through the workspaces. `loads.py` signs and compares loads, `groups.py` groups the changes,
`findings.py` matches findings, `result.py` is the answer's data.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet

from rulemap import analysis
from rulemap.config import CONFIG_FILES
from rulemap.diff.findings import compare_findings
from rulemap.diff.groups import FileSet, ProfileChanges, group_changes
from rulemap.diff.loads import SideLoads, changes_between, side_loads
from rulemap.diff.result import Change, Diff, FindingChange, Group, Where
from rulemap.model import Finding
from rulemap.profiles import PROFILES, get_profile
from rulemap.profiles.base import Profile
from rulemap.readers.switch import Changes
from rulemap.workspace import Workspace

__all__ = ["Change", "Changes", "Diff", "FindingChange", "Group", "Where", "diff_by_update",
           "diff_profiles", "diff_workspaces"]


def diff_profiles(
    base: Workspace, head: Workspace, names: Iterable[str] | None = None
) -> tuple[Profile, ...]:
    """The agents to compare: `names`, else every agent either side selects (its
    configuration's `profiles`, else detected), in the registry's order. Both workspaces are
    set to check for exactly these, so their findings compare."""
    if names is not None:
        chosen = tuple(get_profile(n) for n in dict.fromkeys(names))
    else:
        wanted = {p.name for ws in (base, head) for p in analysis.select_profiles(ws)}
        order = [n for n in PROFILES if n in wanted]
        order += sorted(wanted - set(order))  # registered outside the registry's order
        chosen = tuple(get_profile(n) for n in order)
    for ws in (base, head):
        if ws.selected_profiles != chosen:
            ws.selected_profiles = chosen
            ws.findings_cache = None
    return chosen


def diff_workspaces(
    base: Workspace,
    head: Workspace,
    profiles: Iterable[str] | None = None,
    cwd: str | None = None,
    base_label: str = "BASE",
    head_label: str = "HEAD",
    findings: bool = True,
) -> Diff:
    """What differs between `base` and `head` for every file of either (and the start-up
    load), per agent. `cwd`: the agents' working directory on both sides (default: each
    side's configuration). `findings=False` skips `check` on both sides."""
    chosen = diff_profiles(base, head, profiles)
    base_files, head_files = set(base.files), set(head.files)
    targets = sorted(base_files | head_files)
    before = [side_loads(base, p, _cwd(base, cwd), targets) for p in chosen]
    after = [side_loads(head, p, _cwd(head, cwd), targets) for p in chosen]
    found = (list(analysis.check(base)), list(analysis.check(head))) if findings else None
    return _assemble(chosen, targets, before, after, found, base_files, head_files,
                     base_label, head_label, _shown_in(head))


def diff_by_update(
    ws: Workspace,
    head_files: AbstractSet[str],
    changes: Callable[[], Changes],
    switch: Callable[[], None],
    profiles: Iterable[str] | None = None,
    cwd: str | None = None,
    base_label: str = "BASE",
    head_label: str = "HEAD",
) -> Diff | None:
    """The same answer as `diff_workspaces`, from one workspace: `ws` reads BASE until
    `switch()` makes its reader read HEAD, whose files are `head_files`. BASE's loads and
    findings are taken; then `changes()` (asked once BASE has read all it will) names the
    files that differ, and `ws.update` turns the workspace into HEAD's, so only what read a
    changed file is computed again (the language server's incremental path).

    None, before `switch` is called (`ws` is still BASE's: open HEAD and use
    `diff_workspaces`), when that cannot stand for a fresh HEAD workspace: a configuration
    file differs, `changes()` disagrees with `head_files`, or HEAD may select an agent BASE
    does not."""
    base_files = set(ws.files)
    created, deleted = set(head_files) - base_files, base_files - set(head_files)
    if profiles is not None:
        chosen = tuple(get_profile(n) for n in dict.fromkeys(profiles))
    else:
        chosen = analysis.select_profiles(ws)
        if select_agents(ws, created, deleted) is None:
            return None
    ws.selected_profiles = chosen
    ws.findings_cache = None
    targets = sorted(base_files | created)
    where = _cwd(ws, cwd)
    before = [side_loads(ws, p, where, targets) for p in chosen]
    base_findings = list(analysis.check(ws))
    found = changes()
    if any(k in CONFIG_FILES for k in found.changed | found.created | found.deleted):
        return None
    if found.created != created or found.deleted != deleted:
        return None
    switch()
    ws.update(changed=found.changed, created=found.created, deleted=found.deleted)
    after = [side_loads(ws, p, where, targets) for p in chosen]
    return _assemble(chosen, targets, before, after, (base_findings, list(analysis.check(ws))),
                     base_files, set(head_files), base_label, head_label, _shown_in(ws))


def select_agents(ws: Workspace, created: AbstractSet[str],
                  deleted: AbstractSet[str]) -> tuple[Profile, ...] | None:
    """The agents a HEAD workspace would detect, judged on BASE's: the same, unless a file
    some agent reads by its name and place is created or deleted (an agent's files may come
    or go: None, decide on HEAD itself)."""
    touched = [*created, *deleted]
    if any(p.reads(ws, key) for p in PROFILES.values() for key in touched):
        return None
    return analysis.select_profiles(ws)


def _shown_in(head: Workspace) -> Callable[[Finding], Finding]:
    """A new finding as its reader sees it: with its did-you-mean worked out on HEAD."""
    return lambda finding: analysis.with_suggestions(head, [finding])[0]


def _assemble(
    chosen: tuple[Profile, ...],
    targets: list[str],
    before: list[SideLoads],
    after: list[SideLoads],
    found: tuple[list[Finding], list[Finding]] | None,
    base_files: set[str],
    head_files: set[str],
    base_label: str,
    head_label: str,
    shown: Callable[[Finding], Finding] | None = None,
) -> Diff:
    per_profile: list[ProfileChanges] = []
    for profile, b_side, h_side in zip(chosen, before, after, strict=True):
        pairs: dict[tuple[int, int], list[str]] = {}
        b_of, h_of = b_side.of_target, h_side.of_target
        for path in targets:
            pair = (b_of[path], h_of[path])
            members = pairs.get(pair)
            if members is None:
                pairs[pair] = [path]
            else:
                members.append(path)
        changes = ProfileChanges(profile.name)
        for (b, h), members in pairs.items():
            differ = changes_between(b_side.signatures[b], h_side.signatures[h])
            if differ:
                changes.add(differ, members)
        changes.startup.update(changes_between(b_side.signatures[b_side.startup],
                                               h_side.signatures[h_side.startup]))
        per_profile.append(changes)
    new: tuple[FindingChange, ...] = ()
    fixed: tuple[FindingChange, ...] = ()
    if found is not None:
        new, fixed = compare_findings(*found, shown=shown)
    return Diff(
        base=base_label,
        head=head_label,
        profiles=tuple(p.name for p in chosen),
        files=len(targets),
        only_base=len(base_files - head_files),
        only_head=len(head_files - base_files),
        groups=group_changes(per_profile, FileSet(targets)),
        new_findings=new,
        fixed_findings=fixed,
    )


def _cwd(ws: Workspace, cwd: str | None) -> str:
    return ws.config.cwd if cwd is None else cwd
