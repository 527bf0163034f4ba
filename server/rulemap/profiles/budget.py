"""Applying a shared character budget to an ordered load."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from rulemap.model import LoadedFile


def apply_shared_budget(
    files: list[LoadedFile], max_chars: int
) -> tuple[list[LoadedFile], list[str], str | None]:
    """Cut the file at the limit, leave out the ones after it; return the notice."""
    kept: list[LoadedFile] = []
    left_out: list[str] = []
    used = 0
    cut_path: str | None = None
    for entry in files:
        if left_out or used >= max_chars and entry.chars > 0:
            left_out.append(entry.path)
            continue
        if used + entry.chars <= max_chars:
            kept.append(entry)
            used += entry.chars
            continue
        remaining = max_chars - used
        cut = replace(entry, text=entry.text[:remaining], chars=remaining, cut=True)
        cut_path = entry.path
        kept.append(cut)
        used = max_chars
    notice = None
    if cut_path or left_out:
        notice = budget_notice(max_chars, [cut_path] if cut_path else [], left_out)
    return kept, left_out, notice


_UNIT_WORDS = {"chars": "characters", "bytes": "bytes", "tokens": "tokens"}


def budget_notice(
    limit: int, cut: Iterable[str], left_out: Iterable[str], unit: str = "chars"
) -> str:
    """The notice ending instructions the budget cut: `[Rulemap: instructions truncated at N
    characters. Cut: a. Left out: b, c.]` (a session's names every step's), in the budget's
    unit (`bytes`, `tokens`: an agent whose budget counts those)."""
    cut, left_out = list(cut), list(left_out)
    words = _UNIT_WORDS.get(unit, unit)
    parts = [f"[Rulemap: instructions truncated at {limit} {words}."]
    if cut:
        parts.append(f"Cut: {', '.join(cut)}.")
    if left_out:
        parts.append(f"Left out: {', '.join(left_out)}.")
    return " ".join(parts) + "]"
