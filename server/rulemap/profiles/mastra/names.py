"""Mastra's light facts: the file names its injector searches for and its options' defaults.

What detection, `reads` and the option table need: a check of a workspace Mastra is not used in
asks them of every agent, and importing them must not build the injector (`inject.py`).
"""

from __future__ import annotations

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
