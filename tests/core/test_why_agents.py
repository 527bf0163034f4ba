"""`rulemap why` over every selected agent's files (issue #36 item 6): a sentence of a
GEMINI.md, a Copilot `.instructions.md`, a Cursor `.mdc` or a file one of them imports is
found and answered for each agent; an agent that never reads the file holding it is told
where it would read it (`Profile.homes`), never the file the sentence is already in."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.cli_runner import RunCli, git_tree

from rulemap.analysis import new_workspace
from rulemap.profiles import get_profile
from rulemap.readers import MemoryReader

ALL = "cogitator,claude-code,codex,gemini,copilot,cursor,mastra"

GEMINI = {
    "GEMINI.md": "# Project\n\nUse pnpm for everything.\n\n@docs/style.md\n",
    "docs/style.md": "Prefer tabs over spaces.\n",
    "src/web/GEMINI.md": "Web components are function components.\n@./web-style.md\n",
    "src/web/web-style.md": "Name hooks useSomething.\n",
    "src/web/c.ts": "",
    "src/api/a.ts": "",
}
COPILOT = {
    ".github/copilot-instructions.md": "Answer in British English.\n",
    ".github/instructions/api.instructions.md":
        '---\napplyTo: "src/api/**"\n---\nValidate every request body.\n',
    "src/api/a.ts": "",
    "src/web/c.ts": "",
}
CURSOR = {
    ".cursor/rules/always.mdc": "---\nalwaysApply: true\n---\nKeep functions short.\n",
    ".cursor/rules/web.mdc": "---\nglobs: src/web/**\n---\nUse CSS modules.\n",
    ".cursorrules": "Never commit secrets.\n",
    "src/api/a.ts": "",
    "src/web/c.ts": "",
}
CLAUDE = {
    "CLAUDE.md": "# Project\n\n@docs/claude-notes.md\n",
    "docs/claude-notes.md": "Run the linter before committing.\n",
    "src/a.ts": "",
}
# the other name Claude Code reads AGENTS.md under, as JSON (`through`)
CLAUDE_VIA = {"path": "CLAUDE.md", "how": "symlink", "real": "AGENTS.md",
              "text": "reads its text as `CLAUDE.md` (a symlink to `AGENTS.md`)"}


def _why(cli: RunCli, root: Path, *args: str) -> tuple[int, dict[str, Any]]:
    code, out, _ = cli(["why", *args, "--json"], root)
    assert code in (0, 1), (args, out)
    return code, json.loads(out)


def _agents(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {a["profile"]: a for a in data["agents"]}


def _never_advises_its_own_file(data: dict[str, Any]) -> None:
    holding = {p["path"] for p in data["places"]}
    for agent in data["agents"]:
        advised = {h["path"] for h in agent["advice"]}
        assert not advised & holding, agent
        for path in holding:
            assert f"put it in `{path}`" not in agent["why"], agent
            assert f"or in `{path}`" not in agent["why"], agent
        if not agent["seen"] and agent["advice"]:
            assert f"`{agent['advice'][0]['path']}`" in agent["why"].split("; put it in")[1]


# ----- Gemini ---------------------------------------------------------------------------------

def test_a_sentence_of_gemini_md_is_found_and_reaches_gemini(cli: RunCli,
                                                             tmp_path: Path) -> None:
    root = git_tree(tmp_path, GEMINI)
    code, out, _ = cli(["why", "Use pnpm", "--profiles", "gemini"], root)
    assert code == 0 and out.startswith("'Use pnpm' — found in GEMINI.md:3; at start-up")
    assert "yes  Gemini CLI: reaches the model at start-up: `GEMINI.md` line 3" in out
    # selected by default too (Gemini detected): the default model is told where to put it
    code, data = _why(cli, root, "Use pnpm")
    agents = _agents(data)
    assert code == 1 and agents["gemini"]["seen"] and not agents["cogitator"]["seen"]
    assert agents["cogitator"]["advice"][0]["path"] == "AGENTS.md"
    _never_advises_its_own_file(data)


def test_gemini_imports_and_just_in_time_files(cli: RunCli, tmp_path: Path) -> None:
    root = git_tree(tmp_path, GEMINI)
    code, data = _why(cli, root, "Prefer tabs", "--profiles", "gemini")
    assert code == 0 and _agents(data)["gemini"]["why"].endswith("(imported by `GEMINI.md`)")
    # a nested GEMINI.md loads just in time, for files below its directory only
    _, data = _why(cli, root, "Web components", "src/web/c.ts", "--profiles", "gemini")
    assert _agents(data)["gemini"]["seen"]
    code, data = _why(cli, root, "Web components", "src/api/a.ts", "--profiles", "gemini")
    gemini = _agents(data)["gemini"]
    assert code == 1 and not gemini["seen"]
    assert gemini["why"].startswith("`src/web/GEMINI.md` loads for other files than "
                                    "`src/api/a.ts`")
    assert [h["path"] for h in gemini["advice"]][:1] == ["GEMINI.md"]
    _never_advises_its_own_file(data)
    # what the nested file imports: found though no start-up load brings it
    code, data = _why(cli, root, "Name hooks", "--profiles", "gemini")
    gemini = _agents(data)["gemini"]
    assert code == 1 and data["places"][0]["path"] == "src/web/web-style.md"
    assert gemini["why"].startswith("`src/web/web-style.md` is imported by `src/web/GEMINI.md`, "
                                    "which Gemini CLI does not load at start-up")
    _, data = _why(cli, root, "Name hooks", "src/web/c.ts", "--profiles", "gemini")
    assert _agents(data)["gemini"]["seen"]


# ----- Copilot --------------------------------------------------------------------------------

def test_copilot_instructions_and_apply_to(cli: RunCli, tmp_path: Path) -> None:
    root = git_tree(tmp_path, COPILOT)
    code, data = _why(cli, root, "British English", "--profiles", "copilot")
    assert code == 0 and data["places"][0]["path"] == ".github/copilot-instructions.md"
    # an `.instructions.md` reaches only the targets its applyTo matches
    code, data = _why(cli, root, "Validate every request", "src/api/a.ts", "--profiles",
                      "copilot")
    assert code == 0 and _agents(data)["copilot"]["seen"]
    for target in ("src/web/c.ts", None):
        args = ["Validate every request", *([target] if target else []), "--profiles", "copilot"]
        code, data = _why(cli, root, *args)
        copilot = _agents(data)["copilot"]
        assert code == 1 and not copilot["seen"], target
        assert copilot["path"] == ".github/instructions/api.instructions.md"
    assert "globs do not match" not in copilot["why"] and "never at start-up" in copilot["why"]
    # every agent answered; the others are told their own file, never the one it is in
    code, data = _why(cli, root, "Validate every request", "src/api/a.ts", "--profiles", ALL)
    agents = _agents(data)
    assert agents["cursor"]["advice"][0] == {
        "path": ".cursor/rules/src-api.mdc", "new": True,
        "how": "a rule with `globs: src/api/**`, which it loads for `src/api/a.ts`"}
    assert agents["gemini"]["advice"][0]["path"] == "GEMINI.md"
    assert agents["claude-code"]["advice"][0]["path"] == "CLAUDE.md"
    _never_advises_its_own_file(data)


def test_copilot_is_advised_an_apply_to_file_for_a_target(cli: RunCli, tmp_path: Path) -> None:
    root = git_tree(tmp_path, GEMINI)
    _, data = _why(cli, root, "Use pnpm", "src/api/a.ts", "--profiles", "copilot,codex")
    agents = _agents(data)
    assert agents["copilot"]["seen"]  # the coding agent reads the root's GEMINI.md
    assert not agents["codex"]["seen"]
    assert agents["codex"]["advice"][0] == {"path": "AGENTS.md", "new": True,
                                            "how": "which it loads at start-up, for every file"}
    _, data = _why(cli, root, "Prefer tabs", "src/api/a.ts", "--profiles", "copilot,gemini")
    copilot = _agents(data)["copilot"]
    assert [h["path"] for h in copilot["advice"]] == [
        ".github/copilot-instructions.md", "GEMINI.md",
        ".github/instructions/src-api.instructions.md"]
    assert copilot["advice"][2]["how"].startswith('a file with `applyTo: "src/api/**"`')


# ----- Cursor ---------------------------------------------------------------------------------

def test_cursor_mdc_rules_and_cursorrules(cli: RunCli, tmp_path: Path) -> None:
    root = git_tree(tmp_path, CURSOR)
    code, data = _why(cli, root, "Keep functions short", "--profiles", "cursor")
    assert code == 0 and data["places"][0]["path"] == ".cursor/rules/always.mdc"
    code, data = _why(cli, root, "Never commit secrets", "--profiles", "cursor")
    assert code == 0 and data["places"][0]["path"] == ".cursorrules"
    code, data = _why(cli, root, "Use CSS modules", "src/web/c.ts", "--profiles", "cursor")
    assert code == 0 and _agents(data)["cursor"]["seen"]
    code, data = _why(cli, root, "Use CSS modules", "src/api/a.ts", "--profiles", "cursor")
    cursor = _agents(data)["cursor"]
    assert code == 1 and not cursor["seen"] and "globs do not match `src/api/a.ts`" in \
        cursor["why"]
    # Gemini never reads an .mdc: it is told its own file; Cursor's advice never the rule itself
    code, data = _why(cli, root, "Use CSS modules", "src/web/c.ts", "--profiles", ALL)
    agents = _agents(data)
    assert agents["gemini"]["why"].startswith("Gemini CLI does not read it; put it in a new "
                                              "file `GEMINI.md`")
    _never_advises_its_own_file(data)
    _, data = _why(cli, root, "Keep functions short", "--profiles", ALL)
    _never_advises_its_own_file(data)


# ----- imports of each agent that follows them --------------------------------------------------

def test_an_imported_file_of_each_agent_is_found(cli: RunCli, tmp_path: Path) -> None:
    root = git_tree(tmp_path, CLAUDE)
    code, data = _why(cli, root, "Run the linter", "--profiles", "claude-code,codex")
    agents = _agents(data)
    assert agents["claude-code"]["seen"]
    assert agents["claude-code"]["why"].endswith("(imported by `CLAUDE.md`)")
    assert code == 1 and agents["codex"]["advice"][0]["path"] == "AGENTS.md"
    _never_advises_its_own_file(data)
    root = git_tree(tmp_path / "g", GEMINI)
    _, data = _why(cli, root, "Prefer tabs", "--profiles", "gemini,cogitator")
    assert _agents(data)["gemini"]["seen"] and not _agents(data)["cogitator"]["seen"]
    _never_advises_its_own_file(data)


# ----- one workspace for all ----------------------------------------------------------------------

def test_a_mixed_workspace_answers_each_agent_from_its_own_files(cli: RunCli,
                                                                 tmp_path: Path) -> None:
    root = git_tree(tmp_path, {**GEMINI, **COPILOT, **CURSOR, **CLAUDE,
                               "AGENTS.md": "Write tests first.\n"})
    expected = {
        "Use pnpm": {"gemini"},  # Copilot's coding agent: GEMINI.md only without AGENTS.md
        "Answer in British English": {"copilot"},
        "Keep functions short": {"cursor"},
        "Never commit secrets": {"cursor"},
        "Run the linter": {"claude-code", "cogitator"},
        # Claude Code reads AGENTS.md only where there is no CLAUDE.md
        "Write tests first": {"cogitator", "codex", "copilot", "cursor", "mastra"},
    }
    for text, seen in expected.items():
        _, data = _why(cli, root, text, "--profiles", ALL)
        got = {a["profile"] for a in data["agents"] if a["seen"]}
        assert got == seen, (text, got)
        _never_advises_its_own_file(data)
    claude = _agents(data)["claude-code"]
    assert claude["advice"][0]["path"] == "CLAUDE.md" and not claude["advice"][0]["new"]


def test_a_symlinked_name_is_one_file_read_under_either_name(cli: RunCli,
                                                             tmp_path: Path) -> None:
    """The demo's CLAUDE.md is a symlink to AGENTS.md: one place, said for the text (the file
    it is written in), each agent that reads it under the other name told so (issue #39 item
    9), and no agent told to put the text in either name."""
    root = git_tree(tmp_path, {"AGENTS.md": "Use pnpm.\n<!-- Maintainers only. -->\n"})
    (root / "CLAUDE.md").symlink_to("AGENTS.md")
    _, data = _why(cli, root, "Use pnpm", "--profiles", "cogitator,claude-code,gemini")
    assert [p["path"] for p in data["places"]] == ["AGENTS.md"]
    agents = _agents(data)
    claude = agents["claude-code"]
    assert claude["seen"] and claude["path"] == "AGENTS.md"
    assert claude["through"] == CLAUDE_VIA
    assert "read as `CLAUDE.md` (a symlink to `AGENTS.md`)" in claude["why"]
    assert agents["cogitator"]["seen"] and agents["cogitator"]["through"] is None
    assert not {h["path"] for h in agents["gemini"]["advice"]} & {"AGENTS.md", "CLAUDE.md"}
    _, data = _why(cli, root, "Maintainers only", "--profiles", "claude-code,codex")
    agents = _agents(data)
    assert agents["claude-code"]["why"].startswith(
        "stripped: line 2 of `AGENTS.md`, which Claude Code reads as `CLAUDE.md` (a symlink to "
        "`AGENTS.md`), is inside an HTML comment")
    assert agents["codex"]["seen"] and agents["codex"]["through"] is None
    assert agents["claude-code"]["advice"] == []  # it reads the file: no move to advise


# ----- the profiles' homes --------------------------------------------------------------------

@pytest.mark.parametrize(("name", "target", "first"), [
    ("cogitator", None, "AGENTS.md"),
    ("claude-code", "src/api/a.ts", "CLAUDE.md"),
    ("codex", "src/api/a.ts", "AGENTS.md"),
    ("gemini", None, "GEMINI.md"),
    ("copilot", "src/api/a.ts", ".github/copilot-instructions.md"),
    ("cursor", None, ".cursor/rules/project.mdc"),
    ("cursor", "src/api/a.ts", ".cursor/rules/src-api.mdc"),
    ("mastra", "src/api/a.ts", "src/api/AGENTS.md"),
])
def test_each_profile_names_its_own_file_first(name: str, target: str | None,
                                               first: str) -> None:
    ws = new_workspace(MemoryReader("/w", {"src/api/a.ts": "", "README.md": "x\n"}))
    homes = get_profile(name).homes(ws, target, "")
    assert homes and homes[0].path == first and homes[0].new
    assert all(h.how for h in homes)
    # a written file it loads is offered as it is (not new)
    ws = new_workspace(MemoryReader("/w", {"src/api/a.ts": "", first: "x\n"}))
    assert not get_profile(name).homes(ws, target, "")[0].new


def test_a_file_the_agent_loads_is_advised_before_a_new_one(cli: RunCli,
                                                            tmp_path: Path) -> None:
    """Claude Code reading `.claude/CLAUDE.md` is told to put the text there, not to create
    a root CLAUDE.md; Copilot is told its own file before another agent's it also reads."""
    root = git_tree(tmp_path, {".claude/CLAUDE.md": "# Memory\n", "GEMINI.md": "Use pnpm.\n",
                               "src/a.ts": ""})
    _, data = _why(cli, root, "Use pnpm", "--profiles", "claude-code,copilot,gemini")
    agents = _agents(data)
    assert agents["claude-code"]["advice"][0] == {
        "path": ".claude/CLAUDE.md", "how": "which it loads at start-up", "new": False}
    assert agents["copilot"]["seen"]
    _never_advises_its_own_file(data)


def test_codex_is_told_which_cwd_reads_a_nested_agents_md(cli: RunCli, tmp_path: Path) -> None:
    """Codex reads AGENTS.md once, from the project root down to its working directory: a
    sentence of `frontend/AGENTS.md` never reaches it working in `.`, whatever the target —
    not "loads for other files" — and the advice is the root's AGENTS.md."""
    root = git_tree(tmp_path, {
        "AGENTS.md": "# Project\n",
        "frontend/AGENTS.md": "Write clear code.\n",
        "frontend/src/a.ts": "",
    })
    code, data = _why(cli, root, "Write clear code", "frontend/src/a.ts", "--profiles",
                      "cogitator,codex")
    agents = _agents(data)
    assert code == 1 and agents["cogitator"]["seen"] and not agents["codex"]["seen"]
    codex = agents["codex"]["why"]
    assert "working in `.`: it loads at start-up when the agent works in `frontend`" in codex
    assert "for other files" not in codex
    assert [h["path"] for h in agents["codex"]["advice"]] == ["AGENTS.md"]
    # started in frontend/, Codex reads it
    code, data = _why(cli, root, "Write clear code", "frontend/src/a.ts", "--profiles",
                      "codex", "--cwd", "frontend")
    assert code == 0 and _agents(data)["codex"]["seen"]
