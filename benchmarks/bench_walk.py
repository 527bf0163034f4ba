#!/usr/bin/env python3
"""The cold check's walk and file index alone, against another checkout and a bare walk.

    python benchmarks/bench_walk.py --tree DIR [--tree DIR ...] --baseline CHECKOUT
                                    [--rounds 5] [--runs 5]

Per round, one fresh process per checkout (this one and --baseline, alternating), each timing
in process, in CPU time, median of --runs: `LocalReader(tree, one_shot=True).list_files()`
(the walk, `.gitignore` included), `FileIndex` over its list, the `InstructionIndex` rebuild
as `rulemap check` opens the workspace, and a bare `os.scandir` walk (no `.gitignore`, no
bookkeeping: the floor a Python walk of that tree cannot go under). Prints, per tree, the
medians over rounds and the ratio of this checkout to the baseline measured in the same
rounds (the machine is shared: ratios, not absolute times, are what to compare).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import default_python  # noqa: E402

MEASURE = r"""
import gc, json, os, statistics, sys, time
gc.disable()
from rulemap.cli.commands import open_host
from rulemap.globs import FileIndex
from rulemap.host.snapshot import workspace_of
from rulemap.readers.local import LocalReader

tree, runs = sys.argv[1], int(sys.argv[2])

def bare():
    out, stack = [], [tree]
    while stack:
        with os.scandir(stack.pop()) as found:
            for entry in found:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in (".git", "node_modules"):
                        stack.append(entry.path)
                else:
                    out.append(entry.path)
    return out

index = workspace_of(open_host(tree).snapshot()).index
times = {"bare walk": [], "walk": [], "file index": [], "instruction index": []}
for _ in range(runs):
    t = time.process_time(); bare(); times["bare walk"].append(time.process_time() - t)
    reader = LocalReader(tree, one_shot=True)
    t = time.process_time(); files = reader.list_files()
    times["walk"].append(time.process_time() - t)
    t = time.process_time(); FileIndex(files); times["file index"].append(time.process_time() - t)
    t = time.process_time(); index.rebuild()
    times["instruction index"].append(time.process_time() - t)
print(json.dumps({k: statistics.median(v) * 1000 for k, v in times.items()}))
"""


def measure(python: str, checkout: str, tree: str, runs: int) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=os.path.join(checkout, "server"))
    out = subprocess.run([python, "-c", MEASURE, tree, str(runs)], env=env, check=True,
                         capture_output=True, text=True).stdout
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", action="append", required=True)
    ap.add_argument("--baseline", required=True, metavar="CHECKOUT")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--python", default=default_python())
    args = ap.parse_args()
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for tree in args.tree:
        rows: dict[str, dict[str, list[float]]] = {"this": {}, "baseline": {}}
        ratios: dict[str, list[float]] = {}
        for _ in range(args.rounds):
            now = measure(args.python, here, tree, args.runs)
            before = measure(args.python, args.baseline, tree, args.runs)
            for name, row in (("this", now), ("baseline", before)):
                for key, value in row.items():
                    rows[name].setdefault(key, []).append(value)
            for key in now:
                ratios.setdefault(key, []).append(now[key] / before[key])
        print(f"{os.path.basename(tree.rstrip('/'))}: CPU ms, median of {args.rounds} rounds")
        print(f"  {'':<18}{'baseline':>10}{'this':>10}{'ratio':>8}")
        for key in rows["this"]:
            base = statistics.median(rows["baseline"][key])
            this = statistics.median(rows["this"][key])
            ratio = statistics.median(ratios[key])
            print(f"  {key:<18}{base:>10.1f}{this:>10.1f}{ratio:>7.2f}×")
    return 0


if __name__ == "__main__":
    sys.exit(main())
