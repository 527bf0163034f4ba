"""The reverse views through the real server (docs/protocol.md, docs/reach.md): the lines an
agent never sees (`rulemap/unseenLines`), whether a sentence reaches each agent's model
(`rulemap/why`), and the "who sees this paragraph" hover."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from tests.lsp.conftest import hover_text, open_doc, plain, pulled, session, write

from rulemap import analysis
from rulemap.profiles import get_profile
from rulemap.reach import reach
from rulemap.why import why

LONG = "".join(f"Paragraph {i:04} of a long AGENTS.md, past Codex's budget at the end\n\n"
               for i in range(700))  # Codex reads 32 KiB of it
COMMENT = "<!-- for people:\nkeep the tone dry -->\n"
FILES = {
    "AGENTS.md": "# Project\n\n" + COMMENT + "Use pnpm, not npm.\n\n" + LONG,
    "CLAUDE.md": "@AGENTS.md\n",
    ".claude/rules/api.md": '---\npaths:\n  - "src/api/**/*.ts"\n---\nAPI rules.\n',
    "src/api/users.ts": "export const users = 1;\n",
    "src/web/app.ts": "export const app = 2;\n",
}
WORKSPACE_FILES = len(FILES)


async def _ask(lsp: Any, method: str, params: dict[str, Any]) -> Any:
    return plain(await lsp.protocol.send_request_async(method, params))


def _id(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


async def test_unseen_lines_name_stripped_comments_and_the_budget_cut(tmp_path: Path) -> None:
    write(tmp_path, FILES)
    ws = analysis.open_workspace(str(tmp_path))
    [codex] = reach(ws, "AGENTS.md", None, [get_profile("codex")], "").agents
    cut = codex.ways[0].cut_line
    assert cut is not None
    async with session(tmp_path, "vscode") as lsp:
        uri = open_doc(lsp, tmp_path / "AGENTS.md")
        got = await _ask(lsp, "rulemap/unseenLines", {"uri": uri})
        agents = {a["profile"]: a for a in got["agents"]}
        assert got["path"] == "AGENTS.md" and got["uri"] == uri
        # the comment (lines 2-3): removed by the agents that strip comments, kept by Codex
        stripped = {name: [(r["start"], r["end"]) for r in a["ranges"]
                           if r["kind"] == "stripped"] for name, a in agents.items()}
        assert stripped == {"cogitator": [(2, 3)], "claude-code": [(2, 3)], "codex": []}
        # Codex stops reading at its 32 KiB for every file: from that line to the end
        [codex_cut] = [r for r in agents["codex"]["ranges"] if r["kind"] == "cut"]
        assert (codex_cut["start"], codex_cut["end"]) == (cut, len(ws.document("AGENTS.md")
                                                                   .lines) - 1)
        assert codex_cut["files"] == WORKSPACE_FILES
        assert "project_doc_max_bytes (32,768 bytes)" in codex_cut["why"]

        rule = open_doc(lsp, tmp_path / ".claude/rules/api.md")
        got = await _ask(lsp,
            "rulemap/unseenLines", {"uri": rule, "profiles": ["codex", "claude-code"]})
        assert [a["profile"] for a in got["agents"]] == ["codex", "claude-code"]
        assert got["agents"][0]["never"] == "OpenAI Codex CLI does not read it"
        assert got["agents"][1]["files"] == 1 and got["agents"][1]["ranges"] == []

        source = open_doc(lsp, tmp_path / "src/web/app.ts", language="typescript")
        assert await _ask(lsp,
            "rulemap/unseenLines", {"uri": source}) is None
        with pytest.raises(Exception, match="unknown profile `nobody`"):
            await _ask(lsp,
                "rulemap/unseenLines", {"uri": uri, "profiles": ["nobody"]})


async def test_why_answers_what_the_cli_answers(tmp_path: Path) -> None:
    write(tmp_path, FILES)
    ws = analysis.open_workspace(str(tmp_path))
    profiles = analysis.select_profiles(ws)
    async with session(tmp_path, "vscode") as lsp:
        uri = open_doc(lsp, tmp_path / "AGENTS.md")
        asked: dict[str, Any] = {"uri": uri, "text": "keep the tone dry"}
        got = await _ask(lsp, "rulemap/why", asked)
        expected = why(ws, "keep the tone dry", None, profiles, "").to_json()
        assert {k: v for k, v in got.items() if k != "uri"} == expected
        verdicts = {a["profile"]: a for a in got["agents"]}
        assert verdicts["codex"]["seen"] and not verdicts["claude-code"]["seen"]
        assert verdicts["claude-code"]["why"].startswith("stripped")
        assert got["seenByAll"] is False

        # for a target, the rule's sentence: Claude Code gets it for src/api, not src/web
        for target, seen in (("src/api/users.ts", True), ("src/web/app.ts", False)):
            got = await _ask(lsp, "rulemap/why", {
                "uri": uri, "text": "API rules.", "target": target,
                "profiles": ["claude-code"]})
            [verdict] = got["agents"]
            assert verdict["seen"] is seen and got["target"] == target
        # a file URI as the target
        got = await _ask(lsp, "rulemap/why", {
            "uri": uri, "text": "API rules.", "target": (tmp_path / "src/api/users.ts").as_uri(),
            "profiles": ["claude-code"]})
        assert got["target"] == "src/api/users.ts" and got["agents"][0]["seen"]

        nowhere = await _ask(lsp,
            "rulemap/why", {"uri": uri, "text": "no such sentence anywhere"})
        assert nowhere["places"] == [] and nowhere["agents"] == []
        for bad, match in (({"uri": uri, "text": "  "}, "text"),
                           ({"uri": uri, "text": "x", "target": "../outside.ts"}, "target"),
                           ({"uri": uri, "text": "x", "target": 3}, "target")):
            with pytest.raises(Exception, match=match):
                await _ask(lsp, "rulemap/why", bad)


async def test_why_finds_a_sentence_of_gemini_md_and_says_where_others_read_it(
        tmp_path: Path) -> None:
    """The editor asks every selected agent's files, as the CLI does (issue #36): a
    Gemini-only folder's GEMINI.md sentence reaches Gemini CLI; Copilot's coding agent reads
    the root's GEMINI.md too; Cursor is told its own rule, never GEMINI.md."""
    write(tmp_path, {"GEMINI.md": "# P\n\nUse pnpm.\n", "src/a.ts": "x\n"})
    async with session(tmp_path, "vscode") as lsp:
        uri = open_doc(lsp, tmp_path / "GEMINI.md")
        got = await _ask(lsp, "rulemap/why", {"uri": uri, "text": "Use pnpm",
                                              "profiles": ["gemini", "copilot", "cursor"]})
        verdicts = {a["profile"]: a for a in got["agents"]}
        assert got["places"] == [{"path": "GEMINI.md", "line": 3, "exact": True}]
        assert verdicts["gemini"]["seen"] and verdicts["copilot"]["seen"]
        assert not verdicts["cursor"]["seen"]
        assert verdicts["cursor"]["advice"] == [{
            "path": ".cursor/rules/project.mdc", "new": True,
            "how": "a rule with `alwaysApply: true`, which it loads for every request"}]


async def test_hovering_a_paragraph_says_who_sees_it(tmp_path: Path) -> None:
    write(tmp_path, FILES)
    async with session(tmp_path, "vscode") as lsp:
        uri = open_doc(lsp, tmp_path / "AGENTS.md")
        await pulled(lsp, uri, lambda codes: True)

        async def hover(line: int) -> str:
            return await hover_text(lsp, uri, line)

        n = WORKSPACE_FILES
        text = await hover(4)  # "Use pnpm": every agent's every file
        assert text.startswith("**Who sees this paragraph** (line 5)")
        assert f"**OpenAI Codex CLI**: all {n} files that load it" in text
        assert f"**Claude Code**: all {n} files that load it" in text
        text = await hover(2)  # the comment
        assert "(lines 3–4)" in text
        assert "**Claude Code**: no — inside an HTML comment, which it removes" in text
        assert f"**OpenAI Codex CLI**: all {n} files that load it" in text
        text = await hover(1300)  # past Codex's 32 KiB (and Cogitator's 32,000 characters)
        assert f"**OpenAI Codex CLI**: 0 of the {n} files that load it; stops reading " \
               f"before it for {n}" in text
        assert f"**Claude Code**: all {n} files" in text  # no shared budget
        rule = open_doc(lsp, tmp_path / ".claude/rules/api.md")
        uri, rule_uri = rule, uri
        text = await hover(4)  # "API rules.": Codex never reads a rule, and says why
        assert "**OpenAI Codex CLI**: never — OpenAI Codex CLI does not read it" in text
        assert "**Claude Code**: the one file that loads it" in text
        uri = rule_uri
        # a blank line has no paragraph
        assert (await lsp.text_document_hover_async(types.HoverParams(
            text_document=_id(uri), position=types.Position(line=1, character=0)))) is None
