#!/usr/bin/env python3
"""What a `rulemap check` costs after editing one file: a check from scratch, a check that
resumes from the snapshot of the last whole check (server/rulemap/host/cache/resume_snapshot.py),
and a check of the unchanged tree (the result cache's hit), in alternating runs of one session,
with agnix on the same tree in the same rounds.

    python benchmarks/bench_edit.py [--tree DIR | --shape S --scale K] [--file PATH] [--runs 9]

Each round edits `--file` (default: a nested `AGENTS.md` of the tree; `--file AGENTS.md` for
the root one, which every load reads) by writing the original with a line naming a missing
path, a path of its own each round (so no round's bytes are the snapshot's: with two texts in
turn, every other resumed check found nothing changed and the median was mostly those), then
times:
  cold      `rulemap check TREE --format json --no-cache`
  resumed   `rulemap check TREE --format json` (the cache primed: its entry no longer holds,
            the snapshot does)
  hit       the same again, nothing changed since
  agnix     `agnix TREE` (when installed in benchmarks/.cache/peers)
  base resumed, base hit
            with `--baseline DIR` (a checkout, e.g. a git worktree of an older revision):
            its `resumed` and `hit`, in the same rounds, with a cache of its own
and, each round, that the resumed run printed what the cold one did. Also timed, in rounds
of their own: "first", a check with an empty cache (it records its questions for the next run
and leaves no snapshot); "snapshot", the whole check that leaves a snapshot (a repeated check
whose snapshot is missing: it also hashes each directory's listing, and a child process
writes the snapshot after the report); and "snapshot on disk", until that file appears.
The file is restored at the end. The cache lives in a temporary directory. Prints medians
and ratios; writes benchmarks/results/edit.json.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import signal
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import (  # noqa: E402
    CACHE,
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

# the edit's line, a number of the round's in the path
EDIT_LINE = "\n- See `docs/never-written-{}.md` before changing this package.\n"
EDITED = re.compile(r"\n- See `docs/never-written-\d+\.md` before changing this package\.\n\Z")


IGNORED = ("node_modules", "dist")  # the generators' .gitignore


def default_file(tree: str) -> str:
    """A nested AGENTS.md: the first below the root (by depth, then path) outside the
    directories the generated trees ignore; else the root one."""
    found = [
        rel for rel in (os.path.relpath(p, tree) for p in
                        glob.glob(os.path.join(tree, "**", "AGENTS.md"), recursive=True))
        if "/" in rel and not set(rel.split("/")) & set(IGNORED)
    ]
    return min(found, key=lambda r: (r.count("/"), r)) if found else "AGENTS.md"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", help="a workspace to check (default: the generated monorepo)")
    ap.add_argument("--shape", help="a generated shape tree instead (gen_shapes.py)")
    ap.add_argument("--scale", type=int, default=10)
    ap.add_argument("--file", help="the file edited, relative to the tree")
    ap.add_argument("--runs", type=int, default=9, help="timed rounds (default 9)")
    ap.add_argument("--snapshot-runs", type=int, default=3,
                    help="timed rounds of the whole check that leaves a snapshot (3)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--python", default=default_python())
    ap.add_argument("--out", help="result file name (default edit.json)")
    ap.add_argument("--baseline", help="a checkout whose resumed and hit checks are timed "
                    "in the same rounds")
    args = ap.parse_args(argv)
    if args.tree:
        tree = os.path.abspath(args.tree)
    elif args.shape:
        from bench_shapes import ensure_shape_tree

        tree = ensure_shape_tree(args.shape, args.scale, args.seed)
    else:
        tree = ensure_tree(False, args.seed)
    rel = args.file or default_file(tree)
    path = os.path.join(tree, rel)
    with open(path, encoding="utf-8") as fh:
        original = EDITED.sub("", fh.read())  # a run killed before it restored it
    # killed (timeout, ^C): restore the file all the same
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    store = tempfile.mkdtemp(prefix="rulemap-bench-edit-")
    env = {**rulemap_env(), "RULEMAP_CACHE_DIR": store}
    env.pop("RULEMAP_NO_CACHE")  # rulemap_env turns the cache off: here it is what is timed
    check = [args.python, "-m", "rulemap", "check", tree, "--format", "json"]
    agnix = os.path.join(CACHE, "peers", "bin", "agnix")
    commands = {"cold": [*check, "--no-cache"], "resumed": check, "hit": check}
    envs = {label: env for label in commands}
    base_store = None
    if args.baseline:
        base_store = tempfile.mkdtemp(prefix="rulemap-bench-edit-base-")
        base_env = {**env, "RULEMAP_CACHE_DIR": base_store,
                    "PYTHONPATH": os.path.join(os.path.abspath(args.baseline), "server")}
        for label in ("base resumed", "base hit"):
            commands[label], envs[label] = check, base_env
    if os.path.exists(agnix):
        commands["agnix"] = [agnix, tree]
    walls: dict[str, list[float]] = {
        k: [] for k in [*commands, "first", "snapshot", "snapshot on disk"]
    }
    edits = 0
    written: set[str] = set()  # every text an edit wrote: each round's is its own

    def edit() -> None:
        nonlocal edits
        text = original + EDIT_LINE.format(edits)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        written.add(text)
        edits += 1

    def snapshot_written(timeout: float = 120.0, where: str = store) -> float:
        """Seconds until the snapshot a check's child process writes is on disk."""
        start = time.perf_counter()
        while not glob.glob(os.path.join(where, "*.snapshot")):
            if time.perf_counter() - start > timeout:
                break
            time.sleep(0.005)
        return time.perf_counter() - start

    def timed(label: str, cmd: list[str]) -> bytes:
        # `first` and `snapshot` are timed with the store's env too (they are no command's
        # label): without it their cache went to the user's, and the snapshot never came
        run = run_once(cmd, envs.get(label, env), None)
        if label != "agnix" and run["rc"] not in (0, 1):
            raise SystemExit(run["stderr"].decode(errors="replace"))
        walls[label].append(run["wall"])
        return bytes(run["stdout"])

    try:
        # prime: a first check (its entry), an edit, a repeated check (its snapshot)
        run_once(check, env, None)
        if base_store is not None:
            run_once(check, envs["base resumed"], None)
        edit()
        run_once(check, env, None)
        snapshot_written()
        if base_store is not None:
            run_once(check, envs["base resumed"], None)
            snapshot_written(where=base_store)
        if not glob.glob(os.path.join(store, "*.snapshot")):
            print("no snapshot was written (too big for the cache?)", file=sys.stderr)
        same = True
        for round_ in range(args.runs + 1):  # round 0 is an untimed warm-up
            edit()
            for label, cmd in commands.items():
                out = timed(label, cmd)
                if label == "cold":
                    cold_out = out
                elif label in ("resumed", "base resumed"):
                    same = same and out == cold_out
            if round_ == 0:
                for values in walls.values():
                    values.clear()
        for _ in range(args.snapshot_runs):
            for name in glob.glob(os.path.join(store, "check-*")):
                os.unlink(name)
            edit()
            timed("first", check)
            for name in glob.glob(os.path.join(store, "*.snapshot")):
                os.unlink(name)
            edit()
            timed("snapshot", check)
            walls["snapshot on disk"].append(walls["snapshot"][-1] + snapshot_written())
        snapshot_bytes = sum(os.path.getsize(p)
                             for p in glob.glob(os.path.join(store, "*.snapshot")))
    finally:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(original)
        shutil.rmtree(store, ignore_errors=True)
        if base_store is not None:
            shutil.rmtree(base_store, ignore_errors=True)
    med = {k: statistics.median(v) for k, v in walls.items() if v}

    def ratio(label: str, base: str) -> str:
        return f"{med[label] / med[base]:.2f}" if label in med and base in med else "-"

    print(f"rulemap check of {tree} after editing {rel} "
          f"({args.runs} rounds, medians; snapshot {snapshot_bytes / 1e6:.1f} MB)")
    for label in med:
        extra = ""
        if label != "cold":
            extra = f"  {med[label] / med['cold']:.2f}× cold"
        if label in ("resumed", "hit") and f"base {label}" in med:
            extra += f"  {med[label] / med[f'base {label}']:.2f}× base"
        if "agnix" in med and label != "agnix":
            extra += f"  {med[label] / med['agnix']:.2f}× agnix"
        print(f"  {label:<17}{fmt_ms(med[label]):>10}{extra}")
    print(f"  resumed output identical to the cold check's: {'yes' if same else 'NO'}")
    print(f"  agnix {fmt_ms(med['agnix']) if 'agnix' in med else '-'}: resumed ÷ agnix "
          f"{ratio('resumed', 'agnix')}, hit ÷ agnix {ratio('hit', 'agnix')}")
    write_result(args.out or "edit.json", {
        "date": now_utc(), "revision": repo_revision(), "machine": machine(), "tree": tree,
        "file": rel, "runs": args.runs, "snapshot_bytes": snapshot_bytes,
        "walls": {k: summarize(v) for k, v in walls.items() if v}, "identical": same,
        "edits": edits, "distinct_texts": len(written),
        # the baseline by its commit: a path of this machine is no record
        "baseline": (repo_revision(args.baseline) or os.path.basename(
            os.path.abspath(args.baseline))) if args.baseline else None,
    })
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
