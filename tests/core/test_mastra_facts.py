"""Focused tests for modelled facts of the `mastra` profile that `tests/core/test_mastra.py`
does not pin on their own, named in the "Facts and sources" table of
`docs/profiles/mastra.md` (with the line ranges of Mastra's public source they follow)."""

from __future__ import annotations

from core_helpers import make_ws

from rulemap import analysis
from rulemap.profiles.mastra.transcript import read_messages
from rulemap.profiles.transcript import Parsed, TranscriptPaths


def explain(files, target, **options):
    ws = make_ws(files, profiles={"mastra": options}) if options else make_ws(files)
    return analysis.explain(ws, target, profile="mastra")


def test_trigger_is_the_seven_path_arguments_of_completed_tool_calls():
    keys = ("path", "file", "filePath", "target", "targetPath", "dest", "destination")
    args = {key: f"/w/{key}.ts" for key in keys}
    args.update({"filename": "/w/filename.ts", "dir": "/w/dir.ts", "src": "/w/src.ts"})
    messages = [
        {"role": "assistant", "toolInvocations": [
            {"state": "result", "toolCallId": "1", "toolName": "view", "args": args},
            {"state": "call", "toolCallId": "2", "toolName": "view",
             "args": {"path": "/w/pending.ts"}},
        ]},
    ]
    parsed = Parsed("mastra")
    read_messages(messages, parsed, TranscriptPaths("/w", None, parsed))
    assert [step.paths for step in parsed.steps] == [tuple(f"{key}.ts" for key in keys)]


def test_default_max_tokens_is_1000_per_file():
    whole = explain({"AGENTS.md": "a" * 4000}, "x.ts")  # 4,000 characters: 1,000 tokens
    assert whole.budget.to_json() == {"kind": "per-file", "unit": "tokens", "limit": 1000}
    assert whole.files[0].truncated is False and whole.files[0].tokens == 1000
    over = explain({"AGENTS.md": "a" * 4001}, "x.ts")  # 1,001 tokens: over
    assert over.files[0].truncated is True
    assert over.files[0].text.startswith("a" * 4000 + "\n\n[truncated")


def test_max_tokens_zero_still_keeps_one_character():
    # Math.max(maxTokens * 4, 1): the slice is never empty
    f = explain({"AGENTS.md": "abc"}, "x.ts", maxTokens=0).files[0]
    assert f.text == "a\n\n[truncated — showing first ~1 of ~1 estimated tokens]"


def test_text_is_trimmed_with_javascript_whitespace_before_anything_else():
    # String.prototype.trim also drops U+FEFF, which Python's str.strip keeps
    f = explain({"AGENTS.md": "\n\t \u3000body line\n\n\ufeff"}, "x.ts").files[0]
    assert f.text == "body line" and f.chars == 9


def test_nearest_only_brings_one_file_per_touched_path_as_the_1_71_code_does():
    # @mastra/core 1.71.0 returns the first name of the nearest directory that has one, and
    # never walks further up that path; the specification's reading (the default) walks on
    files = {"AGENTS.md": "r", "a/CONTEXT.md": "c", "a/b/CLAUDE.md": "b", "a/b/AGENTS.md": "x"}
    assert [f.path for f in explain(files, "a/b/file.ts").files] == [
        "a/b/AGENTS.md", "a/b/CLAUDE.md", "a/CONTEXT.md", "AGENTS.md"]
    assert [f.path for f in explain(files, "a/b/file.ts", nearestOnly=True).files] == [
        "a/b/AGENTS.md"]
    # a directory without one searches on up to the nearest that has one
    assert [f.path for f in explain(files, "a/z/file.ts", nearestOnly=True).files] == [
        "a/CONTEXT.md"]
