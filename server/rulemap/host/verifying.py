"""`rulemap verify`'s question: what an agent's own log says it loaded, against what the
agent's model predicts (`Verification`), and the log formats it reads."""

from __future__ import annotations

from rulemap.host.snapshot import Snapshot, workspace_of
from rulemap.verify import (
    LoadLog,
    LoadLogError,
    LogFormat,
    Verification,
    log_formats,
    parse_load_log,
    read_load_log,
    rebased,
)

__all__ = [
    "LoadLog", "LoadLogError", "LogFormat", "Verification", "log_formats", "parse_load_log",
    "read_load_log", "rebased", "verify",
]


def verify(
    snap: Snapshot, log: LoadLog, profile: str | None, cwd: str | None, home: bool
) -> Verification:
    """The log's loads, step by step, against the prediction for `profile` (None: told by
    the log) from `cwd`; `home`: user-level files are compared too. Raises LoadLogError,
    UnknownProfile."""
    from rulemap.verify import verify_log

    return verify_log(workspace_of(snap), log, profile, cwd, home=home)
