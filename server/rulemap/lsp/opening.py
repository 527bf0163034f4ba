"""Opening a folder's host for the server (in the worker thread), and warming it.

`open_folder` reads the user's grants and hands the rest to the host (`rulemap.host.opening`:
the walk, the configuration — its defaults on an error, returned as a message —, the first
whole check); `make_replica` is what the worker runs for the host's replica; `warm` parses
every document on the loop's host a few milliseconds at a time.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the engine is imported when a folder is indexed, not at start-up
    from rulemap.host import AnalysisHost
    from rulemap.host.checking import Checked

log = logging.getLogger("rulemap.lsp")
WARM_SLICE_S = 0.004  # the start-up parse of the loop's copy yields this often


def open_folder(
    root: str,
    overrides: dict[str, Any],
    buffers: Mapping[str | None, str],
    home: str,
    check_now: bool = False,
    granted: tuple[str, ...] = (),
    recording: Any = None,
) -> tuple[AnalysisHost | None, list[str], Checked | None]:
    """Runs in the worker: walk the folder, read its configuration, check it if asked.

    Imports may leave the folder only for what the user grants: `granted` (the editor's
    user-level `allowImportsFrom`, from initializationOptions) and the user's configuration
    file, read here; never the folder's own `allowImportsFrom`. `recording`: the start
    cache's (lsp/start_cache.py)."""
    from rulemap.host.opening import open_folder as opened
    from rulemap.host.settings import ConfigError
    from rulemap.host.user_config import merge_grants, read_user_grants

    errors: list[str] = []
    try:
        from_file = read_user_grants()
    except ConfigError as exc:
        errors.append(f"user configuration error: {exc}; ignoring that file")
        from_file = ()
    allowed = merge_grants(from_file, granted)
    found = opened(root, overrides, buffers, home, allowed, check_now, recording)
    return found.host, [*errors, *found.errors], found.checked


def make_replica(host: AnalysisHost, buffers: Mapping[str | None, str]) -> Callable[[], Any]:
    """What the worker runs to build the host's replica (`AnalysisHost.attach_replica`)."""
    from rulemap.host.opening import replica_builder

    return replica_builder(host.snapshot(), buffers)


async def warm(host: AnalysisHost, current: Callable[[], bool]) -> None:
    """Parse every document and what it imports, a few milliseconds at a time, so that the
    first hover does not pay for parsing the whole graph. Stops when `current()` is False."""
    from rulemap.host.opening import warming

    steps = warming(host.snapshot())
    budget = time.monotonic() + WARM_SLICE_S
    while current():
        if next(steps, None) is None:
            return
        if time.monotonic() > budget:
            await asyncio.sleep(0)  # let requests in
            budget = time.monotonic() + WARM_SLICE_S
