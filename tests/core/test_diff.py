"""`rulemap.diff`: what differs between two workspaces' loads, grouped; findings new and fixed.

Two workspaces over memory readers stand for BASE and HEAD; `diff_by_update` (one workspace
updated from BASE to HEAD) must give exactly what two fresh workspaces give.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from rulemap import analysis
from rulemap.diff import Change, Diff, diff_by_update, diff_workspaces
from rulemap.diff.findings import compare_findings
from rulemap.diff.groups import FileSet, summarize
from rulemap.diff.loads import changes_between
from rulemap.model import Finding, Span
from rulemap.profiles import get_profile
from rulemap.readers import MemoryReader
from rulemap.readers.switch import Changes, SwitchReader, content_changes
from rulemap.workspace import Workspace

RULE = "---\npaths: ['{glob}']\n---\nReact components are function components.\n"
BASE: dict[str, str] = {
    "AGENTS.md": "# Root\nUse pnpm.\n",
    "packages/web/AGENTS.md": "# Web\n",
    "packages/web/src/a.tsx": "x",
    "packages/web/src/b.tsx": "x",
    "packages/web/src/c.ts": "x",
    "packages/web/test/a.test.tsx": "x",
    "packages/api/src/x.py": "x",
    "packages/api/src/y.py": "x",
    ".claude/rules/react.md": RULE.format(glob="packages/api/**"),
}


def ws_of(files: Mapping[str, str], **kw: object) -> Workspace:
    return analysis.open_workspace("/w", reader=MemoryReader("/w", dict(files)), **kw)


def diff(base: Mapping[str, str], head: Mapping[str, str], **kw: object) -> Diff:
    kw.setdefault("profiles", ["cogitator"])
    return diff_workspaces(ws_of(base), ws_of(head), **kw)  # type: ignore[arg-type]


def with_files(**files: str | None) -> dict[str, str]:
    head = dict(BASE)
    for path, text in files.items():
        if text is None:
            head.pop(path)
        else:
            head[path] = text
    return head


def test_no_change_is_no_group_and_no_finding() -> None:
    d = diff(BASE, BASE, profiles=None)
    assert not d.changed and d.groups == () and d.files == len(BASE)
    assert d.files_changed == 0 and d.new_findings == () and d.fixed_findings == ()
    assert d.to_json()["changed"] is False


def test_a_rule_glob_edit_is_two_groups_summarized_by_directory() -> None:
    head = {**BASE, ".claude/rules/react.md": RULE.format(glob="packages/web/**/*.tsx")}
    d = diff(BASE, head)
    by_kind = {g.changes[0].kind: g for g in d.groups}
    gained, lost = by_kind["added"], by_kind["removed"]
    assert gained.changes == (Change("added", ".claude/rules/react.md"),)
    assert gained.files == ("packages/web/src/a.tsx", "packages/web/src/b.tsx",
                            "packages/web/test/a.test.tsx")
    assert gained.where.under == "packages/web" and not gained.where.every
    assert gained.where.phrase() == "3 files under packages/web/"
    assert dict(gained.where.areas) == {"packages/web/src/": 2, "packages/web/test/": 1}
    # every file under packages/api/src loses it: the summary says so
    assert lost.files == ("packages/api/src/x.py", "packages/api/src/y.py")
    assert lost.where.every and lost.where.phrase() == "every file under packages/api/src/ (2)"
    assert d.files_changed == 5 and not any(g.startup for g in d.groups)


def test_an_edited_nested_agents_md_is_one_group_for_every_agent_that_loads_it() -> None:
    head = {**BASE, "packages/web/AGENTS.md": "# Web\nRun the web tests.\n"}
    d = diff(BASE, head, profiles=["cogitator", "claude-code", "codex"])
    (group,) = d.groups  # codex reads only the root→cwd files: not this one
    assert group.profiles == ("cogitator", "claude-code")
    assert group.changes == (Change("edited", "packages/web/AGENTS.md", "+19 chars"),)
    assert group.where.every and group.where.under == "packages/web"
    assert len(group.files) == 5


def test_the_start_up_load_counts_and_merges_with_the_files_that_change_alike() -> None:
    head = {**BASE, "AGENTS.md": "# Root\nUse pnpm. And @docs/style.md\n",
            "docs/style.md": "Two spaces.\n"}
    d = diff(BASE, head)
    added = [g for g in d.groups if Change("added", "docs/style.md") in g.changes]
    assert len(added) == 1 and added[0].startup
    assert added[0].where.every and added[0].where.under == ""  # every file, docs/style.md too
    assert d.to_json()["startupChanged"] is True


def test_removed_file_is_compared_as_a_path_on_both_sides() -> None:
    head = dict(BASE)
    del head["packages/api/src/y.py"]
    d = diff(BASE, head)
    # an agent working on packages/api/src/y.py would load the same on HEAD: no change
    assert not d.groups and d.only_base == 1 and d.only_head == 0


def test_cut_left_out_and_restored_by_the_budget() -> None:
    big = "x" * 60 + "\n"
    base = {"AGENTS.md": "root\n", "a/AGENTS.md": big, "a/f.ts": "x", "rulemap.toml": ""}
    head = {**base, "AGENTS.md": "root " + "y" * 40 + "\n"}
    # maxChars 80: BASE loads both whole (5 + 61 chars), HEAD's root (46) cuts a/AGENTS.md
    b = ws_of(base, overrides={"maxChars": 80})
    h = ws_of(head, overrides={"maxChars": 80})
    d = diff_workspaces(b, h, profiles=["cogitator"])
    kinds = {c.kind: c for g in d.groups for c in g.changes}
    assert kinds["cut"].path == "a/AGENTS.md" and kinds["cut"].detail == "34 chars kept"
    h2 = ws_of({**head, "AGENTS.md": "root " + "y" * 80 + "\n"}, overrides={"maxChars": 80})
    d2 = diff_workspaces(b, h2, profiles=["cogitator"])
    kinds2 = {c.kind: c for g in d2.groups for c in g.changes}
    assert kinds2["left-out"].path == "a/AGENTS.md"
    back = diff_workspaces(h2, b, profiles=["cogitator"])
    assert {c.kind for g in back.groups for c in g.changes} >= {"restored", "uncut"}


def test_changes_between_signatures_reorder_and_reason() -> None:
    def sig(*entries: tuple[str, str]) -> tuple[tuple[tuple[str, str, bool, int, str], ...],
                                                tuple[str, ...]]:
        return tuple((p, r, False, 1, "t") for p, r in entries), ()

    base = sig(("A.md", "project"), ("r1.md", "scoped"), ("r2.md", "scoped"))
    head = sig(("A.md", "project"), ("r2.md", "scoped"), ("r1.md", "rule"))
    changes = changes_between(base, head)
    # one of the two moved (the longest common order keeps the other)
    moved = [c for c in changes if c.kind == "reordered"]
    assert moved in ([Change("reordered", "r1.md", "now after r2.md")],
                     [Change("reordered", "r2.md", "now after A.md")])
    assert Change("reason", "r1.md", "scoped → rule") in changes
    assert changes_between(base, base) == ()


def test_groups_merge_agents_and_keep_every_file_in_json() -> None:
    head = {**BASE, ".claude/rules/react.md": RULE.format(glob="packages/web/**")}
    d = diff(BASE, head, profiles=["cogitator", "claude-code"])
    added = next(g for g in d.groups if g.changes[0].kind == "added")
    assert added.profiles == ("cogitator", "claude-code")
    data = added.to_json()
    assert data["files"] == list(added.files) and data["count"] == len(added.files)
    assert data["summary"].startswith("every file under packages/web/")


def test_summarize_common_directory_stops_at_a_directory_boundary() -> None:
    every = FileSet(["a/bc/x", "a/bd/y", "a/bd/z"])
    where = summarize(["a/bc/x", "a/bd/y"], every)
    assert where.under == "a" and not where.every and where.count == 2
    one = summarize(["a/bd/y"], every)
    assert one.under == "a/bd" and not one.every
    assert summarize(["a/bc/x"], every).every


def finding(message: str, line: int = 0, path: str = "AGENTS.md",
            profile: str | None = None) -> Finding:
    return Finding(path, Span.at(line, 0), "warning", "budget-overflow", message,
                   profile=profile)


def test_findings_that_merely_moved_or_recounted_are_neither_new_nor_fixed() -> None:
    base = [finding("at start-up (and 1,204 other files), cut at line 4", line=3),
            finding("`@docs/v2.md` does not exist")]
    head = [finding("at start-up (and 1,300 other files), cut at line 9", line=8),
            finding("`@docs/v3.md` does not exist")]
    new, fixed = compare_findings(base, head)
    assert [f.message for f in new] == ["`@docs/v3.md` does not exist"]
    assert [f.message for f in fixed] == ["`@docs/v2.md` does not exist"]
    # the same message twice, once fixed: one fixed finding; another agent: another finding
    twice = [finding("dup", 1), finding("dup", 2)]
    assert len(compare_findings(twice, twice[:1])[1]) == 1
    assert len(compare_findings([finding("x")], [finding("x", profile="codex")])[0]) == 1


def test_new_and_fixed_findings_of_check() -> None:
    head = {**BASE, "packages/web/AGENTS.md": "# Web\nSee @missing.md\n"}
    d = diff(BASE, head)
    assert [(f.code, f.path, f.line) for f in d.new_findings] == [
        ("broken-import", "packages/web/AGENTS.md", 2)]
    back = diff(head, BASE)
    assert [f.code for f in back.fixed_findings] == ["broken-import"] and not back.new_findings


def test_a_new_unmatched_glob_comes_with_its_did_you_mean() -> None:
    """Findings are compared as the check leaves them (no did-you-mean), and a new one is
    shown with its did-you-mean worked out on HEAD (the update path gives the same: the
    `typo-glob` scenario below)."""
    head = with_files(**SCENARIOS["typo-glob"])
    [new] = [f for f in diff(BASE, head).new_findings if f.code == "unmatched-glob"]
    assert new.message.endswith("Did you mean `packages/web/src/**`?")


def test_profiles_default_to_the_union_of_both_sides() -> None:
    head = {**BASE, "GEMINI.md": "# Gemini\n"}
    d = diff(BASE, head, profiles=None)
    assert "gemini" in d.profiles and "gemini" not in {
        p.name for p in analysis.select_profiles(ws_of(BASE))}


@pytest.mark.parametrize("cwd", [".", "packages/web"])
def test_load_groups_answer_what_explain_answers_for_every_file(cwd: str) -> None:
    ws = ws_of({**BASE, "packages/web/CLAUDE.md": "@AGENTS.md\n",
                "packages/web/src/deep/AGENTS.md": "deep\n", "packages/web/src/deep/z.tsx": "",
                "packages/web/.claude/rules/ui.md": RULE.format(glob="src/**/*.tsx"),
                "packages/web/src/Upper.TSX": ""})
    for name in ("cogitator", "claude-code", "codex"):
        profile = get_profile(name)
        groups = profile.load_groups(ws, cwd)  # type: ignore[attr-defined]
        covered = sorted(f for _, members in groups for f in members)
        assert covered == sorted(ws.files)
        for explanation, members in groups:
            expected = [(f.path, f.reason) for f in explanation.files]
            for path in members:
                got = profile.explain(ws, path, cwd)
                assert [(f.path, f.reason) for f in got.files] == expected, (name, path)


SCENARIOS: dict[str, dict[str, str | None]] = {
    "typo-glob": {".claude/rules/react.md": RULE.format(glob="packages/wbe/src/**")},
    "rule glob": {".claude/rules/react.md": RULE.format(glob="packages/web/**/*.tsx")},
    "nested text": {"packages/web/AGENTS.md": "# Web\nMore.\n"},
    "import added": {"AGENTS.md": "# Root\n@docs/x.md\n", "docs/x.md": "X\n"},
    "files created and deleted": {"packages/web/src/new.tsx": "x", "packages/api/src/y.py": None,
                                  "packages/api/AGENTS.md": "# API\n"},
    "rule deleted": {".claude/rules/react.md": None},
    "rule becomes unconditional": {".claude/rules/react.md": "Always.\n"},
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_an_updated_workspace_gives_what_two_fresh_ones_give(name: str) -> None:
    head = with_files(**SCENARIOS[name])
    profiles = ["cogitator", "claude-code", "codex"]
    fresh = diff_workspaces(ws_of(BASE), ws_of(head), profiles=profiles)
    switch = SwitchReader(MemoryReader("/w", dict(BASE)))
    ws = analysis.open_workspace("/w", reader=switch)
    keys = set(BASE) | set(head)
    changes = Changes(
        changed=frozenset(k for k in keys if k in BASE and k in head and BASE[k] != head[k]),
        created=frozenset(k for k in keys if k not in BASE),
        deleted=frozenset(k for k in keys if k not in head),
    )
    updated = diff_by_update(ws, set(head), lambda: changes,
                             lambda: switch.switch(MemoryReader("/w", head)), profiles=profiles)
    assert updated is not None
    assert updated.to_json() == fresh.to_json()
    assert fresh.changed


def test_an_update_that_touches_the_configuration_is_refused() -> None:
    switch = SwitchReader(MemoryReader("/w", dict(BASE)))
    ws = analysis.open_workspace("/w", reader=switch)
    changes = Changes(frozenset(), frozenset({"rulemap.toml"}), frozenset())
    switched: list[bool] = []
    head = {*BASE, "rulemap.toml"}
    assert diff_by_update(ws, head, lambda: changes, lambda: switched.append(True)) is None
    assert not switched  # BASE's workspace is still BASE's


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_content_changes_name_what_base_read_and_head_holds_otherwise(name: str) -> None:
    head = with_files(**SCENARIOS[name])
    profiles = ["cogitator", "claude-code", "codex"]
    fresh = diff_workspaces(ws_of(BASE), ws_of(head), profiles=profiles)
    switch = SwitchReader(MemoryReader("/w", dict(BASE)))
    ws = analysis.open_workspace("/w", reader=switch)
    head_reader = MemoryReader("/w", head)
    head_files = set(head_reader.list_files())
    updated = diff_by_update(
        ws, head_files, lambda: content_changes(switch, head_reader, ws.files, head_files),
        lambda: switch.switch(head_reader), profiles=profiles)
    assert updated is not None and updated.to_json() == fresh.to_json()
