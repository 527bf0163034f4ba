"""The server follows the CLI's agent selection (issue 36): with no `rulemap.profile` and no
`profile` in rulemap.toml, a repository written for Gemini CLI alone — where the default model
reads no file — is shown for Gemini CLI; `rulemap/profiles` says which agents were selected and
why, and the hover of a source file names them. A user's pick still wins, and where it loads
nothing the hover names the agent that does."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lsprotocol import types
from tests.lsp.conftest import open_doc, plain, session, write

FILES = {
    "GEMINI.md": "# Project\n\nUse tabs.\n",
    "src/a.ts": "x\n",
}


async def indexed_profiles(lsp: Any) -> dict[str, Any]:
    """`rulemap/profiles` once the folder is indexed (its answer then says the selection)."""
    for _ in range(500):
        found = plain(await lsp.protocol.send_request_async("rulemap/profiles", {}))
        if "selection" in found:
            return found  # type: ignore[no-any-return]
        await asyncio.sleep(0.02)
    raise AssertionError("the folder was never indexed")


async def hover_text(lsp: Any, uri: str) -> str:
    hover = await lsp.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=0, character=0),
    ))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    return hover.contents.value  # type: ignore[no-any-return]


async def test_a_gemini_only_workspace_is_shown_for_gemini(tmp_path: Path) -> None:
    write(tmp_path, FILES)
    async with session(tmp_path, configuration={}) as lsp:
        source = open_doc(lsp, tmp_path / "src/a.ts", language="typescript")
        profiles = await indexed_profiles(lsp)
        assert profiles["active"] == "gemini"
        assert profiles["selection"] == [
            {"name": "cogitator", "title": "Cogitator (default)", "why": "the default model"},
            {"name": "gemini", "title": "Gemini CLI", "why": "GEMINI.md"},
        ]
        assert profiles["lead"]["name"] == "gemini" and profiles["lead"]["why"] == "GEMINI.md"
        assert "cogitator, the default model, reads no instruction file here" in (
            profiles["lead"]["note"])
        loaded = plain(await lsp.protocol.send_request_async(
            "rulemap/effectiveInstructions", {"uri": source}))
        assert loaded["profile"] == "gemini"
        assert [f["path"] for f in loaded["files"]] == ["GEMINI.md"]
        text = await hover_text(lsp, source)
        assert "· gemini ·" in text and "GEMINI.md" in text
        assert "Selected: `cogitator` (the default model), `gemini` (GEMINI.md)." in text


async def test_a_pick_wins_and_an_empty_load_names_the_agent_that_loads(tmp_path: Path) -> None:
    write(tmp_path, FILES)
    async with session(tmp_path, configuration={"profile": "cogitator"}) as lsp:
        source = open_doc(lsp, tmp_path / "src/a.ts", language="typescript")
        profiles = await indexed_profiles(lsp)
        assert profiles["active"] == "cogitator"
        # the editor's setting picks the agent: the lead follows it, named as the setting's
        assert profiles["lead"] == {"name": "cogitator", "why": "the rulemap.profile setting"}
        loaded = plain(await lsp.protocol.send_request_async(
            "rulemap/effectiveInstructions", {"uri": source}))
        assert loaded["profile"] == "cogitator" and loaded["files"] == []
        text = await hover_text(lsp, source)
        assert "· cogitator ·" in text
        assert "cogitator loads nothing for src/a.ts; gemini does: pick gemini" in text


async def test_a_workspace_the_default_model_reads_stays_on_it(tmp_path: Path) -> None:
    write(tmp_path, {**FILES, "AGENTS.md": "Rules.\n"})
    async with session(tmp_path, configuration={}) as lsp:
        profiles = await indexed_profiles(lsp)
        assert profiles["active"] == "cogitator"
        assert profiles["lead"] == {"name": "cogitator", "why": "the default model"}
        assert [a["name"] for a in profiles["selection"]] == ["cogitator", "codex", "gemini"]
