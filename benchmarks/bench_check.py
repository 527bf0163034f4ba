#!/usr/bin/env python3
"""Time a cold `rulemap check TREE --format json` against baselines, in the same run.

    python benchmarks/bench_check.py [--workspace monorepo|adversarial|both] [--tree DIR]
                                     [--runs 7] [--small] [--seed N] [--timeout 600]

Cold means a fresh `python -m rulemap` process per run (interpreter start, imports, indexing
the tree, parsing every instruction file and rule, all checks, JSON output); the OS page cache
is warm (one untimed warm-up round runs first), as it is when a developer or CI runs the
command twice. The baselines walk the same tree: `git ls-files -co --exclude-standard` (walks the
working tree honouring .gitignore, like Rulemap's reader must), `git ls-files` (the index only),
`rg --files` when ripgrep is installed, and `python -c pass` (the interpreter's start-up floor).
Commands are interleaved round-robin so drift hits all of them alike.

Per run: wall time (perf_counter around spawn → exit), user+sys CPU and peak RSS of that one
process (`os.wait4` rusage, ru_maxrss). Prints medians, min/max, the ratio of Rulemap to each
baseline, and the targets (cold check < 1 s, peak RSS < 150 MB, and every agent profile
selected (`--profiles` with all of them) at most 1.5x one profile (`--profiles cogitator`),
both timed in the same interleaved rounds); writes
benchmarks/results/check.json for the monorepo and check-adversarial.json for the adversarial
workspace (check-small.json / check-adversarial-small.json with --small; --out for one --tree).

Without --tree, `--workspace` picks the generated trees (default both, one after the other):
the synthetic monorepo (gen_monorepo.py, 20,000 files; --small: 2,000) and the adversarial
workspace (gen_adversarial.py, 20,000 files in as many directories; --small: 2,000). Each is
generated once into benchmarks/.cache/ and reused until its generator changes. A run slower
than --timeout is killed and reported, and that workspace's measurement stops there.
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
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import (  # noqa: E402
    REPO,
    default_python,
    ensure_adversarial_tree,
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
TARGET_ALL_PROFILES_RATIO = 1.5
SINGLE_LABEL = "  … --profiles cogitator"
ALL_LABEL = "  … --profiles <every agent>"
BASELINE_LABEL = "  … from --baseline checkout"


def all_profiles() -> list[str]:
    """Every registered profile, from the registry itself (no list kept here)."""
    sys.path.insert(0, os.path.join(REPO, "server"))
    from rulemap.profiles import PROFILES

    return list(PROFILES)


TIME = "/usr/bin/time"


class Timeout(Exception):
    pass


def run_once(
    cmd: list[str], env: dict[str, str] | None, cwd: str | None, timeout: float | None = None
) -> dict:
    """Spawn, wait with os.wait4, and return wall time, CPU, ru_maxrss, exit code, stdout.

    Raises Timeout when the process had to be killed after `timeout` seconds."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=cwd)
        killer = threading.Timer(timeout, proc.kill) if timeout else None
        if killer:
            killer.start()
        try:
            _, status, ru = os.wait4(proc.pid, 0)
        finally:
            if killer:
                killer.cancel()
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if timeout and wall >= timeout and proc.returncode < 0:
            raise Timeout(f"`{' '.join(cmd)}` killed after {timeout:g} s")
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


def peak_rss_mb(
    cmd: list[str], env: dict[str, str] | None, cwd: str | None, timeout: float | None = None
) -> float | None:
    """Peak RSS of `cmd` alone, measured by /usr/bin/time.

    The wait4 figure of a direct child is not usable for small processes on Linux: the child
    is forked (vfork) from this Python process, and exec keeps the high-water mark of the
    parent's address space, so every child reports at least this process's RSS (~30 MB).
    /usr/bin/time forks the command from its own small process."""
    if not os.access(TIME, os.X_OK):
        return None
    with tempfile.NamedTemporaryFile(mode="r", suffix=".time") as tf:
        try:
            proc = subprocess.run(
                [TIME, "-f", "%M", "-o", tf.name, *cmd],
                env=env,
                cwd=cwd,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            return None
        if proc.returncode not in (0, 1):
            return None
        tf.seek(0)
        lines = [ln for ln in tf.read().splitlines() if ln.strip().isdigit()]
        return int(lines[-1]) / 1024.0 if lines else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--workspace",
        choices=("monorepo", "adversarial", "both"),
        default="both",
        help="which generated workspace(s) to measure, one after the other (both)",
    )
    ap.add_argument("--tree", help="measure this workspace instead of the generated ones")
    ap.add_argument("--runs", type=int, default=7, help="timed runs per command (7)")
    ap.add_argument("--warmup", type=int, default=1, help="untimed warm-up rounds (1)")
    ap.add_argument(
        "--rss-runs",
        type=int,
        default=3,
        help="extra runs per command under /usr/bin/time for peak RSS (3)",
    )
    ap.add_argument("--small", action="store_true", help="the 2,000-file presets")
    ap.add_argument(
        "--adversarial-files",
        type=int,
        help="source files of the adversarial workspace (20000; --small: 2000)",
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--timeout",
        type=float,
        default=600.0,
        help="kill a run after this many seconds and stop measuring that workspace (600)",
    )
    ap.add_argument("--python", default=default_python(), help="interpreter that runs rulemap")
    ap.add_argument(
        "--out",
        help="result file, for a single workspace (default benchmarks/results/"
        "check[-adversarial][-small].json)",
    )
    ap.add_argument("--no-write", action="store_true", help="do not write a result file")
    ap.add_argument(
        "--baseline",
        metavar="CHECKOUT",
        help="also time `rulemap check` from another checkout of this repository (e.g. `git "
        "worktree add /tmp/old v0.1`), interleaved with this one: a before/after in one run",
    )
    args = ap.parse_args(argv)

    jobs: list[tuple[str, str, str]] = []  # (kind, tree, default result file)
    small = "-small" if args.small else ""
    if args.tree:
        tree = os.path.abspath(args.tree)
        if not os.path.isdir(tree):
            ap.error(f"{tree} is not a directory")
        jobs.append(("custom", tree, "check.json"))
    else:
        if args.workspace in ("monorepo", "both"):
            jobs.append(("monorepo", ensure_tree(args.small, args.seed), f"check{small}.json"))
        if args.workspace in ("adversarial", "both"):
            files = args.adversarial_files or (2000 if args.small else 20000)
            jobs.append(
                (
                    "adversarial",
                    ensure_adversarial_tree(files, args.seed),
                    f"check-adversarial{small}.json",
                )
            )
    if args.out and len(jobs) > 1:
        ap.error("--out names one result file: pick one --workspace (or --tree)")
    status = 0
    for index, (kind, tree, result_name) in enumerate(jobs):
        if index:
            print()
        status = max(status, measure(args, kind, tree, result_name))
    return status


def measure(args: argparse.Namespace, kind: str, tree: str, result_name: str) -> int:
    """Time one workspace; print the table and write its result file. 0, or 3 on a timeout."""
    manifest = load_manifest(tree)
    env = rulemap_env()

    base = [args.python, "-m", "rulemap", "check", tree, "--format", "json"]
    commands: list[tuple[str, list[str], dict[str, str] | None]] = [
        ("rulemap check --format json", base, env),
        # the agent-profiles target: every profile selected costs at most 1.5x one profile
        (SINGLE_LABEL, [*base, "--profiles", "cogitator"], env),
        (ALL_LABEL, [*base, "--profiles", ",".join(all_profiles())], env),
    ]
    if args.baseline:
        # the same command from another checkout (say the last release), interleaved with
        # these: a before/after of one change measured in the same rounds
        old_env = dict(env, PYTHONPATH=os.path.join(os.path.abspath(args.baseline), "server"))
        commands.append((BASELINE_LABEL, base, old_env))
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
    print(f"== {kind} workspace: {tree}", file=sys.stderr)
    samples: dict[str, list[dict]] = collections.defaultdict(list)
    try:
        for _ in range(args.warmup):
            for _label, cmd, cenv in commands:
                run_once(cmd, cenv, REPO, args.timeout)
        for i in range(args.runs):
            for label, cmd, cenv in commands:
                r = run_once(cmd, cenv, REPO, args.timeout)
                if r["rc"] not in (0, 1):
                    sys.stderr.write(r["stderr"].decode("utf-8", "replace")[-4000:])
                    print(f"bench_check: `{' '.join(cmd)}` exited {r['rc']}", file=sys.stderr)
                    return 2
                samples[label].append(r)
            print(f"  round {i + 1}/{args.runs} done", file=sys.stderr)
    except Timeout as exc:
        print(f"bench_check: {exc}: TIMEOUT on the {kind} workspace", file=sys.stderr)
        if not args.no_write:
            path = write_result(
                result_name,
                {
                    "benchmark": "cold rulemap check",
                    "workspace": kind,
                    "date": now_utc(),
                    "machine": machine(),
                    "rulemap_revision": repo_revision(),
                    "tree": tree,
                    "tree_summary": manifest.get("summary"),
                    "timeout_s": args.timeout,
                    "timed_out": True,
                    "completed_runs": {k: len(v) for k, v in samples.items()},
                },
                args.out,
            )
            print(f"wrote {os.path.relpath(path, REPO)}")
        return 3

    rss: dict[str, list[float]] = collections.defaultdict(list)
    for _ in range(args.rss_runs):
        for label, cmd, cenv in commands:
            v = peak_rss_mb(cmd, cenv, REPO, args.timeout)
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
        for label, _, _ in commands[3:]
        if label not in ("python -c pass", BASELINE_LABEL)
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
    print(f"Cold `rulemap check` on the {kind} workspace {tree}")
    if files:
        dirs = f" in {files['directories']} directories" if files.get("directories") else ""
        print(
            f"  tree: {files.get('source_files')} source files{dirs}, "
            f"{files.get('instruction_files')} instruction files, {files.get('rules')} rules, "
            f"{files.get('ignored_files')} ignored"
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
    all_ratio = (
        stats[ALL_LABEL]["wall_s"]["median"] / stats[SINGLE_LABEL]["wall_s"]["median"]
    )
    ok_p = all_ratio <= TARGET_ALL_PROFILES_RATIO
    print(
        f"target: every profile ≤ {TARGET_ALL_PROFILES_RATIO}× one   measured "
        f"{fmt_ms(stats[ALL_LABEL]['wall_s']['median'])} ÷ "
        f"{fmt_ms(stats[SINGLE_LABEL]['wall_s']['median'])} = {all_ratio:.2f}×  "
        f"{'PASS' if ok_p else 'FAIL'}"
    )
    if BASELINE_LABEL in stats:
        before = stats[BASELINE_LABEL]["wall_s"]["median"]
        single = stats[SINGLE_LABEL]["wall_s"]["median"]
        print(
            f"before/after: the --baseline checkout {fmt_ms(before)}; this one "
            f"{fmt_ms(rm_med)} ({rm_med / before:.2f}×) with its default agents, "
            f"{fmt_ms(single)} ({single / before:.2f}×) with --profiles cogitator"
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
            counts = {k: v for k, v in planted.items() if v and isinstance(v, int)}
            print("  planted: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    else:
        print("rulemap output was not the expected JSON", file=sys.stderr)

    result = {
        "benchmark": "cold rulemap check",
        "workspace": kind,
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
        "timeout_s": args.timeout,
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
            "all_profiles_ratio": TARGET_ALL_PROFILES_RATIO,
            "all_profiles_ratio_measured": all_ratio,
            "all_profiles_pass": ok_p,
        },
        "diagnostics_total": len(diags) if diags is not None else None,
        "diagnostics_by_code": by_code,
        "exit_code": last["rc"],
        "baseline_file_counts": listed,
    }
    if not args.no_write:
        path = write_result(result_name, result, args.out)
        print(f"wrote {os.path.relpath(path, REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
