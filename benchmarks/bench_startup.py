"""Start-up: a cold `rulemap check` of a tiny workspace, next to agnix, in the same rounds.

A tiny workspace (a root AGENTS.md, a CLAUDE.md importing it, one source file) checks in
next to no time: what a run of `rulemap check TINY --no-cache --format json` costs there is
the interpreter and the modules it imports. Timed beside it, alternating in every round:
`rulemap --version` and `rulemap check --help` (the lightest commands), agnix on the same
workspace (`agnix TINY --format json`), and with `--baseline CHECKOUT` the same three
commands from another checkout's `server/` (a before/after).

Per command: the median wall time, and the median of the per-round ratios (this checkout ÷
agnix, this checkout ÷ the baseline); then how many modules each command imports (from
`sys.modules` when it is done). Two floors are timed in the same rounds: `python` (the
interpreter, `-c pass`) and `imports` (every module of Rulemap's the check imports, imported
and nothing run): the check less `imports` is its own work. Target: the cold check ≤ 3× agnix.

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
sys.stderr.write("RULEMAP " + " ".join(sorted(m for m in sys.modules
                                             if m.startswith("rulemap."))) + "\\n")
"""


# where a cold check's start-up goes (`--anatomy`): in one interpreter, the dataclasses built
# and the regexes compiled (and how long that took), then each top-level group's import time
ANATOMY_PROBE = """\
import dataclasses, re, sys, time
import rulemap.records as records
made, compiled, used = [0, 0.0], [0, 0.0, 0, 0.0], set()
process, build, compile_ = dataclasses._process_class, records._build, re._compile
inside = [False]  # a record's own call of dataclass is timed as the record's
def timed(make, cls, *args, **kwargs):
    if inside[0]:
        return make(cls, *args, **kwargs)
    started = time.perf_counter()
    inside[0] = True
    try:
        cls = make(cls, *args, **kwargs)
    finally:
        inside[0] = False
        made[0] += 1
        made[1] += time.perf_counter() - started
    init = cls.__init__
    def noted(self, *a, __init=init, __cls=cls, **k):
        used.add(__cls)
        return __init(self, *a, **k)
    cls.__init__ = noted
    return cls
dataclasses._process_class = lambda *a, **k: timed(process, *a, **k)
records._build = lambda *a, **k: timed(build, *a, **k)
seen = set()
def timed_compile(pattern, flags):
    started = time.perf_counter()
    try:
        return compile_(pattern, flags)
    finally:
        if (type(pattern), pattern, flags) not in seen:
            seen.add((type(pattern), pattern, flags))
            caller = sys._getframe(1)
            while caller is not None and caller.f_code.co_filename.endswith("__init__.py") \\
                    and caller.f_globals.get("__name__") == "re":
                caller = caller.f_back
            at_import = caller is not None and caller.f_code.co_name == "<module>"
            compiled[0 if at_import else 2] += 1
            compiled[1 if at_import else 3] += time.perf_counter() - started
re._compile = timed_compile
started = time.perf_counter()
from rulemap.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
sys.stderr.write(
    f"\\nANATOMY {time.perf_counter() - started:.4f} {len(sys.modules)} {made[0]} {made[1]:.4f} "
    f"{compiled[0]} {compiled[1]:.4f} {compiled[2]} {compiled[3]:.4f} {made[0] - len(used)}\\n")
"""
GROUPS = (("profiles", "rulemap.profiles"), ("checks", "rulemap.checks"),
          ("cli", "rulemap.cli"), ("host", "rulemap.host"), ("model", "rulemap.model"),
          ("the rest of Rulemap", "rulemap"), ("stdlib, site, dependencies", ""))


def anatomy(python: str, args: list[str], env: dict[str, str], cwd: str, runs: int) -> None:
    """Print where a cold check's start-up goes: medians of `runs` fresh interpreters."""
    rows: list[list[float]] = []
    groups: dict[str, list[float]] = {name: [] for name, _ in GROUPS}
    for _ in range(runs):
        done = subprocess.run([python, "-c", ANATOMY_PROBE, *args], env=env, cwd=cwd,
                              capture_output=True, text=True, check=False)
        line = next(x for x in done.stderr.splitlines() if x.startswith("ANATOMY "))
        rows.append([float(v) for v in line.split()[1:]])
        timed = subprocess.run([python, "-X", "importtime", "-c", ANATOMY_PROBE, *args],
                               env=env, cwd=cwd, capture_output=True, text=True, check=False)
        spent = dict.fromkeys(groups, 0.0)
        for entry in timed.stderr.splitlines():
            if not entry.startswith("import time:") or "self [us]" in entry:
                continue
            own, _, name = entry[len("import time:"):].split("|")
            name = name.strip()
            group = next(g for g, prefix in GROUPS
                         if not prefix or name == prefix or name.startswith(prefix + "."))
            spent[group] += int(own) / 1e6
        for group, seconds in spent.items():
            groups[group].append(seconds)
    med = [statistics.median(column) for column in zip(*rows, strict=True)]
    total = sum(statistics.median(v) for v in groups.values())
    print(f"anatomy of `rulemap {' '.join(args)}` (in process, medians of {runs}):")
    print(f"  {med[0] * 1000:.1f} ms from `import rulemap.cli.main` to the end; "
          f"{int(med[1])} modules")
    print(f"  {int(med[2])} dataclasses built: {med[3] * 1000:.1f} ms; {int(med[8])} of them "
          "never instantiated by the check")
    print(f"  {int(med[4])} regexes compiled at import: {med[5] * 1000:.1f} ms; "
          f"{int(med[6])} while running: {med[7] * 1000:.1f} ms")
    print("  own import time by group (-X importtime, which slows imports):")
    for group, values in groups.items():
        value = statistics.median(values)
        print(f"    {group:<28}{value * 1000:7.1f} ms {100 * value / total:5.1f}%")


def tiny_workspace(parent: str) -> str:
    """AGENTS.md, a CLAUDE.md importing it, one source file, under a `.git` (its root)."""
    root = os.path.join(parent, "tiny")
    os.makedirs(os.path.join(root, ".git"))
    os.makedirs(os.path.join(root, "src"))
    files = {
        "AGENTS.md": "# Tiny\n\nUse tabs.\n",
        "CLAUDE.md": "@AGENTS.md\n",
        "src/a.py": "x\n",
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


def probe(python: str, args: list[str], env: dict[str, str], cwd: str
          ) -> tuple[int | None, list[str]]:
    """How many modules `rulemap ARGS` imports, and which of Rulemap's."""
    done = subprocess.run([python, "-c", MODULES_PROBE, *args], env=env, cwd=cwd,
                          capture_output=True, text=True, check=False)
    count, names = None, []
    for line in done.stderr.splitlines():
        if line.startswith("MODULES "):
            count = int(line.split()[1])
        elif line.startswith("RULEMAP "):
            names = line.split()[1:]
    return count, names


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=15, help="timed rounds (15; medians)")
    ap.add_argument("--warmup", type=int, default=2, help="untimed rounds first (2)")
    ap.add_argument("--baseline", help="another checkout: its server/ timed alongside")
    ap.add_argument("--agnix", default=PEER_AGNIX,
                    help="agnix's executable (default: bench_shapes.py's peers)")
    ap.add_argument("--python", default=default_python())
    ap.add_argument("--out", help="write the JSON result here (default results/startup.json)")
    ap.add_argument("--anatomy", action="store_true",
                    help="only print where the check's start-up goes (dataclasses, regexes, "
                    "import time by group), for this checkout and the baseline")
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
        if args.anatomy:
            for variant, venv in variants.items():
                print(f"== {variant}")
                anatomy(args.python, cmds["check"], venv, parent, max(3, args.runs // 3))
            return 0
        # the floors, in the same rounds: the interpreter alone, and the modules the check
        # imports imported without running it (the check's own work is the rest)
        _, check_modules = probe(args.python, cmds["check"], env, parent)
        floors: list[tuple[str, list[str], dict[str, str] | None]] = [
            ("python", [args.python, "-c", "pass"], env),
            ("imports", [args.python, "-c", "".join(f"import {m}\n" for m in check_modules)],
             env),
        ]
        # every (label, argv, env) timed in a round; the order turns each round so no
        # command always runs right after the same one
        jobs: list[tuple[str, list[str], dict[str, str] | None]] = [
            (f"{variant} {name}", [args.python, "-m", "rulemap", *cmd], venv)
            for variant, venv in variants.items() for name, cmd in cmds.items()
        ]
        jobs.extend(floors)
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
            f"{variant} {name}": probe(args.python, cmd, venv, parent)[0]
            for variant, venv in variants.items() for name, cmd in cmds.items()
        }

    def ratios(label: str, other: str) -> float | None:
        if not samples.get(label) or not samples.get(other):
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
            "baseline_ratio_agnix": ratios(f"baseline {name}", "agnix"),
            "ratio_baseline": ratios(label, f"baseline {name}"),
            "modules": modules[label],
            "baseline_modules": modules.get(f"baseline {name}"),
        })
    agnix_ms = statistics.median(samples["agnix"]) * 1000 if samples.get("agnix") else None
    floor_rows = [{"command": label, "median_ms": statistics.median(samples[label]) * 1000,
                   "ratio_agnix": ratios(label, "agnix"),
                   "ratio_check": ratios(label, "rulemap check")}
                  for label, _, _ in floors]

    def cell(value: float | None, fmt: str, unit: str = "") -> str:
        return "-".rjust(len(format(0.0, fmt)) + len(unit)) if value is None \
            else format(value, fmt) + unit

    print(f"Start-up on a tiny workspace: medians of {args.runs} alternating rounds"
          + (f"; agnix {agnix_ms:.1f} ms" if agnix_ms is not None else ""))
    print(f"{'command':<14}{'rulemap':>10}{'baseline':>10}{'÷agnix':>8}{'÷base':>7}"
          f"{'modules':>9}{'base mod':>9}{'base÷agnix':>11}")
    for row in rows:
        print(f"{row['command']:<14}{cell(row['median_ms'], '>8.1f', 'ms')}"
              f"{cell(row['baseline_median_ms'], '>8.1f', 'ms')}"
              f"{cell(row['ratio_agnix'], '>8.2f')}{cell(row['ratio_baseline'], '>7.2f')}"
              f"{cell(row['modules'], '>9')}{cell(row['baseline_modules'], '>9')}"
              f"{cell(row['baseline_ratio_agnix'], '>11.2f')}")
    for floor in floor_rows:
        print(f"{floor['command']:<14}{cell(floor['median_ms'], '>8.1f', 'ms')}{'':>10}"
              f"{cell(floor['ratio_agnix'], '>8.2f')}{'':>7}  "
              f"({cell(floor['ratio_check'], '.2f')} of the check)")
    check_ratio = rows[0]["ratio_agnix"]
    verdict = None
    if check_ratio is not None:
        verdict = check_ratio <= TARGET_RATIO
        print(f"target: cold check ≤ {TARGET_RATIO:g}× agnix: {check_ratio:.2f}× "
              f"{'PASS' if verdict else 'FAIL'}")
    path = write_result("startup.json", {
        "when": now_utc(), "revision": repo_revision(), "machine": machine(),
        "runs": args.runs, "baseline": bool(args.baseline), "agnix_median_ms": agnix_ms,
        "rows": rows, "floors": floor_rows, "target_ratio_agnix": TARGET_RATIO, "pass": verdict,
    }, args.out)
    print(f"written: {os.path.relpath(path)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
