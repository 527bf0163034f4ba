"""File events from watchers → what changed in a folder's workspace.

Events are classified by what is on disk now, not by their kinds: a batch may hold an editor's
atomic save (deleted + created) or a file created and deleted again. A created directory is
walked through the reader (so .gitignore applies as in the first walk).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rulemap.readers import host

if TYPE_CHECKING:
    from rulemap.lsp.folders import Folder
    from rulemap.readers.overlay import OverlayReader
    from rulemap.workspace import Workspace


def content_matters(folder: Folder, key: str) -> bool:
    """Whether the content of `key` can change the graph or a finding (an edit of any other
    file is not even handed to the workspace)."""
    from rulemap.config import CONFIG_FILES  # the engine: imported once a folder is indexed

    ws, host = folder.ws, folder.host
    if ws is None or host is None:
        return False
    if key in CONFIG_FILES or key.endswith(".md") or ws.is_instruction(key):
        return True
    # another agent's file (a Cursor `.mdc` rule, `.cursorrules`): its profile knows
    snapshot = host.snapshot()
    if snapshot.any_agent_reads(key) or snapshot.is_task_file(key):
        return True  # (a task file: what an instruction's `npm run X` resolves to)
    return bool(ws.importers(key))


@dataclass
class EventBatch:
    created: set[str] = field(default_factory=set)
    changed: set[str] = field(default_factory=set)
    deleted: set[str] = field(default_factory=set)
    config_changed: bool = False

    @property
    def gitignore_changed(self) -> bool:
        return any(
            k == ".gitignore" or k.endswith("/.gitignore")
            for k in self.created | self.changed | self.deleted
        )


def classify_events(
    folder: Folder, ws: Workspace, overlay: OverlayReader, events: list[tuple[str, str]]
) -> EventBatch:
    """`(kind, absolute path)` events of one folder → created, changed and deleted keys."""
    batch = EventBatch()
    created, changed, deleted = batch.created, batch.changed, batch.deleted
    reader = overlay.base
    ignored = reader.is_ignored
    from rulemap.config import CONFIG_FILES  # the engine's configuration: not at start-up

    walked: set[str] = set()
    for kind, path in events:
        if kind == "created" and path not in walked and host.is_dir(path):
            walked.add(path)
            for key in reader.files_under(folder.key_of(path)):
                if key not in ws.files:
                    created.add(key)
    for path in dict.fromkeys(p for _, p in events):
        key = folder.key_of(path)
        if not key or path in walked:
            continue
        if key in CONFIG_FILES:
            batch.config_changed = True
        if not host.exists(path):
            if key in ws.files:
                deleted.add(key)
            else:  # a directory that went away, or a file the index never had
                deleted.update(ws.files.under(key + "/"))
                if overlay.exists(path) or key in CONFIG_FILES:
                    deleted.add(key)
        elif host.is_dir(path):
            continue
        elif key not in ws.files:
            if not ignored(key) or ws.is_instruction(key):
                created.add(key)
        else:
            changed.add(key)
    return batch
