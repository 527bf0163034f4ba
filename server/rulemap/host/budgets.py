"""Sizes and budgets in an agent's terms, and every selected agent's load of one file.

Why here: a load's size is counted in its agent's unit (chars, bytes, tokens) against a budget
the agent names its own way (`maxChars`, `project_doc_max_bytes`); `rulemap.compare` says it
once ("19 of 32,768 bytes", "3.1k chars", "cut by maxTokens") so that hovers, code lenses,
inlay hints and the CLI agree. Those wording functions are handed to the edges here, with
`agent_loads`: the rows of the source-file hover's agents table, as plain data.
"""

from __future__ import annotations

from collections.abc import Sequence

from rulemap.compare import (
    Unit,
    amount,
    budget_line,
    budget_share,
    is_cut,
    limit_name,
    short_amount,
    size_of,
    text_size,
    total_of,
    unit_of,
)
from rulemap.host.snapshot import Snapshot
from rulemap.records import record

__all__ = [
    "AgentLoad", "Unit", "agent_loads", "amount", "budget_line", "budget_share", "is_cut",
    "limit_name", "short_amount", "size_of", "text_size", "total_of", "unit_of",
]


@record(frozen=True)
class AgentLoad:
    """One agent's load for a file, in its unit: how many files, their size, the shared
    budget it counts against (0: none), the files it cuts, how many it leaves out."""

    profile: str
    files: int
    size: int
    unit: Unit
    shared_limit: int
    cut: tuple[str, ...]
    left_out: int


def agent_loads(snap: Snapshot, key: str, agents: Sequence[str]) -> tuple[AgentLoad, ...]:
    """What each of `agents` loads for `key` from the configured cwd, each agent once in the
    order given (the explanations come from the profiles' caches: asking again after no
    change recomputes nothing)."""
    out = []
    for column in snap.compare(key, agents).columns:
        explanation = column.explanation
        budget = explanation.budget
        out.append(AgentLoad(
            column.profile, len(explanation.files), total_of(explanation),
            unit_of(explanation),
            budget.limit if budget.kind == "shared" and budget.limit > 0 else 0,
            tuple(f.path for f in explanation.files if is_cut(f)),
            len(explanation.left_out),
        ))
    return tuple(out)
