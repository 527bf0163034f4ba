"""A file read under another name in the editor (issue #39 item 9, docs/reach.md "A file read
under another name"): with `CLAUDE.md` a symlink to `AGENTS.md`, the views on `AGENTS.md`
say that Claude Code reads its text as `CLAUDE.md` — the "who loads it" lens, the "who sees
this paragraph" hover (a stripped comment said once, for the text), the first lens when the
`profile` setting is Claude Code, and `rulemap/reach` — never that it does not read it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from tests.lsp.conftest import hover_text, open_doc, plain, pulled, session, write

# the other name Claude Code reads AGENTS.md under, as JSON (`through`)
CLAUDE_VIA = {"path": "CLAUDE.md", "how": "symlink", "real": "AGENTS.md",
              "text": "reads its text as `CLAUDE.md` (a symlink to `AGENTS.md`)"}

FILES = {
    "AGENTS.md": "# Project\n\nUse pnpm.\n\n<!-- Maintainers: keep this short. -->\n",
    "src/a.ts": "x\n",
}


def _id(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


async def test_the_views_on_agents_md_say_claude_code_reads_it_as_claude_md(
        tmp_path: Path) -> None:
    write(tmp_path, FILES)
    (tmp_path / "CLAUDE.md").symlink_to("AGENTS.md")
    files = len(FILES) + 1
    async with session(tmp_path, "vscode") as lsp:
        uri = open_doc(lsp, tmp_path / "AGENTS.md")
        await pulled(lsp, uri, lambda codes: True)

        async def lenses() -> list[str]:
            deadline = asyncio.get_running_loop().time() + 20
            while True:  # the second lens comes once the worker's overview is ready
                got = await lsp.text_document_code_lens_async(types.CodeLensParams(
                    text_document=_id(uri)))
                titles = [lens.command.title for lens in got or [] if lens.command]
                if len(titles) == 2:
                    return titles
                assert asyncio.get_running_loop().time() < deadline, titles
                await asyncio.sleep(0.05)

        async def hover(line: int) -> str:
            return await hover_text(lsp, uri, line)

        who = (await lenses())[1]
        assert who == (f"who loads it: Cogitator (default) {files} · Claude Code {files} as "
                       f"CLAUDE.md · OpenAI Codex CLI {files}")
        assert "never" not in who

        via = "reading it as `CLAUDE.md` (a symlink to `AGENTS.md`)"
        text = await hover(2)  # "Use pnpm."
        assert f"**Claude Code**, {via}: all {files} files that load it" in text
        assert f"**OpenAI Codex CLI**: all {files} files that load it" in text
        text = await hover(4)  # the comment: stripped, said once, for the text
        assert f"**Claude Code**, {via}: no — inside an HTML comment, which it removes" in text
        assert text.count("inside an HTML comment") == 2  # Claude Code and Cogitator, not Codex

        # `rulemap/reach` carries the other name as data, as `rulemap reach --json` does
        answer = plain(await lsp.protocol.send_request_async("rulemap/reach", {"uri": uri}))
        claude = next(a for a in answer["agents"] if a["profile"] == "claude-code")
        assert claude["never"] is None and claude["files"] == files
        assert claude["ways"][0]["through"] == CLAUDE_VIA

        # the Instructions view's request says which entry is another file's text, as
        # `explain --json` does
        loaded = plain(await lsp.protocol.send_request_async("rulemap/effectiveInstructions", {
            "uri": (tmp_path / "src/a.ts").as_uri(), "profile": "claude-code"}))
        assert [f["path"] for f in loaded["files"]] == ["CLAUDE.md"]
        assert loaded["readAs"] == [{"path": "CLAUDE.md", "how": "symlink", "real": "AGENTS.md"}]

        # the first lens speaks for the `profile` setting's agent: Claude Code's says the name
        lsp.set_configuration({"profile": "claude-code"}, section="rulemap")
        lsp.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        deadline = asyncio.get_running_loop().time() + 20
        while not (first := (await lenses())[0]).startswith("loaded as"):
            assert asyncio.get_running_loop().time() < deadline, first
            await asyncio.sleep(0.05)
        assert first.startswith(f"loaded as CLAUDE.md (a symlink to AGENTS.md): loaded for "
                                f"{files} files · ")
