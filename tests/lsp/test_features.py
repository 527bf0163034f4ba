"""Editor features through the real server (the providers live in rulemap.lsp.features)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from lsprotocol import types
from tests.lsp.conftest import REPO, open_doc, plain, pulled, session, write

FILES = {
    "AGENTS.md": "# Project\n\nRead @docs/style.md first.\nAlso @docs/missing.md.\n",
    "docs/style.md": "Style guide: four spaces.\n",
    ".claude/rules/api.md": '---\npaths:\n  - "src/api/**/*.ts"\n---\nAPI rules.\n',
    "src/api/users.ts": "export const users = 1;\n",
    "src/api/orders.ts": "export const orders = 2;\n",
}


def pos(line: int, character: int) -> types.Position:
    return types.Position(line=line, character=character)


def doc_id(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


def hover_text(result: types.Hover | None) -> str:
    assert result is not None
    contents = result.contents
    return contents.value if isinstance(contents, types.MarkupContent) else str(contents)


async def test_features_vscode(tmp_path: Path) -> None:
    write(tmp_path, FILES)
    async with session(tmp_path, "vscode") as lsp:
        agents = open_doc(lsp, tmp_path / "AGENTS.md")
        await pulled(lsp, agents, lambda c: c == ["broken-import"])

        # hover on an import: its target, size
        text = hover_text(
            await lsp.text_document_hover_async(
                types.HoverParams(text_document=doc_id(agents), position=pos(2, 8))
            )
        )
        assert "docs/style.md" in text

        # hover on a source file's first line: what loads for it, rules included
        source = open_doc(lsp, tmp_path / "src/api/users.ts", language="typescript")
        text = hover_text(
            await lsp.text_document_hover_async(
                types.HoverParams(text_document=doc_id(source), position=pos(0, 0))
            )
        )
        assert "AGENTS.md" in text and ".claude/rules/api.md" in text
        # ... and not further down (hover.sourceFiles = firstLine)
        assert (
            await lsp.text_document_hover_async(
                types.HoverParams(text_document=doc_id(source), position=pos(5, 0))
            )
            is None
        )

        # positions past the end of a line or of the document: an answer, never an error
        for position in (pos(0, 999), pos(999, 0), pos(3, 10_000)):
            ident = doc_id(agents)
            await lsp.text_document_hover_async(
                types.HoverParams(text_document=ident, position=position)
            )
            await lsp.text_document_definition_async(
                types.DefinitionParams(text_document=ident, position=position)
            )
            await lsp.text_document_completion_async(
                types.CompletionParams(text_document=ident, position=position)
            )

        # links and definition on imports
        links = await lsp.text_document_document_link_async(
            types.DocumentLinkParams(text_document=doc_id(agents))
        )
        assert any(link.target and link.target.endswith("docs/style.md") for link in links)
        definition = await lsp.text_document_definition_async(
            types.DefinitionParams(text_document=doc_id(agents), position=pos(2, 8))
        )
        assert definition and str(definition[0].uri).endswith("docs/style.md")  # type: ignore[index,union-attr]

        # references: who imports docs/style.md
        style = open_doc(lsp, tmp_path / "docs/style.md")
        refs = await lsp.text_document_references_async(
            types.ReferenceParams(
                text_document=doc_id(style),
                position=pos(0, 0),
                context=types.ReferenceContext(include_declaration=False),
            )
        )
        assert refs and refs[0].uri == agents

        # completion after @
        completions = await lsp.text_document_completion_async(
            types.CompletionParams(text_document=doc_id(agents), position=pos(2, 11))
        )
        items = (
            completions.items
            if isinstance(completions, types.CompletionList)
            else completions or []
        )
        assert any("style.md" in item.label for item in items)

        # code actions for the broken import: change to the closest file / create it
        report = await lsp.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=doc_id(agents))
        )
        assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
        actions = await lsp.text_document_code_action_async(
            types.CodeActionParams(
                text_document=doc_id(agents),
                range=report.items[0].range,
                context=types.CodeActionContext(diagnostics=list(report.items)),
            )
        )
        titles = [a.title for a in actions or [] if isinstance(a, types.CodeAction)]
        assert any("Create" in t for t in titles), titles

        symbols = await lsp.text_document_document_symbol_async(
            types.DocumentSymbolParams(text_document=doc_id(agents))
        )
        assert symbols
        found = await lsp.workspace_symbol_async(types.WorkspaceSymbolParams(query="api"))
        assert any(
            ".claude/rules/api.md" in (s.name + (s.container_name or "")) or "api" in s.name
            for s in found or []
        )
        hints = await lsp.text_document_inlay_hint_async(
            types.InlayHintParams(
                text_document=doc_id(agents), range=types.Range(start=pos(0, 0), end=pos(10, 0))
            )
        )
        assert hints
        lenses = await lsp.text_document_code_lens_async(
            types.CodeLensParams(text_document=doc_id(agents))
        )
        assert lenses and lenses[0].command is not None

        # willRenameFiles: the import follows the file; nothing is written
        edit = await lsp.workspace_will_rename_files_async(
            types.RenameFilesParams(
                files=[
                    types.FileRename(
                        old_uri=(tmp_path / "docs/style.md").as_uri(),
                        new_uri=(tmp_path / "docs/guide/style.md").as_uri(),
                    )
                ]
            )
        )
        assert edit is not None
        new_texts = [e.new_text for edits in (edit.changes or {}).values() for e in edits]
        new_texts += [
            e.new_text for dc in edit.document_changes or [] for e in getattr(dc, "edits", [])
        ]
        assert any("docs/guide/style.md" in t for t in new_texts), edit
        assert (tmp_path / "AGENTS.md").read_text() == FILES["AGENTS.md"]


async def test_hover_source_files_setting_and_neovim(tmp_path: Path) -> None:
    write(tmp_path, FILES)
    async with session(
        tmp_path, "neovim", init_options={"hover": {"sourceFiles": "everywhere"}}
    ) as lsp:
        source = open_doc(lsp, tmp_path / "src/api/orders.ts", language="typescript")
        text = hover_text(
            await lsp.text_document_hover_async(
                types.HoverParams(text_document=doc_id(source), position=pos(0, 5))
            )
        )
        assert "AGENTS.md" in text
        # a position past the end of the line and of the file
        assert (
            await lsp.text_document_hover_async(
                types.HoverParams(text_document=doc_id(source), position=pos(0, 500))
            )
            is not None
        )
        await lsp.text_document_hover_async(
            types.HoverParams(text_document=doc_id(source), position=pos(99, 0))
        )
    async with session(tmp_path, "neovim", init_options={"hover.sourceFiles": "off"}) as lsp:
        source = open_doc(lsp, tmp_path / "src/api/orders.ts", language="typescript")
        assert (
            await lsp.text_document_hover_async(
                types.HoverParams(text_document=doc_id(source), position=pos(0, 0))
            )
            is None
        )


async def test_a_did_you_mean_is_worked_out_for_the_quick_fix_and_the_hover(
    tmp_path: Path,
) -> None:
    """The diagnostic of a glob that matches nothing leaves its did-you-mean out (a check
    never searches for one); the quick fix and the hover on the glob work it out."""
    write(tmp_path, {
        ".claude/rules/pen.md": "---\npaths:\n  - src/features/magic-pen/**/*\n---\nPen.\n",
        "src/magic-pen/a.tsx": "",
        "AGENTS.md": "# Project\n",
    })
    async with session(tmp_path, "vscode") as lsp:
        rule = open_doc(lsp, tmp_path / ".claude/rules/pen.md")
        await pulled(lsp, rule, lambda c: c == ["unmatched-glob"])
        report = await lsp.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=doc_id(rule))
        )
        assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
        [dead] = report.items
        assert "Did you mean" not in dead.message
        actions = await lsp.text_document_code_action_async(
            types.CodeActionParams(
                text_document=doc_id(rule), range=dead.range,
                context=types.CodeActionContext(diagnostics=[dead]),
            )
        )
        fixes = [a for a in actions or [] if isinstance(a, types.CodeAction)
                 and a.title == "Change the glob to `src/magic-pen/**/*`"]
        assert fixes and fixes[0].edit is not None
        [edit] = [e for edits in (fixes[0].edit.changes or {}).values() for e in edits]
        assert edit.new_text == "src/magic-pen/**/*"
        text = hover_text(await lsp.text_document_hover_async(
            types.HoverParams(text_document=doc_id(rule), position=pos(2, 8))))
        assert "Did you mean `src/magic-pen/**/*`?" in text


async def test_rulemap_reach_answers_what_the_cli_answers(tmp_path: Path) -> None:
    """`rulemap/reach` is `rulemap reach --json` over the server's graph (docs/protocol.md);
    a `line`, `profiles`, a line past the end (null) and a bad line (InvalidParams)."""
    import json
    import subprocess
    import sys

    write(tmp_path, FILES)
    rule = tmp_path / ".claude/rules/api.md"
    async with session(tmp_path, "vscode") as lsp:
        uri = open_doc(lsp, rule)
        await pulled(lsp, uri, lambda c: c == [])
        got = await lsp.protocol.send_request_async("rulemap/reach", {"uri": uri})
        cli = subprocess.run(
            [sys.executable, "-m", "rulemap", "reach", str(rule), "--root", str(tmp_path),
             "--json"], capture_output=True, text=True, check=True, cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(REPO / "server")})
        answer = plain(got)
        expected = json.loads(cli.stdout)
        assert expected.pop("selection")  # the CLI's (`rulemap/profiles` says it to a client)
        assert expected.pop("platform") == "linux"  # the CLI's (tests/conftest.py: Linux)
        assert answer.pop("uri") == uri and answer == expected
        [cogitator] = [a for a in answer["agents"] if a["profile"] == "cogitator"]
        assert cogitator["files"] == 2 and cogitator["ways"][0]["reason"] == "scoped"
        # line 4 ("API rules.") of the rule, for Claude Code only
        one = plain(await lsp.protocol.send_request_async(
            "rulemap/reach", {"uri": uri, "line": 4, "profiles": ["claude-code"]}))
        assert one["line"] == 5 and [a["profile"] for a in one["agents"]] == ["claude-code"]
        assert await lsp.protocol.send_request_async(
            "rulemap/reach", {"uri": uri, "line": 99}) is None
        with pytest.raises(Exception, match="line"):
            await lsp.protocol.send_request_async("rulemap/reach", {"uri": uri, "line": -1})


async def test_the_who_loads_it_lens_comes_from_the_worker(tmp_path: Path) -> None:
    """A second lens on an instruction file says, per selected agent, how many files load it
    (docs/reach.md): computed in the worker when first asked (and again after an edit), the
    same counts as `rulemap reach`."""
    write(tmp_path, {**FILES, "CLAUDE.md": "@AGENTS.md\n"})
    async with session(tmp_path, "vscode") as lsp:
        agents = open_doc(lsp, tmp_path / "AGENTS.md")
        rule = open_doc(lsp, tmp_path / ".claude/rules/api.md")
        await pulled(lsp, agents, lambda c: c == ["broken-import"])

        async def who(uri: str) -> str:
            deadline = asyncio.get_running_loop().time() + 20
            while True:
                lenses = await lsp.text_document_code_lens_async(
                    types.CodeLensParams(text_document=doc_id(uri)))
                got = [lens.command.title for lens in lenses or [] if lens.command]
                if len(got) == 2:
                    return got[1]
                assert asyncio.get_running_loop().time() < deadline, got
                await asyncio.sleep(0.05)

        files = len(FILES) + 1
        assert await who(agents) == (f"who loads it: Cogitator (default) {files} · Claude Code "
                                     f"{files} · OpenAI Codex CLI {files}")
        assert await who(rule) == ("who loads it: Cogitator (default) 2 · Claude Code 2 · "
                                   "OpenAI Codex CLI never")


async def test_an_inlay_hint_marks_where_each_agents_budget_stops_reading(
    tmp_path: Path,
) -> None:
    """At the line where an agent's budget stops it reading a file, an inlay hint names the
    agent and how many files' loads stop there — the line `rulemap reach` gives."""
    from rulemap import analysis
    from rulemap.profiles import get_profile
    from rulemap.reach import reach

    long = "".join(f"line {i:04} of a long AGENTS.md, past Codex's budget at the end\n"
                   for i in range(700))
    write(tmp_path, {**FILES, "AGENTS.md": long, "CLAUDE.md": "@AGENTS.md\n"})
    ws = analysis.open_workspace(str(tmp_path))
    [codex] = reach(ws, "AGENTS.md", None, [get_profile("codex")], "").agents
    expected = codex.ways[0].cut_line
    assert expected is not None
    async with session(tmp_path, "vscode") as lsp:
        agents = open_doc(lsp, tmp_path / "AGENTS.md")
        deadline = asyncio.get_running_loop().time() + 20
        while True:
            hints = await lsp.text_document_inlay_hint_async(types.InlayHintParams(
                text_document=doc_id(agents),
                range=types.Range(start=pos(0, 0), end=pos(700, 0))))
            marks = [(h.position.line, str(h.label)) for h in hints or []
                     if "stops reading" in str(h.label)]
            if any("Codex" in label for _, label in marks):
                break
            assert asyncio.get_running_loop().time() < deadline, marks
            await asyncio.sleep(0.05)
        [(line, label)] = [m for m in marks if "Codex" in m[1]]
        assert line == expected
        assert label == f"OpenAI Codex CLI stops reading in this line for {len(FILES) + 1} files "
