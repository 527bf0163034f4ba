"""An edit's own diagnostics go out before the server walks the import graph again
(`publishing._run_local`): the edited document is published first, while which documents
are linted is still of the text before the edit; then a document the edit stopped importing
is no longer linted and its diagnostics are cleared."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lsprotocol import types
from tests.lsp.quiet_port import QuietPort

from rulemap.lsp.state import Engine

TREE = {
    "AGENTS.md": "# root\n\nSee @docs/a.md\n",
    "docs/a.md": "# a\n\nSee @docs/missing-in-a.md\n",
}


class _Port(QuietPort):
    def __init__(self) -> None:
        self.published: list[tuple[str, list[str], Any]] = []
        self.engine: Engine | None = None

    def publish(self, uri: str, diagnostics: list[types.Diagnostic], version: int | None) -> None:
        folder = next(iter(self.engine.folders.values())) if self.engine else None
        host = folder.host if folder else None
        stale = folder is not None and host is not None and folder.linted_at != host.generation
        self.published.append((uri, [str(d.code) for d in diagnostics], stale))


async def _edit(root: Path) -> list[tuple[str, list[str], Any]]:
    port = _Port()
    engine = Engine(port, asyncio.get_running_loop())
    port.engine = engine
    engine.init_options = {"diagnostics": {"debounceMs": 0}}
    folder = engine.add_folder(root.as_uri())
    assert folder is not None
    await engine.load_settings([folder], pull=False)
    await engine.index(folder)
    while folder.check_running:
        await asyncio.sleep(0.02)
    uri = (root / "AGENTS.md").as_uri()
    engine.did_open(uri, TREE["AGENTS.md"], 1)
    await asyncio.sleep(0.1)
    port.published.clear()
    engine.did_change(uri, "# root\n\nSee @docs/gone.md\n", 2)
    for _ in range(200):  # until the whole check after the edit is published
        await asyncio.sleep(0.02)
        if not folder.check_running and folder.full_timer is None and port.published:
            break
    engine.close()
    return port.published


def test_the_edited_document_first_then_the_graph(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    for key, text in TREE.items():
        (tmp_path / key).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / key).write_text(text)
    published = asyncio.run(_edit(tmp_path))
    agents, imported = (tmp_path / "AGENTS.md").as_uri(), (tmp_path / "docs/a.md").as_uri()
    assert published[0][0] == agents
    assert "broken-import" in published[0][1]
    assert published[0][2]  # published before which documents are linted was decided again
    # docs/a.md is imported no more: not linted, its broken import no longer reported
    cleared = [codes for uri, codes, _ in published if uri == imported]
    assert cleared and cleared[-1] == []
