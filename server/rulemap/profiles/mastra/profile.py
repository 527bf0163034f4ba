"""The `mastra` profile: Mastra's AgentsMDInjector behind the `Profile` interface."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rulemap.model import Explanation, Finding
from rulemap.profiles.base import (
    EXPLAIN,
    Home,
    Profile,
    home_file,
    join,
    loaded_homes,
    options_of,
    parent_dir,
)
from rulemap.profiles.deferred import Deferred
from rulemap.profiles.mastra.names import MastraFacts, is_instruction_name
from rulemap.profiles.place_groups import Anchors, explained, grouped

# inject.py (the search and the cut) is imported by the methods that inject: detection and
# `reads` need only names.py (`MastraFacts`, which the class inherits)
if TYPE_CHECKING:
    from rulemap.profiles.mastra.inject import Settings
    from rulemap.profiles.steps import SessionReplay, ToolStep
    from rulemap.profiles.transcript import TranscriptFormat
    from rulemap.workspace import Workspace


def _transcript_format() -> TranscriptFormat:
    from rulemap.profiles.mastra.transcript import FORMAT

    return FORMAT


class MastraProfile(MastraFacts, Profile):
    follows_imports = False
    check_codes = ("budget-overflow",)
    transcript_format = Deferred(_transcript_format)
    watched_globs = ("**/AGENTS.md", "**/CLAUDE.md", "**/CONTEXT.md")

    def settings(self, ws: Workspace) -> Settings:
        from rulemap.profiles.mastra.inject import Settings

        return Settings.from_options(options_of(ws, self))

    def homes(self, ws: Workspace, target: str | None, cwd: str) -> tuple[Home, ...]:
        """What it injects there, then an AGENTS.md in the target's directory (the root at
        start-up): it injects the files of a touched path's directory and those above."""
        directory = parent_dir(target) if target else ""
        where = f"when a tool touches `{target}`" if target else "when a tool touches any file"
        new = home_file(ws, join(directory, "AGENTS.md"), f"which it injects {where}")
        return (*loaded_homes(self.explain(ws, target, cwd), target), new)

    def findings(self, ws: Workspace) -> list[Finding]:
        from rulemap.profiles.mastra import checks

        return checks.findings(ws, self.settings(ws))

    def replay(self, ws: Workspace, steps: Sequence[ToolStep], cwd: str) -> SessionReplay:
        """One injection at most per model step, newest tool call first (session.py)."""
        from rulemap.profiles.mastra.session import replay

        return replay(self.name, self.title, ws, self.settings(ws), steps, cwd)

    def explain(self, ws: Workspace, target: str | None, cwd: str) -> Explanation:
        from rulemap.profiles.mastra import inject

        settings = self.settings(ws)
        key = EXPLAIN.key(self.name, target, cwd, settings)
        cached = ws.derived.get(key)
        if cached is not None:
            return cached
        explanation, found = inject.explain(ws, self.name, settings, target, cwd)
        # files above the root are never reported changed: they are read again only after a
        # create or delete, which drops every derived value
        reads = [k for k in found if not k.startswith("/")]
        if target is not None:
            reads.append(target)  # whether it is a directory
        ws.derived.put(key, explanation, reads=reads)
        return explanation

    def load_groups(self, ws: Workspace, cwd: str) -> list[tuple[Explanation, list[str]]]:
        """Every workspace file grouped by what one tool call on it injects: an instruction
        file is used directly (a group of its own); any other path's search starts at its
        directory (`search_start`) and finds the instruction files of every directory from
        there up, so paths share a load when the deepest directory on the way holding one
        is the same (the walk above the root, `ignoredInstructionPaths` and identities are
        the same for all). Disabled: nothing for any file."""
        from rulemap.profiles.mastra import inject

        files = list(ws.files)
        if not self.settings(ws).enabled:
            return explained(self, ws, cwd, [files] if files else [])
        anchors = Anchors(lambda directory: inject.holds_instructions(ws, directory))

        def key_of(path: str) -> tuple[str, str | None]:
            if is_instruction_name(path):
                return "direct", path
            return "search", anchors(inject.search_start(ws, path))

        return explained(self, ws, cwd, grouped(files, key_of))
