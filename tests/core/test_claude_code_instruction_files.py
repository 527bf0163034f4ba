"""Claude Code's `instructionFiles` setting, the Read tool as the one trigger of nested memory,
and the size facts (docs/profiles/claude-code.md#facts-and-sources) — one test per fact."""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_claude_code import PROFILE, found, make, paths, skipped

from rulemap.config import ConfigError
from rulemap.profiles.steps import ToolStep
from rulemap.session.replay import replay
from rulemap.session.transcripts import parse_text

BOTH = {"CLAUDE.md": "c", "AGENTS.md": "a"}


# ----- instructionFiles -----------------------------------------------------------------------

def test_default_mode_reads_agents_md_only_without_claude_md():
    assert paths(make({"AGENTS.md": "a"})) == ["AGENTS.md"]
    ws = make(BOTH)
    assert paths(ws) == ["CLAUDE.md"] and skipped(ws) == {"AGENTS.md": "instructions-shadowed"}
    assert "claude-md-or-agents-md" in " ".join(PROFILE.explain(ws, None, ".").notes)


def test_claude_md_and_agents_md_reads_both_claude_md_files_first():
    ws = make({**BOTH, "CLAUDE.local.md": "l"}, instructionFiles="claude-md-and-agents-md")
    assert paths(ws) == ["CLAUDE.md", "CLAUDE.local.md", "AGENTS.md"]
    assert found(ws, "instructions-shadowed") == []


def test_claude_md_and_agents_md_does_not_read_an_imported_agents_md_twice():
    ws = make({"CLAUDE.md": "@AGENTS.md\n", "AGENTS.md": "a"},
              instructionFiles="claude-md-and-agents-md")
    assert paths(ws) == ["CLAUDE.md", "AGENTS.md"]
    assert skipped(ws) == {"AGENTS.md": "duplicate-load"}


def test_an_agents_md_that_only_points_back_to_claude_md_is_not_shadowed():
    # payload's `AGENTS.md`: "Please read `./CLAUDE.md` for context." Claude Code loses nothing
    # by skipping it, and the fix would import the pointer into the file it points to
    pointer = {"CLAUDE.md": "# Payload\n\nUse pnpm.\n", "AGENTS.md": "Please read `./CLAUDE.md`.\n"}
    assert found(make(pointer), "instructions-shadowed") == []
    linked = {**pointer, "AGENTS.md": "See [the guide](CLAUDE.md)."}
    assert found(make(linked), "instructions-shadowed") == []
    # an AGENTS.md with a sentence of its own (past POINTER_BACK_WORDS) is still shadowed
    own = {**pointer, "AGENTS.md": "Please read `./CLAUDE.md`.\n\nNever push to main: run the "
           "tests and the linter before every commit, and name the package in the title.\n"}
    assert [f.path for f in found(make(own), "instructions-shadowed")] == ["AGENTS.md"]


def test_claude_md_mode_never_reads_agents_md():
    ws = make({"AGENTS.md": "a"}, instructionFiles="claude-md")
    assert paths(ws) == [] and not PROFILE.reads(ws, "AGENTS.md")
    (finding,) = found(ws, "instructions-shadowed")
    assert 'instructionFiles = "claude-md"' in finding.message


def test_managed_only_loads_no_project_or_user_file_at_start_up():
    files = {**BOTH, "CLAUDE.local.md": "l", ".claude/rules/r.md": "r",
             ".claude/rules/py.md": "---\npaths: ['**/*.py']\n---\nPy.\n", "x.py": ""}
    ws = make(files, instructionFiles="managed-only")
    assert paths(ws) == [] and paths(ws, "x.py") == []
    assert set(skipped(ws)) == {"AGENTS.md", "CLAUDE.md", "CLAUDE.local.md",
                                ".claude/rules/r.md", ".claude/rules/py.md"}
    assert not PROFILE.reads(ws, "CLAUDE.md") and not PROFILE.reads(ws, ".claude/rules/r.md")
    notes = " ".join(PROFILE.explain(ws, None, ".").notes)
    assert '"managed-only"' in notes and "no project, local or user file" in notes


def test_managed_only_still_loads_a_subdirectory_claude_md_on_read():
    ws = make({"CLAUDE.md": "c", "pkg/CLAUDE.md": "p", "pkg/AGENTS.md": "a", "pkg/x.ts": ""},
              instructionFiles="managed-only")
    assert paths(ws, "pkg/x.ts") == ["pkg/CLAUDE.md"]
    assert PROFILE.reads(ws, "pkg/CLAUDE.md") and not PROFILE.reads(ws, "pkg/AGENTS.md")


def test_the_old_read_agents_md_key_names_its_replacement():
    with pytest.raises(ConfigError, match=r"`readAgentsMd` was replaced by `instructionFiles`"):
        make(BOTH, readAgentsMd="always")


def test_an_unknown_mode_is_a_configuration_error_listing_the_modes():
    with pytest.raises(ConfigError, match=r'instructionFiles.*"claude-md", '
                                          r'"claude-md-or-agents-md", "claude-md-and-agents-md"'
                                          r', "managed-only"'):
        make(BOTH, instructionFiles="always")


# ----- nested memory and scoped rules join on the Read tool only ------------------------------

NESTED = {"CLAUDE.md": "Root.\n", "pkg/CLAUDE.md": "Pkg.\n", "pkg/x.py": "",
          ".claude/rules/py.md": "---\npaths: ['**/*.py']\n---\nPython.\n"}


def _replay(steps: list[ToolStep], files: dict[str, str] | None = None) -> list[list[str]]:
    result = replay(make(files or NESTED), steps, "claude-code", None)
    return [[f.path for f in s.joined] for s in result.steps]


def test_a_read_tool_step_brings_nested_memory_and_scoped_rules():
    assert _replay([ToolStep("read", ("pkg/x.py",), 1, tool="Read")]) == [
        ["CLAUDE.md"], ["pkg/CLAUDE.md", ".claude/rules/py.md"]]


@pytest.mark.parametrize(("kind", "tool"), [("edit", "Edit"), ("edit", "Write"),
                                            ("read", "Grep"), ("read", "Glob")])
def test_other_tools_bring_no_nested_memory_or_scoped_rule(kind: Any, tool: str):
    assert _replay([ToolStep(kind, ("pkg/x.py",), 1, tool=tool),
                    ToolStep("read", ("pkg/x.py",), 2, tool="Read")]) == [
        ["CLAUDE.md"], [], ["pkg/CLAUDE.md", ".claude/rules/py.md"]]


def test_a_step_of_an_unknown_tool_counts_as_a_read():
    assert _replay([ToolStep("edit", ("pkg/x.py",), 1)]) == [
        ["CLAUDE.md"], ["pkg/CLAUDE.md", ".claude/rules/py.md"]]


def test_the_session_log_names_each_steps_tool():
    log = json.dumps({"type": "assistant", "cwd": "/w", "message": {"role": "assistant",
                      "content": [{"type": "tool_use", "name": "Edit",
                                   "input": {"file_path": "/w/pkg/x.py"}},
                                  {"type": "tool_use", "name": "Read",
                                   "input": {"file_path": "/w/pkg/x.py"}}]}})
    parsed = parse_text(log + "\n", "/w")
    assert [s.tool for s in parsed.steps] == ["Edit", "Read"]


def test_explain_takes_the_target_as_read_with_the_read_tool():
    notes = " ".join(PROFILE.explain(make(NESTED), "pkg/x.py", ".").notes)
    assert "taken as read with the Read tool" in notes


# ----- sizes ----------------------------------------------------------------------------------

def test_a_file_over_4_mib_is_skipped_whole():
    ws = make({"CLAUDE.md": "x" * (4 * 1024 * 1024 + 1), "CLAUDE.local.md": "ok"})
    assert paths(ws) == ["CLAUDE.local.md"]
    assert skipped(ws) == {"CLAUDE.md": "unreadable-file"}


def test_a_file_of_exactly_4_mib_loads():
    assert paths(make({"CLAUDE.md": "x" * (4 * 1024 * 1024)}, sizeWarningChars=10**8)) == [
        "CLAUDE.md"]


def test_size_warning_from_40000_characters_by_default_and_as_set():
    assert found(make({"CLAUDE.md": "x" * 40_000}), "file-too-large") == []
    (finding,) = found(make({"CLAUDE.md": "x" * 40_001}), "file-too-large")
    assert "40,000" in finding.message
    assert found(make({"CLAUDE.md": "x" * 40_001}, sizeWarningChars=150_000),
                 "file-too-large") == []
    (finding,) = found(make({"CLAUDE.md": "x" * 150_001}, sizeWarningChars=150_000),
                       "file-too-large")
    assert "150,000" in finding.message


def test_the_size_warning_is_the_profile_s_for_the_map():
    """`Profile.size_warning`: the map marks loads past it; the same figure as the finding."""
    assert PROFILE.size_warning(make({"CLAUDE.md": "x"})) == 40_000
    assert PROFILE.size_warning(make({"CLAUDE.md": "x"}, sizeWarningChars=150_000)) == 150_000
    from rulemap.profiles import PROFILES

    others = [p for name, p in PROFILES.items() if name != PROFILE.name]
    assert others and all(p.size_warning(make({"CLAUDE.md": "x"})) is None for p in others)


def test_block_html_comments_are_hidden_from_the_loaded_text():
    (loaded,) = PROFILE.explain(make({"CLAUDE.md": "<!-- a note -->\nkept\n"}), None, ".").files
    assert (loaded.text, loaded.chars) == ("kept\n", 5)


# ----- rules and claudeMdExcludes -------------------------------------------------------------

def test_paths_brace_expansion_is_bounded():
    def rule(groups: int) -> list[str]:
        glob = "src/" + "{a,b}" * groups + ".ts"
        ws = make({"CLAUDE.md": "c", ".claude/rules/r.md": f"---\npaths: ['{glob}']\n---\nr"})
        return paths(ws, "src/" + "a" * groups + ".ts")

    assert rule(8) == ["CLAUDE.md", ".claude/rules/r.md"]  # 256 patterns: expanded
    assert rule(9) == ["CLAUDE.md"]  # 512: past the bound, the glob matches nothing


@pytest.mark.parametrize("pattern", ["**/.claude/rules/shared.md", "/w/.claude/rules/**",
                                     "**/shared/rule.md"])
def test_claude_md_excludes_a_symlinked_rule_by_its_link_or_its_target(pattern: str):
    files = {"CLAUDE.md": "c", "shared/rule.md": "r"}
    links = {".claude/rules/shared.md": "../../shared/rule.md"}
    assert paths(make(files, links)) == ["CLAUDE.md", ".claude/rules/shared.md"]
    ws = make(files, links, claudeMdExcludes=[pattern])
    assert paths(ws) == ["CLAUDE.md"]
    assert skipped(ws) == {".claude/rules/shared.md": "instructions-shadowed"}
