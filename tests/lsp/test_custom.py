"""Rulemap's own requests (docs/protocol.md), exactly as the VS Code extension consumes them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from tests.lsp.conftest import (
    REPO,
    change_doc,
    open_doc,
    plain,
    pulled,
    server_env,
    session,
    wait_for,
    write,
)

FILES = {
    "AGENTS.md": "# Project\n\nRead @docs/style.md first.\n",
    "docs/style.md": "Style guide.\n",
    ".claude/rules/api.md": '---\npaths:\n  - "src/api/**/*.ts"\n---\nAPI rules.\n',
    ".claude/rules/general.md": "Be nice.\n",
    "src/api/users.ts": "export const users = 1;\n",
    "src/web/app.ts": "app\n",
}


def cli_explain(root: Path, target: str) -> dict:  # type: ignore[type-arg]
    out = subprocess.run(
        [sys.executable, "-m", "rulemap", "explain", target, "--root", str(root), "--json"],
        cwd=root,
        env=server_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    data = json.loads(out.stdout)
    # who answered and why: the CLI's own (`rulemap/profiles` says it to a client)
    assert data.pop("selection") and data.pop("answeredFor")
    assert data.pop("platform") == "linux"  # the CLI's; tests/conftest.py pins Linux
    return data  # type: ignore[no-any-return]


async def test_custom_requests(tmp_path: Path) -> None:
    write(tmp_path, FILES)
    async with session(tmp_path, "vscode") as lsp:
        users = (tmp_path / "src/api/users.ts").as_uri()
        result = await lsp.protocol.send_request_async(
            "rulemap/effectiveInstructions", {"uri": users}
        )
        data = plain(result)
        expected = cli_explain(tmp_path, "src/api/users.ts")
        assert data["uri"] == users
        for entry in data["files"]:
            assert entry.pop("uri").startswith("file://")
            entry.pop("line", None)
        # the CLI's JSON plus what a client needs to open files and colour the load
        assert data.pop("leftOutUris") == [] and data.pop("overBudget") is False
        assert {k: v for k, v in data.items() if k != "uri"} == expected
        with_text = await lsp.protocol.send_request_async(
            "rulemap/effectiveInstructions",
            {"uri": users, "includeText": True, "profile": "mastra"},
        )
        assert with_text.profile == "mastra" and isinstance(with_text.text, str)
        default = await lsp.protocol.send_request_async(
            "rulemap/effectiveInstructions", {"uri": users, "includeText": True}
        )
        style = next(f for f in default.files if f.path == "docs/style.md")
        assert style.line == 2 and style.uri == (tmp_path / "docs/style.md").as_uri()
        assert "Style guide." in default.text
        # outside every folder, or not a file: null
        assert (
            await lsp.protocol.send_request_async(
                "rulemap/effectiveInstructions", {"uri": "file:///elsewhere/x.ts"}
            )
            is None
        )
        assert (
            await lsp.protocol.send_request_async(
                "rulemap/effectiveInstructions", {"uri": "untitled:Untitled-1"}
            )
            is None
        )
        with pytest.raises(JsonRpcException):
            await lsp.protocol.send_request_async(
                "rulemap/effectiveInstructions", {"uri": users, "profile": "nope"}
            )
        with pytest.raises(JsonRpcException):
            await lsp.protocol.send_request_async("rulemap/effectiveInstructions", {})

        rules = await lsp.protocol.send_request_async("rulemap/rulesForFile", {"uri": users})
        assert [(r.path, r.globs, r.matchedBy) for r in rules.rules] == [
            (".claude/rules/api.md", ["src/api/**/*.ts"], "src/api/**/*.ts")
        ]
        assert rules.rules[0].uri == (tmp_path / ".claude/rules/api.md").as_uri()
        none = await lsp.protocol.send_request_async(
            "rulemap/rulesForFile", {"uri": (tmp_path / "src/web/app.ts").as_uri()}
        )
        assert none.rules == []

        files = await lsp.protocol.send_request_async("rulemap/instructionFiles", {})
        by_path = {f.path: f for f in files.files}
        assert set(by_path) == {"AGENTS.md", ".claude/rules/api.md", ".claude/rules/general.md"}
        api = by_path[".claude/rules/api.md"]
        assert (api.kind, api.scoped, api.matches) == ("rule", True, 1)
        assert by_path["AGENTS.md"].kind == "instruction" and by_path["AGENTS.md"].matches is None
        assert by_path["AGENTS.md"].problems._asdict() == {
            "error": 0,
            "warning": 0,
            "information": 0,
            "hint": 0,
        }
        assert by_path["AGENTS.md"].chars > 0

        graph = await lsp.protocol.send_request_async("rulemap/graph", {})
        assert len(graph.roots) == 1 and graph.roots[0].root == str(tmp_path)
        assert any(e.to == "docs/style.md" for e in graph.roots[0].edges)

        profiles = await lsp.protocol.send_request_async("rulemap/profiles", {})
        assert profiles.active == "cogitator"
        assert {p.name for p in profiles.profiles} >= {"cogitator", "mastra"}

        # graphChanged after an edit, naming the edited file
        agents = open_doc(lsp, tmp_path / "AGENTS.md")
        await pulled(lsp, agents, lambda c: c == [])
        lsp.graph_changes.clear()  # type: ignore[attr-defined]
        change_doc(lsp, agents, "# Project\n\n@docs/missing.md\n", 2)
        await wait_for(
            lambda: any(agents in p.uris for p in lsp.graph_changes),  # type: ignore[attr-defined]
            what="rulemap/graphChanged",
        )
        files = await lsp.protocol.send_request_async("rulemap/instructionFiles", {})
        agents_info = next(f for f in files.files if f.path == "AGENTS.md")
        assert agents_info.problems.error == 1


def test_protocol_doc_lists_every_custom_method() -> None:
    from rulemap.lsp.requests import CUSTOM

    doc = (REPO / "docs/protocol.md").read_text()
    for method in (*CUSTOM, "rulemap/graphChanged"):
        assert f"`{method}`" in doc


async def test_unknown_request_is_an_error(tmp_path: Path) -> None:
    write(tmp_path, {"AGENTS.md": "Hi.\n"})
    async with session(tmp_path, "neovim") as lsp:
        with pytest.raises(JsonRpcException):
            await lsp.protocol.send_request_async("rulemap/nope", {})
        # still alive
        result = await lsp.protocol.send_request_async("rulemap/profiles", {})
        assert result.active == "cogitator"
        hover = await lsp.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=(tmp_path / "AGENTS.md").as_uri()),
                position=types.Position(line=0, character=0),
            )
        )
        assert hover is None or hover.contents
