"""The gemini `Profile`: GEMINI.md context files and Gemini's own `@path` imports.

Start-up: the global `~/.gemini/GEMINI.md` (with `--home`), then the files of the directories
from the git root down to the cwd. With `jitContext` (the default, as in every release since
v0.44.0) a directory's context files load just in time, when one of Gemini's file tools touches
a path there (`explain TARGET`, and `session` step by step); with `jitContext = false` (older
releases' `experimental.jitContext: false`) a bounded breadth-first scan below the cwd loads
them at start-up (`downwardScan`). Each file is followed by its imports, depth-first, up to 5
levels (the 5th level still loads); a file is refused only when it is already on the chain that
leads to it, so a diamond appears twice. No budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rulemap.model import Explanation, Finding, LoadStatus
from rulemap.profiles.base import (
    EXPLAIN,
    Home,
    Profile,
    cached_explanation,
    home_file,
    join,
    loaded_homes,
    options_of,
    parent_dir,
)
from rulemap.profiles.deferred import Deferred
from rulemap.profiles.gemini.names import GeminiFacts
from rulemap.profiles.gemini.paths import (
    named_files,
    names_of,
    settings_names,
)
from rulemap.profiles.gemini.settings import (
    DEFAULT_NAME,
)
from rulemap.profiles.place_groups import Anchors, explained, grouped
from rulemap.profiles.placement import cached_misplaced
from rulemap.workspace.letter_case import find_named

if TYPE_CHECKING:
    from rulemap.profiles.gemini.load import Loader
    from rulemap.profiles.load_log import LoadLogFormat
    from rulemap.profiles.steps import SessionReplay, ToolStep
    from rulemap.workspace import Workspace


def _load_log_format() -> LoadLogFormat:
    from rulemap.profiles.gemini.load_log import FORMAT

    return FORMAT


def _loader(ws: Workspace, profile: GeminiProfile) -> Loader:
    from rulemap.profiles.gemini.load import Loader

    return Loader(ws, profile)


class GeminiProfile(GeminiFacts, Profile):
    # its context files by their default name; the names its settings add are watched as
    # Markdown, its settings file as a settings file (`host.catalog.watched_globs`)
    watched_globs = ("**/GEMINI.md",)
    check_codes = ("import-not-followed", "misplaced-file", "invalid-agent-settings",
                   "unread-context-file")
    # the launch load first; just-in-time context joins after it, and there is no budget
    startup_prefix = True
    load_log_format = Deferred(_load_log_format)  # its session log's JIT context
    # ----- the interface ----------------------------------------------------------------------

    def homes(self, ws: Workspace, target: str | None, cwd: str) -> tuple[Home, ...]:
        """What it loads there, else a context file at the root (read at start-up), and for a
        target below it (just in time) one in the target's directory."""
        # the first name in force that is a file name (one with a directory, such as
        # `frontend/AGENTS.md`, is no home beside a target)
        name = next((n for n in names_of(ws, self) if "/" not in n), DEFAULT_NAME)
        root = home_file(ws, name, "which it loads at start-up")
        directory = parent_dir(target) if target else ""
        jit = () if not (directory and options_of(ws, self)["jitContext"]) else (home_file(
            ws, join(directory, name), f"which it loads just in time when a file tool touches "
            f"`{target}`"),)
        return (*loaded_homes(self.explain(ws, target, cwd), target), root, *jit)

    def explain(self, ws: Workspace, target: str | None, cwd: str) -> Explanation:
        cwd = "" if cwd in (".", "") else cwd.strip("/")
        return cached_explanation(
            ws, EXPLAIN.key(self.name, target, cwd), lambda: _loader(ws, self).explain(target, cwd)
        )

    def load_status(self, ws: Workspace, key: str) -> LoadStatus:
        """Just in time, a context file below the root loads for the paths below its own
        directory only; otherwise (the root's, or the eager load) for every target."""
        if not self.reads(ws, key):
            return LoadStatus(False, why_not=f"{self.title} does not read it")
        directory = key.rpartition("/")[0]
        if not directory or not options_of(ws, self)["jitContext"]:
            return LoadStatus(True, len(ws.files))
        below = [p for p in ws.files.under(directory + "/") if p != key]
        return LoadStatus(True, len(below), below[0] if below else None)

    def load_groups(self, ws: Workspace, cwd: str) -> list[tuple[Explanation, list[str]]]:
        """Every workspace file grouped by what Gemini loads when a file tool touches it. The
        start-up load (the global file, the git root down to the cwd, the eager scan) is the
        same for all; just in time (`jitContext`), a file whose directory is inside the cwd
        adds the context files from the git root down to that directory (`jit_files`), those
        down to the cwd being already loaded — so files share a load when they share whether
        they are inside the cwd and the deepest directory strictly below it on their path
        holding a context file."""
        cwd_dir = "" if cwd in (".", "") else cwd.strip("/")
        files = list(ws.files)
        if not options_of(ws, self)["jitContext"]:
            return explained(self, ws, cwd, [files] if files else [])
        names = names_of(ws, self)
        anchors = Anchors(lambda d: any(find_named(ws, d, n) for n in names), cwd_dir)

        def key_of(path: str) -> tuple[bool, str | None]:
            directory = parent_dir(path)
            inside = (not cwd_dir or directory == cwd_dir
                      or directory.startswith(cwd_dir + "/"))
            return inside, anchors(directory) if inside else None

        return explained(self, ws, cwd, grouped(files, key_of))

    def replay(self, ws: Workspace, steps: Sequence[ToolStep], cwd: str) -> SessionReplay:
        """The session step by step: context files below the cwd join when a tool that
        discovers context touches a path below them (session.py)."""
        from rulemap.profiles.gemini.session import replay

        return replay(self, ws, steps, cwd)

    def resolve_hint(self, ws: Workspace, finding: Finding) -> Finding | None:
        from rulemap.profiles.gemini.findings import NEAR_PATH, near_path

        if finding.hint is None or finding.hint.kind != NEAR_PATH:
            return None
        return near_path(ws, finding)

    def misplaced(self, ws: Workspace) -> list[Finding]:
        """A project's `.gemini/GEMINI.md`: read just in time for `.gemini/` alone
        (findings.py `misplaced`)."""
        from rulemap.profiles.gemini.findings import misplaced

        names, jit = names_of(ws, self), bool(options_of(ws, self)["jitContext"])
        return cached_misplaced(ws, self, (names, jit), lambda: misplaced(ws, names, jit))

    def findings(self, ws: Workspace) -> list[Finding]:
        from rulemap.profiles.gemini.findings import file_findings, graph_findings
        from rulemap.profiles.gemini.settings import settings_findings, unread_findings

        found = settings_names(ws, self)
        names = found.names
        out: list[Finding] = settings_findings(ws, found)
        if DEFAULT_NAME not in names:
            out.extend(unread_findings(ws, found, named_files(ws, (DEFAULT_NAME,))))
        tops = named_files(ws, names)
        if not tops:
            return out
        lint = frozenset(ws.lint_documents())
        for top in tops:
            out.extend(file_findings(ws, top, lint))
        out.extend(graph_findings(ws, tops, lint))
        return out
