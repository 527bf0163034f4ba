#!/usr/bin/env python3
"""Look for cliffs: a cold `rulemap check` on seven workspace shapes at 1x, 2x, 5x and 10x,
side by side with agnix (and, with --explain-peers, rulereach and agents-doctor).

    python benchmarks/bench_shapes.py [--shapes files,dirs,...] [--scales 1,2,5,10] [--runs 5]
                                      [--explain-peers] [--quick] [--seed 1] [--timeout 180]

Each shape (gen_shapes.py) scales one dimension of a workspace, and its source tree with it,
linearly with K; the unit is what K multiplies:

  files         source files in 20 flat directories          1x = 2,000    10x = 20,000
  dirs          directories, one file each, wide             1x = 2,000    10x = 20,000
  depth         levels x branches (50 branches, 40*K deep)   1x = 2,000    10x = 20,000
  instructions  instruction files (AGENTS.md, CLAUDE.md, …)  1x = 200      10x = 2,000
  rules         rules (Claude paths, Copilot applyTo, Cursor globs), mostly live   200 → 2,000
  dead-globs    dead globs: typos one letter off real dirs, wrong extensions, …    200 → 2,000
  fanout        imports: one file importing half of them, many importing 5 docs  2,000 → 20,000

Every tree is generated once into benchmarks/.cache/ (keyed by shape, scale, seed and the
generator's hash) and reused. Then rounds: one untimed warm-up round, then --runs timed rounds
(median of each). A round runs, for every shape and scale in turn (interleaved round-robin, so
drift and load hit them all alike), each command once in a fresh process:

  rulemap       python -m rulemap check TREE --format json  (PYTHONPATH=server, as
                bench_check.py; with `--no-cache` when `rulemap check --help` offers it)
  rulemap warm  when `rulemap check --help` offers `--no-cache`: `rulemap check TREE` run
                twice, the second timed (the persistent result cache, kept in
                benchmarks/.cache/rulemap-cache via RULEMAP_CACHE_DIR); otherwise n/a
  agnix         agnix TREE --format json --max-files 0  (validates the tree; without
                --max-files 0 agnix stops at 10,000 files; exit 1 = findings, fine)
  rulereach     rulereach check TREE --json                       (--explain-peers only)
  agents-doctor agents-doctor check TREE --format json --exit-zero (--explain-peers only)

and, once per round, the start-up floor: the same `rulemap check --format json` on a one-file
workspace (interpreter start, every import a check needs, configuration, JSON output: a
constant that does not depend on the tree; bench_scaling.py's idea, with a floor that also
counts the imports the CLI defers until a check runs).

The peers are installed by the benchmark itself: `python -m venv benchmarks/.cache/peers` and
`pip install agnix rulereach agents-doctor` when they are not there (a peer whose install
fails is skipped with a message); their versions go into the result. A peer run that exits
with a status other than 0/1, prints no parseable JSON, or is killed after --timeout is
reported as crash/timeout for that tree (no ratio), and not run on it again.

Per shape, a scaling table: scale, units, tracked files, Rulemap median, agnix median, the
ratio Rulemap/agnix, Rulemap's µs per unit net of the floor (median − floor median, ÷ units)
and its ratio to the smallest scale, the warm median and its ratio to agnix (n/a without a
cache), peak RSS (one /usr/bin/time run at the largest scale), diagnostics, the explain peers,
and beside the flatness column the (file, rule) and (file, pattern) pair counts of the default
model's scoped rules (`RulesOfFile.pairs`, counted once per tree in a separate process, never
timed: matching rule by rule would cost the first, the pattern index costs the second).
Verdicts per shape (information; the exit status stays 0):

  cold ratio   Rulemap ÷ agnix ≤ 0.5 at every scale          PASS/FAIL
  cold at 10x  Rulemap ÷ agnix ≤ 1.0 at the largest scale (issue 37)   PASS/FAIL
  flatness     net µs/unit at the largest scale ÷ the smallest ≤ 1.3   PASS/FAIL
  memory       peak RSS at the largest scale ≤ 150 MB (the target is for 20,000 files)

`--quick` = scales 1,2 and 3 runs (a smoke run, written to results/shapes-quick.json); the full
run writes results/shapes.json. Exit 0, or 2 on an error (bad arguments, a generator failure,
Rulemap crashing on every tree).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import (  # noqa: E402
    CACHE,
    HERE,
    REPO,
    _cached_tree,
    _digest,
    default_python,
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

SHAPES_GENERATOR = os.path.join(HERE, "gen_shapes.py")
SHAPES = ("files", "dirs", "depth", "instructions", "rules", "dead-globs", "fanout")
PEER_PACKAGES = ("agnix", "rulereach", "agents-doctor")
EXPLAIN_PEERS = ("rulereach", "agents-doctor")
FLOOR_TEXT = "# Floor\n\nOne line of instructions.\n"
TARGET_RATIO = 0.5
TARGET_RATIO_LARGEST = 1.0
TARGET_FLAT = 1.3
TARGET_RSS_MB = 150.0


def ensure_floor_tree() -> str:
    """A one-file workspace (a root AGENTS.md): `rulemap check` on it is the start-up floor."""
    tree = os.path.join(CACHE, "shape-floor")
    os.makedirs(tree, exist_ok=True)
    path = os.path.join(tree, "AGENTS.md")
    if not os.path.isfile(path):
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(FLOOR_TEXT)
    return tree


def ensure_shape_tree(shape: str, scale: int, seed: int) -> str:
    """benchmarks/.cache/shape-SHAPE-xK-seedN-HASH, generated by gen_shapes.py --git once."""
    name = f"shape-{shape}-x{scale}-seed{seed}-{_digest(SHAPES_GENERATOR)}"
    return _cached_tree(
        name, SHAPES_GENERATOR, ["--shape", shape, "--scale", str(scale), "--seed", str(seed)],
        quiet=False,
    )


# ---------------------------------------------------------------------------- peers
def ensure_peers(venv: str, python: str, wanted: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """{peer: {"bin": path, "version": v}} for each peer in `wanted` that is (or could be)
    installed in `venv`; a peer that cannot be installed is left out, with a message."""
    bin_dir = os.path.join(venv, "bin")
    vpy = os.path.join(bin_dir, "python")

    def binary(peer: str) -> str:
        return os.path.join(bin_dir, peer)

    missing = [p for p in wanted if not os.access(binary(p), os.X_OK)]
    if missing:
        if not os.path.exists(vpy):
            print(f"installing peers: python -m venv {os.path.relpath(venv, REPO)}",
                  file=sys.stderr)
            r = subprocess.run([python, "-m", "venv", venv], capture_output=True, text=True)
            if r.returncode:
                print(f"bench_shapes: cannot create {venv}: {r.stderr.strip()[-500:]}; "
                      "running without peers", file=sys.stderr)
                return {}
        print(f"installing peers: pip install {' '.join(missing)}", file=sys.stderr)
        r = subprocess.run([vpy, "-m", "pip", "install", "--quiet", *missing],
                           capture_output=True, text=True)
        if r.returncode:  # one at a time, so one failure does not take the others with it
            for peer in missing:
                one = subprocess.run([vpy, "-m", "pip", "install", "--quiet", peer],
                                     capture_output=True, text=True)
                if one.returncode:
                    print(f"bench_shapes: skipping {peer}: pip install failed: "
                          f"{one.stderr.strip()[-300:]}", file=sys.stderr)
    out: dict[str, dict[str, Any]] = {}
    for peer in wanted:
        if not os.access(binary(peer), os.X_OK):
            print(f"bench_shapes: skipping {peer}: not installed in {venv}", file=sys.stderr)
            continue
        ver = subprocess.run(
            [vpy, "-c", "import importlib.metadata as m, sys; print(m.version(sys.argv[1]))",
             peer], capture_output=True, text=True)
        out[peer] = {"bin": binary(peer), "version": ver.stdout.strip() or None}
    return out


def peer_command(peer: str, exe: str, tree: str) -> list[str]:
    if peer == "agnix":
        # validates every agent file of the tree; without --max-files 0 it refuses trees of
        # more than 10,000 files
        return [exe, tree, "--format", "json", "--max-files", "0"]
    if peer == "rulereach":
        return [exe, "check", tree, "--json"]  # "report instructions that never reach an agent"
    return [exe, "check", tree, "--format", "json", "--exit-zero"]  # agents-doctor


def rulemap_has_no_cache(python: str, env: dict[str, str]) -> bool:
    """Does `rulemap check --help` list a `--no-cache` option? (The warm column needs it.)"""
    r = subprocess.run([python, "-m", "rulemap", "check", "--help"], env=env, cwd=REPO,
                       capture_output=True, text=True)
    return r.returncode == 0 and re.search(r"(^|\s)--no-cache\b", r.stdout) is not None


PAIRS_SCRIPT = r"""
import sys
from rulemap.cli.commands import open_host
from rulemap.host.snapshot import workspace_of
index = workspace_of(open_host(sys.argv[1]).snapshot()).scoped_rules_index()
print(*index.pairs() if hasattr(index, "pairs") else ())
"""


def pair_counts(python: str, env: dict[str, str], tree: str) -> tuple[int, int] | None:
    """(file, rule) and (file, pattern) pairs of the default model's scoped rules in `tree`
    (None: a checkout whose index cannot count them)."""
    out = subprocess.run([python, "-c", PAIRS_SCRIPT, tree], env=env, capture_output=True,
                         text=True, cwd=REPO, check=False)
    fields = out.stdout.split()
    if out.returncode != 0 or len(fields) != 2:
        return None
    return int(fields[0]), int(fields[1])


def fmt_count(n: int | None) -> str:
    if n is None:
        return "-"
    if n >= 1_000_000:
        return f"{n / 1e6:.1f}M"
    if n >= 10_000:
        return f"{n / 1e3:.0f}k"
    return str(n)


def parse_json(stdout: bytes) -> Any:
    try:
        return json.loads(stdout)
    except ValueError:
        return None


# ---------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--shapes", default=",".join(SHAPES),
                    help=f"comma-separated shapes (default all: {','.join(SHAPES)})")
    ap.add_argument("--scales", default="1,2,5,10", help="comma-separated K (1,2,5,10)")
    ap.add_argument("--runs", type=int, default=5, help="timed rounds (5; medians)")
    ap.add_argument("--warmup", type=int, default=1, help="untimed rounds first (1)")
    ap.add_argument("--quick", action="store_true",
                    help="scales 1,2 and 3 runs; writes results/shapes-quick.json")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--explain-peers", action="store_true",
                    help="also time rulereach check and agents-doctor check")
    ap.add_argument("--no-peers", action="store_true", help="Rulemap only (no agnix)")
    ap.add_argument("--peers-venv", default=os.path.join(CACHE, "peers"),
                    help="where the peers are installed (benchmarks/.cache/peers)")
    ap.add_argument("--timeout", type=float, default=120.0,
                    help="kill a run after this many seconds (120); Rulemap: that scale and "
                    "the larger ones of the shape are TIMEOUT; a peer: not run on that tree again")
    ap.add_argument("--peer-budget", type=float, default=10.0,
                    help="a peer whose warm-up run on a tree takes longer than this (10 s) is "
                    "not run on the larger scales of that shape (SKIPPED)")
    ap.add_argument("--no-rss", action="store_true", help="skip the peak-RSS runs")
    ap.add_argument("--no-pairs", action="store_true",
                    help="skip counting the (file, rule) and (file, pattern) pairs")
    ap.add_argument("--python", default=default_python(), help="interpreter that runs rulemap")
    ap.add_argument("--out", help="result file (default benchmarks/results/shapes.json)")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    if args.quick:
        args.scales, args.runs = "1,2", 3
    shapes = [s.strip() for s in args.shapes.split(",") if s.strip()]
    bad = [s for s in shapes if s not in SHAPES]
    if bad or not shapes:
        ap.error(f"unknown shape(s) {bad}; choose from {', '.join(SHAPES)}")
    try:
        scales = sorted({int(s) for s in args.scales.split(",") if s.strip()})
    except ValueError:
        ap.error("--scales takes comma-separated integers")
    if not scales or scales[0] < 1:
        ap.error("--scales: positive integers")

    # ------------------------------------------------------------------ trees and commands
    try:
        trees = {(s, k): ensure_shape_tree(s, k, args.seed) for s in shapes for k in scales}
    except subprocess.CalledProcessError as exc:
        print(f"bench_shapes: generator failed: {exc}", file=sys.stderr)
        return 2
    env = rulemap_env()
    # the result cache (when rulemap has one) lives under benchmarks/.cache, not in the home
    # directory, and is never turned off behind the warm column's back
    env["RULEMAP_CACHE_DIR"] = os.path.join(CACHE, "rulemap-cache")
    env.pop("RULEMAP_NO_CACHE", None)
    wanted = () if args.no_peers else (
        ("agnix", *EXPLAIN_PEERS) if args.explain_peers else ("agnix",))
    peers = ensure_peers(args.peers_venv, args.python, wanted) if wanted else {}
    warm = rulemap_has_no_cache(args.python, env)
    base = [args.python, "-m", "rulemap", "check"]
    # the floor: the same command on a one-file workspace (interpreter start, every import a
    # check needs, configuration, JSON output); a constant that does not depend on the shape
    floor_cmd = [*base, ensure_floor_tree(), "--format", "json", *(["--no-cache"] if warm else [])]

    def commands(key: tuple[str, int]) -> list[tuple[str, list[str], dict[str, str] | None]]:
        tree = trees[key]
        cold = [*base, tree, "--format", "json", *(["--no-cache"] if warm else [])]
        out: list[tuple[str, list[str], dict[str, str] | None]] = [("rulemap", cold, env)]
        if warm:
            out.append(("rulemap warm", [*base, tree, "--format", "json"], env))
        for peer, info in peers.items():
            out.append((peer, peer_command(peer, info["bin"], tree), None))
        return out

    labels = ["rulemap", *(["rulemap warm"] if warm else []), *peers]
    load0 = os.getloadavg()[0]
    cpus = machine()["cpus"] or 1
    if isinstance(cpus, int) and load0 > 0.5 * cpus:
        print(f"warning: load average {load0:.2f} on {cpus} CPUs: wall times will be inflated "
              "(the ratios, measured in the same rounds, much less)", file=sys.stderr)
    print(f"bench_shapes: {len(trees)} trees ({', '.join(shapes)} at {scales}), commands "
          f"{', '.join(labels)}; {args.warmup} warm-up + {args.runs} rounds", file=sys.stderr)

    # ------------------------------------------------------------------ rounds
    samples: dict[tuple[str, int], dict[str, list[dict[str, Any]]]] = {k: {} for k in trees}
    failed: dict[tuple[str, int], dict[str, str]] = {k: {} for k in trees}  # label -> why
    floor: list[float] = []
    for round_no in range(args.warmup + args.runs):
        timed = round_no >= args.warmup
        r = run_once(floor_cmd, env, REPO, args.timeout)
        if r["rc"] not in (0, 1) or parse_json(r["stdout"]) is None:
            print("bench_shapes: the floor run failed: "
                  + r["stderr"].decode("utf-8", "replace")[-500:], file=sys.stderr)
        elif timed:
            floor.append(r["wall"])
        for key in trees:
            for label, cmd, cenv in commands(key):
                if label in failed[key] or (label == "rulemap warm" and "rulemap" in failed[key]):
                    continue
                try:
                    if label == "rulemap warm":  # fill the cache, then time the second run
                        run_once(cmd, cenv, REPO, args.timeout)
                    r = run_once(cmd, cenv, REPO, args.timeout)
                except Timeout:
                    why = f"timeout (> {args.timeout:g} s)"
                    failed[key][label] = why
                    if label == "rulemap":  # and every larger scale of the shape
                        for k2 in trees:
                            if k2[0] == key[0] and k2[1] > key[1]:
                                failed[k2].setdefault("rulemap", f"skipped after x{key[1]}")
                    print(f"  {key[0]} x{key[1]}: {label}: {why}", file=sys.stderr)
                    continue
                data = parse_json(r["stdout"])
                if r["rc"] not in (0, 1) or data is None:
                    tail = r["stderr"].decode("utf-8", "replace").strip().splitlines()[-1:]
                    why = f"crash (exit {r['rc']}: {tail[0][:200] if tail else 'no output'})"
                    failed[key][label] = why
                    print(f"  {key[0]} x{key[1]}: {label}: {why}", file=sys.stderr)
                    continue
                r["json"] = data
                if timed:
                    samples[key].setdefault(label, []).append(r)
                elif label in peers and r["wall"] > args.peer_budget:
                    # a slow peer: measured on this tree, not run on the larger scales
                    for k2 in trees:
                        if k2[0] == key[0] and k2[1] > key[1]:
                            failed[k2].setdefault(
                                label, f"skipped (x{key[1]} took {r['wall']:.0f} s > "
                                f"--peer-budget {args.peer_budget:g} s)")
        what = "warm-up" if not timed else f"round {round_no - args.warmup + 1}/{args.runs}"
        print(f"  {what} done (load {os.getloadavg()[0]:.2f})", file=sys.stderr)

    if all("rulemap" in failed[k] for k in trees):
        print("bench_shapes: Rulemap failed on every tree", file=sys.stderr)
        for k in trees:
            print(f"  {k[0]} x{k[1]}: {failed[k]['rulemap']}", file=sys.stderr)
        return 2

    # ------------------------------------------------------------------ peak RSS
    rss: dict[tuple[str, int], dict[str, float | None]] = {}
    if not args.no_rss:
        for s in shapes:
            key = (s, scales[-1])
            if "rulemap" in failed[key]:
                continue
            rss[key] = {}
            for label, cmd, cenv in commands(key):
                if label == "rulemap warm" or label in failed[key]:
                    continue
                rss[key][label] = peak_rss_mb(cmd, cenv, REPO, args.timeout)

    # ------------------------------------------------------------------ pair counts
    pairs: dict[tuple[str, int], tuple[int, int] | None] = {}
    if not args.no_pairs:
        for key, tree in trees.items():
            pairs[key] = pair_counts(args.python, env, tree)

    # ------------------------------------------------------------------ rows
    floor_med = summarize(floor)["median"] if floor else 0.0
    table: dict[str, list[dict[str, Any]]] = {}
    for s in shapes:
        rows = []
        for k in scales:
            key = (s, k)
            summary = load_manifest(trees[key]).get("summary", {})
            files = summary.get("files", {})
            row: dict[str, Any] = {
                "scale": k,
                "tree": trees[key],
                "unit": summary.get("unit"),
                "units": summary.get("units"),
                "tracked_files": files.get("tracked"),
                "source_files": files.get("source_files"),
                "directories": files.get("directories"),
                "max_depth": files.get("max_depth"),
                "instruction_files": files.get("instruction_files"),
                "rules": files.get("rules"),
                "imports": files.get("imports"),
                "dead_globs": files.get("dead_globs"),
                "failed": failed[key] or None,
            }
            counted = pairs.get(key)
            if counted is not None:
                row["pairs_file_rule"], row["pairs_file_pattern"] = counted
            stats: dict[str, Any] = {}
            for label in labels:
                rs = samples[key].get(label)
                if rs:
                    stats[label] = {
                        "wall_s": summarize([r["wall"] for r in rs]),
                        "cpu_s": summarize([r["cpu"] for r in rs]),
                    }
            row["stats"] = stats
            if "rulemap" in stats:
                med = stats["rulemap"]["wall_s"]["median"]
                last = samples[key]["rulemap"][-1]["json"]
                diags = last.get("diagnostics") if isinstance(last, dict) else None
                row["diagnostics"] = len(diags) if isinstance(diags, list) else None
                if isinstance(diags, list):
                    counts: dict[str, int] = {}
                    for d in diags:
                        counts[d.get("code", "?")] = counts.get(d.get("code", "?"), 0) + 1
                    row["diagnostics_by_code"] = dict(sorted(counts.items()))
                row["net_s"] = med - floor_med
                if row["units"]:
                    row["us_per_unit_net"] = row["net_s"] / row["units"] * 1e6
                    row["us_per_unit_raw"] = med / row["units"] * 1e6
                for peer in peers:
                    if peer in stats:
                        row[f"ratio_{peer}"] = med / stats[peer]["wall_s"]["median"]
                if "rulemap warm" in stats:
                    wmed = stats["rulemap warm"]["wall_s"]["median"]
                    row["warm_over_cold"] = wmed / med
                    if "agnix" in stats:
                        row["warm_ratio_agnix"] = wmed / stats["agnix"]["wall_s"]["median"]
                if "agnix" in stats:
                    found = samples[key]["agnix"][-1]["json"]
                    if isinstance(found, dict):
                        row["agnix_files_checked"] = found.get("files_checked")
                        row["agnix_diagnostics"] = len(found.get("diagnostics") or [])
            if key in rss:
                row["peak_rss_mb"] = rss[key]
            rows.append(row)
        first = next((r for r in rows if r.get("us_per_unit_net")), None)
        for r in rows:
            if first and r.get("us_per_unit_net") is not None:
                r["flat_ratio"] = r["us_per_unit_net"] / first["us_per_unit_net"]
        table[s] = rows

    # ------------------------------------------------------------------ verdicts
    verdicts: dict[str, dict[str, Any]] = {}
    for s, rows in table.items():
        v: dict[str, Any] = {}
        ratios = [r.get("ratio_agnix") for r in rows]
        if "agnix" in peers:
            measured = [x for x in ratios if x is not None]
            v["cold_ratio_worst"] = max(measured) if measured else None
            v["cold_ratio_pass"] = bool(measured) and len(measured) == len(rows) and max(
                measured) <= TARGET_RATIO
            wr = [r["warm_ratio_agnix"] for r in rows if r.get("warm_ratio_agnix") is not None]
            v["warm_ratio_worst"] = max(wr) if wr else None
        ok_rows = [r for r in rows if r.get("flat_ratio") is not None]
        complete = len(ok_rows) == len(rows) and rows[0].get("flat_ratio") is not None
        largest = rows[-1].get("flat_ratio") if complete else None
        v["flat_largest_over_smallest"] = largest
        v["flat_worst"] = max((r["flat_ratio"] for r in ok_rows), default=None)
        v["flat_pass"] = largest is not None and largest <= TARGET_FLAT
        for name in ("pairs_file_rule", "pairs_file_pattern"):
            lo_pairs, hi_pairs = rows[0].get(name), rows[-1].get(name)
            v[f"{name}_growth"] = hi_pairs / lo_pairs if lo_pairs and hi_pairs else None
        if "agnix" in peers:
            last = rows[-1].get("ratio_agnix")
            v["cold_ratio_largest"] = last
            v["cold_ratio_largest_pass"] = last is not None and last <= TARGET_RATIO_LARGEST
        peak = (rows[-1].get("peak_rss_mb") or {}).get("rulemap")
        v["peak_rss_mb_largest"] = peak
        v["rss_pass"] = peak is not None and peak <= TARGET_RSS_MB
        verdicts[s] = v

    # ------------------------------------------------------------------ report
    mach = machine()
    load1 = os.getloadavg()[0]
    print()
    print("Cold `rulemap check --format json` by workspace shape and scale, next to agnix")
    print(f"  machine: {mach['cpus']} CPUs, {mach['cpu_model']}, Python {mach['python']}; "
          f"{args.runs} rounds after {args.warmup} warm-up, every tree and command interleaved;"
          f" load average {load0:.2f} → {load1:.2f}")
    print("  peers: " + (", ".join(f"{p} {i['version']}" for p, i in peers.items()) or "none"))
    print(f"  start-up floor `rulemap check` of a one-file workspace: median {fmt_ms(floor_med)} "
          "(subtracted in the net column)")
    if not warm:
        print("  warm: n/a (`rulemap check --help` has no --no-cache: no persistent cache yet)")
    for s, rows in table.items():
        unit = rows[0].get("unit") or "units"
        print()
        print(f"== {s}  (unit: {unit})")
        extra = [p for p in peers if p != "agnix"]
        hdr = (f"{'scale':>5}{'units':>8}{'files':>8}{'rulemap':>10}{'agnix':>10}{'ratio':>7}"
               f"{'net µs/unit':>12}{'×':>6}{'f×rule':>8}{'f×pat':>7}{'warm':>9}{'w÷agnix':>8}"
               f"{'RSS':>8}{'diags':>7}"
               + "".join(f"{p:>15}" for p in extra))
        print(hdr)
        print("-" * len(hdr))
        for r in rows:
            st = r["stats"]
            fail = r.get("failed") or {}

            def cell(label: str, st: dict[str, Any] = st, fail: dict[str, str] = fail) -> str:
                if label in st:
                    return fmt_ms(st[label]["wall_s"]["median"])
                if label in fail:
                    return fail[label].split(" ")[0].upper()
                return "n/a" if label == "rulemap warm" else "-"

            ratio = f"{r['ratio_agnix']:.2f}" if r.get("ratio_agnix") else "-"
            per = f"{r['us_per_unit_net']:.1f}" if r.get("us_per_unit_net") else "-"
            flat = f"{r['flat_ratio']:.2f}" if r.get("flat_ratio") else "-"
            warm_cell = cell("rulemap warm")
            wratio = f"{r['warm_ratio_agnix']:.2f}" if r.get("warm_ratio_agnix") else "-"
            peak = (r.get("peak_rss_mb") or {}).get("rulemap")
            peak_s = f"{peak:.0f} MB" if peak else ""
            print(f"{r['scale']:>4}×{r['units'] or '':>8}{r['tracked_files'] or '':>8}"
                  f"{cell('rulemap'):>10}{cell('agnix'):>10}{ratio:>7}{per:>12}{flat:>6}"
                  f"{fmt_count(r.get('pairs_file_rule')):>8}"
                  f"{fmt_count(r.get('pairs_file_pattern')):>7}{warm_cell:>9}{wratio:>8}"
                  f"{peak_s:>8}{r.get('diagnostics') or 0:>7}"
                  + "".join(f"{cell(p):>15}" for p in extra))
        for r in rows:
            for label, why in (r.get("failed") or {}).items():
                print(f"  x{r['scale']} {label}: {why}")
        v = verdicts[s]
        if "cold_ratio_pass" in v:
            worst = v["cold_ratio_worst"]
            print(f"  cold ratio Rulemap ÷ agnix ≤ {TARGET_RATIO} at every scale: worst "
                  f"{worst if worst is None else f'{worst:.2f}'}  "
                  f"{'PASS' if v['cold_ratio_pass'] else 'FAIL'}")
            if v.get("cold_ratio_largest") is not None:
                print(f"  cold ratio Rulemap ÷ agnix ≤ {TARGET_RATIO_LARGEST} at x{scales[-1]}: "
                      f"{v['cold_ratio_largest']:.2f}  "
                      f"{'PASS' if v['cold_ratio_largest_pass'] else 'FAIL'}")
            if v.get("warm_ratio_worst") is not None:
                print(f"  warm ratio Rulemap (second run, result cache) ÷ agnix: worst "
                      f"{v['warm_ratio_worst']:.2f}")
        lo = v["flat_largest_over_smallest"]
        print(f"  flatness (net µs/unit, largest ÷ smallest ≤ {TARGET_FLAT}): "
              f"{'-' if lo is None else f'{lo:.2f}'} (worst scale "
              f"{'-' if v['flat_worst'] is None else format(v['flat_worst'], '.2f')})  "
              f"{'PASS' if v['flat_pass'] else 'FAIL'}")
        growth = [(label, v.get(f"{name}_growth")) for label, name in
                  (("(file, rule)", "pairs_file_rule"), ("(file, pattern)", "pairs_file_pattern"))]
        if all(g is not None for _, g in growth):
            print(f"  pairs x{scales[-1]} ÷ x{scales[0]}: "
                  + ", ".join(f"{label} {g:.1f}×" for label, g in growth))
        if not args.no_rss:
            pk = v["peak_rss_mb_largest"]
            print(f"  peak RSS at x{scales[-1]} ≤ {TARGET_RSS_MB:.0f} MB: "
                  f"{'-' if pk is None else f'{pk:.0f} MB'}  {'PASS' if v['rss_pass'] else 'FAIL'}")

    result = {
        "benchmark": "cold rulemap check by workspace shape and scale, next to its peers",
        "date": now_utc(),
        "machine": mach,
        "load_average": [load0, load1],
        "rulemap_revision": repo_revision(),
        "seed": args.seed,
        "scales": scales,
        "runs": args.runs,
        "warmup": args.warmup,
        "timeout_s": args.timeout,
        "floor_command": " ".join(floor_cmd),
        "floor_wall_s": summarize(floor) if floor else None,
        "warm": "measured" if warm else "n/a (rulemap check has no --no-cache option)",
        "peers": {p: {"version": i["version"],
                      "command": " ".join(peer_command(p, p, "TREE"))}
                  for p, i in peers.items()},
        "targets": {"cold_ratio_vs_agnix": TARGET_RATIO,
                    "cold_ratio_vs_agnix_largest": TARGET_RATIO_LARGEST,
                    "flat_largest_over_smallest":
                    TARGET_FLAT, "peak_rss_mb": TARGET_RSS_MB},
        "shapes": table,
        "verdicts": verdicts,
    }
    if not args.no_write:
        name = "shapes-quick.json" if args.quick else "shapes.json"
        path = write_result(name, result, args.out)
        print(f"\nwrote {os.path.relpath(path, REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
