"""GitHub Copilot's light facts: its names, its options, and what detection and `reads`
answer (`CopilotFacts`, which `CopilotProfile` inherits). A check of a workspace without
Copilot's files asks them of every agent (the registry's `facts`): importing them must not
import its profile or its glob matchers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulemap.profiles.base import Facts, Option, options_of, shallowest
from rulemap.profiles.copilot_files import (
    AGENT_CHOICES,
    AGENTS,
    CODE_REVIEW,
    CODING_AGENT,
    CODING_AGENT_ROOT_FILES,
    INSTRUCTIONS,
    INSTRUCTIONS_DIR,
    VSCODE_CHAT,
    VSCODE_CLAUDE_FILES,
    exists,
    is_instruction_file,
    misplaced_repository_files,
)

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

_VSCODE_ONLY = "; only VS Code's chat has it (agent = \"vscode-chat\")"


class CopilotFacts(Facts):
    """GitHub Copilot's light facts (`Facts`): its profile class inherits them."""

    name = "copilot"
    title = "GitHub Copilot"
    description = (
        "GitHub Copilot (coding agent, code review or VS Code's chat): "
        ".github/copilot-instructions.md, .github/instructions/*.instructions.md by applyTo, "
        "AGENTS.md; no imports, no budget."
    )
    options: tuple[Option, ...] = (
        Option("agent", (str,), CODING_AGENT,
               "the Copilot modelled: `coding-agent`, `code-review` (files whose `excludeAgent` "
               "names it are skipped) or `vscode-chat` (VS Code's chat)",
               choices=AGENT_CHOICES,
               replaces=(("vscodeGlobs", "set `agent = \"vscode-chat\"`: VS Code's chat "
                                         "matches applyTo its own way"),
                         ("slashlessMatchesAnyDepth",
                          "GitHub documents `*.py` as root-level files for the coding agent; "
                          "`agent = \"vscode-chat\"` matches it at any depth"))),
        Option("useAgentsMdFile", (bool,), True,
               "read AGENTS.md (VS Code's `chat.useAgentsMdFile`; the coding agent has no "
               "switch: false models a repository without it)",
               replaces=(("useAgentsMd", "the same switch, named after VS Code's setting"),)),
        Option("useNestedAgentsMdFiles", (bool,), False,
               "VS Code's chat lists the workspace's nested AGENTS.md files by path for the "
               "model to read (`chat.useNestedAgentsMdFiles`, experimental)" + _VSCODE_ONLY,
               replaces=(("nestedAgentsMd",
                          "the coding agent always reads the nearest AGENTS.md; VS Code's chat "
                          "lists nested ones with `useNestedAgentsMdFiles = true`"),)),
        Option("useInstructionFiles", (bool,), True,
               "read .github/copilot-instructions.md (VS Code's "
               "`github.copilot.chat.codeGeneration.useInstructionFiles`)" + _VSCODE_ONLY),
        Option("useClaudeMdFile", (bool,), True,
               "read CLAUDE.md, CLAUDE.local.md and .claude/CLAUDE.md (VS Code's "
               "`chat.useClaudeMdFile`)" + _VSCODE_ONLY),
        Option("rootFilesBesideAgentsMd", (bool,), False,
               "coding-agent: read the root's CLAUDE.md and GEMINI.md also where an AGENTS.md "
               "is read — unconfirmed; GitHub's docs name them as an alternative to AGENTS.md, "
               "so by default they are read only where no AGENTS.md is"),
    )

    def detected_by(self, ws: Workspace) -> str | None:
        if exists(ws, INSTRUCTIONS):
            return INSTRUCTIONS
        if ws.files.under(INSTRUCTIONS_DIR) or ws.reader.is_dir(
                ws.abs(INSTRUCTIONS_DIR.rstrip("/"))):
            return INSTRUCTIONS_DIR.rstrip("/")
        # a `copilot-instructions.md` Copilot never reads is still written for it: selected,
        # so that `misplaced-file` says where it would have to be
        return shallowest(misplaced_repository_files(ws))

    def reads(self, ws: Workspace, key: str) -> bool:
        if is_instruction_file(key):
            return True
        opts = options_of(ws, self)
        agent = opts["agent"]
        vscode = agent == VSCODE_CHAT
        if key == INSTRUCTIONS:
            return not vscode or bool(opts["useInstructionFiles"])
        if key == AGENTS or key.endswith("/" + AGENTS):
            return agent != CODE_REVIEW and bool(opts["useAgentsMdFile"]) and (
                key == AGENTS or agent == CODING_AGENT)
        if agent == CODING_AGENT:
            return key in CODING_AGENT_ROOT_FILES
        return vscode and bool(opts["useClaudeMdFile"]) and key in VSCODE_CLAUDE_FILES
