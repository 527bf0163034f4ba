"""The server's start from the cache (lsp/start_cache.py): a folder opened again with nothing
changed gets its last diagnostics at once, before its walk and check; a change since is a
miss; the whole check then publishes what holds now."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from tests.lsp.conftest import REPO, pushed, session, wait_for, write

FILES = {
    "AGENTS.md": "# Project\n\nRead @docs/missing.md first.\n",
    ".claude/rules/api.md": '---\npaths:\n  - "src/nope/**"\n---\nAPI rules.\n',
    "src/a.ts": "export const a = 1;\n",
}
CACHED = "from the cache"


def _start_entries(cache: Path) -> list[Path]:
    """The start cache's entries (beside them: the server's answers to `initialize`,
    lsp/front.py, written as soon as it answers)."""
    return [entry for entry in cache.glob("check-*.json")
            if b'"format":"rulemap-lsp-start/' in entry.read_bytes()]


def _log_lines(lsp: object) -> list[str]:
    return [m.message for m in getattr(lsp, "log_messages", [])]


async def _first_session(repo: Path, env: dict[str, str], cache: Path | None = None
                         ) -> list[str]:
    async with session(repo, "neovim", env=env) as lsp:
        agents = (repo / "AGENTS.md").as_uri()
        await pushed(lsp, agents, lambda c: c == ["broken-import"])
        await pushed(lsp, (repo / ".claude/rules/api.md").as_uri(),
                     lambda c: c == ["unmatched-glob"])
        if cache is not None:
            # written after the whole check was published (each document's own findings,
            # those above, come first): the server is kept until then
            await wait_for(lambda: _start_entries(cache), what="an entry")
        return _log_lines(lsp)


async def test_a_folder_opened_again_starts_from_its_last_diagnostics(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write(repo, FILES)
    env = {"RULEMAP_CACHE_DIR": str(tmp_path / "cache"), "RULEMAP_NO_CACHE": ""}
    first = await _first_session(repo, env, tmp_path / "cache")
    assert not any(CACHED in line for line in first)
    async with session(repo, "neovim", env=env) as lsp:
        agents = (repo / "AGENTS.md").as_uri()
        got = await pushed(lsp, agents, lambda c: c == ["broken-import"])
        assert "docs/missing.md" in got[0].message
        await wait_for(lambda: any(CACHED in line for line in _log_lines(lsp)),
                       what="the start cache's log message")


async def test_a_change_since_is_a_miss_and_the_check_says_what_holds_now(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    write(repo, FILES)
    env = {"RULEMAP_CACHE_DIR": str(tmp_path / "cache"), "RULEMAP_NO_CACHE": ""}
    await _first_session(repo, env, tmp_path / "cache")
    (repo / "docs").mkdir()
    (repo / "docs" / "missing.md").write_text("Here now.\n")
    async with session(repo, "neovim", env=env) as lsp:
        rule = (repo / ".claude/rules/api.md").as_uri()
        await pushed(lsp, rule, lambda c: c == ["unmatched-glob"])
        assert not any(CACHED in line for line in _log_lines(lsp))
        assert not lsp.diagnostics.get((repo / "AGENTS.md").as_uri())


async def test_the_cache_turned_off_is_neither_read_nor_written(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write(repo, FILES)
    env = {"RULEMAP_CACHE_DIR": str(tmp_path / "cache"), "RULEMAP_NO_CACHE": "1"}
    for _ in range(2):
        lines = await _first_session(repo, env)
        assert not any(CACHED in line for line in lines)
    assert not list((tmp_path / "cache").glob("check-*.json"))



def test_stored_diagnostics_come_back_as_the_converter_would_make_them() -> None:
    """The start cache rebuilds its diagnostics by hand (fast); every field must come back as
    lsprotocol's converter makes it, whatever the finding (the demo's: related information,
    tags, fixes as data, every severity), and an unexpected field goes to the converter."""
    from lsprotocol.converters import get_converter

    from rulemap import analysis
    from rulemap.host import AnalysisHost
    from rulemap.lsp.diagnostics import to_diagnostics
    from rulemap.lsp.start_cache import diagnostic_from_json

    converter = get_converter()
    ws = analysis.open_workspace(str(REPO / "examples/demo"))
    items = []
    for key in sorted({f.path for f in analysis.check(ws)}):
        findings = [f for f in analysis.check(ws) if f.path == key]
        snap = AnalysisHost(ws).snapshot()
        items += [converter.unstructure(d) for d in to_diagnostics(snap, key, findings, "utf-16")]
    assert len(items) >= 10 and {i.get("severity") for i in items} >= {1, 2, 3}
    assert any(i.get("data", {}).get("fixes") for i in items)
    for item in items:
        assert diagnostic_from_json(item) == converter.structure(item, types.Diagnostic)
    odd = {**items[0], "relatedInformation": [{"location": {
        "uri": "file:///x", "range": items[0]["range"]}, "message": "m"}]}
    assert diagnostic_from_json(odd) == converter.structure(odd, types.Diagnostic)


def test_the_diagnostics_given_are_stored_from_the_worker_not_the_loop(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Converting the diagnostics given to JSON (and building cattrs' converter) took ~60 ms
    of the loop when the first wave went out on a deep tree: `finish` hands them to the
    worker, which converts and stores them."""
    import asyncio
    import threading

    from tests.lsp.quiet_port import QuietPort

    from rulemap.lsp import start_cache
    from rulemap.lsp.state import Engine

    cache = tmp_path / "cache"
    monkeypatch.setenv("RULEMAP_CACHE_DIR", str(cache))
    monkeypatch.delenv("RULEMAP_NO_CACHE", raising=False)
    repo = tmp_path / "repo"
    write(repo, {".git/HEAD": "ref: refs/heads/main\n", **FILES})
    threads: list[str] = []
    converter = start_cache._converter

    def recorded() -> object:
        threads.append(threading.current_thread().name)
        return converter()

    monkeypatch.setattr(start_cache, "_converter", recorded)

    async def index() -> None:
        engine = Engine(QuietPort(), asyncio.get_running_loop())
        folder = engine.add_folder(repo.as_uri())
        assert folder is not None
        await engine.load_settings([folder], pull=False)
        await engine.index(folder)
        await wait_for(lambda: _start_entries(cache), what="the start entry")
        engine.close()

    asyncio.run(index())
    assert threads and threading.main_thread().name not in threads
