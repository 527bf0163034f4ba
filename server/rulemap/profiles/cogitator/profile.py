"""The default model: Cogitator's Project Instructions loader (see docs/semantics.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final

from rulemap.derived import RULE_SCOPES, Key, KeyFamily, rules_for
from rulemap.model import Budget, Explanation, Finding, ImportStatus, LoadStatus
from rulemap.profiles.base import (
    EXPLAIN,
    Home,
    Option,
    Profile,
    directory_chain,
    glob_for,
    home_file,
    loaded_homes,
    stem_for,
)
from rulemap.profiles.budget import apply_shared_budget
from rulemap.profiles.cogitator import reach, settings
from rulemap.profiles.cogitator.settings import settings_of

if TYPE_CHECKING:
    from rulemap.profiles.base import LoadShare
    from rulemap.profiles.steps import SessionReplay, ToolStep
    from rulemap.workspace import Layout, Workspace

# a shared load's key → its explanation, cut to the budget
_BUDGETED: Final = KeyFamily[Explanation]("budgeted")


class CogitatorProfile(Profile):
    name = settings.NAME
    title = "Cogitator (default)"
    description = (
        "Cogitator's Project Instructions loader: AGENTS.md + CLAUDE.md per directory, "
        "@imports, .claude/rules, a shared 32k budget."
    )
    check_codes = ("budget-overflow", "duplicate-load")
    # a step's `reach([target])` appends to the start-up load and cuts only what it appends
    # (the seed: one shared budget, files in load order)
    startup_prefix = True
    watched_globs = ("**/AGENTS.md", "**/CLAUDE.md", "**/CLAUDE.local.md", "**/.claude/**")
    # also the top-level keys of rulemap.toml (files, maxChars, …), which came first and are
    # what the seed calls its options
    options: tuple[Option, ...] = settings.OPTIONS

    def layout(self, options: Mapping[str, Any]) -> Layout:
        """Where the workspace's documents are, by these options (settings.py)."""
        return settings.layout(options)

    def homes(self, ws: Workspace, target: str | None, cwd: str) -> tuple[Home, ...]:
        """What it loads there, else the root's first instruction file (read at start-up, so
        for every target), and for a target a rule whose `paths` match it."""
        names = ws.layout.instruction_names
        root = home_file(ws, names[0] if names else "AGENTS.md", "which it loads at start-up")
        rule = () if not (target and ws.layout.rules_dir) else (home_file(
            ws, f"{ws.layout.rules_dir}/{stem_for(target)}.md",
            f'a rule with `paths: ["{glob_for(target)}"]`, which it loads for `{target}`'),)
        return (*loaded_homes(self.explain(ws, target, cwd), target), root, *rule)

    def detected_by(self, ws: Workspace) -> str:
        return "the default model"  # always selected

    def reads(self, ws: Workspace, key: str) -> bool:
        return ws.instruction_dir(key) is not None or ws.rule_owner(key) is not None

    def load_status(self, ws: Workspace, key: str) -> LoadStatus:
        from rulemap.profiles.cogitator.status import load_status

        return load_status(ws, key)

    def findings(self, ws: Workspace) -> list[Finding]:
        from rulemap.profiles.cogitator import budget_check, duplicates

        return [*duplicates.check(ws, self), *budget_check.check(ws)]

    def may_bring(self, ws: Workspace, cwd: str) -> frozenset[str] | None:
        """The workspace's documents (its own layout's) and what they import at any hop;
        None when an import leads out of the workspace."""
        from rulemap.profiles.documents import read_documents

        # its files by name and place, git-ignored ones too (a `CLAUDE.local.md`)
        found = {k for k in (*ws.all_documents(), *read_documents(ws, [self]))
                 if not k.startswith("/")}
        stack = sorted(found)
        while stack:
            for _, resolved in ws.imports(stack.pop()):
                if resolved.status is not ImportStatus.OK:
                    continue
                if resolved.target.startswith("/"):
                    return None
                if resolved.target not in found:
                    found.add(resolved.target)
                    stack.append(resolved.target)
        return frozenset(found)

    def load_groups(self, ws: Workspace, cwd: str) -> list[tuple[Explanation, list[str]]]:
        """Every workspace file, grouped by what it loads: the budget check's target groups
        (deepest instruction directory, matching scoped rules), one explanation each (for
        `rulemap diff`, which would otherwise explain 20,000 files one by one)."""
        from rulemap.profiles.cogitator.budget_check import target_groups

        cwd_dir = directory_chain(cwd)[-1]
        groups = target_groups(ws, cwd_dir)
        return [
            (self.explain(ws, groups.representative[group], cwd), sorted(members))
            for group, members in groups.members.items()
        ]

    def load_shares(self, ws: Workspace, cwd: str) -> list[LoadShare]:
        """`load_groups` as the overview sums it: a group that fits the budget whole is its
        anchor's share and its rules' (shares.py)."""
        from rulemap.profiles.cogitator.shares import load_shares

        return load_shares(ws, cwd, self.explain)

    def explain(self, ws: Workspace, target: str | None, cwd: str) -> Explanation:
        """A one-step session: the start-up load, then `reach([target])` (reach.py), cut to
        the budget. Each (anchor, rules) group's answer is reach's memo, shared by every
        target in it."""
        key = EXPLAIN.key(self.name, target, cwd)
        cached = ws.derived.get(key)
        if cached is not None:
            return cached
        chain = tuple(directory_chain(cwd))
        # the memo first: which group the target falls in is all its answer depends on
        group = reach.target_group(ws, chain, target) if target is not None else (None, ())
        shared_key = _BUDGETED.key(reach.group_key(chain, *group))
        shared = ws.derived.get(shared_key)
        if shared is None:
            state = reach.start(ws, chain)
            if target is not None:
                state = reach.reach(ws, state, [target])
            shared_key, shared = self._budgeted(ws, state)
        cached = replace(shared, target=target)
        # which rules match the target is what it adds to the shared load's reads
        reads = {RULE_SCOPES} | ({rules_for(target)} if target is not None else set())
        ws.derived.put(key, cached, reads=reads, after=[shared_key])
        return cached

    def replay(self, ws: Workspace, steps: Sequence[ToolStep], cwd: str) -> SessionReplay:
        """A run step by step: the start-up load, then what each tool step reaches."""
        from rulemap.profiles.cogitator.session import replay

        return replay(self, ws, steps, cwd)

    def _budgeted(
        self, ws: Workspace, state: reach.Reached
    ) -> tuple[Key[Explanation], Explanation]:
        """A shared load (its `target` is None), cut to the budget. Shared: a rule edit that
        moves 7,600 files between groups re-explains none of them when the groups were seen
        before."""
        assert state.key is not None  # one step from the start-up load is always a group's
        key = _BUDGETED.key(state.key)
        cached = ws.derived.get(key)
        if cached is not None:
            return key, cached
        load = state.load
        limit = settings_of(ws).max_chars
        files, left_out, notice = apply_shared_budget(load.files, limit)
        cached = Explanation(
            profile=self.name,
            root=ws.root,
            cwd=state.cwd_dir or ".",
            target=None,
            max_chars=limit,
            files=files,
            left_out=left_out,
            skipped=load.skipped,
            notice=notice,
            requested_chars=load.chars,
            budget=Budget("shared", "chars", limit, "maxChars"),
        )
        ws.derived.put(key, cached, reads=(), after=[state.key])  # dropped with its load
        return key, cached

    @staticmethod
    def nested_anchor(ws: Workspace, cwd_dir: str, target_dir: str) -> str | None:
        """The deepest directory strictly below cwd on the way to target_dir that has
        instruction files (None when there is none, or nested loading is off)."""
        return reach.nested_anchor(ws, cwd_dir, target_dir)
