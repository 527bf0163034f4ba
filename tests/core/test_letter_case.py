"""Letter case (issue #39 item 4): the platform assumed, the look-up by name it changes, and
which agents find `agents.md` where they open `AGENTS.md` — each agent's fact with its source
in docs/profiles/<agent>.md. The trees live in memory: the platform is modelled, never asked
of the disk the tests run on."""

from __future__ import annotations

import pytest
from core_helpers import make_ws

from rulemap import analysis
from rulemap.checks import name_case
from rulemap.config import ConfigError, host_platform, parse_config
from rulemap.lsp.settings import parse_settings
from rulemap.profiles import get_profile
from rulemap.workspace.letter_case import find_named, named_as

LOWER = {"agents.md": "# A\n\nUse tabs.\n", "claude.md": "# C\n\nRun make.\n",
         "src/a.ts": "x\n"}


def loaded(files: dict[str, str], profile: str, platform: str, target: str | None = None,
           **config: object) -> list[str]:
    ws = make_ws(files, platform=platform, **config)
    return [f.path for f in analysis.explain(ws, target, profile=profile).files]


# ----- the platform -----------------------------------------------------------------------


def test_the_default_platform_is_rulemap_platform_else_the_hosts() -> None:
    assert host_platform({"RULEMAP_PLATFORM": "windows"}) == "windows"
    assert host_platform({"RULEMAP_PLATFORM": "beos"}) in ("linux", "macos", "windows")
    # the suite pins it (tests/conftest.py): a workspace without `platform` is Linux here
    assert make_ws(LOWER).platform == "linux"
    assert make_ws(LOWER, platform="macos").case_insensitive
    assert not make_ws(LOWER, platform="linux").case_insensitive


@pytest.mark.parametrize(("value", "hint"), [("darwin", "macos"), ("Linux", "linux"),
                                             ("win32", "windows"), ("macOS", "macos")])
def test_a_bad_platform_names_the_closest(value: str, hint: str) -> None:
    with pytest.raises(ConfigError) as error:
        parse_config({"platform": value}, "rulemap.toml")
    assert f"did you mean `{hint}`?" in str(error.value)
    assert "`platform` must be one of linux, macos, windows" in str(error.value)


def test_the_editor_setting_is_passed_like_the_other_keys() -> None:
    settings, errors = parse_settings({"platform": "macos"})
    assert errors == [] and settings.overrides == {"platform": "macos"}
    settings, errors = parse_settings({"platform": "mac"})
    assert "did you mean `macos`?" in errors[0] and "platform" not in settings.overrides


# ----- the look-up by name ----------------------------------------------------------------


def test_find_named_prefers_the_exact_name_and_folds_only_where_the_platform_does() -> None:
    mac, linux = make_ws(LOWER, platform="macos"), make_ws(LOWER, platform="linux")
    assert find_named(mac, "", "AGENTS.md") == "agents.md"
    assert find_named(linux, "", "AGENTS.md") is None
    assert find_named(linux, "", "agents.md") == "agents.md"
    both = make_ws({"AGENTS.md": "a", "agents.md": "b"}, platform="macos")
    assert find_named(both, "", "AGENTS.md") == "AGENTS.md"
    assert named_as(mac, "x/.Claude/claude.md", [".claude/CLAUDE.md"]) == ".claude/CLAUDE.md"
    assert named_as(linux, "x/.Claude/claude.md", [".claude/CLAUDE.md"]) is None


# ----- each agent: docs/profiles/<agent>.md, "Letter case" ---------------------------------


def test_codex_opens_each_name_in_each_directory() -> None:
    # codex-rs/core/src/project_doc.rs: `symlink_metadata(dir.join(name))`
    assert loaded(LOWER, "codex", "macos") == ["agents.md"]
    assert loaded(LOWER, "codex", "windows") == ["agents.md"]
    assert loaded(LOWER, "codex", "linux") == []
    # a fallback name is opened the same way
    files = {"Docs.md": "d"}
    assert loaded(files, "codex", "macos", profiles={"codex": {
        "fallbackFilenames": ["DOCS.md"]}}) == ["Docs.md"]


def test_claude_code_opens_its_memory_files_by_name() -> None:
    assert loaded(LOWER, "claude-code", "macos") == ["claude.md"]
    assert loaded(LOWER, "claude-code", "linux") == []
    # `.claude/CLAUDE.md` too, and a nested one joins for a target below it
    files = {".Claude/Claude.md": "c", "pkg/Claude.md": "p", "pkg/x.ts": "x"}
    assert loaded(files, "claude-code", "macos", "pkg/x.ts") == [
        ".Claude/Claude.md", "pkg/Claude.md"]


def test_gemini_opens_each_context_file_name_up_from_the_cwd() -> None:
    # packages/core/src/utils/memoryDiscovery.ts: `fs.access(path.join(dir, name))`
    files = {"Gemini.md": "g", "pkg/gemini.md": "p", "pkg/x.ts": "x"}
    assert loaded(files, "gemini", "macos") == ["Gemini.md"]
    assert loaded(files, "gemini", "linux") == []
    assert loaded(files, "gemini", "macos", "pkg/x.ts") == ["Gemini.md", "pkg/gemini.md"]


def test_mastra_path_exists_is_the_local_disk() -> None:
    # tool-result-reminder.ts: `pathExists(join(dir, name))`, `existsSync` by default
    files = {"agents.md": "a", "src/Context.md": "c", "src/a.ts": "x"}
    assert loaded(files, "mastra", "macos", "src/a.ts") == ["src/Context.md", "agents.md"]
    assert loaded(files, "mastra", "linux", "src/a.ts") == []


def test_the_default_model_compares_names_exactly_on_every_platform() -> None:
    # its Workspace abstraction may be virtual: unconfirmed, modelled exact (its conformance
    # stays the same under every platform)
    assert loaded(LOWER, "cogitator", "macos") == []
    assert loaded({"AGENTS.md": "a"}, "cogitator", "macos") == ["AGENTS.md"]


def test_detection_sees_the_files_a_case_insensitive_platform_hands_the_agents() -> None:
    mac, linux = make_ws(LOWER, platform="macos"), make_ws(LOWER, platform="linux")
    assert get_profile("claude-code").detected_by(mac) == "claude.md"
    assert get_profile("codex").detected_by(mac) == "agents.md"
    assert get_profile("claude-code").detected_by(linux) is None
    assert get_profile("codex").detected_by(linux) is None
    assert get_profile("codex").reads(mac, "agents.md")
    assert not get_profile("codex").reads(linux, "agents.md")


# ----- the finding ------------------------------------------------------------------------


def test_name_case_is_a_warning_on_linux_and_information_where_the_agents_read_it() -> None:
    linux = make_ws(LOWER, platform="linux")
    analysis.select_profiles(linux)
    found = {f.path: f for f in name_case.check(linux)}
    assert set(found) == {"agents.md", "claude.md"}
    assert found["agents.md"].severity == "warning"
    assert "OpenAI Codex CLI" in found["agents.md"].message
    assert "rename it to `AGENTS.md`" in found["agents.md"].message
    assert "Claude Code looks for `CLAUDE.md`" in found["claude.md"].message
    mac = make_ws(LOWER, platform="macos")
    analysis.select_profiles(mac)
    assert {f.severity for f in name_case.check(mac)} == {"information"}


def test_name_case_leaves_out_files_below_the_cwd_and_exact_names() -> None:
    files = {"docs/agents.md": "a page about agents", "AGENTS.md": "a", "src/x.ts": "x"}
    ws = make_ws(files, platform="linux")
    analysis.select_profiles(ws)
    assert name_case.check(ws) == []
    # with the cwd there, it is a directory the agents read at start-up
    ws = make_ws(files, platform="linux", cwd="docs")
    analysis.select_profiles(ws)
    assert [f.path for f in name_case.check(ws)] == ["docs/agents.md"]


def test_name_case_names_mastra_only_when_selected() -> None:
    files = {"context.md": "c"}
    ws = make_ws(files, platform="linux")
    analysis.select_profiles(ws)
    assert name_case.check(ws) == []
    ws = make_ws(files, platform="linux", profiles=["cogitator", "mastra"])
    analysis.select_profiles(ws)
    assert ["Mastra" in f.message for f in name_case.check(ws)] == [True]


def test_geminis_older_downward_scan_compares_names_exactly() -> None:
    # v0.43.0 bfsFileSearch.ts: `entry.name === options.fileName` over a directory listing,
    # so below the cwd only the exact name is found, even on macOS (`jitContext = false`)
    files = {"GEMINI.md": "r", "pkg/gemini.md": "p", "pkg/x.ts": "x"}
    eager = {"profiles": {"gemini": {"jitContext": False}}}
    assert loaded(files, "gemini", "macos", **eager) == ["GEMINI.md"]
    files = {"GEMINI.md": "r", "pkg/GEMINI.md": "p", "pkg/x.ts": "x"}
    assert loaded(files, "gemini", "macos", **eager) == ["GEMINI.md", "pkg/GEMINI.md"]


def test_copilot_and_cursor_compare_names_exactly_as_modelled() -> None:
    # unconfirmed how they find their files (docs/profiles/copilot.md, cursor.md): modelled
    # exact on every platform, so they never read a file in other letter case
    assert loaded({".github/Copilot-Instructions.md": "c"}, "copilot", "macos") == []
    assert loaded({".github/copilot-instructions.md": "c"}, "copilot", "macos") == [
        ".github/copilot-instructions.md"]
    assert loaded({"agents.md": "a"}, "cursor", "macos") == []
    assert loaded({"AGENTS.md": "a"}, "cursor", "macos") == ["AGENTS.md"]


def test_the_editors_setting_goes_over_the_files_platform() -> None:
    from rulemap.readers import MemoryReader

    files = {"agents.md": "a", "rulemap.toml": 'platform = "linux"\n'}
    ws = analysis.open_workspace("/w", reader=MemoryReader("/w", files))
    assert ws.platform == "linux"
    ws = analysis.open_workspace("/w", reader=MemoryReader("/w", files),
                                 overrides={"platform": "macos"})
    assert ws.platform == "macos"
    assert [f.path for f in analysis.explain(ws, None, profile="codex").files] == ["agents.md"]


def test_name_case_finds_an_upper_case_extension_and_a_name_without_one() -> None:
    ws = make_ws({"Agents.MD": "a", "notes": "n", "src/x.ts": "x"}, platform="linux",
                 profiles={"codex": {"fallbackFilenames": ["NOTES"]}})
    analysis.select_profiles(ws)
    found = {f.path: f.message for f in name_case.check(ws)}
    assert set(found) == {"Agents.MD", "notes"}
    assert "OpenAI Codex CLI looks for `NOTES`" in found["notes"]


def test_explain_says_a_file_is_read_under_a_name_in_other_letter_case() -> None:
    ws = make_ws(LOWER, platform="macos")
    notes = analysis.explain(ws, None, profile="claude-code").notes
    assert any("`claude.md` is read as `CLAUDE.md`" in n and "macOS" in n for n in notes)
    ws = make_ws({"AGENTS.md": "a"}, platform="macos")
    assert not any("letter case" in n for n in analysis.explain(ws, None, "codex").notes)


def test_why_and_reach_give_checks_words_for_a_file_in_other_letter_case() -> None:
    """`why` finds a sentence of `claude.md` and, with `reach`, says what `check` says: on
    Linux Claude Code never reads it because of its name's letter case, and the fix is the
    rename (no new file is advised: the text is already where it belongs, misnamed)."""
    from rulemap.reach import reach
    from rulemap.why import why

    claude = get_profile("claude-code")
    ws = make_ws(LOWER, platform="linux", profiles=["claude-code"])
    (verdict,) = why(ws, "Run make.", None, [claude], "").agents
    assert verdict.place.path == "claude.md" and not verdict.seen
    assert "not read on Linux" in verdict.why and "rename it to `CLAUDE.md`" in verdict.why
    assert verdict.advice == ()
    (answer,) = reach(ws, "claude.md", None, [claude], "").agents
    assert answer.never is not None and "rename it to `CLAUDE.md`" in answer.never
    assert "rename it" in analysis.load_status(ws, "claude.md", "claude-code").why_not
    # where the platform ignores case, the agent reads it: seen, and no such words
    mac = make_ws(LOWER, platform="macos", profiles=["claude-code"])
    (verdict,) = why(mac, "Run make.", None, [claude], "").agents
    assert verdict.seen and verdict.place.path == "claude.md"
