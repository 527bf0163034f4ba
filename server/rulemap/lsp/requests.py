"""Rulemap's own requests (docs/protocol.md): which module answers each, and their
registration on the server. A request's module is imported when the request is first asked,
not at start-up: the server publishes from its start cache before it needs the engine."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

    from rulemap.lsp.state import Engine

# method -> "module:function" under rulemap.lsp (each module's requests documented in it)
CUSTOM = {
    "rulemap/effectiveInstructions": "custom:effective_instructions",
    "rulemap/rulesForFile": "custom:rules_for_file",
    "rulemap/instructionFiles": "custom:instruction_files",
    "rulemap/graph": "custom:graph", "rulemap/profiles": "custom:profiles",
    "rulemap/compare": "custom:compare", "rulemap/session": "custom:session",
    "rulemap/reach": "reverse:reach_request", "rulemap/why": "reverse:why_request",
    "rulemap/unseenLines": "reverse:unseen_lines",
    "rulemap/map": "map_request:map_request",
}


def custom_handler(method: str) -> Any:
    """The function answering `method` (its module imported now)."""
    module, _, name = CUSTOM[method].partition(":")
    return getattr(importlib.import_module(f"rulemap.lsp.{module}"), name)


def register_requests(server: LanguageServer, engine: Callable[[], Engine]) -> None:
    """A handler on `server` for each of `CUSTOM`: bad params become InvalidParams errors."""
    for method in CUSTOM:
        _register(server, engine, method)


def _register(server: LanguageServer, engine: Callable[[], Engine], method: str) -> None:
    async def handler(ls: Any, params: Any) -> Any:
        from rulemap.lsp import custom

        try:
            return await custom_handler(method)(engine(), params)
        except custom.InvalidParams as exc:
            raise JsonRpcInvalidParams(message=f"{method}: {exc}") from None

    handler.__name__ = method.replace("/", "_")
    server.feature(method)(handler)
