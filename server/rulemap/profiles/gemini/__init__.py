"""Gemini CLI (docs/profiles/gemini.md): `profile.py` (the `Profile`), `paths.py` (context file
names and places, the project root, the tools that load context just in time, Gemini's import
resolution), `load.py` (start-up discovery, just-in-time loading, the eager downward scan and
import expansion for `explain`), `session.py` (just-in-time context per tool step),
`findings.py` (what Gemini's loading gets wrong)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rulemap.profiles.gemini.profile import GeminiProfile


def __getattr__(name: str) -> object:
    # imported when asked for: its light facts (`names.py`) are imported without it
    if name == "GeminiProfile":
        from rulemap.profiles.gemini.profile import GeminiProfile

        return GeminiProfile
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["GeminiProfile"]
