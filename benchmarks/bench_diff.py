#!/usr/bin/env python3
"""Time `rulemap diff A B` between two commits against a cold `rulemap check`, in one run.

    python benchmarks/bench_diff.py [--runs 5] [--small] [--seed N] [--timeout 600]

The synthetic monorepo (gen_monorepo.py, 20,000 files; --small: 2,000) is cloned into a
temporary git repository whose second commit changes one rule's `paths` glob (to
`packages/**/*.tsx`, thousands of files gain the rule, the ones it matched lose it) and one
nested `AGENTS.md` (a paragraph added). Then, interleaved round-robin after one untimed
warm-up round, each a fresh process:

- `rulemap check REPO --format json` (cold: the working tree, which is the second commit);
- `rulemap diff HEAD~1 HEAD --root REPO --format json` (both sides read from git's object
  store: two workspaces, the loads of every file for every selected agent on both sides, and
  two checks);
- `rulemap diff HEAD~1 --root REPO --format json` (the working tree as HEAD).

Prints medians, min/max, the ratio diff ÷ check, and checks the target (issue 9): the diff
between two commits costs at most 3× a cold check. Exit 1 when it does not, 2 on an error.
Writes benchmarks/results/diff.json (diff-small.json with --small).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

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
from bench_check import Timeout, run_once  # noqa: E402

TARGET_RATIO = 3.0
NEW_GLOB = "packages/**/*.tsx"
# fixed identity and dates: the same tree gives the same commit ids
GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-02T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-02T00:00:00Z",
}


def git(repo: str, *args: str) -> str:
    env = dict(os.environ, **GIT_ENV)
    done = subprocess.run(["git", "-C", repo, *args], env=env, check=True,
                          capture_output=True, text=True)
    return done.stdout


def first_scoped_rule(repo: str) -> str:
    """The first rule of the root `.claude/rules` (sorted) with `paths:` frontmatter."""
    rules_dir = os.path.join(repo, ".claude", "rules")
    for base, dirs, files in sorted(os.walk(rules_dir)):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(base, name)
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            head = text.split("\n---", 1)[0] if text.startswith("---") else ""
            if name.endswith(".md") and "\npaths:" in head:
                return os.path.relpath(path, repo)
    raise SystemExit("bench_diff: the monorepo has no rule with `paths:` frontmatter")


def make_repo(tree: str, dest: str, manifest: dict) -> dict[str, str]:
    """Clone `tree` into `dest` and commit the two edits; returns what was edited."""
    subprocess.run(["git", "clone", "-q", tree, dest], check=True)
    rule = first_scoped_rule(dest)
    with open(os.path.join(dest, rule), encoding="utf-8") as fh:
        text = fh.read()
    body = text.split("\n---", 1)[1].split("\n", 1)[1] if text.startswith("---") else text
    with open(os.path.join(dest, rule), "w", encoding="utf-8") as fh:
        fh.write(f'---\npaths:\n  - "{NEW_GLOB}"\n---\n{body}')
    nested = manifest.get("bench", {}).get("edit_agents_md") or "packages/ui/AGENTS.md"
    if not os.path.isfile(os.path.join(dest, nested)):
        raise SystemExit(f"bench_diff: {nested} is not in the monorepo")
    with open(os.path.join(dest, nested), "a", encoding="utf-8") as fh:
        fh.write("\n## Reviews\n\nEvery change to a public API gets a second reviewer.\n")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "a rule's glob and a nested AGENTS.md")
    return {"rule": rule, "glob": NEW_GLOB, "agents_md": nested}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="timed rounds (5)")
    ap.add_argument("--warmup", type=int, default=1, help="untimed rounds first (1)")
    ap.add_argument("--small", action="store_true", help="the 2,000-file preset")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=600.0, help="kill a run after (600 s)")
    ap.add_argument("--python", default=default_python(), help="interpreter that runs rulemap")
    ap.add_argument("--out", help="result file (default benchmarks/results/diff[-small].json)")
    ap.add_argument("--no-write", action="store_true", help="do not write a result file")
    args = ap.parse_args(argv)

    tree = ensure_tree(args.small, args.seed)
    manifest = load_manifest(tree)
    work = tempfile.mkdtemp(prefix="rulemap-bench-diff-")
    try:
        repo = os.path.join(work, "repo")
        edited = make_repo(tree, repo, manifest)
        return measure(args, repo, edited, manifest)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def measure(args: argparse.Namespace, repo: str, edited: dict[str, str], manifest: dict) -> int:
    env = rulemap_env()
    py = [args.python, "-m", "rulemap"]
    check_label = "rulemap check (cold)"
    diff_label = "rulemap diff HEAD~1 HEAD"
    commands = [
        (check_label, [*py, "check", repo, "--format", "json"]),
        (diff_label, [*py, "diff", "HEAD~1", "HEAD", "--root", repo, "--format", "json"]),
        ("rulemap diff HEAD~1 (working tree)",
         [*py, "diff", "HEAD~1", "--root", repo, "--format", "json"]),
    ]
    samples: dict[str, list[dict]] = {label: [] for label, _ in commands}
    load0 = os.getloadavg()[0]
    try:
        for _ in range(args.warmup):
            for _label, cmd in commands:
                run_once(cmd, env, REPO, args.timeout)
        for i in range(args.runs):
            for label, cmd in commands:
                r = run_once(cmd, env, REPO, args.timeout)
                if r["rc"] not in (0, 1):
                    sys.stderr.write(r["stderr"].decode("utf-8", "replace")[-4000:])
                    print(f"bench_diff: `{' '.join(cmd)}` exited {r['rc']}", file=sys.stderr)
                    return 2
                samples[label].append(r)
            print(f"  round {i + 1}/{args.runs} done", file=sys.stderr)
    except Timeout as exc:
        print(f"bench_diff: {exc}", file=sys.stderr)
        return 2
    load1 = os.getloadavg()[0]
    stats = {
        label: {"wall_s": summarize([r["wall"] for r in rs]),
                "cpu_s": summarize([r["cpu"] for r in rs])}
        for label, rs in samples.items()
    }
    answer = json.loads(samples[diff_label][-1]["stdout"])
    check_med = stats[check_label]["wall_s"]["median"]
    diff_med = stats[diff_label]["wall_s"]["median"]
    ratio = diff_med / check_med
    ok = ratio <= TARGET_RATIO
    m = machine()
    files = manifest.get("summary", {}).get("files", {})
    print()
    print(f"`rulemap diff` between two commits vs a cold `rulemap check` ({repo})")
    print(f"  edits: {edited['rule']} paths → {edited['glob']}; text added to "
          f"{edited['agents_md']}")
    if files:
        print(f"  tree: {files.get('source_files')} source files, "
              f"{files.get('instruction_files')} instruction files, {files.get('rules')} rules")
    print(f"  machine: {m['cpus']} CPUs, {m['cpu_model']}, Python {m['python']}; {args.runs} "
          f"runs each, interleaved, after {args.warmup} warm-up round(s); load average "
          f"{load0:.2f} → {load1:.2f}")
    print()
    header = f"{'command':<40}{'median':>10}{'min':>10}{'max':>10}{'cpu':>10}{'÷ check':>10}"
    print(header)
    print("-" * len(header))
    for label, _ in commands:
        s = stats[label]
        print(f"{label:<40}{fmt_ms(s['wall_s']['median']):>10}{fmt_ms(s['wall_s']['min']):>10}"
              f"{fmt_ms(s['wall_s']['max']):>10}{fmt_ms(s['cpu_s']['median']):>10}"
              f"{s['wall_s']['median'] / check_med:>9.2f}×")
    print()
    print(f"the diff found: {answer['filesChanged']:,} of {answer['files']:,} files change "
          f"for {', '.join(answer['profiles'])}, in {len(answer['groups'])} groups; "
          f"{len(answer['findings']['new'])} new and {len(answer['findings']['fixed'])} fixed "
          "findings")
    print(f"target: diff ≤ {TARGET_RATIO:g}× a cold check   measured {fmt_ms(diff_med)} ÷ "
          f"{fmt_ms(check_med)} = {ratio:.2f}×  {'PASS' if ok else 'FAIL'}")
    if not args.no_write:
        result = {
            "benchmark": "rulemap diff between two commits vs cold check",
            "date": now_utc(),
            "machine": m,
            "load_average": [load0, load1],
            "rulemap_revision": repo_revision(),
            "small": args.small,
            "edited": edited,
            "runs": args.runs,
            "warmup": args.warmup,
            "commands": {label: " ".join(cmd) for label, cmd in commands},
            "stats": stats,
            "ratio": ratio,
            "target_ratio": TARGET_RATIO,
            "pass": ok,
            "diff_summary": {
                "files": answer["files"],
                "filesChanged": answer["filesChanged"],
                "groups": len(answer["groups"]),
                "profiles": answer["profiles"],
                "newFindings": len(answer["findings"]["new"]),
                "fixedFindings": len(answer["findings"]["fixed"]),
            },
        }
        name = "diff-small.json" if args.small else "diff.json"
        path = write_result(name, result, args.out)
        print(f"wrote {os.path.relpath(path, REPO)}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
