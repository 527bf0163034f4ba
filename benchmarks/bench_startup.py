"""Start-up: a cold `rulemap check` of a tiny workspace, next to agnix, in the same rounds.

A tiny workspace (a root AGENTS.md, a CLAUDE.md importing it, one source file) checks in
next to no time: what a run of `rulemap check TINY --no-cache --format json` costs there is
the interpreter and the modules it imports. Timed beside it, alternating in every round:
`rulemap --version` and `rulemap check --help` (the lightest commands), agnix on the same
workspace (`agnix TINY --format json`), and with `--baseline CHECKOUT` the same three
commands from another checkout's `server/` (a before/after).

Per command: the median wall time, and the median of the per-round ratios (this checkout ÷
agnix, this checkout ÷ the baseline); then how many modules each command imports (from
`sys.modules` when it is done). Target: the cold check ≤ 3× agnix.

Standard library only. Usage:
  python benchmarks/bench_startup.py [--runs 15] [--baseline CHECKOUT] [--agnix PATH]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from _common import (  # noqa: E402
    CACHE,
    default_python,
    machine,
    now_utc,
    repo_revision,
    rulemap_env,
    write_result,
)

TARGET_RATIO = 3.0
PEER_AGNIX = os.path.join(CACHE, "peers", "bin", "agnix")

# what a command imports: `rulemap ARGV...` as `python -m rulemap` runs it, then the number
# of modules in sys.modules (a usage exit or --help exits through SystemExit)
MODULES_PROBE = """\
import sys
from rulemap.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
sys.stderr.write(f"\\nMODULES {len(sys.modules)}\\n")
"""


def tiny_workspace(parent: str) -> str:
    """AGENTS.md, a CLAUDE.md importing it, one source file, under a `.git` (its root)."""
    root = os.path.join(parent, "tiny")
    os.makedirs(os.path.join(root, ".git"))
    os.makedirs(os.path.join(root, "src"))
    files = {
        "AGENTS.md": "# Project\n\nRun `make test` before a commit.\n",
        "CLAUDE.md": "@AGENTS.md\n",
        "src/a.py": "print('a')\n",
    }
    for name, text in files.items():
        with open(os.path.join(root, name), "w", encoding="utf-8") as fh:
            fh.write(text)
    return root


def commands(tree: str) -> dict[str, list[str]]:
    """Each timed command's arguments to `rulemap`."""
    return {
        "check": ["check", tree, "--no-cache", "--format", "json"],
        "--version": ["--version"],
        "check --help": ["check", "--help"],
    }


def timed(argv: list[str], env: dict[str, str] | None, cwd: str) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):  # 1: findings
        raise SystemExit(f"bench_startup: {' '.join(argv)} exited {done.returncode}: "
                         f"{done.stderr.decode(errors='replace')[-500:]}")
    return elapsed


def module_count(python: str, args: list[str], env: dict[str, str], cwd: str) -> int | None:
    done = subprocess.run([python, "-c", MODULES_PROBE, *args], env=env, cwd=cwd,
                          capture_output=True, text=True, check=False)
    for line in done.stderr.splitlines():
        if line.startswith("MODULES "):
            return int(line.split()[1])
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=15, help="timed rounds (15; medians)")
    ap.add_argument("--warmup", type=int, default=2, help="untimed rounds first (2)")
    ap.add_argument("--baseline", help="another checkout: its server/ timed alongside")
    ap.add_argument("--agnix", default=PEER_AGNIX,
                    help="agnix's executable (default: bench_shapes.py's peers)")
    ap.add_argument("--python", default=default_python())
    ap.add_argument("--out", help="write the JSON result here (default results/startup.json)")
    args = ap.parse_args(argv)

    env = rulemap_env()
    variants: dict[str, dict[str, str]] = {"rulemap": env}
    if args.baseline:
        base = os.path.abspath(args.baseline)
        variants["baseline"] = dict(env, PYTHONPATH=os.path.join(base, "server"))
    agnix = args.agnix if os.access(args.agnix, os.X_OK) else shutil.which("agnix")
    if agnix is None:
        print("bench_startup: agnix not found (run bench_shapes.py once, or --agnix PATH); "
              "timing without it", file=sys.stderr)

    with tempfile.TemporaryDirectory(prefix="rulemap-startup-") as parent:
        tree = tiny_workspace(parent)
        cmds = commands(tree)
        # every (label, argv, env) timed in a round; the order turns each round so no
        # command always runs right after the same one
        jobs: list[tuple[str, list[str], dict[str, str] | None]] = [
            (f"{variant} {name}", [args.python, "-m", "rulemap", *cmd], venv)
            for variant, venv in variants.items() for name, cmd in cmds.items()
        ]
        if agnix is not None:
            jobs.append(("agnix", [agnix, tree, "--format", "json"], None))
        samples: dict[str, list[float]] = {label: [] for label, _, _ in jobs}
        for round_no in range(args.warmup + args.runs):
            shift = round_no % len(jobs)
            for label, cmd_argv, job_env in jobs[shift:] + jobs[:shift]:
                elapsed = timed(cmd_argv, job_env, parent)
                if round_no >= args.warmup:
                    samples[label].append(elapsed)
        modules = {
            f"{variant} {name}": module_count(args.python, cmd, venv, parent)
            for variant, venv in variants.items() for name, cmd in cmds.items()
        }

    def ratios(label: str, other: str) -> float | None:
        if other not in samples or not samples[other]:
            return None
        return statistics.median(a / b for a, b in zip(samples[label], samples[other],
                                                       strict=True))

    rows: list[dict[str, Any]] = []
    for name in cmds:
        label = f"rulemap {name}"
        rows.append({
            "command": name,
            "median_ms": statistics.median(samples[label]) * 1000,
            "baseline_median_ms": (statistics.median(samples[f"baseline {name}"]) * 1000
                                   if "baseline" in variants else None),
            "ratio_agnix": ratios(label, "agnix"),
            "ratio_baseline": ratios(label, f"baseline {name}"),
            "modules": modules[label],
            "baseline_modules": modules.get(f"baseline {name}"),
        })
    agnix_ms = statistics.median(samples["agnix"]) * 1000 if samples.get("agnix") else None

    def cell(value: float | None, fmt: str, unit: str = "") -> str:
        return "-".rjust(len(format(0.0, fmt)) + len(unit)) if value is None \
            else format(value, fmt) + unit

    print(f"Start-up on a tiny workspace: medians of {args.runs} alternating rounds"
          + (f"; agnix {agnix_ms:.1f} ms" if agnix_ms is not None else ""))
    print(f"{'command':<14}{'rulemap':>10}{'baseline':>10}{'÷agnix':>8}{'÷base':>7}"
          f"{'modules':>9}{'base mod':>9}")
    for row in rows:
        print(f"{row['command']:<14}{cell(row['median_ms'], '>8.1f', 'ms')}"
              f"{cell(row['baseline_median_ms'], '>8.1f', 'ms')}"
              f"{cell(row['ratio_agnix'], '>8.2f')}{cell(row['ratio_baseline'], '>7.2f')}"
              f"{cell(row['modules'], '>9')}{cell(row['baseline_modules'], '>9')}")
    check_ratio = rows[0]["ratio_agnix"]
    verdict = None
    if check_ratio is not None:
        verdict = check_ratio <= TARGET_RATIO
        print(f"target: cold check ≤ {TARGET_RATIO:g}× agnix: {check_ratio:.2f}× "
              f"{'PASS' if verdict else 'FAIL'}")
    path = write_result("startup.json", {
        "when": now_utc(), "revision": repo_revision(), "machine": machine(),
        "runs": args.runs, "baseline": bool(args.baseline), "agnix_median_ms": agnix_ms,
        "rows": rows, "target_ratio_agnix": TARGET_RATIO, "pass": verdict,
    }, args.out)
    print(f"written: {os.path.relpath(path)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
