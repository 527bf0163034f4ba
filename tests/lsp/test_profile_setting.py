"""The `profile` setting is the agent every view speaks for (issue 17): switching it with
workspace/didChangeConfiguration changes what hovers, code lenses and inlay hints say — units,
budgets, glob verdicts — and asks the client to refresh its lenses and hints."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lsprotocol import types
from tests.lsp.conftest import (
    open_doc,
    pulled_where,
    session,
    vscode_capabilities,
    wait_for,
    write,
)

FILES = {
    "AGENTS.md": "Project rules.\n@docs/guide.md\n",
    "docs/guide.md": "Guide é.\n",  # 9 characters, 10 bytes
    "CLAUDE.md": "Claude.\n",
    ".claude/rules/upper.md": '---\npaths: ["SRC/**"]\n---\nUpper rule.\n',
    "src/a.ts": "x\n",
}


def text_of(hover: types.Hover | None) -> str:
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    return hover.contents.value


async def test_switching_the_profile_setting_changes_every_view(tmp_path: Path) -> None:
    write(tmp_path, FILES)
    caps = vscode_capabilities()
    assert caps.workspace is not None
    caps.workspace.code_lens = types.CodeLensWorkspaceClientCapabilities(refresh_support=True)
    caps.workspace.inlay_hint = types.InlayHintWorkspaceClientCapabilities(refresh_support=True)
    async with session(tmp_path, capabilities=caps, configuration={}) as lsp:
        refreshed: list[str] = []

        @lsp.feature(types.WORKSPACE_CODE_LENS_REFRESH)
        def _lens_refresh(params: Any) -> None:
            refreshed.append("codeLens")

        @lsp.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
        def _inlay_refresh(params: Any) -> None:
            refreshed.append("inlayHint")

        source = open_doc(lsp, tmp_path / "src/a.ts", language="typescript")
        agents = open_doc(lsp, tmp_path / "AGENTS.md")
        rule = open_doc(lsp, tmp_path / ".claude/rules/upper.md")

        async def hover(uri: str, line: int, character: int) -> str:
            return text_of(await lsp.text_document_hover_async(types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=line, character=character),
            )))

        async def lens(uri: str) -> str:
            """The first lens: the selected agent's (a second, "who loads it", lists every
            agent and does not change with the setting)."""
            found = (await lsp.text_document_code_lens_async(
                types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
            ) or [])[0]
            assert found.command is not None
            return found.command.title

        async def hints(uri: str) -> list[str]:
            got = await lsp.text_document_inlay_hint_async(types.InlayHintParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=types.Range(start=types.Position(line=0, character=0),
                                  end=types.Position(line=5, character=0)),
            )) or []
            return [str(h.label) for h in got]

        async def switch(profile: str) -> str:
            """Switch the setting; the source file's hover once it speaks for `profile`, after
            the client was asked to refresh its lenses and hints (a refresh may come for
            another reason too — a new "who loads it" overview —, so the hover decides)."""
            lenses, inlays = refreshed.count("codeLens"), refreshed.count("inlayHint")
            lsp.set_configuration({"profile": profile}, section="rulemap")
            lsp.workspace_did_change_configuration(
                types.DidChangeConfigurationParams(settings=None))
            deadline = asyncio.get_running_loop().time() + 20
            while f"· {profile} ·" not in (text := await hover(source, 0, 0)):
                assert asyncio.get_running_loop().time() < deadline, text
                await asyncio.sleep(0.05)
            await wait_for(lambda: refreshed.count("codeLens") > lenses
                           and refreshed.count("inlayHint") > inlays, what="refreshes")
            return text

        # the default model: characters of maxChars, its glob dialect
        await pulled_where(lsp, agents, lambda d: True)
        assert "of 32,000 chars**" in await hover(source, 0, 0)
        assert await hints(agents) == ["9 chars"]
        assert (await hover(rule, 1, 10)).startswith("**`SRC/**`** matches 0 files")

        # Codex: bytes of project_doc_max_bytes, in the hover, the lens and the hints
        text = await switch("codex")
        assert "· codex ·" in text and "**30 of 32,768 bytes** (0%)" in text
        assert await hints(agents) == ["10 bytes"]
        assert (await lens(agents)).endswith("· 30 bytes")

        # Claude Code: no shared budget, and its glob dialect (`SRC/**` is any `src`, any case)
        text = await switch("claude-code")
        assert "**20 chars · no shared budget**" in text and "of 0" not in text
        assert "rule, `paths` matches `SRC/**`" in text
        assert (await hover(rule, 1, 10)).startswith("**`SRC/**`** matches 1 file")
        assert (await lens(rule)).startswith("matches 1 file")
