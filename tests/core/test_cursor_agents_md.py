"""Cursor reads AGENTS.md: the root's for every file, a nested one for the files below its folder
(Cursor 1.6 and later: a rule with the implicit glob `<folder>/**`), and follows no `@` import
in it; a rule's `[x](mdc:path)` links (docs/profiles/cursor.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rulemap.analysis import new_workspace
from rulemap.checks.registry import CHECKS
from rulemap.profiles import get_profile, validate_options
from rulemap.readers import MemoryReader
from rulemap.workspace import Workspace

CURSOR = get_profile("cursor")

TREE = {
    "AGENTS.md": "root",
    "packages/AGENTS.md": "packages",
    "packages/api/AGENTS.md": "api",
    "packages/web/AGENTS.md": "web",
    ".cursor/rules/always.mdc": "---\nalwaysApply: true\n---\nalways",
    "packages/api/src/a.ts": "",
    "packages/web/b.ts": "",
    "docs/c.md": "",
}


def make(files: Mapping[str, str | bytes], *agents: str, **options: Any) -> Workspace:
    ws = new_workspace(MemoryReader("/w", files),
                       profile_options=validate_options({"cursor": options}, "test"))
    if agents:
        ws.selected_profiles = tuple(get_profile(a) for a in agents)
    return ws


def rows(ws: Workspace, target: str | None = None, cwd: str = ".") -> list[tuple[str, str]]:
    return [(f.path, f.reason) for f in CURSOR.explain(ws, target, cwd).files]


def test_root_agents_md_loads_for_every_file() -> None:
    ws = make({"AGENTS.md": "root", "src/a.ts": "", ".cursorrules": "legacy"})
    for target in ("src/a.ts", None):
        assert rows(ws, target) == [(".cursorrules", "project"), ("AGENTS.md", "project")]
    assert CURSOR.reads(ws, "AGENTS.md")
    assert CURSOR.load_status(ws, "AGENTS.md").loads


def test_nested_agents_md_loads_from_the_root_down_to_the_target() -> None:
    assert rows(make(TREE), "packages/api/src/a.ts") == [
        ("AGENTS.md", "project"),
        ("packages/AGENTS.md", "nested"),
        ("packages/api/AGENTS.md", "nested"),
        (".cursor/rules/always.mdc", "rule"),
    ]
    note = {f.path: f.note for f in CURSOR.explain(make(TREE), "packages/api/src/a.ts",
                                                     ".").files}
    assert note["packages/api/AGENTS.md"] == (
        "nested AGENTS.md: applies to files under `packages/api/`")


def test_nested_agents_md_is_not_for_other_folders() -> None:
    ws = make(TREE)
    assert rows(ws, "docs/c.md") == [("AGENTS.md", "project"), (".cursor/rules/always.mdc",
                                                                 "rule")]
    assert [p for p, _ in rows(ws, "packages/web/b.ts")] == [
        "AGENTS.md", "packages/AGENTS.md", "packages/web/AGENTS.md", ".cursor/rules/always.mdc"]
    # without a target: the cwd's folder decides, as for nested rules
    assert [p for p, _ in rows(ws, None, "packages/web")] == [
        "AGENTS.md", "packages/AGENTS.md", "packages/web/AGENTS.md", ".cursor/rules/always.mdc"]
    status = CURSOR.load_status(ws, "packages/api/AGENTS.md")
    assert status.loads and status.scoped and status.files == 2  # itself and src/a.ts


def test_nested_agents_md_off_reads_the_roots_only() -> None:
    ws = make(TREE, nestedAgentsMd=False)
    assert rows(ws, "packages/api/src/a.ts") == [("AGENTS.md", "project"),
                                                 (".cursor/rules/always.mdc", "rule")]
    skipped = {s.path: s.code for s in CURSOR.explain(ws, "packages/api/src/a.ts", ".").skipped}
    assert skipped == {"packages/AGENTS.md": "unreachable-rule",
                       "packages/api/AGENTS.md": "unreachable-rule"}
    assert not CURSOR.reads(ws, "packages/AGENTS.md") and CURSOR.reads(ws, "AGENTS.md")


def test_agents_md_off_skips_the_roots() -> None:
    ws = make(TREE, agentsMd=False)
    assert [p for p, _ in rows(ws, "packages/web/b.ts")] == [
        "packages/AGENTS.md", "packages/web/AGENTS.md", ".cursor/rules/always.mdc"]
    assert not CURSOR.reads(ws, "AGENTS.md")


def test_agents_md_alone_does_not_select_cursor() -> None:
    assert not CURSOR.detect(make({"AGENTS.md": "x", "pkg/AGENTS.md": "y"}))
    assert CURSOR.detect(make({"AGENTS.md": "x", ".cursor/rules/a.mdc": "y"}))


def test_agents_md_is_watched_and_not_a_rule_for_views() -> None:
    assert {"AGENTS.md", "**/AGENTS.md"} <= set(CURSOR.watched_globs)
    ws = make(TREE)
    assert CURSOR.glob_key(ws, "AGENTS.md") is None
    assert CURSOR.glob_key(ws, "packages/AGENTS.md") is None
    assert CURSOR.glob_key(ws, ".cursor/rules/always.mdc") == ("globs", "")
    # an AGENTS.md among the rules is a rule file (not read: not `.mdc`)
    assert not CURSOR.reads(ws, ".cursor/rules/AGENTS.md")


def test_an_import_in_agents_md_is_not_followed() -> None:
    files = {"AGENTS.md": "See @docs/setup.md\n", "docs/setup.md": "setup",
             ".cursor/rules/a.mdc": "---\nalwaysApply: true\n---\nrule"}
    ws = make(files, "cursor")
    found = [f for f in CURSOR.findings(ws) if f.code == "import-not-followed"]
    assert [(f.path, f.severity) for f in found] == [("AGENTS.md", "information")]
    assert "Cursor does not follow" in found[0].message and "`docs/setup.md`" in found[0].message
    assert rows(ws) == [("AGENTS.md", "project"), (".cursor/rules/a.mdc", "rule")]
    assert "cursor" in CHECKS["import-not-followed"].agents


def test_codex_first_names_cursor_among_the_agents_reading_it() -> None:
    files = {"AGENTS.md": "See @docs/setup.md\n", "docs/setup.md": "setup"}
    ws = make(files, "codex", "cursor")
    mine = [f for f in CURSOR.findings(ws) if f.code == "import-not-followed"]
    assert mine == []  # Codex, selected first, says it once
    codex = [f for f in get_profile("codex").findings(ws) if f.code == "import-not-followed"]
    assert len(codex) == 1 and "Cursor" in codex[0].message


def test_an_mdc_link_to_a_missing_file_is_broken() -> None:
    rule = ("---\nalwaysApply: true\n---\nSee [api](mdc:docs/api.md) and [gone](mdc:docs/gone.md)"
            "\n```\n[fenced](mdc:nowhere.md)\n```\n[beside](mdc:b.mdc) [up](mdc:../../x.md)\n")
    ws = make({".cursor/rules/a.mdc": rule, ".cursor/rules/b.mdc": "b", "docs/api.md": "api"})
    found = [(f.path, f.span.start.line, f.span.start.col, f.code, f.severity)
             for f in CURSOR.findings(ws) if f.code == "broken-import"]
    assert found == [(".cursor/rules/a.mdc", 3, rule.split("\n")[3].index("mdc:docs/gone"),
                      "broken-import", "error")]


def test_mdc_links_attach_the_linked_file_only_with_mdc_links_on() -> None:
    files = {".cursor/rules/a.mdc": "---\nglobs: src/**\n---\nSee [api](mdc:docs/api.md)",
             "docs/api.md": "api", "src/x.ts": ""}
    assert rows(make(files), "src/x.ts") == [(".cursor/rules/a.mdc", "scoped")]
    ws = make(files, mdcLinks=True)
    assert rows(ws, "src/x.ts") == [(".cursor/rules/a.mdc", "scoped"), ("docs/api.md", "import")]
    linked = CURSOR.explain(ws, "src/x.ts", ".").files[1]
    assert (linked.imported_by, linked.depth) == (".cursor/rules/a.mdc", 1)
    assert rows(ws, "other.ts") == []  # the rule does not apply, nor does its link


def test_edits_and_creations_give_what_a_fresh_workspace_gives() -> None:
    files = {**TREE, ".cursor/rules/link.mdc": "---\nalwaysApply: true\n---\n[x](mdc:docs/c.md)"}

    def state(ws: Workspace) -> tuple[object, ...]:
        return (sorted((f.path, f.code, f.message) for f in CURSOR.findings(ws)),
                rows(ws, "packages/api/src/a.ts"), rows(ws, "docs/c.md"))

    ws = make(files, "cursor", mdcLinks=True)
    state(ws)
    steps = [("packages/api/AGENTS.md", "api, edited", False),
             ("packages/api/src/AGENTS.md", "src", True),
             (".cursor/rules/link.mdc", "---\nalwaysApply: true\n---\n[x](mdc:docs/gone.md)",
              False),
             ("docs/gone.md", "now here", True)]
    for key, text, created in steps:
        files[key] = text
        ws.reader.files["/w/" + key] = text.encode()
        if created:
            ws.update(created={key})
        else:
            ws.update(changed={key})
        assert state(ws) == state(make(files, "cursor", mdcLinks=True)), key
