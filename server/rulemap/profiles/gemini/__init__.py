"""Gemini CLI (docs/profiles/gemini.md): `profile.py` (the `Profile`), `paths.py` (context file
names and places, the project root, the tools that load context just in time, Gemini's import
resolution), `load.py` (start-up discovery, just-in-time loading, the eager downward scan and
import expansion for `explain`), `session.py` (just-in-time context per tool step),
`findings.py` (what Gemini's loading gets wrong)."""

from rulemap.profiles.gemini.profile import GeminiProfile

__all__ = ["GeminiProfile"]
