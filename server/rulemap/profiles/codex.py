"""OpenAI Codex CLI (a stub until its profile is written: loads nothing, finds nothing)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulemap.model import Budget, Explanation, Finding
from rulemap.profiles.base import Option

if TYPE_CHECKING:
    from rulemap.workspace import Workspace


class CodexProfile:
    name = "codex"
    title = "OpenAI Codex CLI"
    description = "OpenAI Codex CLI (not modelled yet)"
    options: tuple[Option, ...] = ()

    def detect(self, ws: Workspace) -> bool:
        return False

    def reads(self, ws: Workspace, key: str) -> bool:
        return False

    def findings(self, ws: Workspace) -> list[Finding]:
        return []

    def explain(self, ws: Workspace, target: str | None, cwd: str) -> Explanation:
        return Explanation(self.name, ws.root, cwd or ".", target, 0, [], [], [], None,
                           budget=Budget("none", "chars", 0))
