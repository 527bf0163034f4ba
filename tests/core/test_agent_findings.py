"""Findings true for the agents they name (issue "Agents as they are today", items 2 and 3):
no finding calls a line useless that a selected agent needs; a file an agent reads that only
links an instruction file it never loads (`link-only`); the same text loaded twice for one
agent (`loaded-twice`, in that agent's unit); `check`'s summary counts every agent's files."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rulemap.analysis import check, checked_documents, new_workspace
from rulemap.checks.loaded_twice import MIN_CHARS
from rulemap.config import Config
from rulemap.model import Finding
from rulemap.profiles import get_profile, validate_options
from rulemap.profiles.pointers import MAX_OTHER_WORDS
from rulemap.readers import MemoryReader
from rulemap.workspace import Workspace

LONG = "".join(f"- Rule {i}: run the whole test suite before you push.\n" for i in range(12))
assert len(LONG) > MIN_CHARS


def make(
    files: Mapping[str, str], agents: tuple[str, ...], symlinks: Mapping[str, str] | None = None,
    cwd: str = ".", **options: Any,
) -> Workspace:
    return new_workspace(
        MemoryReader("/w", files, symlinks), Config(cwd=cwd),
        profiles=tuple(get_profile(a) for a in agents),
        profile_options=validate_options(options, "test"),
    )


def codes(ws: Workspace, code: str) -> list[Finding]:
    return [f for f in check(ws) if f.code == code]


# ----- duplicate-load names its agent and never fades a line another agent needs -----------


def test_an_import_claude_code_needs_is_not_called_useless() -> None:
    files = {"AGENTS.md": LONG, "CLAUDE.md": "@AGENTS.md\n"}
    alone = codes(make(files, ("cogitator",)), "duplicate-load")
    assert [(f.path, f.tags) for f in alone] == [("CLAUDE.md", ["unnecessary"])]
    assert "for cogitator" in alone[0].message
    both = make(files, ("cogitator", "claude-code"))
    assert codes(both, "duplicate-load") == []


def test_an_import_no_other_agent_needs_is_still_reported() -> None:
    # Claude Code reads CLAUDE.md; a second import of a file it already imported brings it
    # nothing either, so the cogitator finding stands with both selected
    files = {"AGENTS.md": LONG, "CLAUDE.md": "@AGENTS.md\n", "docs/x.md": "x",
             ".claude/CLAUDE.md": "@../AGENTS.md\n"}
    found = codes(make(files, ("cogitator", "claude-code")), "duplicate-load")
    assert [f.path for f in found] == [".claude/CLAUDE.md"]


# ----- link-only ---------------------------------------------------------------------------


def test_a_gemini_file_that_only_links_agents_md_is_reported_for_gemini() -> None:
    files = {"AGENTS.md": LONG, "GEMINI.md": "# Gemini\n\nSee [AGENTS.md](./AGENTS.md).\n"}
    found = codes(make(files, ("cogitator", "gemini")), "link-only")
    assert [(f.path, f.profile, f.severity, f.span.start.line) for f in found] == [
        ("GEMINI.md", "gemini", "warning", 2)]
    assert found[0].message.startswith("gemini: ")
    assert "`@AGENTS.md`" in found[0].message  # Gemini imports: the fix is an import


def test_a_bare_mention_counts_as_a_link() -> None:
    files = {"AGENTS.md": LONG, "GEMINI.md": "Read AGENTS.md before anything else.\n"}
    assert [f.path for f in codes(make(files, ("gemini",)), "link-only")] == ["GEMINI.md"]


def test_a_file_with_instructions_beside_its_link_is_not_link_only() -> None:
    prose = " ".join(["word"] * (MAX_OTHER_WORDS + 1))
    files = {"AGENTS.md": LONG, "GEMINI.md": f"See [AGENTS.md](AGENTS.md).\n\n{prose}\n"}
    assert codes(make(files, ("gemini",)), "link-only") == []


def test_a_link_the_agent_loads_anyway_is_fine() -> None:
    # the default model reads AGENTS.md beside CLAUDE.md: a CLAUDE.md linking it loses nothing
    files = {"AGENTS.md": LONG, "CLAUDE.md": "See [AGENTS.md](AGENTS.md).\n"}
    found = codes(make(files, ("cogitator", "claude-code")), "link-only")
    assert [(f.path, f.profile) for f in found] == [("CLAUDE.md", "claude-code")]


def test_link_only_spares_a_nested_file_gemini_loads_just_in_time() -> None:
    # Purity's root GEMINI.md links the packages' GEMINI.md: Gemini loads each just in time
    # when a file tool touches that package, so they are not "never loaded"
    files = {"GEMINI.md": "# Packages\n\n- [core](packages/core/GEMINI.md)\n",
             "packages/core/GEMINI.md": LONG, "packages/core/src/a.ts": "",
             "packages/core/AGENTS.md": LONG}
    assert codes(make(files, ("gemini",)), "link-only") == []
    # a nested file Gemini loads for no work at all is still "never loads"
    files["GEMINI.md"] = "# Packages\n\n- [core](packages/core/AGENTS.md)\n"
    found = codes(make(files, ("gemini", "codex")), "link-only")
    assert [(f.path, f.profile) for f in found] == [("GEMINI.md", "gemini")]


def test_link_only_spares_a_file_mastra_injects_beside_the_pointer() -> None:
    # payload's AGENTS.md: "Please read `./CLAUDE.md`": Mastra injects AGENTS.md, then the
    # CLAUDE.md of the same directory, for any file there — it loads the target
    files = {"AGENTS.md": "Please read `./CLAUDE.md` for context.\n", "CLAUDE.md": LONG}
    found = codes(make(files, ("mastra", "codex")), "link-only")
    assert [(f.path, f.profile) for f in found] == [("AGENTS.md", "codex")]


def test_an_agent_without_imports_is_told_to_move_the_text() -> None:
    files = {"AGENTS.md": LONG, ".github/copilot-instructions.md": "See [AGENTS.md](../AGENTS.md)"}
    on = make(files, ("copilot",))
    assert codes(on, "link-only") == []  # Copilot reads AGENTS.md itself
    off = make(files, ("copilot",), copilot={"useAgentsMdFile": False})
    found = codes(off, "link-only")
    assert [f.path for f in found] == [".github/copilot-instructions.md"]
    assert "no imports" in found[0].message and "symlink" in found[0].message


def test_a_link_to_a_file_no_agent_reads_is_not_link_only() -> None:
    files = {"GEMINI.md": "See [the guide](docs/guide.md).\n", "docs/guide.md": LONG}
    assert codes(make(files, ("gemini",)), "link-only") == []


# ----- loaded-twice ------------------------------------------------------------------------


def test_copilot_reads_a_symlinked_copilot_instructions_twice() -> None:
    ws = make({"AGENTS.md": LONG}, ("cogitator", "copilot"),
              symlinks={".github/copilot-instructions.md": "../AGENTS.md"})
    found = codes(ws, "loaded-twice")
    assert [(f.profile, f.severity) for f in found] == [("copilot", "warning")]
    assert f"{len(LONG):,} characters" in found[0].message
    assert "symlink" in found[0].message


def test_codex_counts_the_waste_in_bytes() -> None:
    text = LONG.replace("Rule", "Règle")  # multi-byte: bytes differ from characters
    ws = make({"AGENTS.md": text, "pkg/AGENTS.md": text, ".git/HEAD": "x"}, ("codex",),
              cwd="pkg")
    found = codes(ws, "loaded-twice")
    assert [f.path for f in found] == ["pkg/AGENTS.md"]
    assert f"{len(text.encode()):,} bytes" in found[0].message
    assert "copy" in found[0].message


def test_short_repeated_files_are_not_reported() -> None:
    ws = make({"AGENTS.md": "Use tabs.\n", "pkg/AGENTS.md": "Use tabs.\n", ".git/HEAD": "x"},
              ("codex",), cwd="pkg")
    assert codes(ws, "loaded-twice") == []


def test_an_agent_that_reads_a_file_once_gets_no_loaded_twice() -> None:
    # the default model reads a symlinked alias once (its own duplicate-load says so)
    ws = make({"AGENTS.md": LONG}, ("cogitator",), symlinks={"CLAUDE.md": "AGENTS.md"})
    assert codes(ws, "loaded-twice") == []
    assert [f.path for f in codes(ws, "duplicate-load")] == ["CLAUDE.md"]


# ----- the summary counts every selected agent's files ------------------------------------


def test_checked_documents_count_every_agents_files() -> None:
    files = {"AGENTS.md": LONG, "GEMINI.md": "g", ".cursorrules": "c"}
    assert checked_documents(make(files, ("cogitator",))) == ("AGENTS.md",)
    assert checked_documents(make(files, ("cogitator", "gemini", "cursor"))) == (
        ".cursorrules", "AGENTS.md", "GEMINI.md")


def test_a_text_doubled_only_beside_a_nested_file_is_information() -> None:
    # Cursor reads a nested AGENTS.md for the files of its folder: a symlink there to the
    # root's doubles the text only for work in that folder, not at every start-up
    ws = make({"AGENTS.md": LONG, ".cursor/rules/a.mdc": "---\nalwaysApply: true\n---\nx\n"},
              ("cursor",), symlinks={"tools/AGENTS.md": "../AGENTS.md"})
    found = codes(ws, "loaded-twice")
    assert [(f.path, f.profile, f.severity) for f in found] == [
        ("tools/AGENTS.md", "cursor", "information")]
    assert "for `tools/AGENTS.md`" in found[0].message
