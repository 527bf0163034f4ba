#!/usr/bin/env python3
"""The questions a user asks of a large repository, each beside a cold check (issue #37, 6).

    python benchmarks/bench_questions.py [--tree DIR] [--files 60000] [--runs 5]
                                         [--baseline CHECKOUT] [--python PY] [--out FILE]

On one tree (default: `gen_monorepo.py --files 60000`, generated once into benchmarks/.cache/),
each in a fresh process, alternating in every round: a cold `check` (`--no-cache`), `explain`
of a source file in the deepest package with an instruction file, `reach` of the root
instruction file and of that package's, `why` of a sentence of that package's file (found)
and of one no file holds (the engine then searches what every load brings), and the floor:
a bare `os.scandir` walk of the tree, reading every instruction file and rule and parsing
them in Python (lines, `@` tokens, YAML frontmatter) — what no Python tool can go below.
With `--baseline`, another checkout runs the same commands in the same rounds.

Reports medians, each command ÷ the same checkout's cold check (the median of the per-round
ratios: the machine is shared, so absolute times drift, the ratios much less), this checkout
÷ the baseline, and the cold check ÷ the floor. The goal: check ≤ 1.5 s and every question ≤
1× the cold check. Results go to results/questions.json (or --out).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import (  # noqa: E402
    GENERATOR,
    SERVER,
    _cached_tree,
    _digest,
    default_python,
    machine,
    now_utc,
    repo_revision,
    rulemap_env,
    summarize,
    write_result,
)

INSTRUCTION_NAMES = ("AGENTS.md", "CLAUDE.md", "CLAUDE.local.md", "GEMINI.md")
NOWHERE = "A sentence no instruction file of this tree holds, 7f3a."
NOWHERE_LABEL = "why (a sentence nowhere)"

# the floor: walk, read the instruction files and rules (Claude Code's, Copilot's
# `.instructions.md`, Cursor's `.mdc`), parse them (standard library + yaml, which Rulemap
# uses for frontmatter too)
FLOOR = r"""
import os, re, sys
import yaml
root = sys.argv[1]
names = {"AGENTS.md", "CLAUDE.md", "CLAUDE.local.md", "GEMINI.md"}
skip = {".git", "node_modules", "dist"}  # what the generated tree's .gitignore ignores
token = re.compile(r"(?<![\w`])@([^\s`]+)")
files = 0
docs = []
stack = [root]
while stack:
    top = stack.pop()
    with os.scandir(top) as it:
        for e in it:
            if e.is_dir(follow_symlinks=False):
                if e.name not in skip:
                    stack.append(e.path)
            else:
                files += 1
                if e.name in names or (e.name.endswith(".md") and "/.claude/rules" in e.path) \
                        or (e.name.endswith(".instructions.md")
                            and "/.github/instructions" in e.path) \
                        or (e.name.endswith(".mdc") and "/.cursor/rules" in e.path):
                    docs.append(e.path)
imports = 0
for path in docs:
    with open(path, "rb") as fh:
        raw = fh.read()
    text = raw.decode("utf-8", "replace")
    lines = text.split("\n")
    imports += sum(len(token.findall(line)) for line in lines)
    if lines and lines[0].strip() == "---" and "---" in lines[1:]:
        end = lines.index("---", 1)
        try:
            yaml.safe_load("\n".join(lines[1:end]))
        except yaml.YAMLError:
            pass
print(files, len(docs), imports)
"""


def ensure_big_tree(files: int, seed: int) -> str:
    name = f"monorepo-{files}-seed{seed}-{_digest(GENERATOR)}"
    return _cached_tree(name, GENERATOR, ["--seed", str(seed), "--files", str(files)], False)


def pick_targets(tree: str) -> dict[str, str]:
    """The root instruction file, the deepest package's one (and a source file and a sentence
    of it): the first in path order among the deepest, so every run asks the same."""
    root = next((n for n in ("CLAUDE.md", "AGENTS.md") if os.path.isfile(os.path.join(tree, n))),
                None)
    if root is None:
        raise SystemExit(f"bench_questions: {tree} has no CLAUDE.md or AGENTS.md at its root")
    found: list[tuple[int, str, str]] = []  # (-depth, instruction file, a source file)
    ignored = {".git", "node_modules", "dist", ".claude"}
    for top, dirs, names in os.walk(tree):
        dirs[:] = sorted(d for d in dirs if d not in ignored)
        rel = os.path.relpath(top, tree).replace(os.sep, "/")
        sources = [n for n in sorted(names) if not n.endswith(".md")]
        if rel == "." or not sources:
            continue
        for name in INSTRUCTION_NAMES[:2]:
            if name in names and not os.path.islink(os.path.join(top, name)):
                found.append((-rel.count("/"), f"{rel}/{name}", f"{rel}/{sources[0]}"))
    if not found:
        raise SystemExit(f"bench_questions: {tree} has no nested instruction file")
    _, nested, source = min(found)
    with open(os.path.join(tree, nested), encoding="utf-8", errors="replace") as fh:
        sentence = next((line.strip() for line in fh
                         if len(line.strip()) > 20 and line.strip()[0].isalpha()), "")
    return {"root": root, "nested": nested, "source": source, "sentence": sentence}


def commands(tree: str, targets: dict[str, str]) -> list[tuple[str, list[str]]]:
    rm = ["-m", "rulemap"]
    where = ["--root", tree]
    return [
        ("check", [*rm, "check", "--no-cache", *where]),
        (f"explain {targets['source']}", [*rm, "explain", targets["source"], *where]),
        (f"reach {targets['root']}", [*rm, "reach", targets["root"], *where]),
        (f"reach {targets['nested']}", [*rm, "reach", targets["nested"], *where]),
        ("why (a sentence of it)", [*rm, "why", targets["sentence"], *where]),
        (NOWHERE_LABEL, [*rm, "why", NOWHERE, *where]),
    ]


def env_for(checkout: str) -> dict[str, str]:
    env = rulemap_env()
    server = os.path.join(checkout, "server")
    rest = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != SERVER]
    env["PYTHONPATH"] = os.pathsep.join([server, *rest])
    return env


def timed(argv: list[str], env: dict[str, str], cwd: str) -> tuple[float, int, float]:
    """Wall seconds, exit code and CPU seconds (user + system) of one run, in `cwd` (the
    tree: the paths asked about are relative to it, as a user's are). The CPU time is what
    a loaded machine disturbs least: the wall time also counts the waits for a core."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, proc.returncode, cpu


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", help="the tree to ask (default: a generated monorepo)")
    ap.add_argument("--files", type=int, default=60_000, help="source files of the generated one")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--baseline", help="another checkout, run in the same rounds")
    ap.add_argument("--python", default=default_python())
    ap.add_argument("--out", help="write the JSON here (default: results/questions.json)")
    ap.add_argument("--check-only", action="store_true",
                    help="only the cold check beside the floor (any tree: no file is asked)")
    args = ap.parse_args(argv)

    tree = os.path.abspath(args.tree) if args.tree else ensure_big_tree(args.files, args.seed)
    if args.check_only:  # a tree without a nested instruction file has nothing to ask
        targets: dict[str, str] = {}
        asked = [("check", ["-m", "rulemap", "check", "--no-cache", "--root", tree])]
    else:
        targets = pick_targets(tree)
        asked = commands(tree, targets)
    sides = {"this": os.path.dirname(SERVER)}
    if args.baseline:
        sides["baseline"] = os.path.abspath(args.baseline)
    envs = {side: env_for(path) for side, path in sides.items()}
    floor_cmd = [args.python, "-c", FLOOR, tree]
    floor_env = rulemap_env()

    # an untimed round writes the bytecode and warms the disk cache
    for side, env in envs.items():
        for label, cmd in asked:
            # 0 or 1 (findings); 2 is `why`'s "in no file", an error for the others
            if timed([args.python, *cmd], env, tree)[1] not in (0, 1, 2 if label == NOWHERE_LABEL
                                                                 else 1):
                proc = subprocess.run([args.python, *cmd], env=env, cwd=tree,
                                      capture_output=True, text=True)
                raise SystemExit(f"bench_questions: {label} failed on {side}: "
                                 f"{proc.stderr.strip()[-400:]}")
    subprocess.run(floor_cmd, env=floor_env, check=True, stdout=subprocess.DEVNULL)

    times: dict[tuple[str, str], list[float]] = {}
    cpus: dict[tuple[str, str], list[float]] = {}
    codes: dict[tuple[str, str], int] = {}
    floor: list[float] = []
    floor_cpu: list[float] = []
    for run in range(args.runs):
        seconds, _, cpu = timed(floor_cmd, floor_env, tree)
        floor.append(seconds)
        floor_cpu.append(cpu)
        for label, cmd in asked:
            for side in (sides if run % 2 == 0 else list(reversed(sides))):
                seconds, code, cpu = timed([args.python, *cmd], envs[side], tree)
                times.setdefault((side, label), []).append(seconds)
                cpus.setdefault((side, label), []).append(cpu)
                codes[(side, label)] = code
        print(f"round {run + 1}/{args.runs} done", file=sys.stderr)

    def ratio(values: list[float], by: list[float]) -> float:
        return statistics.median(v / b for v, b in zip(values, by, strict=True))

    rows = []
    for label, _ in asked:
        row: dict[str, object] = {"question": label}
        for side in sides:
            ts = times[(side, label)]
            row[side] = summarize(ts)
            row[f"{side}_per_check"] = ratio(ts, times[(side, "check")])
            row[f"{side}_cpu"] = summarize(cpus[(side, label)])
            row[f"{side}_cpu_per_check"] = ratio(cpus[(side, label)], cpus[(side, "check")])
            row[f"{side}_exit"] = codes[(side, label)]
        if "baseline" in sides:
            row["this_per_baseline"] = ratio(times[("this", label)], times[("baseline", label)])
            row["this_per_baseline_cpu"] = ratio(cpus[("this", label)],
                                                 cpus[("baseline", label)])
        rows.append(row)
    floor_med = statistics.median(floor)
    check_per_floor = ratio(times[("this", "check")], floor)

    print(f"\n{tree}: {targets}")
    for kind, suffix in (("wall", ""), ("cpu (user + system)", "_cpu")):
        head = f"{kind:<40}{'this':>9}{'÷check':>8}"
        if "baseline" in sides:
            head += f"{'baseline':>10}{'÷check':>8}{'this÷base':>10}"
        print(head)
        for row in rows:
            this = row[f"this{suffix}" if suffix else "this"]
            assert isinstance(this, dict)
            line = (f"{str(row['question'])[:39]:<40}{this['median'] * 1000:>7.0f}ms"
                    f"{row[f'this{suffix}_per_check']:>8.2f}")
            if "baseline" in sides:
                base = row[f"baseline{suffix}" if suffix else "baseline"]
                assert isinstance(base, dict)
                line += (f"{base['median'] * 1000:>8.0f}ms"
                         f"{row[f'baseline{suffix}_per_check']:>8.2f}"
                         f"{row[f'this_per_baseline{suffix}']:>10.2f}")
            print(line)
        print()
    print(f"{'floor (walk + read + parse, bare Python)':<40}{floor_med * 1000:>7.0f}ms wall, "
          f"{statistics.median(floor_cpu) * 1000:.0f}ms cpu; check ÷ floor {check_per_floor:.2f}"
          f" (cpu {ratio(cpus[('this', 'check')], floor_cpu):.2f})")
    check_med = statistics.median(times[("this", "check")])
    verdict = f"goal: check ≤ 1.5 s: {check_med:.2f} s {'PASS' if check_med <= 1.5 else 'FAIL'}"
    if rows[1:]:
        worst = max(float(str(r["this_per_check"])) for r in rows[1:])
        worst_cpu = max(float(str(r["this_cpu_per_check"])) for r in rows[1:])
        verdict += (f"; every question ≤ 1× check: worst {worst:.2f} (cpu {worst_cpu:.2f}) "
                    f"{'PASS' if worst <= 1.0 else 'FAIL'}")
    print(verdict)
    path = write_result("questions.json", {
        "benchmark": "questions", "when": now_utc(), "revision": repo_revision(),
        # the tree and the baseline by their names only: results are committed, and never
        # say where they lay on the machine that ran them
        "machine": machine(), "tree": os.path.basename(tree), "targets": targets,
        "runs": args.runs, "baseline": args.baseline and os.path.basename(args.baseline),
        "rows": rows, "floor": summarize(floor),
        "floor_cpu": summarize(floor_cpu), "check_per_floor": check_per_floor,
    }, args.out)
    print(f"results written to {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
