"""After a storm of unsaved edits, saves, closes, creations and deletions on a generated
monorepo, the server's diagnostics equal a fresh `rulemap check` of the final tree: the
incremental updates (and their replay on the worker's copy of the graph) lose nothing."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from tests.lsp.conftest import REPO, change_doc, open_doc, server_env, session

GENERATOR = REPO / "benchmarks" / "gen_monorepo.py"


async def settled(lsp: Any, quiet: float = 2.0, timeout: float = 90.0) -> dict[str, Any]:
    """Wait until no diagnostics have been pushed for `quiet` seconds."""
    deadline = time.monotonic() + timeout
    last = {u: id(d) for u, d in lsp.diagnostics.items()}
    since = time.monotonic()
    while time.monotonic() < deadline:
        await asyncio.sleep(0.1)
        now = {u: id(d) for u, d in lsp.diagnostics.items()}
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet and now:
            return dict(lsp.diagnostics)
    pytest.fail("diagnostics never settled")


def expected(root: Path) -> dict[str, list[tuple[Any, ...]]]:
    out = subprocess.run(
        [sys.executable, "-m", "rulemap", "check", str(root), "--format", "json"],
        env=server_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    by_uri: dict[str, list[tuple[Any, ...]]] = {}
    for d in json.loads(out.stdout)["diagnostics"]:
        rng = d["range"]
        by_uri.setdefault((root / d["path"]).as_uri(), []).append(
            (
                rng["start"]["line"],
                rng["start"]["character"],
                rng["end"]["line"],
                rng["end"]["character"],
                d["code"],
                d["message"],
            )
        )
    return {u: sorted(v) for u, v in by_uri.items()}


def actual(diagnostics: dict[str, Any]) -> dict[str, list[tuple[Any, ...]]]:
    out = {}
    for uri, diags in diagnostics.items():
        items = sorted(
            (
                d.range.start.line,
                d.range.start.character,
                d.range.end.line,
                d.range.end.character,
                str(d.code),
                d.message,
            )
            for d in diags
        )
        if items:
            out[uri] = items
    return out


async def pulled_all(lsp: Any, quiet: float = 2.0, timeout: float = 90.0) -> dict[str, Any]:
    """Pull `workspace/diagnostic` until two pulls `quiet` seconds apart agree."""
    deadline = time.monotonic() + timeout
    previous = None
    while time.monotonic() < deadline:
        report = await lsp.workspace_diagnostic_async(
            types.WorkspaceDiagnosticParams(previous_result_ids=[])
        )
        now = {item.uri: list(item.items) for item in report.items}
        if now == previous:
            return now
        previous = now
        await asyncio.sleep(quiet)
    pytest.fail("workspace diagnostics never settled")


@pytest.mark.skipif(not GENERATOR.exists(), reason="benchmarks/gen_monorepo.py is not there")
@pytest.mark.parametrize("client", ["neovim", "vscode"])
async def test_edit_storm_matches_a_fresh_check(tmp_path: Path, client: str) -> None:
    root = tmp_path / "mono"
    subprocess.run(
        [sys.executable, str(GENERATOR), str(root), "--small", "--seed", "7"],
        check=True,
        capture_output=True,
    )
    rng = random.Random(7)
    async with session(root, client) as lsp:
        await (settled(lsp) if client == "neovim" else pulled_all(lsp))
        docs = sorted(
            p
            for p in root.rglob("AGENTS.md")
            if "node_modules" not in p.parts and "dist" not in p.parts
        )[:6]
        targets = ["docs/missing.md", "../AGENTS.md", "CLAUDE.md", "nope/x.md", "AGENTS.md"]
        uris = {}
        for path in docs:
            uris[path] = open_doc(lsp, path)
        texts = {p: p.read_text() for p in docs}
        for step in range(330):  # 7 toggles: docs/missing.md exists at the end
            path = rng.choice(docs)
            line = f"\nSee @{rng.choice(targets)} {step}\n"
            grow = rng.random() < 0.7
            texts[path] = texts[path] + line if grow else texts[path][: len(texts[path]) // 2]
            change_doc(lsp, uris[path], texts[path], 10 + step)
            if step % 50 == 25:  # a file appears or disappears on disk meanwhile
                extra = root / "docs" / "missing.md"
                kind = (
                    types.FileChangeType.Deleted if extra.exists() else types.FileChangeType.Created
                )
                if extra.exists():
                    extra.unlink()
                else:
                    extra.parent.mkdir(exist_ok=True)
                    extra.write_text("Now here.\n")
                if client == "vscode":  # VS Code's watcher reports it; Neovim's server watches
                    lsp.workspace_did_change_watched_files(
                        types.DidChangeWatchedFilesParams(
                            changes=[types.FileEvent(uri=extra.as_uri(), type=kind)]
                        )
                    )
            if step % 7 == 0:
                await asyncio.sleep(0.01)
        # save half of them, close every one (the others fall back to the disk)
        for index, path in enumerate(docs):
            if index % 2 == 0:
                path.write_text(texts[path])
            lsp.text_document_did_close(
                types.DidCloseTextDocumentParams(
                    text_document=types.TextDocumentIdentifier(uri=uris[path])
                )
            )
        final = await (settled(lsp) if client == "neovim" else pulled_all(lsp))
    assert actual(final) == expected(root)


@pytest.mark.skipif(not GENERATOR.exists(), reason="benchmarks/gen_monorepo.py is not there")
@pytest.mark.parametrize("client", ["neovim", "vscode"])
@pytest.mark.parametrize("delay", [0.0, 0.1, 0.3])
async def test_files_deleted_while_indexing(tmp_path: Path, client: str, delay: float) -> None:
    root = tmp_path / "mono"
    subprocess.run(
        [sys.executable, str(GENERATOR), str(root), "--small", "--seed", "3"],
        check=True,
        capture_output=True,
    )
    doomed = sorted(p for p in (root / "packages").iterdir() if p.is_dir())[:2]
    files = [p for d in doomed for p in d.rglob("*") if p.is_file()]
    assert any(p.name == "AGENTS.md" for p in files)
    async with session(root, client) as lsp:
        # before, during or just after the walk (initialized was sent with the initialize answer)
        await asyncio.sleep(delay)
        for directory in doomed:
            subprocess.run(["rm", "-rf", str(directory)], check=True)
        if client == "vscode":
            lsp.workspace_did_change_watched_files(
                types.DidChangeWatchedFilesParams(
                    changes=[
                        types.FileEvent(uri=p.as_uri(), type=types.FileChangeType.Deleted)
                        for p in files
                    ]
                )
            )
        final = await (settled(lsp) if client == "neovim" else pulled_all(lsp))
    assert actual(final) == expected(root)
