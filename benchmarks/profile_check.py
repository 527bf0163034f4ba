#!/usr/bin/env python3
"""Where does a cold `rulemap check` spend its time? A phase breakdown plus a cProfile top list.

    python benchmarks/profile_check.py [--tree DIR] [--small] [--top 25] [--prof /tmp/check.prof]

Runs in a fresh process (started by this script, so imports are cold): times the imports,
`Workspace.open` (walking the tree, .gitignore, indexing), each check family of
`rulemap.checks.FAMILIES` separately, `finalize`, and JSON rendering; then runs the whole check
again in another fresh process under cProfile and prints the top functions by own time and by
cumulative time. Phase times are without profiler overhead; cProfile inflates Python-heavy code
by roughly 3-4x, so read its list for proportions, not absolute times.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import default_python, ensure_tree, rulemap_env  # noqa: E402

PHASES = r"""
import gc, sys, time
gc.disable()  # as `rulemap check` does: else collections land in whichever phase allocates
_w0, _c0 = time.perf_counter(), time.process_time()
_last = [_w0, _c0]

def lap(name, extra=""):
    w, c = time.perf_counter(), time.process_time()
    wall, cpu = (w - _last[0]) * 1000, (c - _last[1]) * 1000
    print(f"{name:<36}{wall:>8.0f} ms wall{cpu:>8.0f} ms cpu   {extra}")
    _last[:] = [w, c]

from rulemap import analysis
from rulemap.workspace import Workspace
from rulemap.checks import FAMILIES, finalize
lap("import rulemap")
ws = analysis.open_workspace(sys.argv[1])
lap("Workspace.open (walk + index)",
    f"{len(ws.files)} files, {len(ws.instruction_files)} instruction files, {len(ws.rules)} rules")
docs = ws.lint_documents() if hasattr(ws, "lint_documents") else ws.all_documents()
for key in docs:
    ws.document(key)
lap("parse every document", f"{len(docs)} documents")
raw = []
for family in FAMILIES:
    found = family(ws)
    raw.extend(found)
    lap(f"{family.__module__}.{family.__name__}", f"{len(found)} findings")
for profile in analysis.select_profiles(ws):  # each selected agent's own findings
    found = profile.findings(ws)
    raw.extend(found)
    lap(f"profile {profile.name}", f"{len(found)} findings")
out = finalize(ws, raw)
lap("finalize", f"{len(out)} findings")
try:  # the CLI's JSON formatter (positions → UTF-16, JSON encoding), when it has one
    from rulemap.cli.formats import FORMATTERS
except ImportError:
    FORMATTERS = {}
lap("import rulemap.cli.formats")
if "json" in FORMATTERS:
    text = FORMATTERS["json"](ws, out)
    lap("format json", f"{len(text):,} chars")
w, c = time.perf_counter(), time.process_time()
print(f"{'total (in process)':<36}{(w - _w0) * 1000:>8.0f} ms wall{(c - _c0) * 1000:>8.0f} ms cpu")
import os, resource
print(f"{'peak RSS':<36}{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:>8.0f} MB"
      f"   (load average {os.getloadavg()[0]:.2f})")
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree")
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--prof", default="/tmp/rulemap-check.prof", help="cProfile output file")
    ap.add_argument("--python", default=default_python())
    ap.add_argument("--no-cprofile", action="store_true")
    args = ap.parse_args(argv)
    tree = os.path.abspath(args.tree) if args.tree else ensure_tree(args.small, args.seed)
    env = rulemap_env()
    print(f"phases of a cold check of {tree}:")
    subprocess.run([args.python, "-c", PHASES, tree], env=env, check=True)
    if args.no_cprofile:
        return 0
    subprocess.run(
        [
            args.python,
            "-m",
            "cProfile",
            "-o",
            args.prof,
            "-m",
            "rulemap",
            "check",
            tree,
            "--format",
            "json",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
    )
    show = (
        "import pstats, sys\n"
        "p = pstats.Stats(sys.argv[1])\n"
        "p.strip_dirs()\n"
        "print('\\n== top by own time (tottime) ==')\n"
        "p.sort_stats('tottime').print_stats(int(sys.argv[2]))\n"
        "print('\\n== top by cumulative time ==')\n"
        "p.sort_stats('cumulative').print_stats(int(sys.argv[2]))\n"
    )
    subprocess.run([args.python, "-c", show, args.prof, str(args.top)], env=env, check=True)
    print(f"profile saved to {args.prof} (python -m pstats {args.prof})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
