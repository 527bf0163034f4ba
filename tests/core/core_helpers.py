from __future__ import annotations

from collections.abc import Mapping

from rulemap.analysis import new_workspace
from rulemap.readers import MemoryReader
from rulemap.workspace import Workspace


def make_ws(
    files: Mapping[str, str | bytes], symlinks: Mapping[str, str] | None = None, **config
) -> Workspace:
    from rulemap.config import parse_config

    reader = MemoryReader("/w", files, symlinks)
    return new_workspace(reader, parse_config(config, "test") if config else None, home="/home/u")
