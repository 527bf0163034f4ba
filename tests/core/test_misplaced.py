"""`misplaced-file` (docs/checks.md): a file with a name an agent reads, where that agent never
looks — each agent's places from its profile doc (docs/profiles/<agent>.md, one fact a test
here), reported by `check` for every selected agent and given by `load_status` (so `reach`)
as why the file never loads."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.cli_runner import RunCli, git_tree

from rulemap.analysis import check, new_workspace
from rulemap.config import Config
from rulemap.model import Finding
from rulemap.profiles import get_profile, validate_options
from rulemap.reach import reach
from rulemap.readers import MemoryReader
from rulemap.why import why
from rulemap.workspace import Workspace


def make(files: Mapping[str, str], cwd: str = ".", **options: Mapping[str, Any]) -> Workspace:
    return new_workspace(MemoryReader("/w", files), config=Config(cwd=cwd),
                         profile_options=validate_options(dict(options), "test"))


def misplaced(ws: Workspace, agent: str) -> dict[str, tuple[str, str]]:
    """path → (severity, message) of `agent`'s misplaced files."""
    found: list[Finding] = get_profile(agent).misplaced(ws)
    assert all(f.code == "misplaced-file" for f in found)
    return {f.path: (f.severity, f.message) for f in found}


# ----- Gemini CLI ---------------------------------------------------------------------------


def test_gemini_a_project_dot_gemini_context_file_loads_only_for_dot_gemini() -> None:
    ws = make({"GEMINI.md": "root", ".gemini/GEMINI.md": "dot", ".gemini/settings.json": "{}"})
    [(key, (severity, message))] = misplaced(ws, "gemini").items()
    assert (key, severity) == (".gemini/GEMINI.md", "warning")
    assert "`~/.gemini/GEMINI.md`" in message
    assert "just in time when a file tool touches a path in `.gemini/`" in message
    assert message.endswith("Move it to `GEMINI.md` at the root")
    # the model behind it: touched `.gemini/` loads it, the start-up load does not
    gemini = get_profile("gemini")
    assert ".gemini/GEMINI.md" not in [f.path for f in gemini.explain(ws, None, "").files]
    assert ".gemini/GEMINI.md" in [
        f.path for f in gemini.explain(ws, ".gemini/settings.json", "").files]


def test_gemini_a_packages_dot_gemini_file_belongs_in_the_package() -> None:
    ws = make({"pkg/.gemini/GEMINI.md": "dot", "pkg/GEMINI.md": "pkg", "pkg/a.ts": ""})
    assert misplaced(ws, "gemini")["pkg/.gemini/GEMINI.md"][1].endswith(
        "Move it to `pkg/GEMINI.md`")
    assert "pkg/GEMINI.md" not in misplaced(ws, "gemini")


def test_gemini_the_eager_load_finds_it_so_nothing_is_misplaced() -> None:
    ws = make({".gemini/GEMINI.md": "dot"}, gemini={"jitContext": False})
    assert misplaced(ws, "gemini") == {}
    assert ".gemini/GEMINI.md" in [
        f.path for f in get_profile("gemini").explain(ws, None, "").files]


def test_gemini_uses_its_context_file_names() -> None:
    ws = make({".gemini/AGENTS.md": "a", ".gemini/GEMINI.md": "g"},
              gemini={"fileNames": ["AGENTS.md"]})
    assert list(misplaced(ws, "gemini")) == [".gemini/AGENTS.md"]


# ----- GitHub Copilot -----------------------------------------------------------------------

COPILOT_FILES = {
    ".github/copilot-instructions.md": "root",
    "packages/x/.github/copilot-instructions.md": "only for x",
    ".github/agents/copilot-instructions.md": "spec-kit",
    "copilot-instructions.md": "at the root, outside .github",
    ".github/instructions/copilot-instructions.md": "misnamed: unreachable-rule's",
    "packages/x/a.ts": "",
}


def test_copilot_coding_agent_reads_the_roots_github_file_only() -> None:
    got = misplaced(make(COPILOT_FILES), "copilot")
    assert sorted(got) == [".github/agents/copilot-instructions.md", "copilot-instructions.md",
                           "packages/x/.github/copilot-instructions.md"]
    severity, message = got["packages/x/.github/copilot-instructions.md"]
    assert severity == "warning"
    assert message.startswith("The Copilot coding agent (and Copilot CLI) reads "
                              "`.github/copilot-instructions.md` at the repository root only")
    assert message.endswith("to apply it to `packages/x/` only, make it "
                            "`.github/instructions/packages-x.instructions.md` with "
                            "`applyTo: \"packages/x/**\"`")
    assert "with an `applyTo` glob" in got[".github/agents/copilot-instructions.md"][1]


def test_copilot_code_review_says_so_in_its_own_name() -> None:
    got = misplaced(make(COPILOT_FILES, copilot={"agent": "code-review"}), "copilot")
    assert got[".github/agents/copilot-instructions.md"][1].startswith("Copilot code review ")


def test_vscode_chat_reads_each_workspace_folders_file_so_a_package_is_information() -> None:
    got = misplaced(make(COPILOT_FILES, copilot={"agent": "vscode-chat"}), "copilot")
    severity, message = got["packages/x/.github/copilot-instructions.md"]
    assert severity == "information"
    assert "only when `packages/x` is opened as a workspace folder" in message
    assert "applyTo: \"packages/x/**\"" in message
    # no workspace folder has it as its own `.github/copilot-instructions.md`
    assert got[".github/agents/copilot-instructions.md"][0] == "warning"
    assert got["copilot-instructions.md"][0] == "warning"


def test_copilot_misnamed_instructions_stay_unreachable_rule() -> None:
    ws = make(COPILOT_FILES)
    codes = {(f.path, f.code) for f in get_profile("copilot").findings(ws)}
    assert (".github/instructions/copilot-instructions.md", "unreachable-rule") in codes
    assert ".github/instructions/copilot-instructions.md" not in misplaced(ws, "copilot")


# ----- Codex --------------------------------------------------------------------------------


def test_codex_a_project_dot_codex_agents_md_is_never_read() -> None:
    ws = make({"AGENTS.md": "root", ".codex/AGENTS.md": "meant as global", "a.ts": ""})
    [(key, (severity, message))] = misplaced(ws, "codex").items()
    assert (key, severity) == (".codex/AGENTS.md", "warning")
    assert "the user's `~/.codex/AGENTS.md`" in message
    assert message.endswith("Move it to `AGENTS.md` at the root")


def test_codex_started_inside_dot_codex_reads_it() -> None:
    ws = make({".codex/AGENTS.md": "x"}, cwd=".codex")
    assert misplaced(ws, "codex") == {}
    assert get_profile("codex").load_status(ws, ".codex/AGENTS.md").loads


def test_codex_names_the_override_in_a_package() -> None:
    ws = make({"pkg/.codex/AGENTS.override.md": "x", "pkg/a.ts": ""})
    assert misplaced(ws, "codex")["pkg/.codex/AGENTS.override.md"][1].endswith(
        "Move it to `pkg/AGENTS.override.md`")


# ----- Claude Code --------------------------------------------------------------------------


def test_claude_code_local_memory_sits_beside_dot_claude_not_in_it() -> None:
    ws = make({"CLAUDE.md": "m", ".claude/CLAUDE.md": "m2", ".claude/CLAUDE.local.md": "local",
               ".claude/rules/CLAUDE.md": "a rule", "a.ts": ""})
    [(key, (severity, message))] = misplaced(ws, "claude-code").items()
    assert (key, severity) == (".claude/CLAUDE.local.md", "warning")
    assert message.endswith("Move it to `CLAUDE.local.md` at the root")
    # a CLAUDE.md among the rules is a rule, loaded at start-up
    loaded = [f.path for f in get_profile("claude-code").explain(ws, None, "").files]
    assert ".claude/rules/CLAUDE.md" in loaded and ".claude/CLAUDE.local.md" not in loaded


# ----- Cursor -------------------------------------------------------------------------------


def test_cursor_reads_mdc_rules_from_cursor_rules_only() -> None:
    ws = make({".cursor/rules/ok.mdc": "---\nalwaysApply: true\n---\nok",
               "pkg/.cursor/rules/ok.mdc": "---\nalwaysApply: true\n---\nok",
               ".cursor/x.mdc": "a", ".cursor/rule/y.mdc": "b", "docs/.cursor/rules.mdc": "c",
               "pkg/.cursor/w.mdc": "d",
               # outside any `.cursor/`: may be another tool's (a shared rules directory)
               ".agents/rules/z.mdc": "e"})
    got = misplaced(ws, "cursor")
    assert sorted(got) == [".cursor/rule/y.mdc", ".cursor/x.mdc", "docs/.cursor/rules.mdc",
                           "pkg/.cursor/w.mdc"]
    assert got[".cursor/rule/y.mdc"][1].endswith("move it to `.cursor/rules/y.mdc`")
    assert got["pkg/.cursor/w.mdc"][1].endswith("move it to `pkg/.cursor/rules/w.mdc`")
    assert got["docs/.cursor/rules.mdc"][1].endswith(
        "move it to `docs/.cursor/rules/rules.mdc`")


def test_a_file_the_agent_loads_under_another_name_is_not_misplaced() -> None:
    # a root GEMINI.md that imports the `.gemini/` one, a CLAUDE.local.md symlinked to it
    ws = new_workspace(MemoryReader("/w", {
        "GEMINI.md": "@./.gemini/GEMINI.md\n", ".gemini/GEMINI.md": "dot",
        ".claude/CLAUDE.local.md": "local", "CLAUDE.md": "m"},
        {"CLAUDE.local.md": ".claude/CLAUDE.local.md"}))
    assert misplaced(ws, "gemini") == {}
    assert misplaced(ws, "claude-code") == {}


def test_cursor_reads_the_legacy_cursorrules_at_the_root_only() -> None:
    ws = make({".cursorrules": "root", "pkg/.cursorrules": "nested", "pkg/a.ts": ""})
    got = misplaced(ws, "cursor")
    assert list(got) == ["pkg/.cursorrules"]
    assert "`pkg/.cursor/rules/`" in got["pkg/.cursorrules"][1]


# ----- the default model and Mastra ---------------------------------------------------------


def test_the_default_model_and_mastra_have_nothing_misplaced() -> None:
    ws = make({**COPILOT_FILES, ".gemini/GEMINI.md": "g", ".codex/AGENTS.md": "c",
               ".claude/CLAUDE.local.md": "l", "docs/CONTEXT.md": "x", "pkg/.cursorrules": "r"})
    assert misplaced(ws, "cogitator") == {}
    assert misplaced(ws, "mastra") == {}


# ----- check, load_status and reach agree ---------------------------------------------------


def test_check_names_the_agent_and_reach_gives_the_same_words() -> None:
    ws = make({**COPILOT_FILES, ".codex/AGENTS.md": "c", "AGENTS.md": "root"},
              cwd=".")
    ws.selected_profiles = (get_profile("cogitator"), get_profile("copilot"),
                            get_profile("codex"))
    found = [f for f in check(ws) if f.code == "misplaced-file"]
    by = {(f.path, f.profile): f for f in found}
    nested = by[("packages/x/.github/copilot-instructions.md", "copilot")]
    assert nested.message.startswith("copilot: The Copilot coding agent")
    codex = by[(".codex/AGENTS.md", "codex")]
    assert codex.message.startswith("codex: Codex reads `AGENTS.md`")
    result = {a.profile: a for a in reach(
        ws, "packages/x/.github/copilot-instructions.md", None,
        [get_profile("copilot")], "").agents}
    assert result["copilot"].never == nested.message.removeprefix("copilot: ")
    status = get_profile("codex").load_status(ws, ".codex/AGENTS.md")
    assert not status.loads and status.why_not == codex.message.removeprefix("codex: ")


def test_a_misplaced_copilot_file_alone_selects_copilot_so_check_says_so() -> None:
    ws = make({".github/agents/copilot-instructions.md": "spec-kit", "a.ts": ""})
    assert get_profile("copilot").detected_by(ws) == ".github/agents/copilot-instructions.md"
    [found] = [f for f in check(ws) if f.code == "misplaced-file"]
    assert (found.path, found.profile) == (".github/agents/copilot-instructions.md", "copilot")
    # the root's file comes first when there is one
    ws = make({".github/copilot-instructions.md": "x", "pkg/.github/copilot-instructions.md": "y"})
    assert get_profile("copilot").detected_by(ws) == ".github/copilot-instructions.md"


def test_check_over_only_a_misplaced_file_does_not_say_nothing_was_found(
        cli: RunCli, tmp_path: Path) -> None:
    root = git_tree(tmp_path, {".github/agents/copilot-instructions.md": "spec-kit\n"})
    code, out, err = cli(["check", "--profiles", "copilot"], root)
    assert "no instruction file" not in err
    assert "misplaced-file" in out and ".github/agents/copilot-instructions.md" in out


def test_why_gives_the_same_words_for_a_sentence_in_a_misplaced_file() -> None:
    ws = make({"GEMINI.md": "root", ".gemini/GEMINI.md": "Use tabs.\n",
               ".gemini/settings.json": "{}", ".codex/AGENTS.md": "Use spaces.\n"})
    [gemini] = why(ws, "Use tabs.", None, [get_profile("gemini")], "").agents
    [warning] = get_profile("gemini").misplaced(ws)
    assert not gemini.seen and gemini.why.startswith(warning.message)
    # for a path inside `.gemini/` it does load, just in time
    [touched] = why(ws, "Use tabs.", ".gemini/settings.json", [get_profile("gemini")], "").agents
    assert touched.seen
    [codex] = why(ws, "Use spaces.", None, [get_profile("codex")], "").agents
    assert not codex.seen and codex.why.startswith(get_profile("codex").misplaced(ws)[0].message)


def test_explain_notes_the_files_with_its_names_it_never_reads(
        cli: RunCli, tmp_path: Path) -> None:
    import json

    root = git_tree(tmp_path, {".github/copilot-instructions.md": "root\n",
                               "packages/x/.github/copilot-instructions.md": "x only\n",
                               "packages/x/a.ts": ""})
    code, out, _ = cli(["explain", "packages/x/a.ts", "--profile", "copilot", "--json"], root)
    data = json.loads(out)
    assert code == 0 and [f["path"] for f in data["files"]] == [
        ".github/copilot-instructions.md"]
    [note] = [n for n in data["notes"] if "packages/x/.github" in n]
    assert note.startswith("`packages/x/.github/copilot-instructions.md` is not read here: The "
                           "Copilot coding agent")


def test_a_nested_repositorys_own_copilot_file_is_its_root_file() -> None:
    ws = make({".github/copilot-instructions.md": "outer",
               "vendor/lib/.git": "gitdir: ../../.git/modules/lib\n",
               "vendor/lib/.github/copilot-instructions.md": "the submodule's own"})
    assert misplaced(ws, "copilot") == {}


def test_in_a_home_directory_kept_in_git_the_dot_directories_are_the_users_own() -> None:
    # a dotfiles repository: `.bashrc` at its top, the agents' user-level files beside it
    ws = make({".bashrc": "", ".gemini/GEMINI.md": "g", ".codex/AGENTS.md": "c",
               ".copilot/copilot-instructions.md": "p", "pkg/.gemini/GEMINI.md": "nested"})
    gemini, codex, copilot = (misplaced(ws, a) for a in ("gemini", "codex", "copilot"))
    for got, key in ((gemini, ".gemini/GEMINI.md"), (codex, ".codex/AGENTS.md"),
                     (copilot, ".copilot/copilot-instructions.md")):
        severity, message = got[key]
        assert severity == "information", key
        assert "looks like a home directory (`.bashrc` at its top)" in message
    assert "Copilot CLI's user-level file" in copilot[".copilot/copilot-instructions.md"][1]
    # a package's `.gemini/` is no home directory's
    assert gemini["pkg/.gemini/GEMINI.md"][0] == "warning"
    # without a shell start-up file at the top, a project's: warnings
    ws = make({".gemini/GEMINI.md": "g", ".copilot/copilot-instructions.md": "p"})
    assert misplaced(ws, "gemini")[".gemini/GEMINI.md"][0] == "warning"
    assert misplaced(ws, "copilot")[".copilot/copilot-instructions.md"][0] == "warning"


def test_why_finds_the_text_of_a_misplaced_file_and_says_checks_words() -> None:
    """A sentence written only in a misplaced file is found by `why` (it searched the files
    the agent reads, and so said "in no instruction file") and gets `check`'s words."""
    ws = make({"packages/x/.github/copilot-instructions.md": "Use the x logger.\n",
               "packages/x/a.ts": ""})
    copilot = get_profile("copilot")
    (message,) = [m for _, m in misplaced(ws, "copilot").values()]
    answer = why(ws, "Use the x logger.", None, [copilot], "")
    assert [p.path for p in answer.places] == ["packages/x/.github/copilot-instructions.md"]
    (verdict,) = answer.agents
    assert not verdict.seen and verdict.why.startswith(message)
