"""Building a folder's Workspaces for the server (in the worker thread), and warming them.

`open_workspace` walks the folder and reads its configuration (falling back to the defaults on a
configuration error, which it returns as a message); `make_replica` builds the worker's own copy;
`warm` parses every document on the event loop's copy a few milliseconds at a time.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from rulemap.readers.base import MAX_FILE_BYTES, is_within

if TYPE_CHECKING:  # the engine is imported when the server starts; these load with a folder
    from rulemap.checks import Checked
    from rulemap.config import Config
    from rulemap.readers.overlay import OverlayReader
    from rulemap.readers.recording import Recording
    from rulemap.workspace import Workspace

log = logging.getLogger("rulemap.lsp")
WARM_SLICE_S = 0.004  # the start-up parse of the loop's copy yields this often


def overlay_for(
    root: str, buffers: Mapping[str | None, str], allowed: tuple[str, ...] = (),
    recording: Recording | None = None,
) -> OverlayReader:
    """The disk of `root` under the editor's open buffers (those inside it, not too large);
    read through `recording` (the start cache's: lsp/start_cache.py) when given."""
    from rulemap.readers.local import LocalReader
    from rulemap.readers.overlay import OverlayReader

    base = recording.reader(root, allowed) if recording is not None else LocalReader(root, allowed)
    overlay = OverlayReader(base)
    for path, text in buffers.items():
        if path and is_within(path, root) and len(text) <= MAX_FILE_BYTES:
            overlay.set_buffer(path, text)
    return overlay


def open_workspace(
    root: str,
    overrides: dict[str, Any],
    buffers: Mapping[str | None, str],
    home: str,
    check_now: bool = False,
    granted: tuple[str, ...] = (),
    recording: Recording | None = None,
) -> tuple[Workspace, OverlayReader, list[str], Checked | None]:
    """Runs in the worker: walk the folder, read its configuration, check it if asked.

    Imports may leave the folder only for what the user grants: `granted` (the editor's
    user-level `allowImportsFrom`, from initializationOptions) and the user's configuration
    file, read here; never the folder's own `allowImportsFrom`."""
    from rulemap import analysis
    from rulemap.config import Config, ConfigError
    from rulemap.host.user_config import merge_grants, read_user_grants
    from rulemap.lsp.checking import full_findings
    from rulemap.readers.local import LocalReader

    overlay = overlay_for(root, buffers, recording=recording)
    errors: list[str] = []
    try:
        from_file = read_user_grants()
    except ConfigError as exc:
        errors.append(f"user configuration error: {exc}; ignoring that file")
        from_file = ()
    allowed = merge_grants(from_file, granted)
    try:
        ws = analysis.open_workspace(
            root, reader=overlay, overrides=overrides, home=home, allow_imports_from=allowed
        )
    except ConfigError as exc:
        errors.append(f"configuration error: {exc}. Using the defaults until it is fixed.")
        try:
            ws = analysis.open_workspace(
                root, reader=overlay, home=home, allow_imports_from=allowed
            )
        except ConfigError:
            ws = analysis.new_workspace(overlay, Config(allow_imports_from=allowed), home=home)
    if ws.config.allow_imports_from:
        # The reader confines reads to the root; widen it as Workspace.open does without one.
        overlay.base = LocalReader(root, allowed=ws.config.allow_imports_from)
        if recording is not None:
            recording.usable = False  # what the new reader reads is not recorded
    findings = None
    if check_now:
        try:
            findings = full_findings(ws)
        except Exception:
            log.exception("checking %s failed", root)
    if recording is not None:
        # the check the record is of is done; the workspace outlives the walk's listings
        recording.stop_listing_answers()
    return ws, overlay, errors, findings


def make_replica(
    root: str, config: Config, buffers: Mapping[str | None, str], home: str
) -> Workspace:
    """Runs in the worker: the worker's own copy of a folder's Workspace."""
    from rulemap import analysis

    return analysis.new_workspace(
        overlay_for(root, buffers, config.allow_imports_from), config, home=home
    )


async def warm(ws: Workspace, current: Callable[[], bool]) -> None:
    """Parse every document and what it imports, a few milliseconds at a time, so that the
    first hover does not pay for parsing the whole graph. Stops when `current()` is False."""
    from rulemap.model import ImportStatus

    queue = deque(ws.all_documents())
    seen = set(queue)
    budget = time.monotonic() + WARM_SLICE_S
    while queue:
        if not current():
            return
        key = queue.popleft()
        try:
            for _, resolved in ws.imports(key):
                target = resolved.target
                if resolved.status is ImportStatus.OK and target not in seen:
                    seen.add(target)
                    queue.append(target)
        except Exception:  # pragma: no cover - parsing never raises; never fail the warm-up
            log.exception("warming %s", key)
        if time.monotonic() > budget:
            await asyncio.sleep(0)  # let requests in
            budget = time.monotonic() + WARM_SLICE_S
