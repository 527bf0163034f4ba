"""Mastra's light facts: the file names its injector searches for, its options, and what
detection and `reads` answer (`MastraFacts`, which `MastraProfile` inherits).

A check of a workspace Mastra is not used in asks them of every agent (the registry's
`facts`): importing them must not import its profile or build the injector (`inject.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulemap.profiles.base import Facts, Option

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

NAMES = ("AGENTS.md", "CLAUDE.md", "CONTEXT.md")  # the search order in each directory
LOWER_NAMES = frozenset(n.lower() for n in NAMES)
DEFAULT_MAX_TOKENS = 1000
# Mastra's own default is no fallback at all (an empty or unreadable file is passed over);
# Rulemap shows such a file as injected with this text so it is seen. `reminderText = ""`
# models the injector without the option.
DEFAULT_REMINDER_TEXT = (
    "An instruction file applies to this path, but it is empty or could not be read."
)


def is_instruction_name(key: str) -> bool:
    return key.rsplit("/", 1)[-1].lower() in LOWER_NAMES


class MastraFacts(Facts):
    """Mastra's light facts (`Facts`): its profile class inherits them."""

    name = "mastra"
    title = "Mastra AgentsMDInjector"
    description = (
        "AGENTS.md / CLAUDE.md / CONTEXT.md from a touched path's directory up, one new file "
        "per model step, nearest first, each cut at ~1000 tokens with a notice."
    )
    selected_by_name = False  # a dependency on @mastra/core selects it (detection.py)
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
