"""The live instruction graph of one workspace root.

It owns the file index, the parsed documents, import resolution and rule matches, all cached
and invalidated per file: `update()` with the paths that changed recomputes only what reads
them. Everything goes through the reader; nothing here touches the disk.

Keys: a file inside the root is named by its root-relative POSIX path; a file outside (an
import under a directory the user granted with `allowImportsFrom`) by its absolute path.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from rulemap.config import CONFIG_FILES, Config, read_config
from rulemap.derived import IMPORT_GRAPH, RULE_SCOPES, DerivedCache, rules_for
from rulemap.documents import parse_document, unreadable_document
from rulemap.globs import (
    CompiledGlobs,
    FileIndex,
    candidates_are_exact,
    compile_patterns,
    literal_prefix,
    prefiltered,
    safe_expand,
)
from rulemap.model import Document, Explanation, Finding, ImportRef, ImportStatus, Resolved
from rulemap.readers.base import Reader, ReadError, is_within
from rulemap.retarget import Retarget, patch_rules_index
from rulemap.text.decoding import decode

RULES_DIR = ".claude/rules/"


@dataclass(frozen=True)
class RuleInfo:
    path: str
    owner: str  # directory holding `.claude` ('' = root)


class Workspace:
    def __init__(self, reader: Reader, config: Config | None = None, home: str | None = None):
        self.reader = reader
        self.root = reader.root
        self.config = config or Config()
        self.home = home
        self.generation = 0  # bumps on every change; caches above the core key on it
        self._real_root = reader.identity(self.root)
        self._allowed = [
            posixpath.normpath(self._expand_home(a)) for a in self.config.allow_imports_from
        ]
        self._real_allowed = [reader.identity(a) for a in self._allowed]
        self.files = FileIndex(reader.list_files())
        self._docs: dict[str, Document] = {}
        self._identity: dict[str, str] = {}
        self._resolved: dict[str, list[tuple[ImportRef, Resolved]]] = {}
        self._importers: dict[str, set[str]] = {}  # target key → importer keys (any status)
        self._compiled: dict[str, CompiledGlobs | None] = {}
        self._matches: dict[str, list[str]] = {}  # rule → matching files (sorted)
        self._match_sets: dict[str, frozenset[str]] = {}
        self._owners: dict[str, str] = {}
        self._single_globs: dict[str, CompiledGlobs] = {}
        self._instruction_files: list[str] = []
        self._rules: list[RuleInfo] = []
        self._by_dir: dict[str, list[str]] = {}
        self._rules_by_owner: dict[str, list[str]] = {}
        self._names_longest_first = sorted(self.config.files, key=len, reverse=True)
        self._basenames = frozenset(n.rsplit("/", 1)[-1] for n in self.config.files)
        self._directories: set[str] = set()
        self._probed: dict[str, list[str]] = {}
        self._instruction_set: frozenset[str] = frozenset()
        self._findings_cache: list[Finding] | None = None
        # derived values shared by explain and the checks: `load_cache` is emptied on every
        # change, `derived` drops only what read a changed file
        self.load_cache: dict[tuple[object, ...], Any] = {}
        self.derived = DerivedCache()
        # (generation, the rules whose matches changed then and how), newest last
        self.retarget_log: list[tuple[int, tuple[Retarget, ...]]] = []
        self.retarget_forgotten = -1  # the newest generation dropped from that log
        self._index_instruction_files()

    # ----- construction ---------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        root: str,
        reader: Reader | None = None,
        overrides: Mapping[str, Any] | None = None,
        home: str | None = None,
        allow_imports_from: Iterable[str] = (),
    ) -> Workspace:
        """Open a workspace, reading `rulemap.toml` or `[tool.rulemap]` through the reader.

        `allow_imports_from` is what the user grants (never the repository: its own
        `allowImportsFrom` is ignored and reported). Raises ConfigError for an invalid
        configuration. Without a reader, the local disk.
        """
        from rulemap.checks.registry import CHECK_CODES
        from rulemap.config import parse_config
        from rulemap.readers.local import LocalReader

        base_reader = reader or LocalReader(root)
        config = read_config(base_reader, CHECK_CODES)
        if overrides:
            extra = parse_config(overrides, "settings", CHECK_CODES)
            config = replace(config, **{k: getattr(extra, k) for k in _explicit_fields(overrides)})
        config = replace(config, allow_imports_from=tuple(allow_imports_from))
        if reader is None and config.allow_imports_from:
            base_reader = LocalReader(root, allowed=config.allow_imports_from)
        return cls(base_reader, config, home=home)

    def _expand_home(self, path: str) -> str:
        if path.startswith("~") and self.home:
            return self.home + path[1:]
        return path

    def _index_instruction_files(self) -> None:
        names = self.config.files
        instruction: set[str] = set()
        rules: list[RuleInfo] = []
        directories: set[str] = {""}
        for path in self.files:
            slash = path.rfind("/")
            if slash > 0:
                parent = path[:slash]
                while parent and parent not in directories:
                    directories.add(parent)
                    cut = parent.rfind("/")
                    parent = parent[:cut] if cut > 0 else ""
            info = self._rule_info(path)
            if info is not None:
                rules.append(info)
            elif self._instruction_dir(path) is not None:
                instruction.add(path)
        # Instruction files load even when git ignores them (CLAUDE.local.md usually is).
        for path in self.reader.ignored_files():
            if self._instruction_dir(path) is not None:
                instruction.add(path)
        self._directories = directories
        self._probed = {}
        self._instruction_files = sorted(instruction)
        self._instruction_set = frozenset(instruction)
        self._rules = sorted(rules, key=lambda r: r.path)
        self._by_dir = {}
        for rel in self._instruction_files:
            owner = self._instruction_dir(rel)
            assert owner is not None
            self._by_dir.setdefault(owner, []).append(rel)
        order = {name: index for index, name in enumerate(names)}
        for directory, rels in self._by_dir.items():
            rels.sort(key=lambda r: order[r[len(directory) + 1 :] if directory else r])
        self._rules_by_owner = {}
        for rule in self._rules:
            self._rules_by_owner.setdefault(rule.owner, []).append(rule.path)

    def instruction_dir(self, path: str) -> str | None:
        """The directory whose instruction file `path` would be (by name), or None."""
        return self._instruction_dir(path)

    def _instruction_dir(self, path: str) -> str | None:
        # most files are not instruction files: their base name settles it at once
        if path.rsplit("/", 1)[-1] not in self._basenames:
            return None
        # longest names first: `x/.claude/CLAUDE.md` is x's `.claude/CLAUDE.md`, not the
        # `CLAUDE.md` of a directory `x/.claude`
        for name in self._names_longest_first:
            if path == name:
                return ""
            if path.endswith("/" + name):
                return path[: -len(name) - 1]
        return None

    @staticmethod
    def _rule_info(path: str) -> RuleInfo | None:
        if not path.endswith(".md"):
            return None
        if path.startswith(RULES_DIR):
            return RuleInfo(path, "")
        marker = "/" + RULES_DIR
        index = path.find(marker)
        if index < 0:
            return None
        return RuleInfo(path, path[:index])

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
        return is_within(real, self._real_root) or any(
            is_within(real, a) for a in self._real_allowed
        )

    # ----- queries --------------------------------------------------------------------------

    @property
    def instruction_files(self) -> list[str]:
        return self._instruction_files

    @property
    def rules(self) -> list[RuleInfo]:
        return self._rules

    def instruction_files_in(self, directory: str) -> list[str]:
        found = self._by_dir.get(directory)
        if found is not None:
            return found
        if directory in self._directories:
            return []
        # A directory the index does not list (git-ignored, or not created yet): the agent
        # knows nothing of git, so look for the names there directly.
        probed = self._probed.get(directory)
        if probed is None:
            probed = []
            for name in self.config.files:
                rel = f"{directory}/{name}" if directory else name
                full = self.abs(rel)
                if self.reader.exists(full) and not self.reader.is_dir(full):
                    probed.append(rel)
            self._probed[directory] = probed
        return probed

    def rules_of(self, owner: str) -> list[str]:
        return self._rules_by_owner.get(owner, [])

    def all_documents(self) -> list[str]:
        """Instruction files and rules, sorted."""
        return sorted({*self._instruction_files, *(r.path for r in self._rules)})

    def canonical(self, key: str) -> str:
        """The key of the real file behind `key` (symlinks resolved), when it is inside the
        root; `key` itself otherwise. Graph walks use it so a link is not a new file."""
        real = self.identity(key)
        if real.startswith(self._real_root + "/"):
            return real[len(self._real_root) + 1 :]
        return key

    def imported_documents(self) -> list[str]:
        """Files inside the root that some instruction file or rule imports, transitively
        (canonical keys, sorted): their own imports are checked too."""
        cached: list[str] | None = self.derived.get("imported-documents")
        if cached is not None:
            return cached
        roots = set(self.all_documents())
        seen: set[str] = set()
        stack = list(roots)
        while stack:
            path = stack.pop()
            for _, resolved in self.imports(path):
                if resolved.status is not ImportStatus.OK or resolved.target.startswith("/"):
                    continue
                target = self.canonical(resolved.target)
                if target not in seen and target not in roots:
                    seen.add(target)
                    stack.append(target)
        result = sorted(seen)
        self.derived.put("imported-documents", result, reads=[IMPORT_GRAPH])
        return result

    def lint_documents(self) -> list[str]:
        """Documents to lint: instruction files, rules and the files they import, each real
        file once (a symlinked alias is linted as its target)."""
        cached: list[str] | None = self.derived.get("lint-documents")
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
        return self.derived.put("lint-documents", sorted(chosen.values()), reads=[IMPORT_GRAPH])  # type: ignore[no-any-return]

    def is_instruction(self, key: str) -> bool:
        """An instruction file or a rule of this workspace."""
        return key in self._instruction_set or self.is_rule(key)

    def is_rule(self, key: str) -> bool:
        info = self._rule_info(key)
        return info is not None and key in self.files

    def rule_owner(self, key: str) -> str | None:
        owner = self._owners.get(key)
        if owner is None:
            info = self._rule_info(key)
            if info is None:
                return None
            owner = self._owners[key] = info.owner
        return owner

    def scoped_rules_index(self) -> dict[str, tuple[str, ...]]:
        """Workspace file → the path-scoped rules (of any directory) that match it, sorted.
        Built from the rules' match lists; rebuilt after any change. Files that match the
        same rules share one tuple (few distinct combinations, many files)."""
        index: dict[str, tuple[str, ...]] | None = self.derived.get("rules-of-file")
        if index is None:
            lists: defaultdict[str, list[str]] = defaultdict(list)
            for rule in self._rules:
                if self.is_scoped(rule.path):
                    for path in self.rule_matches(rule.path):
                        lists[path].append(rule.path)
            shared: dict[tuple[str, ...], tuple[str, ...]] = {}
            index = {}
            for path, rules in lists.items():
                key = tuple(rules)
                index[path] = shared.setdefault(key, key)
            # patched in place when a rule's globs change (see update)
            self.derived.put("rules-of-file", index, reads=[RULE_SCOPES])
        return index

    def scoped_rules_matching(self, target: str, owners: Iterable[str]) -> list[str]:
        """Path-scoped rules of the `owners` directories whose globs match `target`, sorted.

        For files of the workspace this is a look-up in an index built from every rule's
        match list (the lists survive edits that do not touch the rule); other targets are
        matched glob by glob."""
        owners = tuple(owners)
        key = ("scoped-of", owners)
        wanted: frozenset[str] | None = self.derived.get(key)
        if wanted is None:
            rules = [r for d in owners for r in self.rules_of(d)]
            wanted = frozenset(r for r in rules if self.is_scoped(r))
            self.derived.put(key, wanted, reads=rules)
        if target not in self.files:
            return sorted(r for r in wanted if self.rule_matches_target(r, target))
        return sorted(r for r in self.scoped_rules_index().get(target, ()) if r in wanted)

    def document(self, key: str) -> Document:
        doc = self._docs.get(key)
        if doc is None:
            doc = self._parse(key)
            self._docs[key] = doc
        return doc

    def _parse(self, key: str) -> Document:
        is_rule = self._rule_info(key) is not None and not key.startswith("/")
        try:
            data = self.reader.read_bytes(self.abs(key))
        except ReadError as exc:
            return unreadable_document(key, str(exc), is_rule)
        text, why = decode(data)
        if why is not None:
            return unreadable_document(key, why, is_rule)
        return parse_document(key, text, is_rule)

    def imports(self, key: str) -> list[tuple[ImportRef, Resolved]]:
        cached = self._resolved.get(key)
        if cached is None:
            cached = [(ref, self._resolve(key, ref)) for ref in self.document(key).imports]
            self._resolved[key] = cached
            for _, resolved in cached:
                self._importers.setdefault(resolved.target, set()).add(key)
        return cached

    def importers(self, key: str) -> list[tuple[str, ImportRef]]:
        """Files whose imports point at `key` (any status), with the import token."""
        out: list[tuple[str, ImportRef]] = []
        for importer in sorted(self._importers.get(key, ())):
            for ref, resolved in self.imports(importer):
                if resolved.target == key:
                    out.append((importer, ref))
        return out

    def resolve(self, importer: str, ref: ImportRef) -> Resolved:
        return self._resolve(importer, ref)

    def _resolve(self, importer: str, ref: ImportRef) -> Resolved:
        path = ref.path
        if path == "~" or path.startswith("~/"):
            if self.home is None:
                return Resolved(ImportStatus.HOME, path, None)
            absolute = posixpath.normpath(self.home + path[1:])
            if not any(is_within(absolute, a) for a in self._allowed):
                return Resolved(ImportStatus.HOME, absolute, None)
        elif path.startswith("/"):
            absolute = posixpath.normpath(path)
        else:
            base = posixpath.dirname(self.abs(importer))
            absolute = posixpath.normpath(posixpath.join(base, path))
        if absolute == self.root:  # `@.` from the root, `@..` from a top-level directory
            return Resolved(ImportStatus.DIRECTORY, ".", self._real_root)
        target = self.key(absolute)
        lexically_inside = not target.startswith("/") or any(
            is_within(absolute, a) for a in self._allowed
        )
        if not lexically_inside:
            return Resolved(ImportStatus.OUTSIDE, target, None)
        if target in self.files:  # listed by the walk: it exists and is no directory
            real = self.identity(target)
            if not self.inside(real):
                return Resolved(ImportStatus.OUTSIDE, target, real)
            return Resolved(ImportStatus.OK, target, real)
        if not self.reader.exists(absolute):
            return Resolved(ImportStatus.MISSING, target, None)
        real = self.identity(target)
        if not self.inside(real):
            return Resolved(ImportStatus.OUTSIDE, target, real)
        if self.reader.is_dir(absolute):
            return Resolved(ImportStatus.DIRECTORY, target, real)
        return Resolved(ImportStatus.OK, target, real)

    def compiled_globs(self, rule: str) -> CompiledGlobs | None:
        """The rule's compiled `paths` (None for an unconditional or skipped rule)."""
        if rule not in self._compiled:
            doc = self.document(rule)
            patterns = [p for g in doc.globs or [] if g.error is None for p in g.expanded]
            self._compiled[rule] = compile_patterns(patterns) if doc.globs and patterns else None
        return self._compiled[rule]

    def rule_matches(self, rule: str) -> list[str]:
        """Workspace files the path-scoped `rule` matches (root-relative, sorted)."""
        cached = self._matches.get(rule)
        if cached is not None:
            return cached
        compiled = self.compiled_globs(rule)
        owner = self.rule_owner(rule) or ""
        found: list[str] = []
        if compiled is not None:
            candidates: set[str] = set()
            exact: set[str] = set()
            negates = any(p.startswith("!") for p in compiled.patterns)
            for pattern in compiled.patterns:
                if pattern.startswith("!"):
                    continue
                pool = self.files.candidates(owner, pattern)
                # when the index already selects exactly what the pattern matches, skip the regex
                if not negates and candidates_are_exact(pattern):
                    exact.update(pool)
                    continue
                candidates.update(prefiltered(pool, pattern))
            cut = len(owner) + 1 if owner else 0
            found = sorted(exact | {c for c in candidates - exact if compiled.match(c[cut:])})
        self._matches[rule] = found
        self._match_sets[rule] = frozenset(found)
        return found

    def glob_matches(self, rule: str, pattern: str, limit: int | None = None) -> list[str]:
        """Files one written glob of `rule` matches (after brace expansion)."""
        owner = self.rule_owner(rule) or ""
        cut = len(owner) + 1 if owner else 0
        found: list[str] = []
        for expanded in safe_expand(pattern):
            compiled = self._single_globs.get(expanded)
            if compiled is None:
                compiled = self._single_globs[expanded] = compile_patterns([expanded])
            pool = self.files.candidates(owner, compiled.patterns[0])
            if candidates_are_exact(compiled.patterns[0]):
                found.extend(pool[:limit] if limit is not None else pool)
                if limit is not None and len(found) >= limit:
                    return found[:limit]
                continue
            for candidate in prefiltered(pool, compiled.patterns[0]):
                if compiled.match(candidate[cut:]):
                    found.append(candidate)
                    if limit is not None and len(found) >= limit:
                        return found
        return sorted(set(found))

    def glob_has_matches(self, rule: str, pattern: str) -> bool:
        """Whether one written glob of `rule` matches any file, counting files git ignores
        (the agent knows nothing of git: a `dist/**` rule does load for files in dist/).
        Cached until the rule changes or a file is created or deleted."""
        key = ("glob-any", rule, pattern)
        cached: bool | None = self.derived.get(key)
        if cached is None:
            cached = bool(self.glob_matches(rule, pattern, limit=1)) or self._matches_ignored(
                rule, pattern
            )
            self.derived.put(key, cached, reads=(rule,))
        return cached

    def _matches_ignored(self, rule: str, pattern: str) -> bool:
        owner = self.rule_owner(rule) or ""
        cut = len(owner) + 1 if owner else 0
        for expanded in safe_expand(pattern):
            compiled = compile_patterns([expanded])
            for path in self.reader.ignored_files():
                if (not owner or path.startswith(owner + "/")) and compiled.match(path[cut:]):
                    return True
            # an ignored directory is never walked: its literal prefix existing is enough
            prefix = literal_prefix(compiled.patterns[0]).rstrip("/")
            if prefix:
                directory = f"{owner}/{prefix}" if owner else prefix
                if not self.files.under(directory + "/") and self.reader.is_dir(
                    self.abs(directory)
                ):
                    return True
        return False

    def rule_matches_target(self, rule: str, target: str) -> bool:
        known = self._match_sets.get(rule)
        if known is not None and target in self.files:
            return target in known
        compiled = self.compiled_globs(rule)
        if compiled is None:
            return False
        owner = self.rule_owner(rule) or ""
        if owner:
            if not target.startswith(owner + "/"):
                return False
            target = target[len(owner) + 1 :]
        return compiled.match(target)

    def is_scoped(self, rule: str) -> bool:
        doc = self.document(rule)
        return doc.globs is not None and doc.rule_skip is None

    def rules_for_file(self, target: str) -> list[tuple[str, str]]:
        """Path-scoped rules (of any directory) matching `target`: (rule, first glob)."""
        out: list[tuple[str, str]] = []
        for rule in self._rules:
            if self.is_scoped(rule.path) and self.rule_matches_target(rule.path, target):
                doc = self.document(rule.path)
                first = ""
                owner = rule.owner
                sub = target[len(owner) + 1 :] if owner else target
                for glob in doc.globs or []:
                    if glob.error is None and compile_patterns(glob.expanded).match(sub):
                        first = glob.pattern
                        break
                out.append((rule.path, first))
        return out

    # ----- loading --------------------------------------------------------------------------

    def explain(
        self, target: str | None = None, cwd: str | None = None, profile: str | None = None
    ) -> Explanation:
        from rulemap.profiles import get_profile

        return get_profile(profile or self.config.profile).explain(
            self, target, self.config.cwd if cwd is None else cwd
        )

    def check(self) -> list[Finding]:
        """Every finding of every instruction file and rule, sorted."""
        if self._findings_cache is None:
            from rulemap.checks import run_checks

            self._findings_cache = run_checks(self)
        return self._findings_cache

    # ----- incremental updates --------------------------------------------------------------

    def update(
        self,
        changed: Iterable[str] = (),
        created: Iterable[str] = (),
        deleted: Iterable[str] = (),
    ) -> set[str]:
        """Apply file events (keys); returns the keys whose documents or findings may differ."""
        changed, created, deleted = set(changed), set(created), set(deleted)
        touched = changed | created | deleted
        if not touched:
            return set()
        structural = bool(created or deleted)
        self.generation += 1
        self._findings_cache = None
        self.load_cache.clear()
        self._probed.clear()
        # a symlinked alias (CLAUDE.md → AGENTS.md) reads the same bytes as its target
        identities = {self._identity[k] for k in touched if k in self._identity}
        aliases = {k for k, ident in self._identity.items() if ident in identities}
        touched |= aliases
        changed |= aliases - created - deleted
        # An edit of a rule's body keeps which files it matches; new globs change that only
        # for the files they match differently; gaining or losing `paths` changes every load.
        scopes_changed = structural
        imports_changed = structural
        retargeted: list[tuple[str, list[str] | None]] = []  # (rule, files it matched before)
        for key in touched:
            old = self._docs.pop(key, None)
            new = self.document(key) if old is not None and key in changed else None
            # a file never parsed fed nothing derived; one re-parsed keeps the graph if its
            # import tokens are the same
            if (
                old is not None
                and new is not None
                and [i.raw for i in old.imports] != [i.raw for i in new.imports]
            ):
                imports_changed = True
            is_rule = self._rule_info(key) is not None
            old_globs = _glob_patterns(old) if old is not None else None
            new_globs = _glob_patterns(new) if new is not None else None
            if is_rule and key in changed and old is not None and old_globs == new_globs:
                pass  # same globs (or still unconditional): matches stay
            else:
                if is_rule and (old is None or (old_globs is None) != (new_globs is None)):
                    scopes_changed = True
                elif is_rule:
                    retargeted.append((key, self._matches.get(key)))
                self._compiled.pop(key, None)
                self._matches.pop(key, None)
                self._match_sets.pop(key, None)
            self._identity.pop(key, None)
            self._drop_resolution(key)
        if structural:
            for key in created:
                if not key.startswith("/"):
                    self.files.add(key)
            for key in deleted:
                self.files.remove(key)
            # resolution of every import that names a created or deleted path changes
            for key in created | deleted:
                for importer in list(self._importers.get(key, ())):
                    self._drop_resolution(importer)
                    touched.add(importer)
            self._update_rule_matches(created, deleted)
            if any(self._affects_index(k) for k in created | deleted):
                self._index_instruction_files()
        pseudo: set[str] = set()
        if scopes_changed:
            pseudo.add(RULE_SCOPES)
            self.retarget_log.clear()
            self.retarget_forgotten = self.generation
        elif retargeted:
            changes = self._retarget(retargeted)
            for change in changes:
                pseudo.update(map(rules_for, change.gained))
                pseudo.update(map(rules_for, change.lost))
            # groupings of files by matching rules catch up from this log instead of rebuilding
            self.retarget_log.append((self.generation, tuple(changes)))
            if len(self.retarget_log) > 64:
                self.retarget_forgotten = self.retarget_log[-65][0]
                del self.retarget_log[:-64]
        if imports_changed:
            pseudo.add(IMPORT_GRAPH)
        self.derived.invalidate(touched | pseudo, structural)
        if any(k in CONFIG_FILES for k in touched):
            touched.add("*config*")
        return touched

    def _retarget(self, rules: list[tuple[str, list[str] | None]]) -> list[Retarget]:
        """Rules whose globs changed: patch the file → rules index, and say which files each
        rule now matches and no longer matches (everything derived for them is stale)."""
        index: dict[str, tuple[str, ...]] | None = self.derived.get("rules-of-file")
        changes: list[Retarget] = []
        for rule, before in rules:
            new = set(self.rule_matches(rule)) if self.is_scoped(rule) else set()
            if before is None:
                # never matched before this edit: nothing derived read it, unless the index did
                if index is not None:
                    self.derived.invalidate({RULE_SCOPES}, structural=False)
                    index = None
                changes.append(Retarget(rule, frozenset(new), frozenset()))
                continue
            old = set(before)
            gained, lost = frozenset(new - old), frozenset(old - new)
            changes.append(Retarget(rule, gained, lost))
            if index is not None:
                patch_rules_index(index, rule, gained, lost)
        return changes

    def _affects_index(self, key: str) -> bool:
        return (
            self._rule_info(key) is not None
            or self._instruction_dir(key) is not None
            or (self.reader.is_dir(self.abs(key)) if not key.startswith("/") else False)
        )

    def _drop_resolution(self, key: str) -> None:
        previous = self._resolved.pop(key, None)
        if previous:
            for _, resolved in previous:
                importers = self._importers.get(resolved.target)
                if importers is not None:
                    importers.discard(key)

    def _update_rule_matches(self, created: set[str], deleted: set[str]) -> None:
        for rule, matches in list(self._matches.items()):
            if deleted and any(d in matches for d in deleted):
                self._matches[rule] = [m for m in matches if m not in deleted]
            for key in created:
                compiled = self.compiled_globs(rule)
                owner = self.rule_owner(rule) or ""
                inside = not owner or key.startswith(owner + "/")
                sub = key[len(owner) + 1 :] if owner else key
                if compiled is not None and inside and compiled.match(sub):
                    self._matches[rule] = sorted({*self._matches[rule], key})
            self._match_sets[rule] = frozenset(self._matches[rule])


def _glob_patterns(doc: Document) -> tuple[str, ...] | None:
    """What decides which files a rule matches: its written globs (None: unconditional)."""
    if doc.globs is None or doc.rule_skip is not None:
        return None
    return tuple(g.pattern for g in doc.globs)


def _explicit_fields(overrides: Mapping[str, Any]) -> list[str]:
    from rulemap.config import _KEYS, USER_ONLY_KEYS

    return [_KEYS[k] for k in overrides if k in _KEYS and k not in USER_ONLY_KEYS]
