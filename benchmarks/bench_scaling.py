#!/usr/bin/env python3
"""Does a cold `rulemap check` stay linear? Time per file on the adversarial shape at 5k, 10k,
20k and 40k files.

    python benchmarks/bench_scaling.py [--sizes 5000,10000,20000,40000] [--runs 3] [--seed N]
                                       [--timeout 600] [--limit 1.5]

For each size, the adversarial workspace (gen_adversarial.py --files N: same shape, every count
scaled linearly) is generated once into benchmarks/.cache/ and reused. Each round runs, for
every size in turn (interleaved, so drift and load hit all sizes alike):

- `python -m rulemap check TREE --format json` (a fresh process, as in bench_check.py);
- `git ls-files -co --exclude-standard` on the same tree (walks it honouring .gitignore: a
  baseline that is linear by construction, measured in the same run);
- the start-up floor `python -c "import rulemap.cli.main"` (interpreter start plus importing the
  CLI and everything it imports: a constant that does not depend on the tree).

Per size: median wall time of each, time per file (µs) raw and net of the start-up floor, and
the ratio of time per file to the smallest size's. Criterion: time per file stays flat within
1.5× — PASS when the net time per file of every size is at most `--limit` × that of the
smallest size (so in particular the largest/smallest ratio is). The verdict is on the net
figure because the floor (~0.2 s) is a constant: divided by 5,000 files it adds ~40 µs per
file, by 40,000 files 5 µs, so raw time per file falls with size even for an engine that does
super-linear work, and would hide the very thing this measures. Both columns are printed; the
raw one subtracts nothing.

A run slower than --timeout is killed; that size and the larger ones are reported as TIMEOUT
(FAIL). Peak RSS of one extra run per size (/usr/bin/time). Writes
benchmarks/results/scaling.json. Exit status: 0 PASS, 1 FAIL, 2 error.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import (  # noqa: E402
    REPO,
    default_python,
    ensure_adversarial_tree,
    fmt_ms,
    load_manifest,
    machine,
    now_utc,
    repo_revision,
    rulemap_env,
    summarize,
    write_result,
)
from bench_check import Timeout, peak_rss_mb, run_once  # noqa: E402

DEFAULT_SIZES = (5000, 10000, 20000, 40000)
FLOOR = "import rulemap.cli.main"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--sizes",
        default=",".join(map(str, DEFAULT_SIZES)),
        help="comma-separated --files values (5000,10000,20000,40000)",
    )
    ap.add_argument("--runs", type=int, default=3, help="timed rounds (3; medians)")
    ap.add_argument("--warmup", type=int, default=1, help="untimed rounds first (1)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per run (600)")
    ap.add_argument(
        "--limit", type=float, default=1.5, help="allowed growth of time per file (1.5)"
    )
    ap.add_argument(
        "--floor-code",
        default=FLOOR,
        help=f"code the start-up floor runs with `python -c` (default `{FLOOR}`)",
    )
    ap.add_argument("--no-rss", action="store_true", help="skip the peak-RSS runs")
    ap.add_argument("--python", default=default_python(), help="interpreter that runs rulemap")
    ap.add_argument("--out", help="result file (default benchmarks/results/scaling.json)")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    try:
        sizes = sorted({int(s) for s in args.sizes.split(",") if s.strip()})
    except ValueError:
        ap.error("--sizes takes comma-separated integers")
    if not sizes:
        ap.error("no sizes")

    trees = {n: ensure_adversarial_tree(n, args.seed) for n in sizes}
    env = rulemap_env()
    floor_cmd = [args.python, "-c", args.floor_code]
    git = shutil.which("git")

    def commands(n: int) -> list[tuple[str, list[str], dict[str, str] | None]]:
        tree = trees[n]
        out: list[tuple[str, list[str], dict[str, str] | None]] = [
            ("rulemap", [args.python, "-m", "rulemap", "check", tree, "--format", "json"], env)
        ]
        if git and os.path.isdir(os.path.join(tree, ".git")):
            out.append(
                ("git", [git, "-C", tree, "ls-files", "-co", "--exclude-standard"], None)
            )
        return out

    load0 = os.getloadavg()[0]
    cpus = machine()["cpus"] or 1
    if isinstance(cpus, int) and load0 > 0.5 * cpus:
        print(
            f"warning: load average {load0:.2f} on {cpus} CPUs: wall times will be inflated",
            file=sys.stderr,
        )

    samples: dict[int, dict[str, list[dict[str, Any]]]] = {n: {} for n in sizes}
    floor: list[float] = []
    timed_out: dict[int, str] = {}
    live = list(sizes)
    for round_no in range(args.warmup + args.runs):
        timed = round_no >= args.warmup
        r = run_once(floor_cmd, env, REPO, args.timeout)
        if timed:
            floor.append(r["wall"])
        for n in list(live):
            for label, cmd, cenv in commands(n):
                try:
                    r = run_once(cmd, cenv, REPO, args.timeout)
                except Timeout as exc:
                    print(f"bench_scaling: {n} files: {exc}", file=sys.stderr)
                    for m in [m for m in live if m >= n]:
                        timed_out[m] = "this size" if m == n else f"skipped after {n}"
                        live.remove(m)
                    break
                if r["rc"] not in (0, 1):
                    sys.stderr.write(r["stderr"].decode("utf-8", "replace")[-4000:])
                    print(f"bench_scaling: `{' '.join(cmd)}` exited {r['rc']}", file=sys.stderr)
                    return 2
                if timed:
                    samples[n].setdefault(label, []).append(r)
        what = "warm-up" if not timed else f"round {round_no - args.warmup + 1}/{args.runs}"
        print(f"  {what} done (load {os.getloadavg()[0]:.2f})", file=sys.stderr)
        if not live:
            break

    rss: dict[int, float | None] = {}
    if not args.no_rss:
        for n in live:
            rss[n] = peak_rss_mb(commands(n)[0][1], env, REPO, args.timeout)

    floor_med = summarize(floor)["median"] if floor else 0.0
    rows: list[dict[str, Any]] = []
    for n in sizes:
        manifest = load_manifest(trees[n])
        summary = manifest.get("summary", {}).get("files", {})
        row: dict[str, Any] = {
            "files_arg": n,
            "tree": trees[n],
            "source_files": summary.get("source_files"),
            "directories": summary.get("directories"),
            "instruction_files": summary.get("instruction_files"),
            "rules": summary.get("rules"),
        }
        if n in timed_out:
            row["timeout"] = timed_out[n]
            rows.append(row)
            continue
        rm = samples[n]["rulemap"]
        try:
            diags = json.loads(rm[-1]["stdout"])["diagnostics"]
        except (ValueError, KeyError, TypeError):
            diags = None
        files = len(samples[n]["git"][-1]["stdout"].splitlines()) if "git" in samples[n] else None
        files = files or row["source_files"] or n
        wall = summarize([r["wall"] for r in rm])
        row.update(
            {
                "files": files,
                "rulemap_wall_s": wall,
                "rulemap_cpu_s": summarize([r["cpu"] for r in rm]),
                "net_s": wall["median"] - floor_med,
                "us_per_file_raw": wall["median"] / files * 1e6,
                "us_per_file_net": (wall["median"] - floor_med) / files * 1e6,
                "peak_rss_mb": rss.get(n),
                "diagnostics": len(diags) if diags is not None else None,
            }
        )
        if "git" in samples[n]:
            g = summarize([r["wall"] for r in samples[n]["git"]])
            row["git_ls_files_wall_s"] = g
            row["git_us_per_file"] = g["median"] / files * 1e6
        rows.append(row)

    measured = [r for r in rows if "timeout" not in r]
    base = measured[0] if measured and measured[0]["files_arg"] == sizes[0] else None
    for r in measured:
        if base:
            r["ratio_raw"] = r["us_per_file_raw"] / base["us_per_file_raw"]
            r["ratio_net"] = r["us_per_file_net"] / base["us_per_file_net"]
            if "git_us_per_file" in r and "git_us_per_file" in base:
                r["ratio_git"] = r["git_us_per_file"] / base["git_us_per_file"]
    worst = max((r.get("ratio_net", 0.0) for r in measured), default=0.0)
    largest = measured[-1].get("ratio_net") if measured else None
    ok = bool(base) and not timed_out and worst <= args.limit

    # ---------------------------------------------------------------- report
    mach = machine()
    load1 = os.getloadavg()[0]
    print()
    print("Cold `rulemap check --format json` on the adversarial workspace, by size")
    print(
        f"  machine: {mach['cpus']} CPUs, {mach['cpu_model']}, Python {mach['python']}; "
        f"{args.runs} "
        f"rounds after {args.warmup} warm-up, sizes interleaved; load average "
        f"{load0:.2f} → {load1:.2f}"
    )
    print(
        f"  start-up floor `python -c \"{args.floor_code}\"`: median {fmt_ms(floor_med)} "
        f"(subtracted in the net columns only)"
    )
    print()
    hdr = (
        f"{'files':>7}{'dirs':>7}{'median':>10}{'µs/file':>9}{'×':>6}"
        f"{'net':>10}{'µs/file':>9}{'×':>6}{'git ls-files':>14}{'µs/file':>9}{'×':>6}"
        f"{'RSS':>8}"
    )
    print(f"{'':>14}{'-------- raw --------':>25}{'- net of floor -':>25}{'-- baseline --':>29}")
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        if "timeout" in r:
            print(f"{r['files_arg']:>7}{r['directories'] or '':>7}   TIMEOUT ({r['timeout']}, "
                  f"> {args.timeout:g} s)")
            continue
        git_med = r.get("git_ls_files_wall_s", {}).get("median")
        peak = f"{r['peak_rss_mb']:.0f} MB" if r.get("peak_rss_mb") else ""
        print(
            f"{r['files']:>7}{r['directories'] or '':>7}"
            f"{fmt_ms(r['rulemap_wall_s']['median']):>10}{r['us_per_file_raw']:>9.1f}"
            f"{r.get('ratio_raw', 0):>5.2f}×"
            f"{fmt_ms(r['net_s']):>10}{r['us_per_file_net']:>9.1f}{r.get('ratio_net', 0):>5.2f}×"
            f"{fmt_ms(git_med) if git_med else '':>14}{r.get('git_us_per_file', 0):>9.2f}"
            f"{r.get('ratio_git', 0):>5.2f}×{peak:>8}"
        )
    print()
    if base and largest is not None:
        print(
            f"criterion: net time per file within {args.limit}× of the smallest size at every "
            f"size: worst {worst:.2f}×, largest/smallest {largest:.2f}×  "
            f"{'PASS' if ok else 'FAIL'}"
        )
    else:
        print("criterion: FAIL (the smallest size did not finish)")
    if timed_out:
        print(f"  timed out: {', '.join(str(n) for n in timed_out)}")

    result = {
        "benchmark": "cold rulemap check scaling (adversarial workspace)",
        "date": now_utc(),
        "machine": mach,
        "load_average": [load0, load1],
        "rulemap_revision": repo_revision(),
        "seed": args.seed,
        "runs": args.runs,
        "warmup": args.warmup,
        "timeout_s": args.timeout,
        "floor_command": " ".join(floor_cmd),
        "floor_wall_s": summarize(floor) if floor else None,
        "rows": rows,
        "criterion": {
            "limit": args.limit,
            "judged_on": "us_per_file_net (time per file net of the start-up floor)",
            "worst_ratio_net": worst,
            "largest_over_smallest_net": largest,
            "pass": ok,
        },
    }
    if not args.no_write:
        path = write_result("scaling.json", result, args.out)
        print(f"wrote {os.path.relpath(path, REPO)}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
