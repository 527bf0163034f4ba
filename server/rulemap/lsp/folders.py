"""A workspace folder as the server holds it, and the connection the server talks back through.

`Folder` is the server's state of a folder (the Engine in state.py drives it): its host (the
engine's state: workspace, buffers, findings, the worker's replica — `rulemap.host`), and what
only the server knows — settings as the client sent them, timers, epochs, what was published.
`Port` is implemented by the pygls server; `in_worker` runs a host's worker job.
"""

from __future__ import annotations

import asyncio
import posixpath
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from lsprotocol import types

from rulemap.host.cancel import CancelToken
from rulemap.lsp.front import path_of as path_of  # (moved: light, for lsp/front.py)
from rulemap.lsp.settings import Settings
from rulemap.model import Document, Finding

if TYPE_CHECKING:
    from rulemap.host import AnalysisHost, Snapshot
    from rulemap.host.cache.server_start import Start
    from rulemap.host.reaching import AgentOverview

T = TypeVar("T")


class Port(Protocol):
    """What the state needs from the client connection."""

    def publish(
        self, uri: str, diagnostics: list[types.Diagnostic], version: int | None
    ) -> None: ...

    def refresh_diagnostics(self) -> None: ...

    def show_message(self, kind: types.MessageType, message: str) -> None: ...

    def notify(self, method: str, params: Any) -> None: ...

    async def progress_begin(self, title: str, message: str) -> object | None: ...

    def progress_end(self, token: object | None, message: str) -> None: ...

    async def fetch_settings(self, scope_uris: list[str]) -> list[Any] | None: ...


@dataclass(frozen=True)
class Overviews:
    """Every selected agent's reach of every file, as the worker computed it for the "who
    loads it" lens (lsp/reach_lens.py)."""

    generation: int  # of the loop's workspace the worker's copy was at
    agents: tuple[AgentOverview, ...]  # each selected agent's, in their order


@dataclass
class Folder:
    uri: str
    root: str
    name: str
    host: AnalysisHost | None = None  # the engine's state of the folder (None until indexed)
    # set once the host's worker replica is built (or failed to be)
    replica_ready: asyncio.Event = field(default_factory=asyncio.Event)
    refused: str | None = None
    settings: Settings = field(default_factory=Settings)
    raw_settings: dict[str, Any] = field(default_factory=dict)
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    # set once the first indexing has published from the start cache (or found none to use)
    begun: asyncio.Event = field(default_factory=asyncio.Event)
    indexing: bool = False
    # the walk's whole check, in the worker while the folder is first indexed: an edit made
    # meanwhile cancels it, so that the loop gets the host at once (state.py `index`)
    walk_stop: CancelToken | None = None
    # the loop's host is still being parsed a slice at a time (opening.warm): which documents
    # are linted (which parses them all) is decided once it is done (publishing._rest_local)
    warming: bool = False
    epoch: int = 0
    pending: set[str] = field(default_factory=set)  # keys edited while indexing
    pending_events: list[tuple[str, str]] = field(default_factory=list)  # (kind, path)
    full_seconds: float = 0.0
    # key → (the findings last converted for it, the encoding, the document they were
    # converted over, the key's URI): unchanged ones are not converted again
    published: dict[str, tuple[list[Finding], str, Document | None, str]] = field(
        default_factory=dict)
    local_queue: set[str] = field(default_factory=set)
    # the documents linted as of generation `linted_at` of the host (publishing._lint_now)
    linted: frozenset[str] = frozenset()
    linted_at: int = -1
    # an edited document known to be linted: its findings go out before the graph's update
    first: str | None = None
    timers: dict[str, asyncio.TimerHandle] = field(default_factory=dict)
    last_local: dict[str, float] = field(default_factory=dict)
    full_timer: asyncio.TimerHandle | None = None
    reopen_timer: asyncio.TimerHandle | None = None
    check_running: bool = False
    check_again: bool = False
    checked_gen: int = -1  # the generation the last whole check ran for (whatever its outcome)
    # set (and replaced) when a whole check ends: what a pull waits on (publishing.checked)
    check_ended: asyncio.Event = field(default_factory=asyncio.Event)
    start: Start | None = None  # the start cache's part in the current indexing
    overviews: Overviews | None = None  # every agent's reach of every file (lsp/reach_lens.py)
    overviews_for: int | None = None  # the generation the worker is computing them for
    overview_refresh: Callable[[], None] | None = None  # set once a view asked for them
    # messages shown for the current settings / configuration file (shown again only after a fix)
    shown: dict[str, set[str]] = field(default_factory=dict)

    def snapshot(self) -> Snapshot | None:
        """What the editor features ask: the workspace now, in the folder's `profile`
        (None until indexed). Take one per request: a snapshot held across a change makes the
        host fork its workspace (`rulemap.host.snapshot`)."""
        host = self.host
        return host.snapshot(self.agent()) if host is not None else None

    def agent(self) -> str | None:
        """The agent the views speak for: the user's `rulemap.profile`, else the lead agent
        (the configuration's `profile`, else the default model when it reads a file here,
        else the first selected agent that does: `host/selection.py`); None until indexed."""
        if self.settings.profile:
            return self.settings.profile
        host = self.host
        if host is None:
            return None
        from rulemap.host.selection import lead_name

        return lead_name(host.snapshot())

    def key_of(self, path: str) -> str:
        return path[len(self.root) :].lstrip("/")

    def path_of(self, key: str) -> str:
        """The absolute path of a key (root-relative, or absolute outside the root)."""
        return key if key.startswith("/") else posixpath.join(self.root, key)

    def unshown(self, topic: str, messages: list[str]) -> list[str]:
        """The messages not shown last time for this topic (no repeats on every edit); they
        are recorded as shown."""
        before = self.shown.get(topic, set())
        self.shown[topic] = set(messages)
        return [m for m in messages if m not in before]

    def stop_timers(self) -> None:
        """Cancel pending checks and re-indexing; in-flight work sees a new epoch and drops
        its result (the folder was removed, or the server is shutting down)."""
        self.epoch += 1
        for timer in [*self.timers.values(), self.full_timer, self.reopen_timer]:
            if timer is not None:
                timer.cancel()

    def findings(self, key: str) -> list[Finding]:
        """The freshest findings of one document (`rulemap.host.findings.Findings.of`)."""
        return self.host.findings.of(key) if self.host is not None else []


async def in_worker(
    loop: asyncio.AbstractEventLoop,
    executor: Executor,
    work: Callable[[], T],
    cancel: CancelToken | None = None,
) -> T:
    """A host's worker job (`AnalysisHost.worker_job`) in the worker thread, awaited.
    Cancelling the awaiting task (a `$/cancelRequest`) sets `cancel`: the worker skips the
    question if it has not started, and one that checks the token stops at its next check.
    The job itself is shielded: the replay always runs (the log was handed over), whatever
    happens to the request."""
    job = loop.run_in_executor(executor, work)
    try:
        return await asyncio.shield(job)
    except asyncio.CancelledError:
        if cancel is not None:
            cancel.cancel()
        job.add_done_callback(_drop_outcome)
        raise


def _drop_outcome(job: asyncio.Future[Any]) -> None:
    """The outcome of a worker job whose request was cancelled: nobody reads it."""
    if not job.cancelled():
        job.exception()  # retrieved, so asyncio does not log it as never retrieved
