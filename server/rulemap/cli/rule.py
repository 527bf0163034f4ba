"""`rulemap rule CODE` (and `--all`): what a check code means, from the registry — its
summary, severities, the agents it concerns, whether `check --fix` repairs it and where its
documentation is (as `ruff rule` prints a rule's)."""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import TYPE_CHECKING, Any

from rulemap.cli.usage import UsageError, did_you_mean, dump_json

if TYPE_CHECKING:
    from rulemap.host.catalog import Check

WIDTH = 80
_FIX = {
    "safe": "safe: `rulemap check --fix` applies it",
    "unsafe": "offered in the editor, never applied unattended (a guess or a created file)",
    "none": "none",
}


def run_rule(args: argparse.Namespace) -> int:
    from rulemap.host.catalog import check, check_codes, checks

    if args.all and args.code:
        raise UsageError("give CODE or --all, not both")
    if args.all:
        found = list(checks())
    elif args.code:
        one = check(args.code)
        if one is None:
            hint = did_you_mean(args.code, sorted(check_codes()))
            raise UsageError(f"unknown code `{args.code}`{hint} (`rulemap rule --all` lists "
                             "every code)")
        found = [one]
    else:
        raise UsageError("name a CODE (rulemap rule broken-import), or pass --all")
    if args.format == "json":
        data = [rule_json(c) for c in found]
        dump_json(data if args.all else data[0])
    else:
        sys.stdout.write("\n\n".join(render(c) for c in found) + "\n")
    return 0


def rule_json(found: Check) -> dict[str, Any]:
    agents = found.agents
    return {
        "code": found.code,
        "summary": found.summary,
        "severity": found.severity,
        "variants": [{"severity": v.severity, "when": v.when} for v in found.variants],
        "fix": found.fix,
        "agents": agents if isinstance(agents, str) else list(agents),
        "url": found.url,
    }


def render(found: Check) -> str:
    """One code's documentation in at most `WIDTH` columns."""
    agents = found.agents
    rows = [f"{found.code} ({found.severity})", "", found.summary, ""]
    rows.append(f"Agents: {agents if isinstance(agents, str) else ', '.join(agents)}")
    rows.append(f"Fix: {_FIX.get(found.fix, found.fix)}")
    for variant in found.variants:
        rows.append(f"Also {variant.severity}: {variant.when}")
    rows.append(f"Docs: {found.url}")
    out: list[str] = []
    for row in rows:
        out.extend(textwrap.wrap(row, WIDTH, subsequent_indent="  ", break_long_words=False,
                                 break_on_hyphens=False) or [""])
    return "\n".join(out)
