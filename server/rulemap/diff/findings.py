"""New and fixed findings of `rulemap check` between two sides.

A finding is the same on both sides when its agent, code, file and message agree once the
plain numbers of the message are masked: an edit above a broken import shifts its line (the
span is not compared at all), and a budget finding's "(and 1,204 other files)" or "cut at
line 40" moves with any change of the tree; neither makes a finding new. Numbers inside a
word or a path (`v2.md`, `hop5`) are kept, so another file is another finding. Each side is
a multiset: the same message twice in a file, once fixed, is one fixed finding.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable

from rulemap.diff.result import FindingChange
from rulemap.model import Finding

_NUMBER = re.compile(r"(?<![\w./@~-])\d[\d,.]*(?![\w/-])")

Key = tuple[str | None, str, str, str]


def key_of(f: Finding) -> Key:
    return (f.profile, f.code, f.path, _NUMBER.sub("#", f.message))


def compare_findings(
    base: Iterable[Finding], head: Iterable[Finding],
    shown: Callable[[Finding], Finding] | None = None,
) -> tuple[tuple[FindingChange, ...], tuple[FindingChange, ...]]:
    """(new on HEAD, fixed on HEAD), each in path order. Findings are compared as the check
    left them; `shown` turns a new one into what a reader sees (its did-you-mean worked
    out: the pull request's author is the one to fix it)."""
    base_list, head_list = list(base), list(head)
    before = Counter(map(key_of, base_list))
    after = Counter(map(key_of, head_list))
    return _only(head_list, after - before, shown), _only(base_list, before - after)


def _only(findings: list[Finding], extra: Counter[Key],
          shown: Callable[[Finding], Finding] | None = None) -> tuple[FindingChange, ...]:
    out: list[FindingChange] = []
    for f in findings:
        k = key_of(f)
        if extra[k] > 0:
            extra[k] -= 1
            f = shown(f) if shown is not None else f
            out.append(FindingChange(f.profile, f.code, f.severity, f.path,
                                     f.span.start.line + 1, f.message))
    out.sort(key=lambda c: (c.path, c.line, c.code, c.message))
    return tuple(out)
