"""Watching the workspace folders from the server, for clients that cannot register
`workspace/didChangeWatchedFiles` dynamically (Neovim 0.7, Helix, ...).

watchdog calls back on its own thread; events go to the event loop with
`call_soon_threadsafe` and are batched there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from rulemap.host.disk import in_skipped_dir

log = logging.getLogger("rulemap.lsp")

Sink = Callable[[str, str], None]  # (kind, absolute path) on the event loop


class FolderWatcher:
    def __init__(self, loop: asyncio.AbstractEventLoop, sink: Sink):
        self.loop = loop
        self.sink = sink
        self._observer: Any = None
        self._watches: dict[str, Any] = {}

    def _deliver(self, kind: str, path: str) -> None:
        if in_skipped_dir(path):
            return
        with contextlib.suppress(RuntimeError):  # the loop is closed: shutting down
            self.loop.call_soon_threadsafe(self.sink, kind, path)

    def _handler(self) -> Any:
        from watchdog.events import FileSystemEvent, FileSystemEventHandler

        deliver = self._deliver

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event: FileSystemEvent) -> None:
                kind = event.event_type
                src = _text(event.src_path)
                if kind == "moved":
                    deliver("deleted", src)
                    deliver("created", _text(getattr(event, "dest_path", "")))
                elif kind == "created":
                    deliver("created", src)
                elif kind == "deleted":
                    deliver("deleted", src)
                elif kind in ("modified", "closed") and not event.is_directory:
                    deliver("changed", src)

        return Handler()

    def watch(self, root: str) -> None:
        if root in self._watches:
            return
        try:
            if self._observer is None:
                from watchdog.observers import Observer

                self._observer = Observer()
                self._observer.daemon = True
                self._observer.start()
            self._watches[root] = self._observer.schedule(self._handler(), root, recursive=True)
        except Exception as exc:  # inotify limits, a vanished folder: keep serving
            log.warning("cannot watch %s: %s", root, exc)

    def unwatch(self, root: str) -> None:
        watch = self._watches.pop(root, None)
        if watch is not None and self._observer is not None:
            with contextlib.suppress(Exception):
                self._observer.unschedule(watch)

    def stop(self) -> None:
        if self._observer is not None:
            with contextlib.suppress(Exception):
                self._observer.stop()
            self._observer = None


def _text(path: str | bytes) -> str:
    return path.decode("utf-8", "surrogateescape") if isinstance(path, bytes) else path
