"""Update and invalidation: what a file event (changed, created, deleted keys) touches.

It drops the cached document, identity and import resolution of those files; on create/delete
it also re-resolves the imports that name the path (reverse edges; the importer's other imports
keep theirs), updates rule-match lists by testing only the new or removed file, and re-indexes
instruction files if the name matters.
Then `DerivedCache.invalidate` drops what read a touched file, plus `IMPORT_GRAPH` if a file's
import tokens changed (and `REACHING_IMPORTS` if the files they load did),
`RULE_SCOPES` if a rule gained or lost `paths`, and `rules-for:<file>`
for the files a rule's new globs match differently (the file → rules index is patched in place,
and `retarget_log` records which files each rule gained and lost)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from rulemap.config import CONFIG_FILES
from rulemap.derived import IMPORT_GRAPH, REACHING_IMPORTS, RULE_SCOPES, rules_for
from rulemap.model import Document, ImportRef, Resolved
from rulemap.workspace.resolution import loaded_files

if TYPE_CHECKING:
    from rulemap.derived import DerivedCache
    from rulemap.globs import FileIndex
    from rulemap.model import Finding
    from rulemap.readers.base import Reader
    from rulemap.retarget import Retarget
    from rulemap.workspace.index import InstructionIndex
    from rulemap.workspace.layout import Layout
    from rulemap.workspace.resolution import Resolver
    from rulemap.workspace.rules import RuleMatcher

RETARGET_LOG_LENGTH = 64


class UpdatedWorkspace(Protocol):
    """What an update reads and sets of its workspace (core.py's `Workspace`, which imports
    this module: typed by what it touches, so that this module does not import it back)."""

    generation: int
    findings_cache: list[Finding] | None
    rules_moved: bool
    retarget_forgotten: int

    @property
    def retarget_log(self) -> list[tuple[int, tuple[Retarget, ...]]]: ...

    @property
    def layout(self) -> Layout: ...

    @property
    def files(self) -> FileIndex: ...

    @property
    def reader(self) -> Reader: ...

    @property
    def derived(self) -> DerivedCache: ...

    @property
    def index(self) -> InstructionIndex: ...

    @property
    def resolver(self) -> Resolver: ...

    @property
    def matcher(self) -> RuleMatcher: ...

    def abs(self, key: str) -> str: ...

    def document(self, key: str) -> Document: ...

    def reread(self, key: str) -> Document | None: ...

    def forget_file(self, key: str) -> Document | None: ...

    def imports(self, key: str) -> list[tuple[ImportRef, Resolved]]: ...

    def canonical(self, key: str) -> str: ...

    def keep_document(self, key: str, doc: Document) -> None: ...

    def aliases_of(self, keys: set[str]) -> set[str]: ...


def apply_update(
    ws: UpdatedWorkspace, changed: set[str], created: set[str], deleted: set[str]
) -> set[str]:
    """Apply file events (keys); returns the keys whose documents or findings may differ."""
    # a change that changed nothing touches nothing (the language server closing a buffer
    # that is as it is on disk re-checked the whole workspace and its overviews, ~0.4 s of
    # its worker, for it); what did change is parsed here, once
    fresh: dict[str, Document] = {}
    for key in [k for k in changed if k not in created and k not in deleted]:
        doc = ws.reread(key)
        if doc is None:
            continue
        if doc is ws.document(key):
            changed.discard(key)
        else:
            fresh[key] = doc
    touched = changed | created | deleted
    if not touched:
        ws.rules_moved = False
        return set()
    structural = bool(created or deleted)
    ws.generation += 1
    ws.findings_cache = None
    ws.index.forget_probes()
    aliases = ws.aliases_of(touched)
    touched |= aliases
    changed |= aliases - created - deleted
    # An edit of a rule's body keeps which files it matches; new globs change that only
    # for the files they match differently; gaining or losing `paths` changes every load.
    scopes_changed = structural
    imports_changed = reaching_changed = structural
    retargeted: list[tuple[str, list[str] | None]] = []  # (rule, files it matched before)
    for key in touched:
        loaded = ws.resolver.resolved(key)  # before the edit (None: never resolved)
        old = ws.forget_file(key)
        if key in fresh:
            ws.keep_document(key, fresh[key])
        new = ws.document(key) if old is not None and key in changed else None
        # a file never parsed fed nothing derived; one re-parsed keeps the graph if its
        # import tokens are the same
        if (
            old is not None
            and new is not None
            and [i.raw for i in old.imports] != [i.raw for i in new.imports]
        ):
            imports_changed = True
            reaching_changed = reaching_changed or loaded is None or (
                _reaching(ws, loaded) != _reaching(ws, ws.imports(key)))
        is_rule = ws.layout.rule_scope(key) is not None
        old_globs = _glob_patterns(old) if old is not None else None
        new_globs = _glob_patterns(new) if new is not None else None
        if is_rule and key in changed and old is not None and old_globs == new_globs:
            continue  # same globs (or still unconditional): matches stay
        if is_rule and (old is None or (old_globs is None) != (new_globs is None)):
            scopes_changed = True
        elif is_rule:
            retargeted.append((key, ws.matcher.matched_before(key)))
        ws.matcher.forget(key)
    if structural:
        for key in created:
            if not key.startswith("/"):
                ws.files.add(key)
        for key in deleted:
            ws.files.remove(key)
        # resolution of every import that names a created or deleted path changes, and only
        # of those: each importer once, whatever the number of its paths in the batch
        named: dict[str, set[str]] = {}
        for key in created | deleted:
            for importer in ws.resolver.importers_of(key):
                named.setdefault(importer, set()).add(key)
        for importer, keys in named.items():
            ws.resolver.refresh(importer, keys)
            touched.add(importer)
        ws.matcher.files_changed(created, deleted)
        if any(_affects_index(ws, k) for k in created | deleted):
            ws.index.rebuild()
    pseudo: set[str] = set()
    if scopes_changed:
        pseudo.add(RULE_SCOPES)
        ws.retarget_log.clear()
        ws.retarget_forgotten = ws.generation
    elif retargeted:
        changes = ws.matcher.retarget(retargeted)
        for change in changes:
            pseudo.update(map(rules_for, change.gained))
            pseudo.update(map(rules_for, change.lost))
        # groupings of files by matching rules catch up from this log instead of rebuilding
        ws.retarget_log.append((ws.generation, tuple(changes)))
        if len(ws.retarget_log) > RETARGET_LOG_LENGTH:
            ws.retarget_forgotten = ws.retarget_log[-RETARGET_LOG_LENGTH - 1][0]
            del ws.retarget_log[:-RETARGET_LOG_LENGTH]
    if imports_changed:
        pseudo.add(IMPORT_GRAPH)
    if reaching_changed:
        pseudo.add(REACHING_IMPORTS)
    ws.rules_moved = scopes_changed or bool(retargeted)
    ws.derived.invalidate(touched | pseudo, structural)
    if any(k in CONFIG_FILES for k in touched):
        touched.add("*config*")
    return touched


def _reaching(ws: UpdatedWorkspace, imports: list[tuple[ImportRef, Resolved]]) -> frozenset[str]:
    """The workspace files these imports load: an edit that keeps them keeps which documents
    are imported and linted."""
    return frozenset(loaded_files(imports, ws.canonical))


def _affects_index(ws: UpdatedWorkspace, key: str) -> bool:
    return ws.index.affects(key) or (
        ws.reader.is_dir(ws.abs(key)) if not key.startswith("/") else False
    )


def _glob_patterns(doc: Document) -> tuple[str, ...] | None:
    """What decides which files a rule matches: its written globs (None: unconditional)."""
    if doc.globs is None or doc.rule_skip is not None:
        return None
    return tuple(g.pattern for g in doc.globs)
