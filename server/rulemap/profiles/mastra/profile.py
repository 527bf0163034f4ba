"""The `mastra` profile: Mastra's AgentsMDInjector behind the `Profile` interface."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rulemap.model import Explanation, Finding
from rulemap.profiles.base import (
    EXPLAIN,
    Home,
    Option,
    Profile,
    home_file,
    join,
    loaded_homes,
    options_of,
    parent_dir,
)
from rulemap.profiles.deferred import Deferred
from rulemap.profiles.mastra.names import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_REMINDER_TEXT,
    NAMES,
    is_instruction_name,
)
from rulemap.profiles.place_groups import Anchors, explained, grouped

# inject.py (the search and the cut) is imported by the methods that inject: detection and
# `reads` need only names.py
if TYPE_CHECKING:
    from rulemap.profiles.mastra.inject import Settings
    from rulemap.profiles.steps import SessionReplay, ToolStep
    from rulemap.profiles.transcript import TranscriptFormat
    from rulemap.workspace import Workspace


def _transcript_format() -> TranscriptFormat:
    from rulemap.profiles.mastra.transcript import FORMAT

    return FORMAT


class MastraProfile(Profile):
    name = "mastra"
    title = "Mastra AgentsMDInjector"
    description = (
        "AGENTS.md / CLAUDE.md / CONTEXT.md from a touched path's directory up, one new file "
        "per model step, nearest first, each cut at ~1000 tokens with a notice."
    )
    follows_imports = False
    check_codes = ("budget-overflow",)
    selected_by_name = False  # a dependency on @mastra/core selects it (detection.py)
    transcript_format = Deferred(_transcript_format)
    watched_globs = ("**/AGENTS.md", "**/CLAUDE.md", "**/CONTEXT.md")
    options: tuple[Option, ...] = (
        Option("maxTokens", (int,), DEFAULT_MAX_TOKENS,
               "approximate token limit of each instruction file (4 characters a token); "
               "over it the file is cut at the last line break and a notice follows"),
        Option("reminderText", (str,), DEFAULT_REMINDER_TEXT,
               "injected in place of an empty or unreadable instruction file (\"\": nothing, "
               "as Mastra does without the option)"),
        Option("ignoredInstructionPaths", (list,), [],
               "instruction files already in the static instructions (root-relative or "
               "absolute paths): never injected"),
        Option("enabled", (bool,), True,
               "false: instruction discovery is off (Mastra's isEnabled returning false)"),
        Option("walkToFilesystemRoot", (bool,), False,
               "search on above the workspace root up to /, as Mastra does"),
        Option("nearestOnly", (bool,), False,
               "a touched path leads to one file only, the first name in the nearest "
               "directory that has one, as @mastra/core 1.71.0's code searches (false: the "
               "whole ancestry over successive steps, as the specification reads)"),
    )

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

    def detected_by(self, ws: Workspace) -> str | None:
        # Mastra is a library: a package that depends on it shows it is used; AGENTS.md,
        # CLAUDE.md and even CONTEXT.md do not (other tools read them too) — detection.py
        from rulemap.profiles.mastra.detection import PACKAGE, mastra_manifest

        manifest = mastra_manifest(ws)
        return None if manifest is None else f"{manifest}: {PACKAGE}"

    def detection_reads(self, ws: Workspace) -> tuple[str, ...]:
        from rulemap.profiles.mastra.detection import manifests

        return manifests(ws)

    def names_opened(self, ws: Workspace) -> tuple[str, ...]:
        # tool-result-reminder.ts: `pathExists(join(dir, name))`, `existsSync` by default
        return NAMES

    def reads(self, ws: Workspace, key: str) -> bool:
        return is_instruction_name(key)

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
