"""A workspace carried from one `rulemap check` to the next: pickled after a whole check,
unpickled and told what changed since by the next one (resume_snapshot.py keeps it on disk;
docs/checks.md, "A check after an edit").

The derived values are pickled apart, a part per kind of value (`_Lazy`): a resumed check
unpickles a kind when it first asks for one of its values, so those it never asks for (most
of a large workspace's: what the values it keeps were built from) and those the edit
invalidated are never rebuilt. Each part refers to the objects of the workspace's own pickle
by their place in it (a persistent id), so a value shares them as it did when pickled.

The update is the language server's (`Workspace.update`): the derived values that read a
changed file are dropped and worked out again when asked. It is refused — a whole check
then — for a change it cannot account for: a `.gitignore` or configuration file (they shape
the file list and the settings, made once when the workspace opened), a file outside the
workspace, a file neither parsed as a document nor read by a derived value.
"""

from __future__ import annotations

import bisect
import copyreg
import io
import pickle
from collections.abc import Hashable, Iterable
from typing import Any, BinaryIO

from rulemap.config import CONFIG_FILES
from rulemap.derived import AnyKey, DerivedCache
from rulemap.profiles import PROFILES, get_profile, is_agent_settings
from rulemap.readers.recording import Recording
from rulemap.readers.recording_reader import RecordingReader
from rulemap.workspace.core import Workspace

_RESHAPING = (".gitignore", *CONFIG_FILES)


def pickled(ws: Workspace) -> bytes:
    """`ws` pickled, each agent profile as a reference to the registry's (checks compare
    profiles by identity), its derived values in parts loaded when first asked for (`_Lazy`).
    Raises what pickling raises (RecursionError on a deep structure)."""

    def by_name(profile: Any) -> tuple[Any, tuple[str]]:
        return get_profile, (profile.name,)

    table: dict[Any, Any] = dict(copyreg.dispatch_table)
    for profile in PROFILES.made():  # the workspace holds no other
        table[type(profile)] = by_name
    derived = ws.derived
    if isinstance(derived, _Lazy):
        derived.open_all()
    families: dict[Hashable, _Part] = {}
    parts: list[dict[AnyKey, Any]] = []
    lazy = _Lazy()
    for key, (value, reads) in derived._values.items():
        part = families.get(key[0])
        if part is None:
            part = families[key[0]] = _Part(len(parts))
            parts.append({})
        parts[part.index][key] = value
        lazy._values[key] = (part, reads)
    lazy.share_bookkeeping(derived)  # the dependents, and the index an edit's drop reads
    # A part refers to an object pickled before it (the workspace's, an earlier part's)
    # rather than copy it, so values share what they shared (checks compare some by
    # identity): the workspace's as an entry of a list pickled with it, `shared` (negative
    # ids), an earlier part's by its place in that part's memo after the places of the parts
    # before it (loading a part loads the parts it names). A first pickle of the workspace
    # tells which objects are its; the memos are kept till the end: they hold the objects a
    # reduction made for the pickle, whose ids the next one would otherwise reuse.
    ws.derived = lazy
    try:
        first = pickle.Pickler(io.BytesIO(), protocol=5)
        first.dispatch_table = table
        first.dump(ws)
        memos = [first.memo.copy()]
        ours = memos[0]
        shared: list[Any] = []
        sharing: dict[int, int] = {}
        places: dict[int, int] = {}
        named: set[int] = set()
        starts: list[int] = []
        blobs: list[bytes] = []
        start = 0

        def place_of(obj: Any) -> int | None:
            ident = id(obj)
            found = places.get(ident)
            if found is not None:
                named.add(bisect.bisect_right(starts, found) - 1)
                return found
            if ident not in ours:
                return None
            at = sharing.get(ident)
            if at is None:
                at = sharing[ident] = len(shared)
                shared.append(obj)
            return -1 - at

        for values in parts:
            blob = io.BytesIO()
            part_pickler = pickle.Pickler(blob, protocol=5)
            part_pickler.dispatch_table = table
            part_pickler.persistent_id = place_of  # type: ignore[method-assign]
            part_pickler.dump(values)
            blobs.append(blob.getvalue())
            starts.append(start)
            memos.append(part_pickler.memo.copy())
            for ident, (place, _) in memos[-1].items():
                places[ident] = start + place
            start += len(memos[-1])
        out = io.BytesIO()
        pickler = pickle.Pickler(out, protocol=5)
        pickler.dispatch_table = table
        pickler.dump((ws, shared))
    finally:
        ws.derived = derived
    pickler.clear_memo()  # the blobs' lengths: a damaged payload is told before it is used
    pickler.dump(([len(blob) for blob in blobs], starts, sorted(named)))
    pickler.dump(blobs)
    return out.getvalue()


def unpickled(payload: BinaryIO) -> tuple[Workspace, Recording] | None:
    """The workspace `pickled` wrote, read from `payload` (a stream: the bytes are not held
    while it is rebuilt), with the record its reader keeps; None for anything else (a damaged
    payload, another object)."""
    try:
        ws, shared = pickle.load(payload)
        if not isinstance(ws, Workspace) or not isinstance(ws.derived, _Lazy):
            return None
        lengths, starts, named = pickle.load(payload)
        blobs = pickle.load(payload)
        if [len(blob) for blob in blobs] != lengths or len(starts) != len(blobs):
            return None
    except Exception:
        return None
    if not isinstance(ws.reader, RecordingReader):
        return None
    places = _Places({-1 - at: obj for at, obj in enumerate(shared)}, starts, ws.derived)
    ws.derived.attach(places, blobs, set(named))
    # the named copies of other agents' findings are kept by the identity of the originals,
    # which unpickling changed (checks/__init__.py `profile_findings`)
    ws.named_findings = {id(entry[0]): entry for entry in ws.named_findings.values()}
    return ws, ws.reader.recording


class _Part:
    """Stands, in a `_Lazy` cache, for the values of one kind not yet unpickled."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index

    def __reduce__(self) -> tuple[Any, tuple[int]]:
        return _Part, (self.index,)


_ABSENT = object()


class _Places(dict[int, Any]):
    """Objects by their persistent id (`pickled`): the workspace's a part refers to, and
    those of each part unpickled so far that a later part refers into; asked for one of a
    part not yet unpickled, it unpickles that part."""

    def __init__(self, shared: dict[int, Any], starts: list[int], lazy: _Lazy) -> None:
        super().__init__(shared)
        self.starts = starts
        self.lazy = lazy

    def __missing__(self, place: int) -> Any:
        index = bisect.bisect_right(self.starts, place) - 1
        if index < 0 or not self.lazy.open_part(index):
            raise KeyError(place)
        return self[place]


class _Lazy(DerivedCache):
    """A resumed workspace's derived values, each kind unpickled when one of its values is
    first asked for (`pickled`). A part that fails to load is dropped with what was built on
    it: the values are worked out again, as after an edit. Only `rulemap check` resumes,
    and it never pickles the workspace it resumed (`pickled` would unpickle every part
    first)."""

    def __init__(self) -> None:
        super().__init__()
        self._blobs: list[bytes | None] = []
        self._places: _Places | None = None
        self._parts: dict[int, _Part] = {}
        self._named: set[int] = set()

    def attach(self, places: _Places, blobs: list[bytes], named: set[int]) -> None:
        """`named`: the parts a later part refers into (their objects are kept by place)."""
        self._places = places
        self._named = named
        self._blobs = list(blobs)
        for value, _ in self._values.values():
            if type(value) is _Part:
                self._parts.setdefault(value.index, value)

    def get(self, key: AnyKey, default: object = None) -> object:  # type: ignore[override]
        entry = self._values.get(key, _ABSENT)
        if entry is _ABSENT:
            return default
        value = entry[0]  # type: ignore[index]
        if type(value) is _Part:
            self.open_part(value.index)
            entry = self._values.get(key, _ABSENT)
            if entry is _ABSENT:
                return default
            value = entry[0]  # type: ignore[index]
        return value

    def open_all(self) -> None:
        for index in range(len(self._blobs)):
            self.open_part(index)

    def open_part(self, index: int) -> bool:
        """Unpickle part `index` into the values (once); False when it could not be (it is
        dropped then)."""
        blob = self._blobs[index]
        if blob is None:
            return True
        self._blobs[index] = None
        part = self._parts.get(index)
        places = self._places
        try:
            assert places is not None
            reader = pickle.Unpickler(io.BytesIO(blob))
            reader.persistent_load = places.__getitem__  # type: ignore[method-assign]
            loaded: dict[AnyKey, Any] = reader.load()
            if index in self._named:
                start = places.starts[index]
                places.update({start + place: obj
                               for place, obj in reader.memo.copy().items()})
        except Exception:
            if part is not None:
                self._drop(part)
            return False
        values = self._values
        for key, value in loaded.items():
            entry = values.get(key)
            if entry is not None and entry[0] is part:  # else invalidated, or made again
                values[key] = (value, entry[1])
        return True

    def _drop(self, part: _Part) -> None:
        """Drop the values of `part`, and what was built on them, as `invalidate` would."""
        dropped = [key for key, entry in self._values.items() if entry[0] is part]
        while dropped:
            key = dropped.pop()
            self._values.pop(key, None)
            built = self._dependents.pop(key, None)
            if type(built) is set:
                dropped.extend(built)
            elif built is not None:
                dropped.append(built)  # type: ignore[arg-type]


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
