"""A language-server port (`rulemap.lsp.state`'s `Port`) for tests that drive the engine
without a client: it keeps what is published and says nothing else."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

if TYPE_CHECKING:
    from rulemap.lsp.folders import Folder
    from rulemap.lsp.state import Engine


class QuietPort:
    """Publishes into `published` (uri and diagnostics); every other call does nothing."""

    def __init__(self) -> None:
        self.published: list[Any] = []

    def publish(self, uri: str, diagnostics: list[types.Diagnostic], version: int | None) -> None:
        self.published.append((uri, diagnostics))

    def refresh_diagnostics(self) -> None:
        pass

    def show_message(self, kind: types.MessageType, message: str) -> None:
        pass

    def notify(self, method: str, params: Any) -> None:
        pass

    async def progress_begin(self, title: str, message: str) -> object | None:
        return None

    def progress_end(self, token: object | None, message: str) -> None:
        pass

    async def fetch_settings(self, scope_uris: list[str]) -> list[Any] | None:
        return None


async def engine_with_folder(port: Any, root: Path, debounce_ms: int | None = 0,
                             pull: bool = False) -> tuple[Engine, Folder]:
    """An `Engine` on the running loop over `port`, with `root` added and its settings
    loaded (the diagnostics' debounce `debounce_ms`, None: the default), not indexed yet."""
    import asyncio

    from rulemap.lsp.state import Engine

    engine = Engine(port, asyncio.get_running_loop())
    if debounce_ms is not None:
        engine.init_options = {"diagnostics": {"debounceMs": debounce_ms}}
    folder = engine.add_folder(root.as_uri())
    assert folder is not None
    await engine.load_settings([folder], pull=pull)
    return engine, folder
