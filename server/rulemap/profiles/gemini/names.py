"""Gemini CLI's light facts: its names, its options, the settings file that may rename its
context files, and what detection and `reads` answer (`GeminiFacts`, which `GeminiProfile`
inherits). A check of a workspace without Gemini's files asks them of every agent (the
registry's `facts`): importing them must not import its profile, its loader or its
import resolution (`paths.py`, which takes the name lookups from here).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from itertools import chain as chained
from typing import TYPE_CHECKING

from rulemap.profiles.base import Facts, Option, shallowest
from rulemap.profiles.gemini.settings import (
    DEFAULT_NAME,
    SETTINGS_FILE,
    Names,
    in_force,
    project_settings,
)
from rulemap.profiles.named_files import FILES_NAMED, files_named
from rulemap.workspace.letter_case import named_as

if TYPE_CHECKING:
    from rulemap.workspace import Workspace


def names_of(ws: Workspace, profile: Facts) -> tuple[str, ...]:
    """Gemini's context file names here, in order: rulemap.toml's `fileNames` when the user
    set it, else Gemini's own `context.fileName` (the project's `.gemini/settings.json`, else
    the user's) followed by `GEMINI.md`, else `GEMINI.md` (settings.py)."""
    return settings_names(ws, profile).names


def settings_names(ws: Workspace, profile: Facts) -> Names:
    """`names_of` with where the names come from (rulemap.toml, a settings file, the
    default) and every Gemini settings file found."""
    return in_force(ws, profile, cwd_of(ws))


def cwd_of(ws: Workspace) -> str:
    """The configured cwd as a key ('' = the root): whose `.gemini/settings.json` counts."""
    cwd = ws.config.cwd
    return "" if cwd in (".", "") else cwd.strip("/")


def named_files(ws: Workspace, names: tuple[str, ...]) -> list[str]:
    """Every workspace file with one of the context file names (git-ignored ones too: the
    upward walk does not ask git), sorted. Looked up by extension in the file index."""
    suffixes = {posixpath.splitext(n)[1] for n in names}
    pools: list[Iterable[str]] = []
    if "" in suffixes or ws.case_insensitive:
        # a name without an extension, or `.MD` for `.md` (macOS, Windows): one pass, cached
        pools.append(ws.files)
    else:
        pools.extend(ws.files.with_suffix(s) for s in sorted(suffixes))
    # Gemini opens `path.join(dir, name)` (fs.access): a case-insensitive file system hands
    # it `gemini.md` for `GEMINI.md` (workspace/letter_case.py)
    return files_named(ws, FILES_NAMED.key("gemini", names, ws.case_insensitive),
                       chained(*pools), lambda p: named_as(ws, p, names) is not None)


class GeminiFacts(Facts):
    """Gemini CLI's light facts (`Facts`): its profile class inherits them."""

    name = "gemini"
    title = "Gemini CLI"
    description = (
        "GEMINI.md: global, then the git root down to the cwd; below the cwd just in time, when "
        "a file tool touches a path; Gemini's @imports (5 levels, per-chain cycles); no budget."
    )
    settings_files = (SETTINGS_FILE,)
    options: tuple[Option, ...] = (
        Option("fileNames", (list,), ["GEMINI.md"],
               "context file names, in order; set here, the whole list, in place of "
               "Gemini's own `context.fileName` (its settings files: `GEMINI.md` after "
               "the names they set)"),
        Option("jitContext", (bool,), True,
               "load a directory's context files just in time, when a file tool touches a "
               "path there (Gemini's `experimental.jitContext`; always on since v0.44.0); "
               "false: the older eager start-up load with its downward scan"),
        Option("downwardScan", (bool,), True,
               "with `jitContext = false`: also load the context files a breadth-first scan "
               "below the cwd finds at start-up"),
        Option("maxScanDirs", (int,), 200,
               "with `jitContext = false`: directories the downward scan lists at most, the "
               "cwd included (`context.discoveryMaxDirs`)"),
    )

    def detected_by(self, ws: Workspace) -> str | None:
        """Its context files by the names Rulemap was told; else the project's settings file
        when it sets `context.fileName` (the repository uses Gemini CLI, whatever files it
        names); else a `GEMINI.md`; else the project's settings file when it still sets the
        legacy `contextFileName` or is one Gemini cannot use (it refuses to start: worth
        saying). The user's settings never select it: a check does not depend on who
        runs it."""
        found = settings_names(ws, self)
        if found.source == "rulemap":
            return shallowest(named_files(ws, found.names))
        project = next((f for f in found.files if f.scope == "project"), None)
        if project is not None and project.names is not None:
            return project.key
        # a `GEMINI.md` says it best; a settings file Gemini cannot use selects it alone
        own = shallowest(named_files(ws, (DEFAULT_NAME,)))
        if own is None and project is not None and (project.error or project.invalid
                                                    or project.legacy):
            return project.key
        return own

    def detection_reads(self, ws: Workspace) -> tuple[str, ...]:
        return (project_settings(ws),)

    def names_opened(self, ws: Workspace) -> tuple[str, ...]:
        # memoryDiscovery.ts: `fs.access(path.join(dir, name))` up from the cwd and for JIT
        return names_of(ws, self)

    def reads(self, ws: Workspace, key: str) -> bool:
        return named_as(ws, key, names_of(ws, self)) is not None
