"""`rulemap/map` (docs/protocol.md): the page `rulemap map --html` writes, as a string, for the
workspace folder a URI names — what the editor's "Instruction Map" webview shows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.lsp.conftest import open_doc, plain, pulled, session, write

FILES = {
    "AGENTS.md": "# Project\n\nRead @docs/style.md first.\n",
    "docs/style.md": "Style guide: four spaces.\n",
    ".claude/rules/api.md": '---\npaths:\n  - "src/api/**/*.ts"\n---\nAPI rules.\n',
    "src/api/users.ts": "export const users = 1;\n",
    "src/web/app.ts": "export const app = 1;\n",
}


def _data(html: str) -> dict[str, object]:
    start = html.index('id="rulemap-data">') + len('id="rulemap-data">')
    return json.loads(html[start:html.index("</script>", start)])  # type: ignore[no-any-return]


async def test_the_map_of_a_folder_or_of_a_file_s_folder(tmp_path: Path) -> None:
    write(tmp_path, FILES)
    async with session(tmp_path, "vscode") as lsp:
        uri = open_doc(lsp, tmp_path / "AGENTS.md")
        await pulled(lsp, uri, lambda c: c == [])
        got = plain(await lsp.protocol.send_request_async(
            "rulemap/map", {"uri": tmp_path.as_uri()}))
        assert set(got) == {"html"} and got["html"].startswith("<!DOCTYPE html>")
        data = _data(got["html"])
        assert data["files"] == len(FILES)
        nodes = {n["id"]: n for n in data["graph"]["nodes"]}  # type: ignore[index, union-attr]
        assert nodes["AGENTS.md"]["reach"]["cogitator"]["files"] == len(FILES)
        assert nodes[".claude/rules/api.md"]["reach"]["cogitator"]["files"] == 1
        # a file of the folder names it too; `profiles` chooses the agents
        one = plain(await lsp.protocol.send_request_async(
            "rulemap/map", {"uri": uri, "profiles": ["codex"]}))
        assert [a["name"] for a in _data(one["html"])["agents"]] == ["codex"]  # type: ignore[union-attr]
        # outside every folder: null
        outside = plain(await lsp.protocol.send_request_async(
            "rulemap/map", {"uri": (tmp_path.parent / "elsewhere").as_uri()}))
        assert outside is None
        for params, message in (({}, "uri"), ({"uri": uri, "profiles": "codex"}, "list"),
                                ({"uri": uri, "profiles": ["nope"]}, "unknown profile")):
            with pytest.raises(Exception, match=message):
                await lsp.protocol.send_request_async("rulemap/map", params)
