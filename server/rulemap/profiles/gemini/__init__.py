"""Gemini CLI (docs/profiles/gemini.md): `profile.py` (the `Profile`), `paths.py` (context file
names and places, the project root, Gemini's import resolution), `load.py` (start-up discovery,
the downward scan and import expansion for `explain`), `findings.py` (what Gemini's loading gets
wrong)."""

from rulemap.profiles.gemini.profile import GeminiProfile

__all__ = ["GeminiProfile"]
