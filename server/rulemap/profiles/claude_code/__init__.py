"""The `claude-code` profile: Claude Code's memory files, rules and imports."""

from rulemap.profiles.claude_code.profile import ClaudeCodeProfile

__all__ = ["ClaudeCodeProfile"]
