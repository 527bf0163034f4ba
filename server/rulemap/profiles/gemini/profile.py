"""The gemini `Profile`: GEMINI.md context files and Gemini's own `@path` imports.

Start-up: the global `~/.gemini/GEMINI.md` (with `--home`), then the files of the directories
from the git root down to the cwd, then (older releases, `downwardScan`) those a bounded
breadth-first scan finds below the cwd; with `justInTime` (current releases), the directories
from a target up to the cwd as well. Each file is followed by its imports, depth-first, up to 5
levels (the 5th level still loads); a file is refused only when it is already on the chain that
leads to it, so a diamond appears twice. No budget.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulemap.model import Explanation, Finding
from rulemap.profiles.base import EXPLAIN, Option, Profile, cached_explanation
from rulemap.profiles.gemini.findings import file_findings, graph_findings
from rulemap.profiles.gemini.load import Loader
from rulemap.profiles.gemini.paths import is_named, named_files, names_of

if TYPE_CHECKING:
    from rulemap.workspace import Workspace


class GeminiProfile(Profile):
    name = "gemini"
    title = "Gemini CLI"
    description = (
        "GEMINI.md: global, then the git root down to the cwd, then a bounded scan below it; "
        "Gemini's @imports (5 levels, per-chain cycles); no budget."
    )
    watched_globs = ("**/GEMINI.md",)
    options: tuple[Option, ...] = (
        Option("fileNames", (list,), ["GEMINI.md"],
               "context file names, in order (Gemini's `context.fileName`)"),
        Option("downwardScan", (bool,), True,
               "also load the context files a breadth-first scan below the cwd finds at "
               "start-up (releases before mid-2026; unconfirmed for current ones)"),
        Option("maxScanDirs", (int,), 200,
               "directories the downward scan lists at most, the cwd included "
               "(`context.discoveryMaxDirs`; unconfirmed)"),
        Option("justInTime", (bool,), False,
               "load the context files from a target's directory up to the cwd when a tool "
               "touches it (current releases)"),
    )

    # ----- the interface ----------------------------------------------------------------------

    def detect(self, ws: Workspace) -> bool:
        return bool(named_files(ws, names_of(ws, self)))

    def reads(self, ws: Workspace, key: str) -> bool:
        return is_named(key, names_of(ws, self))

    def explain(self, ws: Workspace, target: str | None, cwd: str) -> Explanation:
        cwd = "" if cwd in (".", "") else cwd.strip("/")
        return cached_explanation(
            ws, EXPLAIN.key(self.name, target, cwd), lambda: Loader(ws, self).explain(target, cwd)
        )

    def findings(self, ws: Workspace) -> list[Finding]:
        names = names_of(ws, self)
        tops = named_files(ws, names)
        if not tops:
            return []
        lint = frozenset(ws.lint_documents())
        out: list[Finding] = []
        for top in tops:
            out.extend(file_findings(ws, top, lint))
        out.extend(graph_findings(ws, tops, lint))
        return out
