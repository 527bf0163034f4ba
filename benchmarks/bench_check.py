#!/usr/bin/env python3
"""Time a cold `rulemap check TREE --format json` against baselines, in the same run.

    python benchmarks/bench_check.py [--tree DIR] [--runs 7] [--small] [--seed N]

Cold means a fresh `python -m rulemap` process per run (interpreter start, imports, indexing
the tree, parsing every instruction file and rule, all checks, JSON output); the OS page cache
is warm (one untimed warm-up round runs first), as it is when a developer or CI runs the
command twice. The baselines walk the same tree: `git ls-files -co --exclude-standard` (walks the
working tree honouring .gitignore, like Rulemap's reader must), `git ls-files` (the index only),
`rg --files` when ripgrep is installed, and `python -c pass` (the interpreter's start-up floor).
Commands are interleaved round-robin so drift hits all of them alike.

Per run: wall time (perf_counter around spawn → exit), user+sys CPU and peak RSS of that one
process (`os.wait4` rusage, ru_maxrss). Prints medians, min/max, the ratio of Rulemap to each
baseline, and the targets (cold check < 1 s, peak RSS < 150 MB); writes
benchmarks/results/check.json (or --out).

Without --tree the synthetic monorepo (gen_monorepo.py, 20,000 files; --small: 2,000) is
generated once into benchmarks/.cache/ and reused.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import (  # noqa: E402
    REPO,
    default_python,
    ensure_tree,
    fmt_ms,
    load_manifest,
    machine,
    now_utc,
    repo_revision,
    rulemap_env,
    summarize,
    write_result,
)

TARGET_SECONDS = 1.0
TARGET_RSS_MB = 150.0


TIME = "/usr/bin/time"


def run_once(cmd: list[str], env: dict[str, str] | None, cwd: str | None) -> dict:
    """Spawn, wait with os.wait4, and return wall time, CPU, ru_maxrss, exit code, stdout."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=cwd)
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return {
            "wall": wall,
            "cpu": ru.ru_utime + ru.ru_stime,
            "maxrss_mb": ru.ru_maxrss / 1024.0,  # KiB on Linux
            "rc": proc.returncode,
            "stdout": out.read(),
            "stderr": err.read(),
        }


def peak_rss_mb(cmd: list[str], env: dict[str, str] | None, cwd: str | None) -> float | None:
    """Peak RSS of `cmd` alone, measured by /usr/bin/time.

    The wait4 figure of a direct child is not usable for small processes on Linux: the child
    is forked (vfork) from this Python process, and exec keeps the high-water mark of the
    parent's address space, so every child reports at least this process's RSS (~30 MB).
    /usr/bin/time forks the command from its own small process."""
    if not os.access(TIME, os.X_OK):
        return None
    with tempfile.NamedTemporaryFile(mode="r", suffix=".time") as tf:
        proc = subprocess.run(
            [TIME, "-f", "%M", "-o", tf.name, *cmd],
            env=env,
            cwd=cwd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if proc.returncode not in (0, 1):
            return None
        tf.seek(0)
        lines = [ln for ln in tf.read().splitlines() if ln.strip().isdigit()]
        return int(lines[-1]) / 1024.0 if lines else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", help="workspace to check (default: the cached synthetic monorepo)")
    ap.add_argument("--runs", type=int, default=7, help="timed runs per command (7)")
    ap.add_argument("--warmup", type=int, default=1, help="untimed warm-up rounds (1)")
    ap.add_argument(
        "--rss-runs",
        type=int,
        default=3,
        help="extra runs per command under /usr/bin/time for peak RSS (3)",
    )
    ap.add_argument("--small", action="store_true", help="the 2,000-file preset")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--python", default=default_python(), help="interpreter that runs rulemap")
    ap.add_argument("--out", help="result file (default benchmarks/results/check[-small].json)")
    ap.add_argument("--no-write", action="store_true", help="do not write a result file")
    args = ap.parse_args(argv)

    tree = os.path.abspath(args.tree) if args.tree else ensure_tree(args.small, args.seed)
    if not os.path.isdir(tree):
        ap.error(f"{tree} is not a directory")
    manifest = load_manifest(tree)
    env = rulemap_env()

    commands: list[tuple[str, list[str], dict[str, str] | None]] = [
        (
            "rulemap check --format json",
            [args.python, "-m", "rulemap", "check", tree, "--format", "json"],
            env,
        ),
    ]
    is_git = os.path.exists(os.path.join(tree, ".git"))
    if is_git:
        commands.append(
            (
                "git ls-files -co --exclude-standard",
                ["git", "-C", tree, "ls-files", "-co", "--exclude-standard"],
                None,
            )
        )
        commands.append(("git ls-files", ["git", "-C", tree, "ls-files"], None))
    rg = shutil.which("rg")
    if rg:
        commands.append(("rg --files", [rg, "--files", tree], None))
    commands.append(("python -c pass", [args.python, "-c", "pass"], None))

    load0 = os.getloadavg()[0]
    cpus = machine()["cpus"] or 1
    if load0 > 0.5 * cpus:
        print(
            f"warning: load average {load0:.2f} on {cpus} CPUs: other work is running, wall "
            "times will be inflated (the cpu column is less affected)",
            file=sys.stderr,
        )
    # one untimed round: page cache, .pyc files, git index stat cache
    for _ in range(args.warmup):
        for _label, cmd, cenv in commands:
            run_once(cmd, cenv, REPO)

    samples: dict[str, list[dict]] = collections.defaultdict(list)
    for i in range(args.runs):
        for label, cmd, cenv in commands:
            r = run_once(cmd, cenv, REPO)
            if r["rc"] not in (0, 1):
                sys.stderr.write(r["stderr"].decode("utf-8", "replace")[-4000:])
                print(f"bench_check: `{' '.join(cmd)}` exited {r['rc']}", file=sys.stderr)
                return 2
            samples[label].append(r)
        print(f"  round {i + 1}/{args.runs} done", file=sys.stderr)

    rss: dict[str, list[float]] = collections.defaultdict(list)
    for _ in range(args.rss_runs):
        for label, cmd, cenv in commands:
            v = peak_rss_mb(cmd, cenv, REPO)
            if v is not None:
                rss[label].append(v)

    rm_label = commands[0][0]
    last = samples[rm_label][-1]
    try:
        diags = json.loads(last["stdout"])["diagnostics"]
    except (ValueError, KeyError, TypeError):
        diags = None
    listed = {
        label: len(samples[label][-1]["stdout"].splitlines())
        for label, _, _ in commands[1:]
        if label != "python -c pass"
    }

    stats = {}
    for label, _, _ in commands:
        rs = samples[label]
        stats[label] = {
            "wall_s": summarize([r["wall"] for r in rs]),
            "cpu_s": summarize([r["cpu"] for r in rs]),
            "peak_rss_mb": summarize(rss[label]) if rss.get(label) else None,
            "wait4_maxrss_mb": summarize([r["maxrss_mb"] for r in rs]),
        }
    rm = stats[rm_label]
    rm_med = rm["wall_s"]["median"]

    # ---------------------------------------------------------------- report
    m = machine()
    load1 = os.getloadavg()[0]
    files = manifest.get("summary", {}).get("files", {})
    print()
    print(f"Cold `rulemap check` on {tree}")
    if files:
        print(
            f"  tree: {files.get('source_files')} source files, {files.get('instruction_files')} "
            f"instruction files, {files.get('rules')} rules, {files.get('ignored_files')} ignored"
        )
    print(
        f"  machine: {m['cpus']} CPUs, {m['cpu_model']}, Python {m['python']}; {args.runs} runs "
        f"each, interleaved, after {args.warmup} warm-up round(s); load average "
        f"{load0:.2f} → {load1:.2f}"
    )
    print()
    hdr = (
        f"{'command':<38}{'median':>10}{'min':>10}{'max':>10}{'cpu':>10}{'peak RSS':>10}"
        f"{'rulemap ÷':>11}"
    )
    print(hdr)
    print("-" * len(hdr))
    for label, _, _ in commands:
        s = stats[label]
        ratio = "" if label == rm_label else f"{rm_med / s['wall_s']['median']:.1f}×"
        peak = s["peak_rss_mb"]["max"] if s["peak_rss_mb"] else s["wait4_maxrss_mb"]["max"]
        print(
            f"{label:<38}{fmt_ms(s['wall_s']['median']):>10}{fmt_ms(s['wall_s']['min']):>10}"
            f"{fmt_ms(s['wall_s']['max']):>10}{fmt_ms(s['cpu_s']['median']):>10}"
            f"{peak:>7.0f} MB{ratio:>11}"
        )
    print()
    if not rm["peak_rss_mb"]:
        print("(peak RSS from os.wait4: an upper bound, it includes this process's RSS at fork)")
    rss_peak = (rm["peak_rss_mb"] or rm["wait4_maxrss_mb"])["max"]
    ok_t = rm_med < TARGET_SECONDS
    ok_m = rss_peak < TARGET_RSS_MB
    print(
        f"target: cold check < {TARGET_SECONDS:.0f} s     measured median {fmt_ms(rm_med)}  "
        f"{'PASS' if ok_t else 'FAIL'}   (CPU user+sys median {fmt_ms(rm['cpu_s']['median'])}"
        f"{'; wall is inflated by the load' if max(load0, load1) > 0.5 * cpus else ''})"
    )
    print(
        f"target: peak RSS < {TARGET_RSS_MB:.0f} MB      measured max    {rss_peak:.0f} MB  "
        f"{'PASS' if ok_m else 'FAIL'}"
    )
    if listed:
        print("files listed by the baselines: " + ", ".join(f"{k}: {v}" for k, v in listed.items()))
    by_code: dict[str, int] = {}
    if diags is not None:
        by_code = dict(sorted(collections.Counter(d["code"] for d in diags).items()))
        by_sev = collections.Counter(d["severity"] for d in diags)
        print(
            f"rulemap found {len(diags)} diagnostics (exit {last['rc']}): "
            + ", ".join(f"{k} {v}" for k, v in sorted(by_sev.items()))
        )
        print("  by code: " + ", ".join(f"{k} {v}" for k, v in by_code.items()))
        planted = manifest.get("summary", {}).get("planted")
        if planted:
            print("  planted: " + ", ".join(f"{k} {v}" for k, v in planted.items() if v))
    else:
        print("rulemap output was not the expected JSON", file=sys.stderr)

    result = {
        "benchmark": "cold rulemap check",
        "date": now_utc(),
        "machine": m,
        "load_average": [load0, load1],
        "rulemap_revision": repo_revision(),
        "tree": tree,
        "tree_summary": manifest.get("summary"),
        "runs": args.runs,
        "rss_runs": args.rss_runs,
        "rss_method": "/usr/bin/time %M"
        if rm["peak_rss_mb"]
        else "os.wait4 ru_maxrss (upper bound)",
        "warmup": args.warmup,
        "commands": {label: " ".join(cmd) for label, cmd, _ in commands},
        "stats": stats,
        "ratios": {
            label: rm_med / stats[label]["wall_s"]["median"]
            for label, _, _ in commands
            if label != rm_label
        },
        "targets": {
            "cold_check_s": TARGET_SECONDS,
            "peak_rss_mb": TARGET_RSS_MB,
            "cold_check_pass": ok_t,
            "peak_rss_pass": ok_m,
        },
        "diagnostics_total": len(diags) if diags is not None else None,
        "diagnostics_by_code": by_code,
        "exit_code": last["rc"],
        "baseline_file_counts": listed,
    }
    if not args.no_write:
        path = write_result(
            "check-small.json" if args.small and not args.tree else "check.json",
            result,
            args.out,
        )
        print(f"wrote {os.path.relpath(path, REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
