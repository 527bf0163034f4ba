"""File events from watchers → what changed in a host's workspace.

Events are classified by what is on disk now, not by their kinds: a batch may hold an editor's
atomic save (deleted + created) or a file created and deleted again. A created directory is
walked through the reader (so .gitignore applies as in the first walk).
"""

from __future__ import annotations

from dataclasses import field

from rulemap.host.snapshot import Snapshot, workspace_of
from rulemap.readers import host as disk
from rulemap.records import record


@record
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


def classify_events(snap: Snapshot, events: list[tuple[str, str]]) -> EventBatch:
    """`(kind, absolute path)` events inside the snapshot's root → created, changed and
    deleted keys."""
    from rulemap.config import CONFIG_FILES  # the engine's configuration: not at start-up
    from rulemap.profiles import is_agent_settings

    ws = workspace_of(snap)
    del snap
    overlay = ws.reader
    reader = getattr(overlay, "base", overlay)
    root = ws.root

    def key_of(path: str) -> str:
        return path[len(root):].lstrip("/")

    batch = EventBatch()
    created, changed, deleted = batch.created, batch.changed, batch.deleted
    ignored = reader.is_ignored
    walked: set[str] = set()
    for kind, path in events:
        if kind == "created" and path not in walked and disk.is_dir(path):
            walked.add(path)
            for key in reader.files_under(key_of(path)):
                if key not in ws.files:
                    created.add(key)
    for path in dict.fromkeys(p for _, p in events):
        key = key_of(path)
        if not key or path in walked:
            continue
        reshaping = key in CONFIG_FILES or is_agent_settings(key)
        if reshaping:
            batch.config_changed = True
        if not disk.exists(path):
            if key in ws.files:
                deleted.add(key)
            else:  # a directory that went away, or a file the index never had
                deleted.update(ws.files.under(key + "/"))
                if overlay.exists(path) or reshaping:
                    deleted.add(key)
        elif disk.is_dir(path):
            continue
        elif key not in ws.files:
            if not ignored(key) or ws.is_instruction(key):
                created.add(key)
        else:
            changed.add(key)
    return batch
