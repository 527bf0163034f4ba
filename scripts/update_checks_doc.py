"""Write docs/checks.md's summary table and the VS Code extension's `rulemap.severity` schema
(client-vscode/package.json: one property per code, so the settings editor completes every
code) from the check registry (rulemap.checks.registry).

    .venv/bin/python scripts/update_checks_doc.py          rewrite both
    .venv/bin/python scripts/update_checks_doc.py --check  exit 1 (and say so) if one is stale

The table sits between `<!-- checks:table -->` and `<!-- /checks:table -->`; only that part of
the file is rewritten. Each code's own `## code` section below it stays hand-written
(tests/core/test_check_registry.py holds that every registered code has one).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from rulemap.checks.registry import CHECKS, EVERY_AGENT, Check

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "checks.md"
PACKAGE = REPO / "client-vscode" / "package.json"
COMMAND = ".venv/bin/python scripts/update_checks_doc.py"

_BLOCK = re.compile(r"(<!-- checks:table -->\n)(?P<body>.*?)(<!-- /checks:table -->)", re.S)

_FIX = {"none": "", "safe": "`--fix`", "unsafe": "editor"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def row(check: Check) -> str:
    agents = (EVERY_AGENT if check.agents == EVERY_AGENT
              else ", ".join(f"`{name}`" for name in check.agents))
    also = "; ".join(f"{v.severity} when {v.when}" for v in check.variants)
    cells = [f"[`{check.code}`](#{check.anchor})", check.severity, check.summary, also,
             agents, _FIX[check.fix]]
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def table() -> str:
    """The summary table, as written between the markers."""
    lines = [
        "| code | severity | summary | also emitted as | agents | fix |",
        "|---|---|---|---|---|---|",
        *(row(check) for check in CHECKS.values()),
    ]
    return "\n".join(lines) + "\n"


def written(doc: str) -> str | None:
    """The table as docs/checks.md holds it (None: no markers)."""
    match = _BLOCK.search(doc)
    return match.group("body") if match else None


def refreshed(doc: str) -> str:
    if written(doc) is None:
        raise SystemExit("docs/checks.md: no `<!-- checks:table -->` … `<!-- /checks:table -->`")
    return _BLOCK.sub(lambda m: m.group(1) + table() + m.group(3), doc, count=1)


def package_with_codes(text: str) -> str:
    """client-vscode/package.json with `rulemap.severity`'s properties one per registered code,
    in the registry's order, each taking the levels its `additionalProperties` takes (the file
    is written as `JSON.stringify(…, null, 2)` writes it, as npm does)."""
    data: dict[str, Any] = json.loads(text)
    severity = data["contributes"]["configuration"]["properties"]["rulemap.severity"]
    levels = severity["additionalProperties"]
    severity["properties"] = {code: dict(levels) for code in CHECKS}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    stale = []
    for path, refresh, what in ((DOC, refreshed, "the table of checks"),
                                (PACKAGE, package_with_codes, "`rulemap.severity`'s codes")):
        old = path.read_text(encoding="utf-8")
        new = refresh(old)
        if new == old:
            continue
        name = path.relative_to(REPO).as_posix()
        if "--check" in argv:
            stale.append(f"{name}: {what} differs from the registry")
        else:
            path.write_text(new, encoding="utf-8")
            print(f"{name}: {what} refreshed")
    if stale:
        print("; ".join(stale) + f"; run `{COMMAND}`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
