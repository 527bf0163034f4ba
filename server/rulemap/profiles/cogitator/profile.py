"""The default model: Cogitator's Project Instructions loader (see docs/semantics.md)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from rulemap.derived import RULE_SCOPES, rules_for
from rulemap.model import Budget, Explanation, Finding, LoadStatus
from rulemap.profiles.base import Option, directory_chain, parent_dir
from rulemap.profiles.budget import apply_shared_budget
from rulemap.profiles.cogitator.load import Load

if TYPE_CHECKING:
    from rulemap.workspace import Workspace


class CogitatorProfile:
    name = "cogitator"
    title = "Cogitator (default)"
    description = (
        "Cogitator's Project Instructions loader: AGENTS.md + CLAUDE.md per directory, "
        "@imports, .claude/rules, a shared 32k budget."
    )
    # its options are the top-level keys of rulemap.toml (files, maxChars, maxImportDepth,
    # rules, nested), which came first and are what the seed calls its options
    options: tuple[Option, ...] = ()

    def detect(self, ws: Workspace) -> bool:
        return True  # the default model: always selected

    def reads(self, ws: Workspace, key: str) -> bool:
        return ws.instruction_dir(key) is not None or ws.rule_owner(key) is not None

    def load_status(self, ws: Workspace, key: str) -> LoadStatus:
        from rulemap.profiles.cogitator.status import load_status

        return load_status(ws, key)

    def findings(self, ws: Workspace) -> list[Finding]:
        from rulemap.profiles.cogitator import budget_check, duplicates

        return [*duplicates.check(ws, self), *budget_check.check(ws, self)]

    def explain(self, ws: Workspace, target: str | None, cwd: str) -> Explanation:
        key = ("explain", self.name, target, cwd)
        cached: Explanation | None = ws.derived.get(key)
        if cached is not None:
            return cached
        config = ws.config
        chain = directory_chain(cwd)
        anchor = (
            self.nested_anchor(ws, chain[-1], parent_dir(target)) if target is not None else None
        )
        rules = (
            tuple(ws.scoped_rules_matching(target, chain))
            if target is not None and config.rules
            else ()
        )
        shared_key, shared = self._budgeted(ws, chain, anchor, rules)
        cached = replace(shared, target=target)
        # which rules match the target is what it adds to the shared load's reads
        reads = {RULE_SCOPES} | ({rules_for(target)} if target is not None else set())
        ws.derived.put(key, cached, reads=reads, after=[shared_key])
        return cached

    def _budgeted(
        self, ws: Workspace, chain: list[str], anchor: str | None, rules: tuple[str, ...]
    ) -> tuple[tuple[object, ...], Explanation]:
        """The load of every target below `anchor` that matches exactly `rules`, cut to the
        budget (its `target` is None). Shared: a rule edit that moves 7,600 files between
        such groups re-explains none of them when the groups were seen before."""
        key = ("budgeted", tuple(chain), anchor, rules)
        cached: Explanation | None = ws.derived.get(key)
        if cached is not None:
            return key, cached
        load_key, load = self.group_load(ws, chain, anchor, rules)
        files, left_out, notice = apply_shared_budget(load.files, ws.config.max_chars)
        cached = Explanation(
            profile=self.name,
            root=ws.root,
            cwd=chain[-1] or ".",
            target=None,
            max_chars=ws.config.max_chars,
            files=files,
            left_out=left_out,
            skipped=load.skipped,
            notice=notice,
            requested_chars=load.chars,
            budget=Budget("shared", "chars", ws.config.max_chars),
        )
        ws.derived.put(key, cached, reads=(), after=[load_key])  # dropped with its load
        return key, cached

    def group_load(
        self, ws: Workspace, chain: list[str], anchor: str | None, rules: tuple[str, ...]
    ) -> tuple[tuple[object, ...], Load]:
        """The load of every target below `anchor` that matches exactly the scoped `rules`
        (of the chain's directories, in order): a link on the anchor's base load."""
        key = ("group-load", tuple(chain), anchor, rules)
        cached: Load | None = ws.derived.get(key)
        if cached is not None:
            return key, cached
        base_key = ("base-load", tuple(chain), anchor)
        load = self.base_load(ws, chain, anchor).child()
        for rule in rules:
            load.add(rule, "scoped")
        # the base load's reads are its own: this is dropped with it
        ws.derived.put(key, load, reads=load.own_reads | {RULE_SCOPES}, after=[base_key])
        return key, load

    @staticmethod
    def nested_anchor(ws: Workspace, cwd_dir: str, target_dir: str) -> str | None:
        """The deepest directory strictly below cwd on the way to target_dir that has
        instruction files (None when there is none, or nested loading is off)."""
        if not ws.config.nested:
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

    def base_load(self, ws: Workspace, chain: list[str], anchor: str | None) -> Load:
        """Project files and unconditional rules of root→cwd, then nested files down to
        `anchor`. Cached per workspace generation: every target below one anchor shares it."""
        key = ("base-load", tuple(chain), anchor)
        cached: Load | None = ws.derived.get(key)
        if cached is not None:
            return cached
        after: list[tuple[object, ...]] = []
        if anchor is None:
            load = Load(ws)
            for directory in chain:
                for path in ws.instruction_files_in(directory):
                    load.add(path, "project")
                if ws.config.rules:
                    for rule in ws.rules_of(directory):
                        if not ws.is_scoped(rule):
                            load.add(rule, "rule")
        else:
            parent = self.nested_anchor(ws, chain[-1], parent_dir(anchor))
            load = self.base_load(ws, chain, parent).child()
            after.append(("base-load", tuple(chain), parent))
            for path in ws.instruction_files_in(anchor):
                load.add(path, "nested")
        # the unconditional rules it loaded are among its reads; a scoped rule that becomes
        # unconditional (or back) changes RULE_SCOPES; what the parent read drops the parent,
        # and so this load with it
        ws.derived.put(key, load, reads=load.own_reads | {RULE_SCOPES}, after=after)
        return load
