"""duplicate-load: imports and symlinked aliases that bring a file the load already has.

Found in the loads the cogitator model really does (start-up, each nested directory, each
scoped rule on top of the start-up load), so it is this model's finding, not a syntax check.
An import that brings nothing here may be the only way another selected agent reads its
target (`@AGENTS.md` in a CLAUDE.md: Claude Code reads AGENTS.md only through it): such an
import is not reported, as no finding may call a line useless that an agent needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from rulemap.derived import IMPORT_GRAPH, RULE_SCOPES, Key, KeyFamily
from rulemap.model import Finding, Span
from rulemap.profiles.base import Profile, directory_chain, parent_dir, selected
from rulemap.profiles.cogitator.load import Load
from rulemap.profiles.cogitator.reach import base_load_of, group_load_of
from rulemap.profiles.cogitator.settings import settings_of

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

# each finding with the file its import brings (None: a symlinked alias, no import)
_Found = list[tuple[Finding, str | None]]
_DUPLICATES: Final[Key[_Found]] = KeyFamily[_Found]("cogitator-duplicates").key()


def check(ws: Workspace, profile: Profile) -> list[Finding]:
    """Imports and symlinks that bring a file already loaded, from the loads agents really do,
    less the imports another selected agent needs. Depends on the import edges and on which
    rules are scoped, not on the text (the other agents' loads are cached by themselves)."""
    cached = ws.derived.get(_DUPLICATES)
    if cached is None:
        cached = _duplicates(ws, profile)
        ws.derived.put(_DUPLICATES, cached, reads=[IMPORT_GRAPH, RULE_SCOPES])
    return [finding for finding, target in cached
            if target is None or needed_by(ws, profile, finding.path, target) is None]


def needed_by(ws: Workspace, profile: Profile, importer: str, target: str) -> Profile | None:
    """A selected agent other than `profile` whose own load of `importer`'s directory brings
    `target` through `importer`'s import — the line it needs — or None."""
    cwd = ws.config.cwd
    for other in selected(ws):
        if other.name == profile.name or not other.follows_imports:
            continue
        if not other.reads(ws, importer):
            continue
        if target in _imported_by(ws, other, importer, cwd):
            return other
    return None


_EDGES: Final = KeyFamily[frozenset[str]]("cogitator-needed-by-edges")


def _imported_by(ws: Workspace, other: Profile, importer: str, cwd: str) -> frozenset[str]:
    """The files `other`'s load for `importer` brings through `importer`'s own imports: the
    duplicates of one importer cost one pass over that load (10,000 files in the fan-out
    shape), not one each, and only those few names are kept (a set of the whole load per
    importer took 526 MB there). Dropped on any change (`reads=None`): the load it was read
    from may have changed."""
    key = _EDGES.key(other.name, importer, cwd)
    cached = ws.derived.get(key)
    if cached is None:
        cached = ws.derived.put(key, other.brought_through(ws, importer, cwd), reads=None)
    return cached


def _duplicates(ws: Workspace, profile: Profile) -> _Found:
    out: _Found = []
    cwd = ws.config.cwd
    chain = directory_chain(cwd)
    cwd_dir = chain[-1]
    anchors: list[str | None] = [None]
    for path in ws.instruction_files:
        directory = parent_dir(path)
        if directory != cwd_dir and (not cwd_dir or directory.startswith(cwd_dir + "/")):
            anchors.append(directory)
    seen: set[tuple[str, int | None, str]] = set()
    loads = [base_load_of(ws, chain, anchor) for anchor in dict.fromkeys(anchors)]
    if settings_of(ws).rules:
        # a scoped rule loads on top of the start-up load
        for directory in chain:
            for rule in ws.rules_of(directory):
                if ws.is_scoped(rule):
                    loads.append(_scoped_load(ws, chain, rule))
    # every link of every load is in `loads` (a nested load's parents are the loads of the
    # instruction directories above it), so each link's own skips are enough
    for load in loads:
        for skip in load.own_skipped:
            if skip.code != "duplicate-load":
                continue
            key = (skip.importer or skip.path, skip.line, skip.path)
            if key in seen:
                continue
            seen.add(key)
            if skip.importer is not None and skip.line is not None:
                ref = next((r for r, res in ws.imports(skip.importer)
                            if res.target == skip.path and r.span.start.line == skip.line), None)
                if ref is None or skip.importer.startswith("/"):
                    continue
                out.append((Finding(
                    skip.importer, ref.span, "information", "duplicate-load",
                    f"`{skip.path}` is {skip.why} before this import, so it brings nothing "
                    f"here for {profile.name} (no other selected agent loads it through this "
                    f"import)", tags=["unnecessary"]), skip.path))
            elif not skip.path.startswith("/"):
                doc = ws.document(skip.path)
                out.append((Finding(skip.path, Span.at(0, 0, len(doc.lines[0])), "information",
                                    "duplicate-load",
                                    _alias_message(skip.path, skip.why, profile.name)), None))
    return out



def _scoped_load(ws: Workspace, chain: list[str], rule: str) -> Load:
    """The start-up load plus one scoped rule: what reaching a file only it matches brings
    (reach's memo, cached while the files it read keep)."""
    return group_load_of(ws, chain, None, (rule,))


def _alias_message(path: str, why: str, agent: str) -> str:
    if " as " in why:
        first = why.rsplit(" as ", 1)[-1]
        return (f"`{path}` is the same file as `{first}`, which loads before it; {agent} reads "
                f"it once")
    return f"`{path}` is already loaded earlier (imported by another file); {agent} reads it once"
