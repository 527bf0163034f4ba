"""The live instruction graph of one workspace root: the composition of its parts.

`InstructionIndex` (index.py) classifies files; `Resolver` (resolution.py) resolves imports;
`RuleMatcher` (rules.py) matches rule globs; `apply_update` (update.py) invalidates what a file
event touches. This class owns the parsed documents and identities, and is what profiles and
checks read. Everything goes through the reader; nothing here touches the disk, and nothing
here knows an agent (profiles) or a check (checks): the composition root (`rulemap.analysis`)
builds a workspace with its readers and selected profiles.

Keys: a file inside the root is named by its root-relative POSIX path; a file outside (an
import under a directory the user granted with `allowImportsFrom`) by its absolute path.
"""

from __future__ import annotations

import codecs
import posixpath
from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any, Final

from rulemap.config import Config, platform_of
from rulemap.derived import (
    IMPORT_GRAPH,
    REACHING_IMPORTS,
    DerivedCache,
    Key,
    KeyFamily,
    OneLookCache,
)
from rulemap.documents import parse_document, unreadable_document
from rulemap.globs import CompiledGlobs, FileIndex
from rulemap.model import Document, Finding, ImportRef, ImportStatus, Resolved
from rulemap.readers.base import Reader, ReadError, WalkingReader, is_within
from rulemap.records import record
from rulemap.retarget import Retarget
from rulemap.text.decoding import decode
from rulemap.workspace.index import InstructionIndex
from rulemap.workspace.layout import Layout
from rulemap.workspace.letter_case import folds_case
from rulemap.workspace.pattern_index import RulesOfFile
from rulemap.workspace.resolution import Resolver, loaded_files
from rulemap.workspace.rule_scope import RuleInfo, RuleScope
from rulemap.workspace.rules import RuleMatcher
from rulemap.workspace.update import apply_update


@record(frozen=True)
class ImportReach:
    documents: tuple[str, ...]  # instruction files, rules, then what they import (BFS order)
    imported: frozenset[str]  # targets of some import (any status)
    hops: Mapping[str, int]  # fewest import hops from an instruction file or rule
    parent: Mapping[str, str]  # the importer on that shortest chain


_IMPORT_REACH: Final[Key[ImportReach]] = KeyFamily[ImportReach]("import-reach").key()
_IMPORTED_DOCUMENTS: Final[Key[list[str]]] = KeyFamily[list[str]]("imported-documents").key()
_LINT_DOCUMENTS: Final[Key[list[str]]] = KeyFamily[list[str]]("lint-documents").key()


class Workspace:
    def __init__(
        self,
        reader: WalkingReader,
        layout: Layout,
        config: Config | None = None,
        home: str | None = None,
        profiles: tuple[object, ...] | None = None,
        profile_options: Mapping[str, Mapping[str, Any]] | None = None,
        home_reader: Reader | None = None,
    ):
        self.reader = reader
        # which files are instruction files and rules, and how deep imports go: the default
        # profile's facts, handed in (this class knows no agent)
        self.layout = layout
        # user-level instruction files (~/.claude/CLAUDE.md, ~/.codex/AGENTS.md) come from
        # here, and only when the user named a home directory (`--home DIR`)
        self.home_reader = home_reader
        # the agents checks run for; None until the composition root selects them. Opaque
        # here (this class knows no agent): `profiles.selected(ws)` reads them as profiles
        self.selected_profiles: tuple[object, ...] | None = profiles
        # agent name → why it was selected ("--profiles", "CLAUDE.md"), set with them
        self.selection_reasons: dict[str, str] = {}
        # whether the selection was detected (not named by --profiles or the configuration):
        # then an edit of a file detection read may change it (analysis.selection_holds)
        self.selection_detected = False
        self.profile_options: Mapping[str, Mapping[str, Any]] = profile_options or {}
        self.root = reader.root
        self.config = config or Config()
        # the platform whose file system the agents run on (`--platform`, `platform`, else
        # the host's): on macOS and Windows an agent opening `AGENTS.md` reads `agents.md`
        # (workspace/letter_case.py)
        self.platform = platform_of(self.config)
        self.case_insensitive = folds_case(self.platform)
        self.home = home
        self.generation = 0  # bumps on every change; caches above the core key on it
        self.real_root = reader.identity(self.root)
        self.allowed = [
            posixpath.normpath(self._expand_home(a)) for a in self.config.allow_imports_from
        ]
        self._real_allowed = [reader.identity(a) for a in self.allowed]
        self.files = FileIndex(reader.list_files())
        self._docs: dict[str, Document] = {}
        self._identity: dict[str, str] = {}
        self.index = InstructionIndex(self.files, reader, layout)
        self.resolver = Resolver(self)
        self.matcher = RuleMatcher(self)
        # the whole check's findings (analysis.check), dropped on every change
        self.findings_cache: list[Finding] | None = None
        # checks.profile_findings: each agent's finding → its copy that names the agent
        self.named_findings: dict[int, tuple[Finding, Finding]] = {}
        # derived values shared by explain and the checks: dropped only when they read a
        # changed file
        self.derived = DerivedCache()
        # (generation, the rules whose matches changed then and how), newest last
        self.retarget_log: list[tuple[int, tuple[Retarget, ...]]] = []
        self.retarget_forgotten = -1  # the newest generation dropped from that log
        # whether the last update may have moved rule matches (views redraw rule decorations)
        self.rules_moved = False

    def _expand_home(self, path: str) -> str:
        if path.startswith("~") and self.home:
            return self.home + path[1:]
        return path

    def look_once(self) -> None:
        """This workspace is looked at once and dropped (a command's check that leaves no
        snapshot): its derived values are kept without what they read (`OneLookCache`)."""
        if not isinstance(self.derived, OneLookCache):
            self.derived = OneLookCache.of(self.derived)

    # ----- paths ----------------------------------------------------------------------------

    def abs(self, key: str) -> str:
        return key if key.startswith("/") else posixpath.join(self.root, key)

    def key(self, absolute: str) -> str:
        """The key of an absolute path: root-relative inside the root, else the path itself."""
        absolute = posixpath.normpath(absolute)
        if is_within(absolute, self.root) and absolute != self.root:
            return absolute[len(self.root) :].lstrip("/")
        return absolute

    def identity(self, key: str) -> str:
        cached = self._identity.get(key)
        if cached is None:
            cached = self.reader.identity(self.abs(key))
            self._identity[key] = cached
        return cached

    def inside(self, real: str) -> bool:
        return is_within(real, self.real_root) or any(
            is_within(real, a) for a in self._real_allowed
        )

    def canonical(self, key: str) -> str:
        """The key of the real file behind `key` (symlinks resolved), when it is inside the
        root; `key` itself otherwise. Graph walks use it so a link is not a new file."""
        real = self.identity(key)
        if real.startswith(self.real_root + "/"):
            return real[len(self.real_root) + 1 :]
        return key

    # ----- classification (index.py) -------------------------------------------------------

    @property
    def instruction_files(self) -> list[str]:
        return self.index.instruction_files

    @property
    def rules(self) -> list[RuleInfo]:
        return self.index.rules

    def instruction_dir(self, path: str) -> str | None:
        """The directory whose instruction file `path` would be (by name), or None."""
        return self.index.instruction_dir(path)

    def instruction_files_in(self, directory: str) -> list[str]:
        return self.index.files_in(directory, self.abs(directory) if directory else self.root)

    def rules_of(self, owner: str) -> list[str]:
        return self.index.rules_of(owner)

    def rule_info(self, key: str) -> RuleInfo | None:
        """The rule file `key` is, or None when it is none."""
        return self.index.rule_info(key)

    def all_documents(self) -> list[str]:
        """Instruction files and rules, sorted (the index's own list: not to be changed)."""
        return self.index.documents

    def is_instruction(self, key: str) -> bool:
        """An instruction file or a rule of this workspace."""
        return key in self.index.instruction_set or self.is_rule(key)

    def is_rule(self, key: str) -> bool:
        return self.layout.rule_scope(key) is not None and key in self.files

    def rule_owner(self, key: str) -> str | None:
        scope = self.layout.rule_scope(key)
        return scope.owner if scope is not None else None

    def rule_scope(self, key: str) -> RuleScope | None:
        """The scope of `key` when it is a rule by its place, else None."""
        return self.layout.rule_scope(key)

    # ----- documents ------------------------------------------------------------------------

    def document(self, key: str) -> Document:
        doc = self._docs.get(key)
        if doc is None:
            doc = self._parse(key)
            self._docs[key] = doc
        return doc

    def _parse(self, key: str) -> Document:
        is_rule = self.layout.rule_scope(key) is not None and not key.startswith("/")
        # read by the identity's own string when the identity is the path itself: the cache's
        # record of the read keeps it, so the two share one (a kilobyte each, 400 levels deep)
        path = self.abs(key)
        identity = self.identity(key)
        if identity == path:
            path = identity
        try:
            data = self.reader.read_bytes(path)
        except ReadError as exc:
            return unreadable_document(key, str(exc), is_rule)
        text, why = decode(data)
        if why is not None:
            return unreadable_document(key, why, is_rule)
        return parse_document(key, text, is_rule, bom=data.startswith(codecs.BOM_UTF8),
                              syntax=self.layout.syntax)

    def document_bytes(self, key: str) -> bytes | None:
        """The bytes document `key` was parsed from, made again from its text (UTF-8 decoded
        strictly encodes back to the same bytes), so an agent that counts bytes need not read
        the file again: on a tree 400 levels deep each read is a `stat` and an `open` of a
        2,000-character path. None when it is not parsed (yet), or unreadable."""
        doc = self._docs.get(key)
        if doc is None or doc.unreadable is not None:
            return None
        data = doc.text.encode("utf-8")
        return codecs.BOM_UTF8 + data if doc.bom else data

    def import_reach(self) -> ImportReach:
        """Every document reachable through imports from the instruction files and rules,
        breadth first: the fewest hops to each and the importer on that shortest chain. Every
        import on the way is resolved, so `importers()` is complete afterwards."""
        cached = self.derived.get(_IMPORT_REACH)
        if cached is not None:
            return cached
        roots = self.all_documents()
        hops = dict.fromkeys(roots, 0)
        parent: dict[str, str] = {}
        imported: set[str] = set()
        order = list(roots)
        queue = deque(roots)
        while queue:
            node = queue.popleft()
            for _, resolved in self.imports(node):
                imported.add(resolved.target)
                if resolved.status is ImportStatus.OK and resolved.target not in hops:
                    hops[resolved.target] = hops[node] + 1
                    parent[resolved.target] = node
                    order.append(resolved.target)
                    queue.append(resolved.target)
        reach = ImportReach(tuple(order), frozenset(imported), hops, parent)
        # Built from the import edges alone, as `imported_documents` is: an edit that keeps a
        # document's import tokens keeps their resolution (a create or delete drops every
        # derived value), so typing prose no longer walks the graph again for the next hover
        # — 5 ms a hover on 3,750 documents 400 levels deep (benchmarks/README.md)
        self.derived.put(_IMPORT_REACH, reach, reads=[IMPORT_GRAPH])
        return reach

    def imported_documents(self) -> list[str]:
        """Files inside the root that some instruction file or rule imports, transitively
        (canonical keys, sorted): their own imports are checked too."""
        cached = self.derived.get(_IMPORTED_DOCUMENTS)
        if cached is not None:
            return cached
        ordered = self.all_documents()
        roots = set(ordered)
        seen: set[str] = set()
        # popped in path order: most documents are parsed here first, and a file read right
        # after its neighbour finds the directories on its way still in the CPU's caches
        # (3,758 files 400 levels deep: 520 → 185 ms of reads, in a random order before)
        stack = ordered[::-1]
        while stack:
            path = stack.pop()
            for target in loaded_files(self.imports(path), self.canonical):
                if target not in seen and target not in roots:
                    seen.add(target)
                    stack.append(target)
        result = sorted(seen)
        self.derived.put(_IMPORTED_DOCUMENTS, result, reads=[REACHING_IMPORTS])
        return result

    def lint_documents(self) -> list[str]:
        """Documents to lint: instruction files, rules and the files they import, each real
        file once (a symlinked alias is linted as its target)."""
        cached = self.derived.get(_LINT_DOCUMENTS)
        if cached is not None:
            return cached
        chosen: dict[str, str] = {}
        for path in [*self.all_documents(), *self.imported_documents()]:
            identity = self.identity(path)
            current = chosen.get(identity)
            if current is None or (identity == self.abs(path) and identity != self.abs(current)):
                chosen[identity] = path
        # which files are documents, and what a symlink is an alias of, change only with a
        # create or delete (which drops every derived value); the imported ones with the graph
        return self.derived.put(_LINT_DOCUMENTS, sorted(chosen.values()),
                                reads=[REACHING_IMPORTS])

    # ----- imports (resolution.py) ----------------------------------------------------------

    def imports(self, key: str) -> list[tuple[ImportRef, Resolved]]:
        return self.resolver.imports(key)

    def importers(self, key: str) -> list[tuple[str, ImportRef]]:
        """Files whose imports point at `key` (any status), with the import token."""
        return self.resolver.importers(key)

    def resolve(self, importer: str, ref: ImportRef) -> Resolved:
        return self.resolver.resolve(importer, ref)

    # ----- rule matches (rules.py) ----------------------------------------------------------

    def compiled_globs(self, rule: str) -> CompiledGlobs | None:
        return self.matcher.compiled_globs(rule)

    def rule_matches(self, rule: str) -> list[str]:
        return self.matcher.rule_matches(rule)

    def glob_matches(self, rule: str, pattern: str, limit: int | None = None) -> list[str]:
        return self.matcher.glob_matches(rule, pattern, limit)

    def glob_has_matches(self, rule: str, pattern: str) -> bool:
        return self.matcher.glob_has_matches(rule, pattern)

    def rule_matches_target(self, rule: str, target: str) -> bool:
        return self.matcher.matches_target(rule, target)

    def first_matching_glob(self, rule: str, target: str) -> str | None:
        return self.matcher.first_matching_glob(rule, target)

    def is_scoped(self, rule: str) -> bool:
        return self.matcher.is_scoped(rule)

    def rules_for_file(self, target: str) -> list[tuple[str, str]]:
        return self.matcher.rules_for_file(target)

    def scoped_rules_index(self) -> RulesOfFile:
        return self.matcher.scoped_rules_index()

    def scoped_rules_matching(self, target: str, owners: Iterable[str]) -> list[str]:
        return self.matcher.scoped_rules_matching(target, owners)

    # ----- incremental updates (update.py) --------------------------------------------------

    def update(
        self,
        changed: Iterable[str] = (),
        created: Iterable[str] = (),
        deleted: Iterable[str] = (),
    ) -> set[str]:
        """Apply file events (keys); returns the keys whose documents or findings may differ."""
        return apply_update(self, set(changed), set(created), set(deleted))

    def parsed_documents(self) -> list[str]:
        """The files parsed so far (an update re-parses those it is told changed)."""
        return list(self._docs)

    def forget_file(self, key: str) -> Document | None:
        """Drop `key`'s parsed document, identity and import resolution (update.py)."""
        self._identity.pop(key, None)
        self.resolver.drop(key)
        return self._docs.pop(key, None)

    def reread(self, key: str) -> Document | None:
        """`key` parsed again for a change event: the very document it was parsed as when it
        reads the same at the same real path — a change that changed nothing (a buffer closed
        as it is on disk, a file saved or touched unmodified) —, else the new one; None when it
        was never parsed or its real path moved. A document is parsed from its key, its text,
        its byte-order mark and whether it is a rule alone, so the same bytes parse the same."""
        old = self._docs.get(key)
        before = self._identity.get(key)
        if old is None or before is None or self.reader.identity(self.abs(key)) != before:
            return None
        new = self._parse(key)
        if (new.text, new.bom, new.unreadable, new.is_rule) == (
                old.text, old.bom, old.unreadable, old.is_rule):
            return old
        return new

    def keep_document(self, key: str, doc: Document) -> None:
        """Take `doc` (from `reread`) as `key`'s document, after `forget_file`: parsed once."""
        self._docs[key] = doc

    def aliases_of(self, keys: set[str]) -> set[str]:
        """Keys whose identity (real path) is that of one of `keys`: a symlinked alias
        (CLAUDE.md → AGENTS.md) reads the same bytes as its target."""
        identities = {self._identity[k] for k in keys if k in self._identity}
        return {k for k, ident in self._identity.items() if ident in identities}
