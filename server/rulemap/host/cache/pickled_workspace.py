"""A workspace carried from one `rulemap check` to the next: pickled after a whole check,
unpickled and told what changed since by the next one (resume_snapshot.py keeps it on disk;
docs/checks.md, "A check after an edit").

The update is the language server's (`Workspace.update`): the derived values that read a
changed file are dropped and worked out again when asked. It is refused — a whole check
then — for a change it cannot account for: a `.gitignore` or configuration file (they shape
the file list and the settings, made once when the workspace opened), a file outside the
workspace, a file neither parsed as a document nor read by a derived value.
"""

from __future__ import annotations

import copyreg
import io
import pickle
from collections.abc import Iterable
from typing import Any, BinaryIO

from rulemap.config import CONFIG_FILES
from rulemap.profiles import PROFILES, get_profile, is_agent_settings
from rulemap.readers.recording import Recording
from rulemap.readers.recording_reader import RecordingReader
from rulemap.workspace.core import Workspace

_RESHAPING = (".gitignore", *CONFIG_FILES)


def pickled(ws: Workspace) -> bytes:
    """`ws` pickled, each agent profile as a reference to the registry's (checks compare
    profiles by identity). Raises what pickling raises (RecursionError on a deep structure)."""

    def by_name(profile: Any) -> tuple[Any, tuple[str]]:
        return get_profile, (profile.name,)

    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=5)
    table: dict[Any, Any] = dict(copyreg.dispatch_table)
    for profile in PROFILES.values():
        table[type(profile)] = by_name
    pickler.dispatch_table = table
    pickler.dump(ws)
    return out.getvalue()


def unpickled(payload: BinaryIO) -> tuple[Workspace, Recording] | None:
    """The workspace `pickled` wrote, read from `payload` (a stream: the bytes are not held
    while it is rebuilt), with the record its reader keeps; None for anything else (a damaged
    payload, another object)."""
    try:
        ws = pickle.load(payload)
    except Exception:
        return None
    if not isinstance(ws, Workspace) or not isinstance(ws.reader, RecordingReader):
        return None
    # the named copies of other agents' findings are kept by the identity of the originals,
    # which unpickling changed (checks/__init__.py `profile_findings`)
    ws.named_findings = {id(entry[0]): entry for entry in ws.named_findings.values()}
    return ws, ws.reader.recording


def reshapes(paths: Iterable[str]) -> bool:
    """Whether a change of these files (absolute paths) reshapes a workspace: a whole check
    (an agent's own settings file, such as Gemini's context file names, too)."""
    return any(path.rpartition("/")[2] in _RESHAPING or is_agent_settings(path)
               for path in paths)


def updated(ws: Workspace, paths: Iterable[str]) -> bool:
    """Tell `ws` that these files (absolute paths) changed; False, with `ws` untouched, when
    the update could not account for one of them."""
    paths = list(paths)
    if reshapes(paths):
        return False
    keys = {ws.key(path) for path in paths}
    if any(key.startswith("/") for key in keys):
        return False  # the user's configuration, an import granted outside the workspace
    if not keys <= _updatable(ws):
        return False  # read by something the update cannot tell
    from rulemap import analysis

    if keys & analysis.selection_reads(ws) and not analysis.selection_holds(ws):
        return False  # the edit changes which agents are detected: a whole check
    ws.update(changed=keys)
    return True


def _updatable(ws: Workspace) -> set[str]:
    """The files `Workspace.update` knows what was made of: the parsed documents, the files
    a derived value read, and those detection read (`updated` asks whether it still holds)."""
    from rulemap import analysis

    out = set(ws.parsed_documents())
    for reads in ws.derived.read_sets():
        out.update(reads)
    out.update(analysis.selection_reads(ws))  # what detection read (selection_holds)
    return out
