"""Cancellation of long questions: a token the asker sets and the engine checks between steps.

Why: a request handler awaiting work in a worker thread is cancelled by its client
(`$/cancelRequest`), but the thread itself goes on computing an answer nobody reads — and
holds the one worker that the whole-workspace check needs. The host's long loops (every agent
of a comparison, every document of a listing) call `check()` between two steps, so the work
stops soon after the request does. Thread-safe: set on the event loop, read in the worker.
"""

from __future__ import annotations

import threading


class Cancelled(Exception):
    """The question was withdrawn before its answer was complete."""


class CancelToken:
    """Set once by whoever asked; `check()` raises Cancelled from then on."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def check(self) -> None:
        """Raise Cancelled when the asker gave up (call it between two steps of work)."""
        if self._event.is_set():
            raise Cancelled
