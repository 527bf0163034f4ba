"""A language-server port (`rulemap.lsp.state`'s `Port`) for tests that drive the engine
without a client: it keeps what is published and says nothing else."""

from __future__ import annotations

from typing import Any

from lsprotocol import types


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
