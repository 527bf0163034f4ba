"""What a rule glob edit moves.

When a rule's globs change, only the files it matches differently get a new rule list: the
workspace records them per rule (`Retarget`, kept in `Workspace.retarget_log`) so the budget
check's target groups move just those files, and the file → rules index
(`workspace.pattern_index.RulesOfFile.patch`) is updated in place instead of rebuilt from
every rule's matches.
"""

from __future__ import annotations

from rulemap.records import record


@record(frozen=True)
class Retarget:
    """A rule whose globs changed: the workspace files it matches now and did not before
    (`gained`), and those it no longer matches (`lost`)."""

    rule: str
    gained: frozenset[str]
    lost: frozenset[str]
