"""Cursor: `.mdc` project rules in `.cursor/rules/` (nested ones scoped to their folder), the
root's `AGENTS.md` and nested ones (scoped to their folder), and the legacy `.cursorrules`
(docs/profiles/cursor.md). No imports, no budget.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from rulemap.globs import safe_expand
from rulemap.model import (
    Budget,
    Explanation,
    Finding,
    LoadedFile,
    LoadStatus,
    ScopedGlobs,
    Skipped,
    Span,
)
from rulemap.profiles.base import (
    EXPLAIN,
    Home,
    Profile,
    cached_explanation,
    glob_for,
    home_file,
    loaded_homes,
    options_of,
    parent_dir,
    stem_for,
)
from rulemap.profiles.cursor.agents_md import (
    agents_files,
    agents_folder,
    applies_to,
    mdc_links,
)
from rulemap.profiles.cursor.names import CursorFacts
from rulemap.profiles.cursor.rules import (
    LEGACY,
    ORDER,
    Rule,
    applies,
    compiled_globs,
    exists,
    glob_files,
    glob_has_matches,
    in_scope,
    owner_of,
    rule_hits,
    rule_of,
    rule_paths,
)
from rulemap.profiles.place_groups import Anchors, grouped, rules_of_files
from rulemap.profiles.placement import cached_misplaced
from rulemap.profiles.rule_files import WrittenGlob, as_scoped
from rulemap.workspace.rule_scope import RuleScope

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

Reason = Literal["project", "nested", "rule", "scoped", "requested", "import"]
AddFile = Callable[[str, Reason, "str | None"], None]  # a file read whole, with its note


class CursorProfile(CursorFacts, Profile):
    follows_imports = False
    own_glob_dialect = True  # a rule's globs are relative to the folder holding `.cursor`
    watched_globs = ("**/.cursor/rules/**", ".cursorrules", "AGENTS.md", "**/AGENTS.md")
    check_codes = ("import-not-followed", "misplaced-file")
    code_notes = (("stale-reference", "a Cursor `mdc:` link"),)  # its own_links
    # ----- the interface ----------------------------------------------------------------------

    def homes(self, ws: Workspace, target: str | None, cwd: str) -> tuple[Home, ...]:
        """The `.mdc` rules it loads there, else a new one of `.cursor/rules/` (`alwaysApply`
        at start-up, `globs` that match the target), then the other files it loads."""
        if target:
            rule = home_file(ws, f".cursor/rules/{stem_for(target)}.mdc",
                             f"a rule with `globs: {glob_for(target)}`, which it loads for "
                             f"`{target}`")
        else:
            rule = home_file(ws, ".cursor/rules/project.mdc", "a rule with `alwaysApply: "
                             "true`, which it loads for every request")
        loaded = loaded_homes(self.explain(ws, target, cwd), target)
        rules = tuple(h for h in loaded if h.path.endswith(".mdc"))
        return (*rules, rule, *(h for h in loaded if h not in rules))

    # ----- for views: a rule's `globs`, relative to the folder holding its `.cursor` ------
    def glob_key(self, ws: Workspace, key: str) -> tuple[str, str] | None:
        owner = owner_of(key)
        if owner is None or not self.reads(ws, key) or key not in ws.files:
            return None
        return "globs", owner

    def rule_globs(self, ws: Workspace, key: str) -> ScopedGlobs | None:
        if self.glob_key(ws, key) is None:
            return None
        rule = rule_of(ws, key)
        return as_scoped("globs", rule.owner, rule.globs)

    def load_status(self, ws: Workspace, key: str) -> LoadStatus:
        """A rule by its kind: always applied (in its folder), auto-attached to the files its
        globs match, agent-requested (loaded when the agent decides from its description),
        manual (only when @-mentioned), or unusable. A nested AGENTS.md: the files below its
        folder."""
        folder = agents_folder(key)
        if folder and self.reads(ws, key):
            below = ws.files.under(folder + "/")
            return LoadStatus(True, len(below), below[0] if below else None, scoped=True)
        if self.glob_key(ws, key) is None:
            return Profile.load_status(self, ws, key)
        doc = ws.document(key)
        if doc.unreadable:
            return LoadStatus(False, why_not=f"unreadable: {doc.unreadable}")
        rule = rule_of(ws, key)
        if rule.kind == "invalid":
            return LoadStatus(False, why_not=f"{rule.problem}; Cursor cannot use its header")
        if rule.kind == "manual":
            return LoadStatus(False, why_not="a manual rule: attached only when @-mentioned")
        if rule.kind == "requested":
            if not options_of(ws, self)["includeRequested"]:
                return LoadStatus(False, why_not="agent-requested (includeRequested = false)")
            return LoadStatus(True, len(ws.files))
        if rule.kind == "always":
            scope = RuleScope(rule.owner)
            return LoadStatus(True, sum(1 for f in ws.files if scope.contains(f)))
        matches = self.rule_matches(ws, key)
        return LoadStatus(bool(matches), len(matches), matches[0] if matches else None,
                          scoped=True, why_not=None if matches else "its globs match no file")

    def glob_matches(self, ws: Workspace, rule: str, pattern: str) -> list[str]:
        owner = owner_of(rule) or ""
        return glob_files(ws, owner, tuple(safe_expand(pattern)))

    def glob_has_matches(self, ws: Workspace, rule: str, pattern: str) -> bool:
        written = WrittenGlob(pattern, Span.at(0, 0), tuple(safe_expand(pattern)))
        return glob_has_matches(ws, owner_of(rule) or "", written)

    def rule_matches(self, ws: Workspace, rule: str) -> list[str]:
        scoped = self.rule_globs(ws, rule)
        globs = [g for g in (scoped.globs if scoped else ()) if not g.error]
        return sorted({f for g in globs for f in self.glob_matches(ws, rule, g.pattern)})

    def first_matching_glob(self, ws: Workspace, rule: str, target: str) -> str | None:
        scoped = self.rule_globs(ws, rule)
        relative = RuleScope(scoped.base).relative(target) if scoped else None
        if scoped is None or relative is None:
            return None
        for glob in scoped.globs:
            if not glob.error and glob.expanded and compiled_globs(tuple(glob.expanded)).match(
                    relative):
                return glob.pattern
        return None

    def explain(self, ws: Workspace, target: str | None, cwd: str) -> Explanation:
        cwd = "" if cwd in (".", "") else cwd.strip("/")
        return cached_explanation(
            ws, EXPLAIN.key(self.name, target, cwd), lambda: self._explain(ws, target, cwd)
        )

    def load_groups(self, ws: Workspace, cwd: str) -> list[tuple[Explanation, list[str]]]:
        """Every workspace file grouped by what Cursor loads for it. What `_explain` reads of
        the target: which nested folders hold it — those of an AGENTS.md (`applies_to`) and
        those of a `.cursor/rules` (`in_scope`): the deepest such folder on its path says
        which all — and which auto-attached rules' globs match it (`rule_hits`, per rule
        over the index); the legacy file, the root's AGENTS.md and the rules of other kinds
        are the same for every file."""
        opts = options_of(ws, self)
        md_rules = bool(opts["mdRules"])
        paths = rule_paths(ws)
        folders = {agents_folder(k) for k in agents_files(ws)} | {owner_of(k) for k in paths}
        anchors = Anchors(lambda d: d in folders, "")
        auto = [rule_of(ws, k) for k in paths
                if (k.endswith(".mdc") or md_rules) and not ws.document(k).unreadable]
        rules = rules_of_files((r.key, rule_hits(ws, r)) for r in auto if r.kind == "auto")

        def key_of(path: str) -> tuple[str | None, tuple[str, ...]]:
            return anchors(parent_dir(path)), rules.get(path, ())

        # each group's first file explained knowing which auto-attached rules match it (the
        # index says): not every rule's globs tried again per group (1,062 groups × 200
        # rules were 1.9 s of the editor's overview on 2,000 rules over 20,000 files)
        cwd = "" if cwd in (".", "") else cwd.strip("/")
        out: list[tuple[Explanation, list[str]]] = []
        for members in grouped(ws.files, key_of):
            target = members[0]
            matching = frozenset(rules.get(target, ()))
            out.append((cached_explanation(
                ws, EXPLAIN.key(self.name, target, cwd),
                functools.partial(self._explain, ws, target, cwd, matching)), members))
        return out

    def misplaced(self, ws: Workspace) -> list[Finding]:
        """`.mdc` files outside `.cursor/rules`, a `.cursorrules` below the root
        (findings.py `misplaced`)."""
        from rulemap.profiles.cursor.findings import misplaced

        return cached_misplaced(ws, self, (), lambda: misplaced(ws))

    def findings(self, ws: Workspace) -> list[Finding]:
        from rulemap.profiles.cursor.findings import (
            broken_links,
            not_followed,
            plain_findings,
            rule_findings,
        )

        opts = options_of(ws, self)
        lint = frozenset(ws.lint_documents())
        out: list[Finding] = []
        if opts["legacyCursorrules"] and exists(ws, LEGACY):
            out.extend(plain_findings(ws, LEGACY, lint, "Cursor"))
        for key in agents_files(ws):
            if self.reads(ws, key):
                out.extend(plain_findings(ws, key, lint, "Cursor"))
                out.extend(not_followed(ws, self, key))
        md_rules = bool(opts["mdRules"])
        for key in rule_paths(ws):
            if key.endswith(".mdc") or md_rules:
                out.extend(rule_findings(ws, key, key in lint))
                out.extend(broken_links(ws, key))
            else:
                name = key.rsplit("/", 1)[-1]
                # information, not a warning: whether Cursor also reads `.md` rules is
                # unconfirmed (docs/profiles/cursor.md), so this is a likely problem, not a sure one
                out.append(Finding(
                    key, Span.at(0, 0), "information", "unreachable-rule",
                    f"Cursor reads `.mdc` rule files from `.cursor/rules`, so it never attaches "
                    f"`{name}`; rename it to `{name[:-3]}.mdc` (mdRules = false; unconfirmed)"))
        return out

    # ----- loading ----------------------------------------------------------------------------

    def _explain(self, ws: Workspace, target: str | None, cwd: str,
                 auto: frozenset[str] | None = None) -> tuple[Explanation, set[str]]:
        """`auto`: the auto-attached rules whose globs match `target`, when known."""
        opts = options_of(ws, self)
        files: list[LoadedFile] = []
        skipped: list[Skipped] = []
        reads: set[str] = set()

        def add(key: str, reason: Reason, text: str, note: str | None = None) -> None:
            if not text.strip():
                skipped.append(Skipped(key, "empty: it brings nothing", "empty-instructions"))
                return
            files.append(LoadedFile(key, reason, None, 0, len(text), text=text, note=note))

        def add_file(key: str, reason: Reason, note: str | None = None) -> None:
            reads.add(key)
            doc = ws.document(key)
            if doc.unreadable:
                skipped.append(Skipped(key, f"unreadable: {doc.unreadable}", "unreadable-file"))
            else:
                add(key, reason, doc.text, note)

        if opts["legacyCursorrules"] and exists(ws, LEGACY):
            add_file(LEGACY, "project", None)
        self._agents_md(ws, target, cwd, add_file, skipped)
        md_rules = bool(opts["mdRules"])
        chosen: list[tuple[int, str, Rule]] = []
        for key in rule_paths(ws):
            owner = owner_of(key)
            assert owner is not None
            if not in_scope(owner, target, cwd):
                continue
            if not key.endswith(".mdc") and not md_rules:
                skipped.append(Skipped(key, "Cursor reads `.mdc` rule files (mdRules = false)",
                                       "unreachable-rule"))
                continue
            reads.add(key)
            doc = ws.document(key)
            if doc.unreadable:
                skipped.append(Skipped(key, f"unreadable: {doc.unreadable}", "unreadable-file"))
                continue
            rule = rule_of(ws, key)
            if rule.kind == "invalid":
                skipped.append(Skipped(key, f"{rule.problem}; Cursor cannot use its header",
                                       "invalid-frontmatter"))
            elif rule.kind == "manual":
                skipped.append(Skipped(key, "manual rule (no `alwaysApply`, `globs` or "
                                            "`description`): attached only when @-mentioned",
                                       "unreachable-rule"))
            elif rule.kind == "requested" and not opts["includeRequested"]:
                skipped.append(Skipped(key, "agent-requested: loaded only if the agent decides "
                                            "from its description (includeRequested = false)",
                                       "unreachable-rule"))
            elif rule.kind == "auto" and not (key in auto if auto is not None
                                              else applies(rule, target)):
                continue
            else:
                chosen.append((ORDER[rule.kind], key, rule))
        for _, key, rule in sorted(chosen, key=lambda c: (c[0], c[1])):
            if rule.kind == "always":
                add(key, "rule", rule.header.body)
            elif rule.kind == "auto":
                written = ", ".join(g.pattern for g in rule.globs or [])
                add(key, "scoped", rule.header.body, note=f"globs: {written}")
            else:
                add(key, "requested", rule.header.body,
                    note=f"agent-requested: loaded if the agent decides from its description: "
                         f"{rule.description}")
            if opts["mdcLinks"]:
                self._linked(ws, key, files, reads)
        notes = ("rule globs match gitignore-style, relative to the folder holding `.cursor` "
                 "(unconfirmed)",) if rule_paths(ws) else ()
        return Explanation(
            profile=self.name, root=ws.root, cwd=cwd or ".", target=target, max_chars=0,
            files=files, left_out=[], skipped=skipped, notice=None,
            requested_chars=sum(f.chars for f in files), budget=Budget("none", "chars", 0),
            notes=notes), reads

    def _agents_md(self, ws: Workspace, target: str | None, cwd: str,
                   add_file: AddFile, skipped: list[Skipped]) -> None:
        """The AGENTS.md files that apply: the root's, then each nested one from the root
        down to the target's folder (each is a rule with the implicit glob `<folder>/**`)."""
        opts = options_of(ws, self)
        found = [(agents_folder(k) or "", k) for k in agents_files(ws)]
        for folder, key in sorted(found, key=lambda f: (f[0].count("/") if f[0] else -1, f[1])):
            if not applies_to(folder, target, cwd):
                continue
            if not folder:
                if opts["agentsMd"]:
                    add_file(key, "project", None)
            elif opts["nestedAgentsMd"]:
                add_file(key, "nested", f"nested AGENTS.md: applies to files under `{folder}/`")
            else:
                skipped.append(Skipped(key, "a nested AGENTS.md (nestedAgentsMd = false: "
                                            "Cursor before 1.6 reads the root's only)",
                                       "unreachable-rule"))

    @staticmethod
    def _linked(ws: Workspace, rule: str, files: list[LoadedFile], reads: set[str]) -> None:
        """The files `rule` links as `[x](mdc:path)`, attached with it, one level deep."""
        loaded = {f.path for f in files}
        for link in mdc_links(ws, rule):
            target = next((p for p in link.candidates() if exists(ws, p)), None)
            if target is None or target in loaded:
                continue
            reads.add(target)
            doc = ws.document(target)
            if doc.unreadable or not doc.text.strip():
                continue
            loaded.add(target)
            files.append(LoadedFile(target, "import", rule, 1, len(doc.text),
                                    import_line=link.span.start.line, text=doc.text,
                                    note=f"linked as `mdc:{link.written}` (mdcLinks = true)"))
