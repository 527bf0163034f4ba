"""The default model: Cogitator's Project Instructions loader (see docs/semantics.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulemap.derived import RULE_SCOPES, rules_for
from rulemap.model import Explanation, ImportStatus, LoadedFile, Reason, Skipped
from rulemap.profiles.base import directory_chain, parent_dir
from rulemap.profiles.budget import apply_shared_budget

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

_STATUS_WHY = {
    ImportStatus.MISSING: ("not found", "broken-import"),
    ImportStatus.OUTSIDE: (
        "outside the workspace and not under allowImportsFrom",
        "import-outside-workspace",
    ),
    ImportStatus.HOME: (
        "in the home directory, which is outside the workspace",
        "import-outside-workspace",
    ),
    ImportStatus.DIRECTORY: ("a directory, not a file", "broken-import"),
}


class Load:
    """One load in progress: the order, what was read, what was skipped."""

    def __init__(self, ws: Workspace):
        self.ws = ws
        self.files: list[LoadedFile] = []
        self.skipped: list[Skipped] = []
        self.loaded: dict[str, str] = {}  # identity → first path
        self.reads: set[str] = set()  # every key this load looked at (for cache invalidation)

    def copy(self) -> Load:
        twin = Load(self.ws)
        twin.files = list(self.files)
        twin.skipped = list(self.skipped)
        twin.loaded = dict(self.loaded)
        twin.reads = set(self.reads)
        return twin

    def add(self, key: str, reason: Reason) -> None:
        """Load `key` for `reason`, then its imports depth first (iteratively: chains are long)."""
        ws = self.ws
        max_depth = ws.config.max_import_depth
        # (key, reason, importer, depth, import line, identities of the importer chain)
        stack: list[tuple[str, Reason, str | None, int, int | None, tuple[str, ...]]] = [
            (key, reason, None, 0, None, ())
        ]
        while stack:
            path, why, importer, depth, line, chain = stack.pop()
            self.reads.add(path)
            identity = ws.identity(path)
            if identity in self.loaded:
                first = self.loaded[identity]
                if identity in chain:
                    self.skipped.append(
                        Skipped(
                            path,
                            f"import cycle: {first} is already loading",
                            "import-cycle",
                            importer,
                            line,
                        )
                    )
                else:
                    same = "" if first == path else f" as {first}"
                    self.skipped.append(
                        Skipped(path, f"already loaded{same}", "duplicate-load", importer, line)
                    )
                continue
            doc = ws.document(path)
            if doc.unreadable:
                self.skipped.append(
                    Skipped(
                        path, f"unreadable: {doc.unreadable}", "unreadable-file", importer, line
                    )
                )
                continue
            if doc.rule_skip:
                self.skipped.append(
                    Skipped(
                        path,
                        f"rule skipped: {doc.rule_skip}",
                        "invalid-frontmatter",
                        importer,
                        line,
                    )
                )
                continue
            self.loaded[identity] = path
            self.files.append(
                LoadedFile(
                    path, why, importer, depth, doc.chars, import_line=line, text=doc.brought
                )
            )
            children = []
            for ref, resolved in ws.imports(path):
                self.reads.add(resolved.target)
                if resolved.status is not ImportStatus.OK:
                    text, code = _STATUS_WHY[resolved.status]
                    self.skipped.append(
                        Skipped(resolved.target, text, code, path, ref.span.start.line)
                    )
                    continue
                if depth + 1 > max_depth:
                    self.skipped.append(
                        Skipped(
                            resolved.target,
                            f"import hop {depth + 1} is past maxImportDepth {max_depth}",
                            "import-too-deep",
                            path,
                            ref.span.start.line,
                        )
                    )
                    continue
                children.append(
                    (
                        resolved.target,
                        "import",
                        path,
                        depth + 1,
                        ref.span.start.line,
                        (*chain, identity),
                    )
                )
            stack.extend(reversed(children))  # type: ignore[arg-type]


class CogitatorProfile:
    name = "cogitator"
    title = "Cogitator (default)"
    description = (
        "Cogitator's Project Instructions loader: AGENTS.md + CLAUDE.md per directory, "
        "@imports, .claude/rules, a shared 32k budget."
    )

    def explain(self, ws: Workspace, target: str | None, cwd: str) -> Explanation:
        key = ("explain", target, cwd)
        cached: Explanation | None = ws.derived.get(key)
        if cached is None:
            cached, reads = self._explain(ws, target, cwd)
            ws.derived.put(key, cached, reads=reads)
        return cached

    def _explain(self, ws: Workspace, target: str | None, cwd: str) -> tuple[Explanation, set[str]]:
        config = ws.config
        chain = directory_chain(cwd)
        anchor = (
            self.nested_anchor(ws, chain[-1], parent_dir(target)) if target is not None else None
        )
        load = self.base_load(ws, chain, anchor).copy()
        if target is not None and config.rules:
            for rule in ws.scoped_rules_matching(target, chain):
                load.add(rule, "scoped")
        requested = sum(f.chars for f in load.files)
        files, left_out, notice = apply_shared_budget(load.files, config.max_chars)
        # which scoped rules match reads every rule; the load reads its files
        reads = load.reads | {RULE_SCOPES}
        if target is not None:
            reads.add(rules_for(target))
        return Explanation(
            profile=self.name,
            root=ws.root,
            cwd=chain[-1] or ".",
            target=target,
            max_chars=config.max_chars,
            files=files,
            left_out=left_out,
            skipped=load.skipped,
            notice=notice,
            requested_chars=requested,
        ), reads

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
            load = self.base_load(ws, chain, parent).copy()
            for path in ws.instruction_files_in(anchor):
                load.add(path, "nested")
        # the unconditional rules it loaded are among its reads; a scoped rule that becomes
        # unconditional (or back) changes RULE_SCOPES
        ws.derived.put(key, load, reads=load.reads | {RULE_SCOPES})
        return load
