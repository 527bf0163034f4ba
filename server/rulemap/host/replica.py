"""The worker thread's copy of a host's workspace, and the log that keeps it in step.

A Workspace is not thread-safe (its caches fill lazily), so a host whose questions are also
asked off its thread (the language server's whole check, the requests that read every
document) has two: its own, which only its thread touches, and a replica, which only the
worker touches. Every change of the host is logged with the buffers it saw (`ReplayLog`) and
replayed on the replica, in order, before the worker next uses it (`replay`).
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING

from rulemap.records import record

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

# (changed, created, deleted, {key: buffer text or None}) — one `Workspace.update`, to replay
Replayed = tuple[set[str], set[str], set[str], dict[str, str | None]]


@record
class ReplayLog:
    """The changes the replica has not seen yet, oldest first."""

    entries: list[Replayed] = field(default_factory=list)

    def record(
        self, changed: set[str], created: set[str], deleted: set[str],
        buffers: dict[str, str | None],
    ) -> None:
        entries = self.entries
        if entries and not (created or deleted or entries[-1][1] or entries[-1][2]):
            # edits only, after edits only: one update of the union with the newest texts
            # ends in the same state, and keeps one text per document, not one per keystroke
            # (500 edits of a 1 MB AGENTS.md held ~500 MB until the worker replayed them)
            entries[-1][0].update(changed)
            entries[-1][3].update(buffers)
        else:
            entries.append((changed, created, deleted, buffers))

    def take(self) -> list[Replayed]:
        """The entries, handed over to the worker (the log starts again empty)."""
        taken, self.entries = self.entries, []
        return taken


def replay(replica: Workspace, log: list[Replayed]) -> None:
    """In the worker: bring the replica up to date with the host's changes."""
    from typing import Any

    overlay: Any = replica.reader
    for changed, created, deleted, buffers in log:
        for key, text in buffers.items():
            path = replica.abs(key)
            if text is None:
                overlay.drop_buffer(path)
            else:
                overlay.set_buffer(path, text)
        replica.update(changed=changed, created=created, deleted=deleted)
