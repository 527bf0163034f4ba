"""Claude Code's options (`[profiles.claude-code]`, docs/profiles/claude-code.md#options): which
instruction files it reads (its own `instructionFiles` setting), import approval, glob case,
`claudeMdExcludes` and the size warning."""

from __future__ import annotations

from typing import Any, Final

from rulemap.profiles.base import Option
from rulemap.records import record

# Claude Code's "Project instructions" setting (`/config`; in settings files
# pluginConfigs["agents-md@builtin"].options.instructionFiles), since Claude Code 2.1.277
CLAUDE_MD_ONLY: Final = "claude-md"  # never AGENTS.md (also every release before 2.1.277)
CLAUDE_MD_OR_AGENTS_MD: Final = "claude-md-or-agents-md"  # the default: AGENTS.md as a fallback
CLAUDE_MD_AND_AGENTS_MD: Final = "claude-md-and-agents-md"  # both, CLAUDE.md files first
MANAGED_ONLY: Final = "managed-only"  # at start-up only managed policy files and auto memory
INSTRUCTION_FILES = (CLAUDE_MD_ONLY, CLAUDE_MD_OR_AGENTS_MD, CLAUDE_MD_AND_AGENTS_MD, MANAGED_ONLY)
# a memory file longer than this gets Claude Code's size warning (40,000 before 2.1.169; since
# then it scales with the model's context window: an option)
SIZE_WARNING_CHARS = 40_000

# the key this profile had before it took Claude Code's own setting, and how to write it now
_READ_AGENTS_MD = (
    "readAgentsMd",
    'readAgentsMd = "fallback" / "always" / "never" is now instructionFiles = '
    '"claude-md-or-agents-md" / "claude-md-and-agents-md" / "claude-md" (Claude Code\'s own '
    'setting; "managed-only" is the fourth mode)',
)


@record(frozen=True)
class Options:
    instruction_files: str
    approve_external: bool
    case_sensitive: bool
    excludes: tuple[str, ...]
    size_warning: int

    @property
    def managed_only(self) -> bool:
        return self.instruction_files == MANAGED_ONLY


OPTIONS: tuple[Option, ...] = (
    Option(
        "instructionFiles", (str,), CLAUDE_MD_OR_AGENTS_MD,
        "Claude Code's Project instructions setting: \"claude-md\" (never AGENTS.md; releases "
        'before 2.1.277), "claude-md-or-agents-md" (AGENTS.md only where no CLAUDE.md, '
        '.claude/CLAUDE.md or CLAUDE.local.md exists in cwd or above), '
        '"claude-md-and-agents-md" (both), "managed-only" (no project or user file at start-up)',
        choices=INSTRUCTION_FILES,
        replaces=(_READ_AGENTS_MD,),
    ),
    Option(
        "approveExternalImports", (bool,), False,
        "you approved Claude Code's one-time prompt for imports from outside the launch "
        "directory (otherwise they are dropped)",
    ),
    Option(
        "caseSensitiveGlobs", (bool,), False,
        "match rule `paths` case-sensitively (Claude Code probably does not: unconfirmed)",
    ),
    Option(
        "claudeMdExcludes", (list,), [],
        "globs on absolute paths of memory files Claude Code skips (its claudeMdExcludes "
        "setting)",
    ),
    Option(
        "sizeWarningChars", (int,), SIZE_WARNING_CHARS,
        "the length from which Claude Code warns that a memory file is large (40,000 before "
        "2.1.169; since then it scales with the model's context window)",
    ),
)


def parse(raw: dict[str, Any]) -> Options:
    """The options as `parse_options` checked them (a mode is one of INSTRUCTION_FILES)."""
    return Options(
        instruction_files=str(raw["instructionFiles"]),
        approve_external=bool(raw["approveExternalImports"]),
        case_sensitive=bool(raw["caseSensitiveGlobs"]),
        excludes=tuple(raw["claudeMdExcludes"]),
        size_warning=int(raw["sizeWarningChars"]),
    )
