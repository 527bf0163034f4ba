"""What the modules that work beside the server's `Engine` (state.py) ask of it.

`start_cache.py` (publish from the start cache) and `reach_lens.py` (the overview computed in
the worker) are driven by the Engine and call back into it; typed by this protocol rather than
by the Engine class, they do not import state.py, which imports them — no circle of files
(tests/core/test_import_circles.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from lsprotocol import types

    from rulemap.host import CancelToken
    from rulemap.host.text import Encoding
    from rulemap.lsp.folders import Folder, Port
    from rulemap.lsp.ledger import DiagnosticsLedger

T = TypeVar("T")


class EngineCore(Protocol):
    """The Engine's loop, worker, client connection and diagnostics, as its helpers use them
    (read-only here: a helper never replaces them)."""

    @property
    def loop(self) -> asyncio.AbstractEventLoop: ...

    @property
    def executor(self) -> Executor: ...

    @property
    def ledger(self) -> DiagnosticsLedger: ...

    @property
    def port(self) -> Port: ...

    @property
    def home(self) -> str: ...

    @property
    def encoding(self) -> Encoding: ...

    @property
    def closed(self) -> bool: ...

    def spawn(self, coro: Awaitable[Any]) -> None: ...

    async def on_replica(
        self,
        folder: Folder,
        function: Callable[..., T],
        *args: Any,
        cancel: CancelToken | None = None,
    ) -> T: ...

    def set_diagnostics(
        self, uri: str, diagnostics: list[types.Diagnostic], version: int | None
    ) -> bool: ...

    def version_of(self, uri: str) -> int | None: ...
