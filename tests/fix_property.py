"""The property every safe fix keeps: applying all of `rulemap check --fix` to a workspace and
checking again introduces no finding — no (path, code) is reported more often after the fixes
than before. Shared by the conformance fixtures (tests/core/test_fix_property.py), the
project's own real repositories (tests/realworld) and the shared corpus (tests/corpus)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from tests.cli_runner import RunCli

Tally = Counter[tuple[str, str]]


def tally(run: RunCli, root: Path, profiles: str | None = None) -> Tally:
    """(path, code) counted over `rulemap check --format json`."""
    args = ["check", ".", "--format", "json"]
    if profiles:
        args += ["--profiles", profiles]
    code, out, err = run(args, root)
    assert code in (0, 1), err
    found = json.loads(out)["diagnostics"]
    return Counter((d["path"], d["code"]) for d in found)


def introduced_by_fixes(run: RunCli, root: Path, profiles: str | None = None) -> list[str]:
    """Apply every safe fix under `root` (in place) and list what the check after it reports
    more often than the check before: [] when the property holds."""
    before = tally(run, root, profiles)
    args = ["check", ".", "--fix"]
    if profiles:
        args += ["--profiles", profiles]
    code, _out, err = run(args, root)
    assert code in (0, 1), err
    after = tally(run, root, profiles)
    return [f"{path}: {code_} ({before[(path, code_)]} → {count})"
            for (path, code_), count in sorted(after.items())
            if count > before[(path, code_)]]
