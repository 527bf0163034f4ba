"""An edit of Gemini CLI's `.gemini/settings.json` changes what the editor says Gemini reads:
the server watches the file and re-opens the folder when it changes, as for rulemap.toml."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lsprotocol import types
from tests.lsp.conftest import open_doc, plain, session, write

SETTINGS = ".gemini/settings.json"


async def _why(lsp: Any, uri: str) -> dict[str, Any]:
    got = plain(await lsp.protocol.send_request_async(
        "rulemap/why", {"uri": uri, "text": "Use pnpm", "profiles": ["gemini"]}))
    [verdict] = got["agents"]
    assert isinstance(verdict, dict)
    return verdict


def _changed(lsp: Any, path: Path) -> None:
    lsp.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=path.as_uri(), type=types.FileChangeType.Changed)]))


async def test_an_edit_of_gemini_settings_changes_what_gemini_reads(tmp_path: Path) -> None:
    write(tmp_path, {"AGENTS.md": "# P\n\nUse pnpm.\n",
                     SETTINGS: '{"context": {"fileName": ["AGENTS.md"]}}\n'})
    async with session(tmp_path, "vscode") as lsp:
        uri = open_doc(lsp, tmp_path / "AGENTS.md")
        assert (await _why(lsp, uri))["seen"]  # AGENTS.md is a context file by the setting
        write(tmp_path, {SETTINGS: '{"context": {}}\n'})
        _changed(lsp, tmp_path / SETTINGS)

        deadline = asyncio.get_running_loop().time() + 20
        while (verdict := await _why(lsp, uri))["seen"]:
            assert asyncio.get_running_loop().time() < deadline, "the edit never reached it"
            await asyncio.sleep(0.1)
        # only GEMINI.md now, which it would need the sentence in
        assert [a["path"] for a in verdict["advice"]] == ["GEMINI.md"]
