"""Mastra's AgentsMDInjector (the second seed): nearest-first ancestry, no imports, per-file cut."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulemap.model import Explanation, LoadedFile, Skipped
from rulemap.profiles.base import parent_dir

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

NAMES = ("AGENTS.md", "CLAUDE.md", "CONTEXT.md")
MAX_TOKENS = 1000
CHARS_PER_TOKEN = 4


class MastraProfile:
    name = "mastra"
    title = "Mastra AgentsMDInjector"
    description = (
        "AGENTS.md / CLAUDE.md / CONTEXT.md from the touched file's directory up, nearest "
        "first, one per step, each cut at ~1000 tokens."
    )

    def explain(self, ws: Workspace, target: str | None, cwd: str) -> Explanation:
        files: list[LoadedFile] = []
        skipped: list[Skipped] = []
        seen: set[str] = set()
        limit = MAX_TOKENS * CHARS_PER_TOKEN
        directory: str | None = (
            parent_dir(target) if target is not None else ("" if cwd in (".", "") else cwd)
        )
        cut_any: list[str] = []
        while directory is not None:
            for name in NAMES:
                key = f"{directory}/{name}" if directory else name
                full = ws.abs(key)
                if not ws.reader.exists(full) or ws.reader.is_dir(full):
                    continue
                identity = ws.identity(key)
                if identity in seen:
                    skipped.append(Skipped(key, "already injected (same file)", "duplicate-load"))
                    continue
                seen.add(identity)
                doc = ws.document(key)
                if doc.unreadable:
                    skipped.append(
                        Skipped(
                            key,
                            f"unreadable: {doc.unreadable}; the reminder text is injected instead",
                            "unreadable-file",
                        )
                    )
                    continue
                text = doc.text
                cut = False
                if len(text) > limit:
                    head = text[:limit]
                    newline = head.rfind("\n")
                    text = head[: newline + 1] if newline > 0 else head
                    cut = True
                    cut_any.append(key)
                files.append(LoadedFile(key, "nested", None, 0, len(text), cut=cut, text=text))
            directory = None if directory == "" else parent_dir(directory)
        notice = None
        if cut_any:
            notice = (
                f"[Rulemap (mastra): {', '.join(cut_any)} truncated at about {MAX_TOKENS} tokens.]"
            )
        return Explanation(
            profile=self.name,
            root=ws.root,
            cwd="." if cwd in ("", ".") else cwd,
            target=target,
            max_chars=limit,
            files=files,
            left_out=[],
            skipped=skipped,
            notice=notice,
        )
