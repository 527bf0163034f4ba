"""The `mastra` profile: Mastra's AgentsMDInjector (seed `mastra-agents-md-injector.txt`,
reference section 2). Expectations are worked out from those texts by hand."""

from __future__ import annotations

import math
import os

import pytest
from core_helpers import make_ws

from rulemap import analysis
from rulemap.analysis import new_workspace
from rulemap.config import ConfigError
from rulemap.profiles import get_profile, select
from rulemap.profiles.mastra.identity import path_identity
from rulemap.profiles.mastra.inject import DEFAULT_REMINDER_TEXT
from rulemap.readers import LocalReader, MemoryReader, OverlayReader

MASTRA = get_profile("mastra")


def ws_with(files, symlinks=None, **options):
    if options:
        return make_ws(files, symlinks, profiles={"mastra": options})
    return make_ws(files, symlinks)


def explain(ws, target):
    return analysis.explain(ws, target, profile="mastra")


def steps(e):
    return [(f.path, f.step) for f in e.files]


def notice(shown, total):
    return f"[truncated — showing first ~{shown} of ~{total} estimated tokens]"


# ----------------------------------------------------------------------------- the search


def test_one_directory_agents_claude_context_in_that_order():
    # "each directory checked for AGENTS.md, CLAUDE.md, CONTEXT.md in that order"
    ws = ws_with({"src/CONTEXT.md": "c", "src/CLAUDE.md": "b", "src/AGENTS.md": "a"})
    assert steps(explain(ws, "src/x.ts")) == [
        ("src/AGENTS.md", 1), ("src/CLAUDE.md", 2), ("src/CONTEXT.md", 3),
    ]


def test_nearest_directory_first_one_file_per_step():
    # "At most ONE new file injected per model step ... the ancestry chain is injected
    # nearest-first"
    ws = ws_with({"AGENTS.md": "r", "a/CONTEXT.md": "c", "a/b/CLAUDE.md": "b", "x/AGENTS.md": "x"})
    e = explain(ws, "a/b/file.ts")
    assert steps(e) == [("a/b/CLAUDE.md", 1), ("a/CONTEXT.md", 2), ("AGENTS.md", 3)]
    assert all(f.reason == "nested" and f.imported_by is None and f.depth == 0 for f in e.files)


def test_no_imports_followed():
    ws = ws_with({"AGENTS.md": "see @docs/a.md\n", "docs/a.md": "a"})
    e = explain(ws, "x.ts")
    assert [f.path for f in e.files] == ["AGENTS.md"]
    assert e.files[0].text == "see @docs/a.md"  # trimmed, the @token is plain text


def test_a_touched_directory_is_searched_from_itself():
    ws = ws_with({"AGENTS.md": "r", "pkg/AGENTS.md": "p", "pkg/x.ts": ""})
    assert [f.path for f in explain(ws, "pkg").files] == ["pkg/AGENTS.md", "AGENTS.md"]


def test_touched_instruction_file_used_directly_case_insensitively():
    # "If the path itself is one of those names (case-insensitive) it is used directly."
    ws = ws_with({"AGENTS.md": "root", "docs/Agents.MD": "direct", "docs/CLAUDE.md": "x"})
    e = explain(ws, "docs/Agents.MD")
    assert steps(e) == [("docs/Agents.MD", 1)]
    assert e.files[0].text == "direct"
    assert any("used directly" in n or "directly" in n for n in e.notes)


def test_touched_instruction_file_that_does_not_exist_gives_the_reminder():
    ws = ws_with({"AGENTS.md": "root"})
    e = explain(ws, "new/AGENTS.md")
    assert steps(e) == [("new/AGENTS.md", 1)]
    assert e.files[0].text == DEFAULT_REMINDER_TEXT and "unreadable" in (e.files[0].note or "")


def test_without_target_one_tool_call_on_the_cwd_directory_and_a_note_says_so():
    # Decision: nothing loads before a tool call; without a TARGET Rulemap shows what one tool
    # call on the cwd directory brings (and says so)
    ws = ws_with({"AGENTS.md": "root", "pkg/CONTEXT.md": "p", "pkg/sub/AGENTS.md": "below"})
    e = analysis.explain(ws, None, cwd="pkg", profile="mastra")
    assert steps(e) == [("pkg/CONTEXT.md", 1), ("AGENTS.md", 2)]
    assert any("no TARGET" in n and "before a tool call" in n for n in e.notes)


def test_walk_stops_at_the_workspace_root_and_says_so():
    reader = MemoryReader("/w/repo", {"AGENTS.md": "in", "/w/AGENTS.md": "above"})
    ws = new_workspace(reader)
    e = analysis.explain(ws, "src/x.ts", profile="mastra")
    assert [f.path for f in e.files] == ["AGENTS.md"]
    assert any("walk stops at the workspace root" in n for n in e.notes)


def test_walk_to_filesystem_root_reads_files_above_through_the_reader():
    from rulemap.config import parse_config

    reader = MemoryReader(
        "/w/repo", {"AGENTS.md": "in", "/w/CLAUDE.md": "above", "/CONTEXT.md": "top"}
    )
    config = parse_config({"profiles": {"mastra": {"walkToFilesystemRoot": True}}}, "test")
    ws = new_workspace(reader, config)
    e = analysis.explain(ws, "src/x.ts", profile="mastra")
    assert steps(e) == [("AGENTS.md", 1), ("/w/CLAUDE.md", 2), ("/CONTEXT.md", 3)]
    assert [f.text for f in e.files] == ["in", "above", "top"]
    assert not any("walk stops at the workspace root" in n for n in e.notes)


def test_walk_to_filesystem_root_with_the_local_reader_notes_what_it_cannot_read(tmp_path):
    (tmp_path / "AGENTS.md").write_text("above the root\n", encoding="utf-8")
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "AGENTS.md").write_text("inside\n", encoding="utf-8")
    (repo / "rulemap.toml").write_text(
        "[profiles.mastra]\nwalkToFilesystemRoot = true\n", encoding="utf-8"
    )
    ws = analysis.open_workspace(str(repo))
    e = analysis.explain(ws, "src/x.ts", profile="mastra")
    above = str(tmp_path / "AGENTS.md").replace(os.sep, "/")
    assert [f.path for f in e.files][:2] == ["AGENTS.md", above]
    outside = e.files[1]
    assert outside.step == 2 and outside.chars == 0 and outside.text == ""
    assert "not readable by Rulemap" in (outside.note or "")
    assert any(above in n and "cannot read" in n for n in e.notes)


def test_directory_named_like_an_instruction_file_gives_the_reminder(tmp_path):
    # the injector's existence check accepts a directory; its read then fails
    (tmp_path / "AGENTS.md").mkdir()
    (tmp_path / "CONTEXT.md").write_text("ctx\n", encoding="utf-8")
    ws = new_workspace(LocalReader(str(tmp_path)))
    e = analysis.explain(ws, "x.ts", profile="mastra")
    assert steps(e) == [("AGENTS.md", 1), ("CONTEXT.md", 2)]
    assert e.files[0].text == DEFAULT_REMINDER_TEXT and "directory" in (e.files[0].note or "")


def test_enabled_false_loads_nothing_and_says_discovery_is_disabled():
    ws = ws_with({"AGENTS.md": "root", "CONTEXT.md": ""}, enabled=False)
    e = explain(ws, "x.ts")
    assert e.files == [] and e.skipped == []
    assert any("disabled" in n for n in e.notes)
    assert MASTRA.findings(ws) == []


# ----------------------------------------------------------------------------- identity


def test_symlink_alias_in_the_same_directory_injected_once():
    # "The default local reader resolves filesystem aliases for comparison."
    ws = ws_with({"AGENTS.md": "same", "CONTEXT.md": "ctx"}, {"CLAUDE.md": "AGENTS.md"})
    e = explain(ws, "x.ts")
    assert steps(e) == [("AGENTS.md", 1), ("CONTEXT.md", 2)]
    assert [s.path for s in e.skipped] == ["CLAUDE.md"]
    assert "AGENTS.md" in e.skipped[0].why and "step 1" in e.skipped[0].why


class LexicalReader(MemoryReader):
    """A custom reader without a path-identity function."""

    lexical_identity = True


def test_custom_reader_without_identity_compares_lexically():
    # "Supplying ... a custom reader without getPathIdentity, keeps lexical path comparison"
    reader = LexicalReader("/w", {"AGENTS.md": "same"}, {"CLAUDE.md": "AGENTS.md"})
    ws = new_workspace(reader)
    e = analysis.explain(ws, "x.ts", profile="mastra")
    assert steps(e) == [("AGENTS.md", 1), ("CLAUDE.md", 2)]
    assert path_identity(ws, "CLAUDE.md") == "/w/CLAUDE.md"
    assert path_identity(ws, "a/../CLAUDE.md") == "/w/CLAUDE.md"  # normalized


def test_overlay_asks_the_reader_below():
    reader = OverlayReader(LexicalReader("/w", {"AGENTS.md": "s"}, {"CLAUDE.md": "AGENTS.md"}))
    ws = new_workspace(reader)
    assert [f.path for f in analysis.explain(ws, "x.ts", profile="mastra").files] == [
        "AGENTS.md", "CLAUDE.md",
    ]


def test_default_reader_identity_is_the_real_path(tmp_path):
    (tmp_path / "AGENTS.md").write_text("x", encoding="utf-8")
    os.symlink("AGENTS.md", tmp_path / "CLAUDE.md")
    ws = new_workspace(LocalReader(str(tmp_path)))
    assert path_identity(ws, "CLAUDE.md") == path_identity(ws, "AGENTS.md")
    assert [f.path for f in analysis.explain(ws, "x.ts", profile="mastra").files] == ["AGENTS.md"]


def test_ignored_instruction_paths_relative_and_absolute_skipped_with_why():
    # "getIgnoredInstructionPaths: Return paths already included in static instructions so
    # they are not injected again."
    files = {"AGENTS.md": "root", "a/CLAUDE.md": "a", "a/CONTEXT.md": "ctx"}
    ws = ws_with(files, {"CLAUDE.md": "AGENTS.md"},
                 ignoredInstructionPaths=["AGENTS.md", "/w/a/CLAUDE.md"])
    e = explain(ws, "a/x.ts")
    assert steps(e) == [("a/CONTEXT.md", 1)]
    # the alias CLAUDE.md is the ignored AGENTS.md too: identity applies to ignored paths
    assert [s.path for s in e.skipped] == ["a/CLAUDE.md", "AGENTS.md", "CLAUDE.md"]
    assert all("ignoredInstructionPaths" in s.why for s in e.skipped)


# ----------------------------------------------------------------------------- maxTokens


def test_within_max_tokens_whole_file():
    ws = ws_with({"AGENTS.md": "a" * 20}, maxTokens=5)  # 20 chars = 5 tokens: not over
    f = explain(ws, "x.ts").files[0]
    assert (f.cut, f.truncated, f.tokens, f.cut_line, f.text) == (False, False, 5, None, "a" * 20)


def test_over_max_tokens_cut_back_to_the_last_line_break_with_the_notice():
    # "Over it, text is cut at about maxTokens x 4 characters, back to the last newline,
    # and a truncation notice is appended."
    body = "aaaa\nbbbb\ncccc\ndddd\neeee\nffff\n"  # 29 chars once trimmed: ceil(29/4) = 8 > 5
    ws = ws_with({"AGENTS.md": body}, maxTokens=5)
    e = explain(ws, "x.ts")
    f = e.files[0]
    kept = "aaaa\nbbbb\ncccc\ndddd"  # the last newline within 20 chars is at offset 19
    text = kept + "\n\n" + notice(5, 8)
    assert f.text == text and f.chars == len(text)
    assert (f.cut, f.truncated, f.tokens, f.step) == (True, True, math.ceil(len(text) / 4), 1)
    assert f.cut_line == 3  # reading stops at the end of "dddd", line 3 (0-based)
    assert e.budget.to_json() == {"kind": "per-file", "unit": "tokens", "limit": 5}
    assert e.max_chars == 20 and e.notice is None and e.left_out == []


def test_line_break_right_at_the_limit_is_kept_up_to():
    # JavaScript's lastIndexOf("\n", 24) finds a break at offset 24 itself
    body = "aaaa\n" * 7  # breaks at 4, 9, 14, 19, 24, ...; maxTokens 6 → 24 chars
    ws = ws_with({"AGENTS.md": body}, maxTokens=6)
    f = explain(ws, "x.ts").files[0]
    assert f.text.split("\n\n")[0] == "aaaa\naaaa\naaaa\naaaa\naaaa"
    assert f.cut_line == 4


def test_no_line_break_within_the_limit_cuts_mid_line():
    ws = ws_with({"AGENTS.md": "x" * 50 + "\nend"}, maxTokens=5)
    f = explain(ws, "x.ts").files[0]
    assert f.text == "x" * 20 + "\n\n" + notice(5, 14)  # 54 chars: ceil(54/4) = 14
    assert f.cut_line == 0


def test_cut_line_counts_lines_of_the_original_file():
    # the injector trims first; the line is still the file's own
    ws = ws_with({"AGENTS.md": "\n\n  aaaa\nbbbb\ncccc\ndddd\n"}, maxTokens=2)
    f = explain(ws, "x.ts").files[0]
    assert f.text.startswith("aaaa\n\n[truncated")
    assert f.cut_line == 2


def test_each_file_has_its_own_budget():
    ws = ws_with({"AGENTS.md": "r" * 30, "a/AGENTS.md": "a" * 30}, maxTokens=5)
    e = explain(ws, "a/x.ts")
    assert [f.truncated for f in e.files] == [True, True]


# ----------------------------------------------------------------------------- reminderText


def test_empty_file_injects_the_default_reminder_text():
    # "reminderText: Fallback text when a discovered instruction file is empty"
    ws = ws_with({"a/AGENTS.md": "", "a/CLAUDE.md": "  \n\t\n", "AGENTS.md": "root"})
    e = explain(ws, "a/x.ts")
    assert steps(e) == [("a/AGENTS.md", 1), ("a/CLAUDE.md", 2), ("AGENTS.md", 3)]
    for f in e.files[:2]:
        assert f.text == DEFAULT_REMINDER_TEXT and "empty" in (f.note or "")
        assert f.tokens == math.ceil(len(DEFAULT_REMINDER_TEXT) / 4) and f.truncated is False


def test_unreadable_file_injects_the_configured_reminder_text():
    # "... or cannot be read."
    ws = ws_with({"AGENTS.md": b"\x00\x01bin"}, reminderText="  Read the docs.  ")
    f = explain(ws, "x.ts").files[0]
    assert f.text == "Read the docs." and "unreadable" in (f.note or "")


def test_blank_reminder_text_means_no_fallback_and_the_search_goes_on():
    ws = ws_with({"a/AGENTS.md": "", "AGENTS.md": "root"}, reminderText=" ")
    e = explain(ws, "a/x.ts")
    assert steps(e) == [("AGENTS.md", 1)]
    assert [s.path for s in e.skipped] == ["a/AGENTS.md"]


# ----------------------------------------------------------------------------- options


def test_options_are_declared_and_validated():
    assert [o.key for o in MASTRA.options] == [
        "maxTokens", "reminderText", "ignoredInstructionPaths", "enabled",
        "walkToFilesystemRoot", "nearestOnly",
    ]
    with pytest.raises(ConfigError, match="maxTokens"):
        analysis.open_workspace("/w", reader=MemoryReader(
            "/w", {"rulemap.toml": "[profiles.mastra]\nmaxTokens = true\n"}))
    with pytest.raises(ConfigError, match="did you mean `maxTokens`"):
        analysis.open_workspace("/w", reader=MemoryReader(
            "/w", {"rulemap.toml": "[profiles.mastra]\nmaxToken = 5\n"}))


# ----------------------------------------------------------------------------- detect, reads


def test_detect_only_with_a_package_that_depends_on_mastra():
    assert not MASTRA.detect(ws_with({"AGENTS.md": "a", "CLAUDE.md": "c"}))
    # CONTEXT.md alone is no sign of the library (issue #39: tldraw's are for people)
    assert not MASTRA.detect(ws_with({"AGENTS.md": "a", "pkg/CONTEXT.md": "c"}))
    ws = ws_with({"AGENTS.md": "a", "pkg/package.json": '{"dependencies": {"@mastra/core": "1"}}'})
    assert MASTRA.detect(ws)
    assert MASTRA in select(ws)


def test_reads_the_three_names_in_any_case():
    ws = ws_with({})
    assert MASTRA.reads(ws, "AGENTS.md") and MASTRA.reads(ws, "a/b/context.md")
    assert MASTRA.reads(ws, "x/Claude.MD")
    assert not MASTRA.reads(ws, "README.md") and not MASTRA.reads(ws, ".claude/rules/r.md")


# ----------------------------------------------------------------------------- findings


def test_cut_file_gives_budget_overflow_on_the_line_where_reading_stops():
    body = "aaaa\nbbbb\ncccc\ndddd\neeee\nffff\n"
    ws = ws_with({"AGENTS.md": body}, maxTokens=5)
    [f] = MASTRA.findings(ws)
    assert (f.code, f.severity, f.span.start.line) == ("budget-overflow", "warning", 3)
    assert "line 4 of 6" in f.message and "~5 of ~8" in f.message
    assert "maxTokens" in f.message


def test_check_names_the_agent_once():
    ws = make_ws({"AGENTS.md": "x" * 30}, profiles={"select": ["mastra"], "mastra": {
        "maxTokens": 5}})
    found = [f for f in analysis.check(ws) if f.code == "budget-overflow"]
    assert len(found) == 1 and found[0].profile == "mastra"
    assert found[0].message.startswith("mastra: ")


def test_empty_context_file_reported_by_the_profile_but_not_a_cogitator_name():
    ws = ws_with({"CONTEXT.md": "", "AGENTS.md": "", "a/CONTEXT.md": b"\x00"})
    found = sorted((f.path, f.code) for f in MASTRA.findings(ws))
    # checks/files.py lints AGENTS.md (a default-model name): not reported twice
    assert found == [("CONTEXT.md", "empty-instructions"), ("a/CONTEXT.md", "unreadable-file")]
    messages = " ".join(f.message for f in MASTRA.findings(ws))
    assert "reminderText" in messages


def test_alias_reported_once():
    ws = ws_with({"CONTEXT.md": "x" * 30}, {"docs/CONTEXT.md": "../CONTEXT.md"}, maxTokens=5)
    assert [f.path for f in MASTRA.findings(ws)] == ["CONTEXT.md"]


def test_findings_cached_until_a_file_they_read_changes():
    reader = MemoryReader("/w", {"CONTEXT.md": "", "src/a.ts": ""})
    ws = new_workspace(reader)
    first = MASTRA.findings(ws)
    assert MASTRA.findings(ws) is first
    reader.files["/w/CONTEXT.md"] = b"now has content"
    ws.update(changed=["CONTEXT.md"])
    assert MASTRA.findings(ws) == []


def test_explain_cached_and_refreshed_on_change():
    reader = MemoryReader("/w", {"AGENTS.md": "one"})
    ws = new_workspace(reader)
    assert explain(ws, "x.ts") is explain(ws, "x.ts")
    reader.files["/w/AGENTS.md"] = b"two"
    ws.update(changed=["AGENTS.md"])
    assert explain(ws, "x.ts").files[0].text == "two"
