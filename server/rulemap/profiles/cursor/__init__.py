"""The `cursor` profile: Cursor's `.cursor/rules` rules, AGENTS.md files and `.cursorrules`."""

from rulemap.profiles.cursor.profile import CursorProfile

__all__ = ["CursorProfile"]
