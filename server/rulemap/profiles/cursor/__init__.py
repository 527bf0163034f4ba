"""The `cursor` profile: Cursor's `.cursor/rules` rules, AGENTS.md files and `.cursorrules`."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rulemap.profiles.cursor.profile import CursorProfile


def __getattr__(name: str) -> object:
    # imported when asked for: its light facts (`names.py`) are imported without it
    if name == "CursorProfile":
        from rulemap.profiles.cursor.profile import CursorProfile

        return CursorProfile
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["CursorProfile"]
