"""The seed's `reach(paths)`: what tools reaching those paths bring to a run, given what the
run already brought. The one implementation of cogitator's per-step loading: `explain TARGET`
is `reach(start(), [TARGET])`, a session replays it step by step, and the budget check reads
the loads it builds.

A run's state (`Reached`) is a `Load` — a chain of links, each a batch of files with their
imports — plus the nested directories and scoped rules the run has joined. For a tool step on
a path, in order: the instruction files of each directory below cwd on the way to the path
that has some (shallow first, `nested`), then the scoped rules of the root→cwd directories
whose globs match the path (`scoped`); a file the run already brought (by identity) is never
brought again.

Memo: the load `reach` builds from the start-up state for one path depends only on the
deepest such directory (its *anchor*) and the matching rules, so it is stored in the
workspace's derived cache under `("base-load", chain, anchor)` and `("group-load", chain,
anchor, rules)`. Every file of a 20,000-file workspace falls in one of a few hundred such
groups, which is what keeps `check` linear; a session whose later steps go on below the same
anchor keeps hitting the memo, and one that leaves it builds its own links (key None).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from rulemap.derived import RULE_SCOPES, Key, KeyFamily
from rulemap.profiles.base import parent_dir
from rulemap.profiles.cogitator.load import Load
from rulemap.profiles.cogitator.settings import settings_of
from rulemap.records import record

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from rulemap.workspace import Workspace

LoadKey = Key[Load]
# the memo: chain, anchor → the start-up load plus the nested files down to anchor; chain,
# anchor, scoped rules → that plus those rules
BASE_LOAD: Final = KeyFamily[Load]("base-load")
GROUP_LOAD: Final = KeyFamily[Load]("group-load")


@record(frozen=True)
class Reached:
    """What a run has brought so far.

    `key` is the memo key of `load` when it is a shared group load (the start-up load, a
    nested anchor's, or one of those plus a target's scoped rules), else None. `dirs` is None
    when it follows from the key (the anchor's directories); a run's own state lists them."""

    chain: tuple[str, ...]
    load: Load
    key: LoadKey | None
    dirs: frozenset[str] | None = None
    rules: frozenset[str] = frozenset()

    @property
    def cwd_dir(self) -> str:
        return self.chain[-1]

    @property
    def anchor(self) -> str | None:
        """The deepest nested directory of a shared load (None: the start-up load's)."""
        assert self.key is not None
        anchor = self.key[2]
        assert anchor is None or isinstance(anchor, str)
        return anchor

    def joined_dirs(self, ws: Workspace) -> frozenset[str]:
        if self.dirs is not None:
            return self.dirs
        anchor = self.anchor
        return frozenset(anchor_chain(ws, self.cwd_dir, anchor)) if anchor else frozenset()


def start(ws: Workspace, chain: tuple[str, ...]) -> Reached:
    """The start-up load: per directory root → cwd its project files, then its unconditional
    rules, each followed by its imports (memo: `("base-load", chain, None)`)."""
    key = _base_key(chain, None)
    load = ws.derived.get(key)
    if load is None:
        load = Load(ws)
        for directory in chain:
            for path in ws.instruction_files_in(directory):
                load.add(path, "project")
            if settings_of(ws).rules:
                for rule in ws.rules_of(directory):
                    if not ws.is_scoped(rule):
                        load.add(rule, "rule")
        # the unconditional rules it loaded are among its reads; a scoped rule that becomes
        # unconditional (or back) changes RULE_SCOPES
        ws.derived.put(key, load, reads=load.frozen_reads(RULE_SCOPES))
    return Reached(chain, load, key)


def reach(ws: Workspace, state: Reached, paths: Iterable[str]) -> Reached:
    """What a tool step reading or editing `paths` leaves the run with: for each path in
    order, its nested directories' files, then its scoped rules. A path ending in `/` is a
    directory (a Grep or Glob over it): its nested files join, no rule does (rules join for a
    file they match)."""
    for path in paths:
        anchor, rules = target_group(ws, state.chain, path)
        state = _join_dirs(ws, state, anchor)
        state = _join_rules(ws, state, tuple(r for r in rules if r not in state.rules))
    return state


def target_group(
    ws: Workspace, chain: tuple[str, ...], path: str
) -> tuple[str | None, tuple[str, ...]]:
    """What a tool reaching `path` asks for: the deepest nested directory on the way (its
    anchor) and the scoped rules of the chain whose globs match it, in order."""
    # steps.py's session types are built only by a command that reaches a target
    from rulemap.profiles.steps import directory_of

    directory, is_dir = directory_of(path)
    anchor = nested_anchor(ws, chain[-1], directory)
    if not settings_of(ws).rules or is_dir:
        return anchor, ()
    return anchor, tuple(ws.scoped_rules_matching(path, chain))


def group_key(chain: tuple[str, ...], anchor: str | None, rules: tuple[str, ...]) -> LoadKey:
    """The memo key of what `reach` brings from the start-up load for a path of that group."""
    return GROUP_LOAD.key(chain, anchor, rules) if rules else _base_key(chain, anchor)


def nested_anchor(ws: Workspace, cwd_dir: str, target_dir: str) -> str | None:
    """The deepest directory strictly below cwd on the way to target_dir that has
    instruction files (None when there is none, or nested loading is off)."""
    if not settings_of(ws).nested:
        return None
    below = target_dir.startswith(cwd_dir + "/") if cwd_dir else bool(target_dir)
    if not below:
        return None
    directory = target_dir
    while directory and directory != cwd_dir:
        if ws.instruction_files_in(directory):
            return directory
        directory = parent_dir(directory)
    return None


def anchor_chain(ws: Workspace, cwd_dir: str, anchor: str | None) -> list[str]:
    """`anchor` and the nested directories with instruction files above it, shallow first."""
    out: list[str] = []
    while anchor is not None:
        out.append(anchor)
        anchor = nested_anchor(ws, cwd_dir, parent_dir(anchor))
    out.reverse()
    return out


def base_load(ws: Workspace, chain: tuple[str, ...], anchor: str | None) -> Reached:
    """What reaching a file below `anchor` (no scoped rule matching) brings from the start-up
    load: the memo of `reach`, built from the deepest memo entry on the way (iteratively: a
    tree may be deeper than Python's recursion limit)."""
    key = _base_key(chain, anchor)
    cached = ws.derived.get(key)  # the common case: one look-up
    if cached is not None:
        return Reached(chain, cached, key)
    return _join_dirs(ws, start(ws, chain), anchor)


def group_load(
    ws: Workspace, chain: tuple[str, ...], anchor: str | None, rules: tuple[str, ...]
) -> Reached:
    """What reaching a file below `anchor` that exactly the scoped `rules` match brings from
    the start-up load (memo: `("group-load", chain, anchor, rules)`)."""
    if rules:
        key = group_key(chain, anchor, rules)
        cached = ws.derived.get(key)  # the common case: one look-up
        if cached is not None:
            return Reached(chain, cached, key, None, frozenset(rules))
    return _join_rules(ws, base_load(ws, chain, anchor), rules)


def base_load_of(ws: Workspace, chain: Sequence[str], anchor: str | None) -> Load:
    """Project files and unconditional rules of root→cwd, then nested files down to
    `anchor`: what reaching a file there brings before any scoped rule (the memo, shared by
    every target below one anchor; the budget check's and `duplicates`' loads)."""
    cached = ws.derived.get(BASE_LOAD.key(tuple(chain), anchor))
    return cached if cached is not None else base_load(ws, tuple(chain), anchor).load


def group_load_of(
    ws: Workspace, chain: Sequence[str], anchor: str | None, rules: tuple[str, ...]
) -> Load:
    """What reaching a file below `anchor` that exactly the scoped `rules` (of the chain's
    directories, in order) match brings at start-up: the memo."""
    state = group_load(ws, tuple(chain), anchor, rules)
    assert state.key is not None
    return state.load


def _base_key(chain: tuple[str, ...], anchor: str | None) -> LoadKey:
    return BASE_LOAD.key(chain, anchor)


def _join_dir(ws: Workspace, parent: Load, directory: str) -> Load:
    """A link on `parent` with `directory`'s instruction files (reason nested)."""
    load = parent.child()
    for path in ws.instruction_files_in(directory):
        load.add(path, "nested")
    return load


def _join_dirs(ws: Workspace, state: Reached, deepest: str | None) -> Reached:
    """`state` once the nested directories down to `deepest` (an anchor, or None) joined."""
    if deepest is None:
        return state
    chain = state.chain
    if state.key is not None and state.key[0] == BASE_LOAD.name:
        at = state.anchor
        if at is None or deepest == at or deepest.startswith(at + "/"):
            return _memo_dirs(ws, state, deepest)
    # a run's own links: the directories on the way it has not joined yet
    joined = state.joined_dirs(ws)
    load = state.load
    added = []
    for directory in anchor_chain(ws, state.cwd_dir, deepest):
        if directory not in joined:
            load = _join_dir(ws, load, directory)
            added.append(directory)
    if not added:
        return state
    return Reached(chain, load, None, joined | frozenset(added), state.rules)


def _memo_dirs(ws: Workspace, state: Reached, deepest: str) -> Reached:
    """From a shared load whose anchor lies on the way to `deepest`: the shared load of
    `deepest`, from the deepest one already stored (the walk stops at `state`'s anchor)."""
    chain = state.chain
    missing: list[str] = []
    current: str | None = deepest
    assert state.key is not None
    parent_key = state.key
    parent = state.load
    while current is not None and current != state.anchor:
        cached = ws.derived.get(_base_key(chain, current))
        if cached is not None:
            parent_key, parent = _base_key(chain, current), cached
            break
        missing.append(current)
        current = nested_anchor(ws, state.cwd_dir, parent_dir(current))
    for directory in reversed(missing):
        load = _join_dir(ws, parent, directory)
        key = _base_key(chain, directory)
        # the parent's reads are its own: this is dropped with it
        ws.derived.put(key, load, reads=load.frozen_reads(RULE_SCOPES), after=[parent_key])
        parent_key, parent = key, load
    return Reached(chain, parent, parent_key)


def _join_rules(ws: Workspace, state: Reached, rules: tuple[str, ...]) -> Reached:
    """`state` once the scoped `rules` (not joined yet) joined, in order, one link."""
    if not rules:
        return state
    parent_key = state.key if state.key is not None and state.key[0] == BASE_LOAD.name else None
    key = group_key(state.chain, state.anchor, rules) if parent_key is not None else None
    if key is not None:
        cached = ws.derived.get(key)
        if cached is not None:
            return Reached(state.chain, cached, key, None, frozenset(rules))
    load = state.load.child()
    for rule in rules:
        load.add(rule, "scoped")
    if key is not None and parent_key is not None:
        ws.derived.put(key, load, reads=load.frozen_reads(RULE_SCOPES), after=[parent_key])
    dirs = None if key is not None else state.joined_dirs(ws)
    return Reached(state.chain, load, key, dirs, state.rules | frozenset(rules))
