"""The files the client watches for content changes come from the profiles: every registered
agent's `watched_globs`, read when the client connects (an agent registered before the server
starts is watched like a built-in one), plus Markdown and the configuration files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from lsprotocol import types
from tests.lsp.conftest import serve_module, session, wait_for, write
from tests.lsp.toy_profile import ToyProfile

from rulemap.host.catalog import watched_globs
from rulemap.profiles import PROFILES, register_profile


@pytest.fixture
def registry() -> Iterator[None]:
    before = dict(PROFILES)
    yield
    PROFILES.clear()
    PROFILES.update(before)


def test_every_registered_agent_is_watched(registry: None) -> None:
    before = watched_globs()
    for profile in PROFILES.values():
        assert set(profile.watched_globs) <= set(before), profile.name
    assert {"**/*.md", "**/rulemap.toml", "**/pyproject.toml", "**/.gitignore"} <= set(before)
    assert len(before) == len(set(before))  # each glob once
    # an agent's own settings file that decides which files it reads (Gemini's)
    for profile in PROFILES.values():
        assert {f"**/{name}" for name in profile.settings_files} <= set(before), profile.name
    assert any(profile.settings_files for profile in PROFILES.values())
    register_profile(ToyProfile("watch-toy", file_name="toy.yaml"))
    assert "**/toy.yaml" in watched_globs()  # asked at call time, not at import


async def test_the_client_watches_the_toy_agents_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    serve_module(monkeypatch, "tests.lsp.toy_server")
    write(tmp_path, {"AGENTS.md": "Hello.\n"})
    async with session(tmp_path, "vscode") as lsp:
        regs = await wait_for(lambda: lsp.registrations, what="client/registerCapability")  # type: ignore[attr-defined]
        [watched] = [r for r in regs if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES]
        changes = {
            w["globPattern"] for w in watched.register_options["watchers"]
            if w.get("kind") == types.WatchKind.Change
        }
        # the toy agents (registered before `serve`) and a built-in agent's own files
        assert {"**/TOY.md", "**/TOKENS.md", "**/.cursor/rules/**", "**/*.md"} <= changes
