"""Side by side in the editor (docs/protocol.md): `rulemap/compare`, `selected` in
`rulemap/profiles`, `overBudget`/`leftOutUris` on explanations, `graphChanged.rulesChanged`
and the agents table of a source-file hover — against the real server with the toy agents of
toy_profile.py registered (tests/lsp/toy_server.py), so the loads are predictable."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from tests.lsp.conftest import (
    change_doc,
    open_doc,
    plain,
    pulled,
    serve_module,
    session,
    wait_for,
    write,
)

# as in tests/core/test_compare.py: toy (20 bytes shared) loads TOY.md whole, cuts src/TOY.md
# to 8 bytes and leaves src/api/TOY.md out; toy-tokens (3 tokens a file) truncates
# src/TOKENS.md; cogitator loads AGENTS.md
FILES = {
    "TOY.md": "root toy 12\n",
    "src/TOY.md": "src toy 12b\n",
    "src/api/TOY.md": "api\n",
    "TOKENS.md": "tok\n",
    "src/TOKENS.md": "t" * 19 + "\n",
    "AGENTS.md": "Project.\n",
    ".claude/rules/api.md": '---\npaths:\n  - "src/api/**"\n---\nAPI rules.\n',
    "src/api/users.ts": "export const users = 1;\n",
    "rulemap.toml": 'profiles = ["toy", "toy-tokens", "cogitator"]\n',
}
SELECTED = ["toy", "toy-tokens", "cogitator"]


@pytest.fixture(autouse=True)
def toy_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """conftest.session, but starting `rulemap serve` with the toy agents registered."""
    serve_module(monkeypatch, "tests.lsp.toy_server")


async def request(lsp: Any, method: str, params: Any) -> Any:
    return plain(await lsp.protocol.send_request_async(method, params))


async def test_compare_every_selected_agent(tmp_path: Path) -> None:
    write(tmp_path, FILES)
    async with session(tmp_path, "vscode") as lsp:
        users = (tmp_path / "src/api/users.ts").as_uri()
        data = await request(lsp, "rulemap/compare", {"uri": users})
        assert data["uri"] == users and data["target"] == "src/api/users.ts"
        assert [c["profile"] for c in data["columns"]] == SELECTED
        toy, tokens, cogitator = data["columns"]
        assert toy["title"] == "Toy agent"
        assert toy["summary"] == "2 files, 20 of 20 bytes, cut: src/TOY.md, 1 left out"
        assert toy["overBudget"] is True
        assert tokens["summary"] == "2 files, 4 tokens, cut: src/TOKENS.md"
        assert tokens["overBudget"] is True
        assert cogitator["overBudget"] is False
        # each explanation is what rulemap/effectiveInstructions answers for that agent
        for col in data["columns"]:
            alone = await request(
                lsp, "rulemap/effectiveInstructions", {"uri": users, "profile": col["profile"]}
            )
            assert alone.pop("uri") == users
            assert col["explanation"] == alone
        explanation = toy["explanation"]
        assert [f["uri"] for f in explanation["files"]] == [
            (tmp_path / "TOY.md").as_uri(), (tmp_path / "src/TOY.md").as_uri()]
        assert explanation["leftOut"] == ["src/api/TOY.md"]
        assert explanation["leftOutUris"] == [(tmp_path / "src/api/TOY.md").as_uri()]
        assert explanation["overBudget"] is True
        assert explanation["budget"] == {"kind": "shared", "unit": "bytes", "limit": 20}

        # chosen agents, in the order given
        chosen = await request(
            lsp, "rulemap/compare", {"uri": users, "profiles": ["cogitator", "toy-tokens"]}
        )
        assert [c["profile"] for c in chosen["columns"]] == ["cogitator", "toy-tokens"]
        # not a file of a folder: null; bad params: errors that name the problem
        assert await request(lsp, "rulemap/compare", {"uri": "file:///elsewhere/x.ts"}) is None
        for params in ({"uri": users, "profiles": ["nope"]}, {"uri": users, "profiles": "toy"},
                       {"uri": users, "profiles": [3]}, {}):
            with pytest.raises(JsonRpcException):
                await lsp.protocol.send_request_async("rulemap/compare", params)
        # still serving
        assert await request(lsp, "rulemap/compare", {"uri": users}) == data


async def test_profiles_selected_and_every_name_explains(tmp_path: Path) -> None:
    write(tmp_path, FILES)
    async with session(tmp_path, "vscode") as lsp:
        users = (tmp_path / "src/api/users.ts").as_uri()
        await request(lsp, "rulemap/effectiveInstructions", {"uri": users})  # indexed
        listed = await request(lsp, "rulemap/profiles", {})
        names = [p["name"] for p in listed["profiles"]]
        assert {"cogitator", "mastra", "claude-code", "codex", "gemini", "copilot", "cursor",
                "toy", "toy-tokens"} <= set(names)
        assert listed["selected"] == SELECTED and listed["active"] == "cogitator"
        for name in names:
            result = await request(
                lsp, "rulemap/effectiveInstructions", {"uri": users, "profile": name}
            )
            assert result["profile"] == name
            assert isinstance(result["overBudget"], bool)
            assert len(result["leftOutUris"]) == len(result["leftOut"])
            assert all(f["uri"].startswith("file://") for f in result["files"])
        toy = await request(lsp, "rulemap/effectiveInstructions", {"uri": users, "profile": "toy"})
        assert toy["overBudget"] is True
        assert toy["leftOutUris"] == [(tmp_path / "src/api/TOY.md").as_uri()]


async def test_profiles_selected_defaults_to_detection(tmp_path: Path) -> None:
    write(tmp_path, {"AGENTS.md": "Hi.\n", "x.ts": ""})
    async with session(tmp_path, "neovim") as lsp:
        await request(lsp, "rulemap/effectiveInstructions", {"uri": (tmp_path / "x.ts").as_uri()})
        listed = await request(lsp, "rulemap/profiles", {})
        # cogitator always; toys never detect themselves
        assert listed["selected"][0] == "cogitator"
        assert "toy" not in listed["selected"]


async def quiet(lsp: Any) -> None:
    """Wait until no graphChanged is pending, then forget the ones seen."""
    await wait_for(lambda: lsp.graph_changes, what="the first graphChanged")
    count = -1
    while count != len(lsp.graph_changes):
        count = len(lsp.graph_changes)
        await asyncio.sleep(0.5)
    lsp.graph_changes.clear()


async def next_change(lsp: Any, uri: str) -> Any:
    return await wait_for(
        lambda: next((p for p in lsp.graph_changes if uri in p.uris), None),
        what=f"graphChanged naming {uri}",
    )


async def test_graph_changed_says_whether_rule_matches_moved(tmp_path: Path) -> None:
    write(tmp_path, FILES)
    async with session(tmp_path, "vscode") as lsp:
        agents = open_doc(lsp, tmp_path / "AGENTS.md")
        rule = open_doc(lsp, tmp_path / ".claude/rules/api.md")
        await pulled(lsp, agents, lambda c: True)
        await quiet(lsp)

        # prose of an instruction file: no rule matches moved
        change_doc(lsp, agents, "Project, edited.\n", 2)
        assert (await next_change(lsp, agents)).rulesChanged is False
        await quiet_after(lsp)

        # a rule's globs: they did
        change_doc(lsp, rule, '---\npaths:\n  - "src/**"\n---\nAPI rules.\n', 2)
        assert (await next_change(lsp, rule)).rulesChanged is True
        await quiet_after(lsp)

        # a file created on disk (a glob may match it): they may have
        created = tmp_path / "src/api/new.ts"
        created.write_text("x\n")
        lsp.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[types.FileEvent(uri=created.as_uri(), type=types.FileChangeType.Created)]
            )
        )
        assert (await next_change(lsp, created.as_uri())).rulesChanged is True


async def quiet_after(lsp: Any) -> None:
    await asyncio.sleep(0.5)
    lsp.graph_changes.clear()


async def test_source_hover_lists_every_selected_agent(tmp_path: Path) -> None:
    write(tmp_path, FILES)
    async with session(tmp_path, "neovim") as lsp:
        users = tmp_path / "src/api/users.ts"
        uri = open_doc(lsp, users, language="typescript")
        hover = await lsp.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=0, character=0),
            )
        )
        assert hover is not None and isinstance(hover.contents, types.MarkupContent)
        text = hover.contents.value
        assert "| agent | files | size | cut / left out |" in text
        assert "| toy | 2 | 20 / 20 bytes | cut `src/TOY.md` · 1 left out |" in text
        assert "| toy-tokens | 2 | 4 tokens | cut `src/TOKENS.md` |" in text
        assert "| **cogitator** | 2 |" in text  # the agent detailed above, in bold
        table = [line for line in text.splitlines() if line.startswith("|")]
        assert len(table) == 2 + len(SELECTED)
