#!/usr/bin/env python3
"""What the drift checks cost a cold `rulemap check`: the same tree checked with them and
without them, in alternating runs of one session (wall time, and user + sys CPU time).

    python benchmarks/bench_drift.py [--tree DIR] [--runs 9] [--small] [--seed N]

"Without" is the same command with the four drift codes turned off in the workspace's
configuration (`[severity] stale-reference = "off"` …): a family whose only code is off does
not run (checks/__init__.py, `ONE_CODE`), so the difference is what the families cost,
including the findings they add to the report. The configuration is written as `rulemap.toml`
in the tree for the "without" runs and removed after each (a tree that has its own
`rulemap.toml` is refused: the benchmark would overwrite it).

The goal (issue "Instructions that drift"): the four families add at most 10% to a cold check
of the 20,000-file monorepo. Prints medians, the added time and the ratio; writes
benchmarks/results/drift.json (drift-small.json with --small).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import (  # noqa: E402
    default_python,
    ensure_tree,
    fmt_ms,
    machine,
    now_utc,
    repo_revision,
    rulemap_env,
    summarize,
    write_result,
)
from bench_check import run_once  # noqa: E402

DRIFT_CODES = ("stale-reference", "stale-command", "duplicate-text", "drifted-copy")
GOAL = 1.10
CONFIG = "rulemap.toml"


def drift_off() -> str:
    lines = ["[severity]", *(f'{code} = "off"' for code in DRIFT_CODES)]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", help="a workspace to check (default: the generated monorepo)")
    ap.add_argument("--runs", type=int, default=9, help="timed runs of each (default 9)")
    ap.add_argument("--small", action="store_true", help="the 2,000-file monorepo")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--python", default=default_python())
    args = ap.parse_args(argv)
    tree = os.path.abspath(args.tree) if args.tree else ensure_tree(args.small, args.seed)
    config = os.path.join(tree, CONFIG)
    if os.path.exists(config):
        print(f"{config} exists; the benchmark writes its own there", file=sys.stderr)
        return 2
    cmd = [args.python, "-m", "rulemap", "check", tree, "--no-cache", "--format", "json"]
    env = rulemap_env()
    walls: dict[str, list[float]] = {"with": [], "without": []}
    cpus: dict[str, list[float]] = {"with": [], "without": []}
    findings: dict[str, int] = {}
    for round_ in range(args.runs + 1):  # round 0 is an untimed warm-up
        for label in ("with", "without"):
            if label == "without":
                with open(config, "w", encoding="utf-8") as fh:
                    fh.write(drift_off())
            try:
                run = run_once(cmd, env, None)
            finally:
                if label == "without":
                    os.unlink(config)
            if run["rc"] not in (0, 1):
                print(run["stderr"].decode(errors="replace"), file=sys.stderr)
                return 1
            findings[label] = run["stdout"].count(b'"code":')
            if round_:
                walls[label].append(run["wall"])
                cpus[label].append(run["cpu"])
    with_, without = (statistics.median(walls[k]) for k in ("with", "without"))
    ratio = with_ / without
    cpu_with, cpu_without = (statistics.median(cpus[k]) for k in ("with", "without"))
    print(f"cold check of {tree} ({args.runs} alternating runs each, medians)")
    print(f"  with the drift checks     {fmt_ms(with_):>10}  ({findings['with']} findings)")
    print(f"  without them              {fmt_ms(without):>10}  ({findings['without']} findings)")
    print(f"  added                     {fmt_ms(with_ - without):>10}  "
          f"{(ratio - 1) * 100:+.1f}%  (goal ≤ +{(GOAL - 1) * 100:.0f}%: "
          f"{'met' if ratio <= GOAL else 'NOT met'})")
    print(f"  CPU (user + sys)          {fmt_ms(cpu_with):>10} vs {fmt_ms(cpu_without)}: "
          f"{(cpu_with / cpu_without - 1) * 100:+.1f}%")
    write_result("drift-small.json" if args.small else "drift.json", {
        "date": now_utc(), "revision": repo_revision(), "machine": machine(),
        "tree": tree, "command": " ".join(cmd[1:]), "drift_codes": list(DRIFT_CODES),
        "with": summarize(walls["with"]), "without": summarize(walls["without"]),
        "cpu_with": summarize(cpus["with"]), "cpu_without": summarize(cpus["without"]),
        "findings": findings, "ratio": ratio, "goal": GOAL,
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
