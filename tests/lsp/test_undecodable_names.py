"""A file name that is not valid UTF-8 in a served folder: its diagnostics are published under a
URI with its exact bytes (`%FF%FE`), its messages show them as `\\xff\\xfe` (as the CLI does),
and the rest of the folder is published too (`uri_for` used to raise on it, which stopped every
publish of the folder)."""

from __future__ import annotations

import os
from pathlib import Path

from tests.lsp.conftest import pushed, session, write


async def test_diagnostics_of_a_name_that_is_not_utf8(tmp_path: Path) -> None:
    write(tmp_path, {"AGENTS.md": "See @docs/missing.md for more.\n"})
    (tmp_path / ".claude/rules").mkdir(parents=True)
    with open(os.path.join(os.fsencode(tmp_path), b".claude/rules/\xff\xfe.md"), "wb") as f:
        f.write(b"")
    async with session(tmp_path, "neovim") as lsp:
        uri = tmp_path.as_uri() + "/.claude/rules/%FF%FE.md"
        diags = await pushed(lsp, uri, lambda c: "non-utf8-name" in c)
        (named,) = [d for d in diags if d.code == "non-utf8-name"]
        assert "`.claude/rules/\\xff\\xfe.md` is not valid UTF-8" in named.message
        # sorted after the bad name: published all the same
        await pushed(lsp, (tmp_path / "AGENTS.md").as_uri(), lambda c: "broken-import" in c)


def test_every_answer_the_server_sends_is_strict_json() -> None:
    """Whatever an answer holds (a location, a hover naming such a file), the server's
    serializer shows a surrogate as `\\xNN`: json.dumps then writes no lone `\\udcff` escape,
    which strict JSON readers (serde_json, Go's encoding/json in strict mode) reject."""
    import json

    from lsprotocol import types

    from rulemap.lsp.server import RulemapServer

    protocol = RulemapServer().protocol
    name = os.fsdecode(b"/w/.claude/rules/\xff\xfe.md")
    answer = types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown,
                                                      value=f"loads `{name}`"))
    body = json.dumps(answer, default=protocol._serialize_message)
    assert "\\udc" not in body and "\\\\xff\\\\xfe.md" in body
    json.loads(body)  # and it is JSON
