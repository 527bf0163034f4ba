"""`lazy_pattern`: a module's regular expression, compiled the first time it is used.

A cold `rulemap check` of a small workspace compiled 66 patterns at import, 16 ms of its
166 ms in process, most of them for prose the workspace does not have; with the patterns of
the four modules that had most made here, 26 in 6.1 ms (`benchmarks/bench_startup.py
--anatomy`). A pattern made here compiles on its first method call; from then on its methods
are the compiled pattern's own, found in the instance's dict, so a hot loop pays nothing more.
`re`'s own functions do not take one (`re.sub(PATTERN, …)`): call its methods instead.
"""

from __future__ import annotations

import re
from typing import Any, cast

__all__ = ["lazy_pattern"]

_ATTRIBUTES = ("match", "search", "fullmatch", "finditer", "findall", "sub", "subn", "split",
               "scanner", "pattern", "flags", "groups", "groupindex")


class _LazyPattern:
    def __init__(self, pattern: str, flags: int) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        # only reached for a name not in the instance's dict: the first use
        compiled = re.compile(*self._source)
        for attribute in _ATTRIBUTES:
            self.__dict__[attribute] = getattr(compiled, attribute)
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy_pattern({self._source[0]!r}, {self._source[1]!r})"


def lazy_pattern(pattern: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, put off until the pattern is first used."""
    return cast("re.Pattern[str]", _LazyPattern(pattern, int(flags)))
