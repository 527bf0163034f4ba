"""The `codex` profile: OpenAI Codex CLI's AGENTS.md files and byte budget."""

from rulemap.profiles.codex.profile import CodexProfile

__all__ = ["CodexProfile"]
