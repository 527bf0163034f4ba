"""Whether the cogitator model ever loads an instruction file or rule, by its place and the
configuration alone (imports aside): the views' "loaded for 1,204 files" and "never loaded:
…" come from here, not from a handler."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulemap.model import LoadStatus
from rulemap.profiles.base import directory_chain, parent_dir
from rulemap.profiles.cogitator.settings import settings_of

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

# a file name no workspace has, for "a target in that directory" (a nested load's anchor)
PROBE = ".rulemap-probe"


def load_status(ws: Workspace, key: str) -> LoadStatus:
    doc = ws.document(key)
    if doc.unreadable:
        return LoadStatus(False, why_not=doc.unreadable)
    if ws.is_rule(key):
        return _rule_status(ws, key)
    if ws.is_instruction(key):
        return _instruction_status(ws, key)
    return LoadStatus(False, why_not="not an instruction file or rule of this model")


def _rule_status(ws: Workspace, rule: str) -> LoadStatus:
    config = ws.config
    settings = settings_of(ws)
    chain = directory_chain(config.cwd)
    scope = ws.rule_scope(rule)
    owner = scope.owner if scope is not None else ""
    doc = ws.document(rule)
    if doc.rule_skip:
        return LoadStatus(False, why_not=doc.rule_skip)
    if not settings.rules:
        return LoadStatus(False, why_not="rules are off (`rules = false`)")
    if owner not in chain:
        rules_dir = scope.join(".claude/rules") if scope is not None else rule
        return LoadStatus(False, why_not=f"`{rules_dir}` is below the cwd")
    if ws.is_scoped(rule):
        matches = ws.rule_matches(rule)
        return LoadStatus(bool(matches), len(matches), matches[0] if matches else None,
                          scoped=True, why_not=None if matches else "its globs match no file")
    return LoadStatus(True, len(ws.files))


def _instruction_status(ws: Workspace, key: str) -> LoadStatus:
    config = ws.config
    settings = settings_of(ws)
    chain = directory_chain(config.cwd)
    cwd_dir = chain[-1]
    directory = _instruction_dir(ws, key)
    if directory is None:
        return LoadStatus(False)  # a name of `files` in no indexed directory
    if directory in chain:
        return LoadStatus(True, len(ws.files))
    below = not cwd_dir or directory.startswith(cwd_dir + "/")
    if settings.nested and below:
        return LoadStatus(True, len(ws.files.under(directory + "/")), f"{directory}/{PROBE}")
    if not below:
        return LoadStatus(False, why_not=f"`{directory}/` is outside the cwd")
    return LoadStatus(False, why_not="nested files are off (`nested = false`)")


def _instruction_dir(ws: Workspace, key: str) -> str | None:
    """The directory the index files an instruction file under (None: not one)."""
    directory = parent_dir(key)
    for candidate in (directory, parent_dir(directory)):
        if key in ws.instruction_files_in(candidate):
            return candidate
    return None
