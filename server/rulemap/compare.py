"""Side by side: what several agents load for the same target, one column per agent.

Plain data over the `Profile` interface: each column is one profile's `Explanation` plus a
one-line summary in that profile's budget unit (chars, tokens or bytes), so views (the CLI
table, the LSP `rulemap/compare` request, source-file hovers) only lay it out.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal

from rulemap import analysis
from rulemap.model import Budget, Explanation, LoadedFile
from rulemap.records import record

if TYPE_CHECKING:
    from rulemap.profiles.base import Profile
    from rulemap.workspace import Workspace

Unit = Literal["chars", "bytes", "tokens"]
CHARS_PER_TOKEN = 4  # the estimate every token budget of the reference uses
CUT_NAMES_SHOWN = 2  # a summary names this many cut files, then counts the rest


@record(frozen=True)
class Column:
    """One agent's load for the comparison's target."""

    profile: str  # the registry name: `claude-code`
    title: str  # for people: "Claude Code"
    explanation: Explanation
    summary: str  # "4 files, 12,400 chars, cut: AGENTS.md, 1 left out"
    over_budget: bool  # something was cut or left out

    def to_json(self) -> dict[str, object]:
        return {
            "profile": self.profile,
            "title": self.title,
            "summary": self.summary,
            "overBudget": self.over_budget,
            "explanation": self.explanation.to_json(),
        }


@record(frozen=True)
class Comparison:
    target: str | None  # None: the start-up load
    cwd: str
    columns: tuple[Column, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "target": self.target,
            "cwd": self.cwd,
            "columns": [c.to_json() for c in self.columns],
        }


def compare(
    ws: Workspace,
    target: str | None,
    cwd: str | None = None,
    profiles: Iterable[Profile | str] | None = None,
) -> Comparison:
    """What each of `profiles` (names or profiles; default the workspace's selected ones)
    loads for `target` from `cwd` (None: the configuration's). An unknown name raises
    `UnknownProfile`. Each explanation comes from its profile, which caches it, so comparing
    again after no change costs only the summaries."""
    from rulemap.profiles import PROFILES, get_profile

    chosen = analysis.select_profiles(ws) if profiles is None else tuple(
        get_profile(p) if isinstance(p, str) else p for p in profiles
    )
    where = ws.config.cwd if cwd is None else cwd
    columns = []
    seen: set[str] = set()
    for profile in chosen:
        if profile.name in seen:  # each agent once, in the order given
            continue
        seen.add(profile.name)
        if PROFILES.get(profile.name) is profile:
            explanation = analysis.explain(ws, target, cwd=where, profile=profile.name)
        else:  # a profile object outside the registry
            explanation = profile.explain(ws, target, where)
        columns.append(column(profile, explanation))
    return Comparison(target, "." if where in ("", ".") else where, tuple(columns))


def column(profile: Profile, explanation: Explanation) -> Column:
    return Column(
        profile.name, profile.title, explanation, summarize(explanation),
        explanation.over_budget,
    )


def unit_of(explanation: Explanation) -> Unit:
    """The unit its agent counts in: tokens for token budgets, bytes for byte budgets."""
    return explanation.budget.unit


def size_of(entry: LoadedFile, unit: Unit) -> int:
    """One loaded file's size in `unit`; a profile that did not count it (no `tokens` or
    `bytes` set) gets the same estimate its agent would make."""
    if unit == "tokens":
        return entry.tokens if entry.tokens is not None else round(entry.chars / CHARS_PER_TOKEN)
    if unit == "bytes":
        if entry.bytes is not None:
            return entry.bytes
        # the text as brought, when the profile kept it; else one byte a character (a floor)
        return len(entry.text.encode("utf-8")) if entry.text else entry.chars
    return entry.chars


def total_of(explanation: Explanation) -> int:
    unit = unit_of(explanation)
    return sum(size_of(f, unit) for f in explanation.files)


def is_cut(entry: LoadedFile) -> bool:
    """Cut by the shared budget or truncated at a per-file limit: either way, not all of it
    reaches the agent."""
    return entry.cut or bool(entry.truncated)


def amount(value: int, unit: Unit) -> str:
    one = {"chars": "char", "bytes": "byte", "tokens": "token"}[unit]
    return f"{value:,} {one if value == 1 else unit}"


def summarize(explanation: Explanation) -> str:
    """`4 files, 12,400 chars, cut: AGENTS.md, 1 left out` (a shared budget adds its limit:
    `12,400 of 32,000 chars`)."""
    count = len(explanation.files)
    if not count and not explanation.left_out:
        return "nothing loaded"
    unit = unit_of(explanation)
    total = total_of(explanation)
    budget = explanation.budget
    size = amount(total, unit)
    if budget.kind == "shared" and budget.limit > 0:
        size = f"{total:,} of {amount(budget.limit, unit)}"
    parts = [f"{count:,} file{'' if count == 1 else 's'}", size]
    cut = [f.path for f in explanation.files if is_cut(f)]
    if cut:
        named = ", ".join(cut[:CUT_NAMES_SHOWN])
        more = f" +{len(cut) - CUT_NAMES_SHOWN} more" if len(cut) > CUT_NAMES_SHOWN else ""
        parts.append(f"cut: {named}{more}")
    if explanation.left_out:
        parts.append(f"{len(explanation.left_out):,} left out")
    return ", ".join(parts)


# ----- sizes in the agent's terms, for every view ---------------------------------------------
# One place says "19 of 32,768 bytes", "30 chars · no shared budget" or "cut by maxTokens", so
# that the CLI, hovers, code lenses and inlay hints agree and none prints "of 0 chars".


def text_size(text: str, unit: Unit) -> int:
    """A whole file's text in `unit` (bytes: UTF-8; tokens: the shared estimate)."""
    if unit == "bytes":
        return len(text.encode("utf-8", "surrogatepass"))
    if unit == "tokens":
        return round(len(text) / CHARS_PER_TOKEN)
    return len(text)


def short_amount(value: int, unit: Unit) -> str:
    """812 → '812 chars', 3_140 → '3.1k bytes', 45_000 → '45k tokens'."""
    if value < 1000:
        return amount(value, unit)
    if value < 10_000:
        return f"{value / 1000:.1f}k {unit}"
    return f"{round(value / 1000):,}k {unit}"


def limit_name(budget: Budget) -> str:
    """The agent's own name for its limit (`maxChars`, `project_doc_max_bytes`), else a
    plain 'the budget'."""
    return budget.setting or "the budget"


def budget_line(explanation: Explanation) -> str:
    """A load's size against its agent's budget: `19 of 32,768 bytes` (shared), `1,200
    tokens · each file up to 1,000 tokens (maxTokens)` (per file), `30 chars · no shared
    budget` (none)."""
    budget = explanation.budget
    unit = unit_of(explanation)
    total = total_of(explanation)
    if budget.kind == "shared":  # a limit of 0 is real: nothing loads
        return f"{total:,} of {amount(budget.limit, unit)}"
    if budget.kind == "per-file" and budget.limit > 0:
        named = f" ({budget.setting})" if budget.setting else ""
        return f"{amount(total, unit)} · each file up to {amount(budget.limit, unit)}{named}"
    return f"{amount(total, unit)} · no shared budget"


def budget_share(explanation: Explanation) -> str:
    """` (59%)`: how much of a shared budget the load uses ('' for any other budget)."""
    budget = explanation.budget
    if budget.kind != "shared" or budget.limit <= 0:
        return ""
    return f" ({total_of(explanation) * 100 // budget.limit}%)"
