"""A Claude Code load: memory files in order, each followed by its imports, read once.

Like the cogitator load it is a chain of links (start-up → each nested directory → a target's
scoped rules), a link sharing its parent instead of copying it. Claude Code keeps one loaded
set for the whole load: a second import of a file (a diamond) or a cycle is dropped silently;
Rulemap lists them in `skipped`."""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING

from rulemap.globs import CompiledGlobs
from rulemap.model import LoadedFile, Reason, Skipped
from rulemap.profiles.claude_code import imports as claude_imports
from rulemap.profiles.claude_code.imports import MAX_HOPS, Target
from rulemap.profiles.links import ImportChain, Linked, on_chain
from rulemap.readers.base import is_within
from rulemap.records import record

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

APPROVAL_WHY = (
    "outside the launch directory `{cwd}`: Claude Code asks once to approve imports from "
    "outside it and drops them until then (approveExternalImports = true if you approved)"
)
_STATUS_WHY = {
    "missing": ("not found: Claude Code drops it silently", "broken-import"),
    "directory": ("a directory, not a file: Claude Code drops it silently", "broken-import"),
    "extension": (
        "not a text file extension Claude Code follows (`.mdc`, `.mdx` are not): ignored",
        "import-not-followed",
    ),
    "outside": ("outside the workspace: Rulemap does not read it", "import-outside-workspace"),
    "no-home": (
        "in the home directory: pass --home DIR to read user-level files",
        "import-outside-workspace",
    ),
}


@record(frozen=True)
class Settings:
    """What a load depends on besides the files: the launch directory (absolute, lexical and
    real), whether external imports are approved, and claudeMdExcludes."""

    cwd: str  # workspace-relative ('' = root)
    cwd_abs: str
    cwd_real: str
    approve_external: bool
    excludes: CompiledGlobs | None = field(compare=False, hash=False)
    excludes_written: tuple[str, ...] = ()

    def external(self, target: Target) -> bool:
        """Whether an import of `target` leaves the launch directory."""
        return not (
            is_within(target.absolute, self.cwd_abs)
            or is_within(target.absolute, self.cwd_real)
            or (target.identity is not None and is_within(target.identity, self.cwd_real))
        )

    def excluded(self, absolute: str, real: str) -> bool:
        if self.excludes is None:
            return False
        return self.excludes.match(absolute.lstrip("/")) or self.excludes.match(real.lstrip("/"))


class ClaudeLoad(Linked["ClaudeLoad"]):
    def __init__(self, ws: Workspace, settings: Settings, parent: ClaudeLoad | None = None):
        super().__init__(parent)
        self.ws = ws
        self.settings = settings
        # a memory file exists root → cwd, so AGENTS.md is no fallback (set by the profile)
        self.memory_above: bool = parent.memory_above if parent is not None else False
        # (rule, unconditional) of the chain's rules when the start-up link was built
        self.rule_classes: tuple[tuple[str, bool], ...] = ()

    def child(self) -> ClaudeLoad:
        return ClaudeLoad(self.ws, self.settings, self)

    def brought_by(self, importer: str) -> list[LoadedFile]:
        """The files `importer`'s own imports brought into this load. `add` takes a file's
        imports at once, into the link that adds the file, so the links are searched from
        this one up to that link, not all of them: a load 400 levels deep has a link per
        level, and the duplicate check asks this of every importer."""
        link: ClaudeLoad | None = self
        while link is not None:
            if any(f.path == importer for f in link.own_files):
                return [f for f in link.own_files if f.imported_by == importer]
            link = link.parent
        return []

    def skip(self, path: str, why: str, code: str) -> None:
        self.add_skip(Skipped(path, why, code))

    def add(self, key: str, reason: Reason, home: bool = False, note: str | None = None) -> None:
        """Load `key` for `reason`, then its imports depth first (iteratively)."""
        ws = self.ws
        settings = self.settings
        # imports in a chain that starts at a user-level file need no approval
        trusted = reason == "user"
        # (key, from home, reason, importer, hop, import line, importer chain, note)
        stack: list[tuple[str, bool, Reason, str | None, int, int | None, ImportChain, str | None]]
        stack = [(key, home, reason, None, 0, None, None, note)]
        while stack:
            path, from_home, why, importer, depth, line, chain, path_note = stack.pop()
            if not from_home:
                self.add_reads(path)
            identity = claude_imports.identity(ws, path, from_home)
            first = self.first_loaded(identity)
            if first is not None:
                if on_chain(chain, identity):
                    self.add_skip(Skipped(
                        path, f"import cycle: {first} is already loading (dropped silently)",
                        "import-cycle", importer, line))
                else:
                    same = "" if first == path else f" as {first}"
                    self.add_skip(Skipped(
                        path, f"already loaded{same} (dropped silently)", "duplicate-load",
                        importer, line))
                continue
            if importer is None and why != "user" and settings.excluded(ws.abs(path), identity):
                patterns = ", ".join(f"`{p}`" for p in settings.excludes_written)
                self.add_skip(Skipped(
                    path, f"excluded by claudeMdExcludes ({patterns})", "instructions-shadowed"))
                continue
            doc = claude_imports.document(ws, path, from_home)
            if doc.unreadable:
                self.add_skip(Skipped(
                    path, f"unreadable: {doc.unreadable}", "unreadable-file", importer, line))
                continue
            if doc.rule_skip:
                self.add_skip(Skipped(
                    path, f"rule skipped: {doc.rule_skip}", "invalid-frontmatter", importer,
                    line))
                continue
            self.add_file(LoadedFile(
                path, why, importer, depth, doc.chars, import_line=line, text=doc.brought,
                note=path_note), identity)
            children = []
            for token, target in claude_imports.resolved_imports(ws, path, from_home):
                at = token.ref.span.start.line
                shown = target.key
                if not target.home and target.status != "no-home":
                    self.add_reads(target.key)
                if target.status != "ok":
                    text, code = _STATUS_WHY[target.status]
                    self.add_skip(Skipped(shown, text, code, path, at))
                    continue
                if not trusted and not settings.approve_external and settings.external(target):
                    self.add_skip(Skipped(
                        shown, APPROVAL_WHY.format(cwd=settings.cwd or "."),
                        "import-outside-workspace", path, at))
                    continue
                if depth + 1 > MAX_HOPS:
                    self.add_skip(Skipped(
                        shown, f"import hop {depth + 1} is past Claude Code's {MAX_HOPS} "
                        f"(dropped silently)", "import-too-deep", path, at))
                    continue
                children.append((target.key, target.home, "import", path, depth + 1, at,
                                 (identity, chain), None))
            stack.extend(reversed(children))  # type: ignore[arg-type]
