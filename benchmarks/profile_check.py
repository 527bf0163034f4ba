#!/usr/bin/env python3
"""Where does a cold `rulemap check` spend its time? A phase breakdown plus a cProfile top list.

    python benchmarks/profile_check.py [--tree DIR] [--small] [--top 25] [--prof /tmp/check.prof]

Runs in a fresh process (started by this script, so imports are cold): times the imports,
opening the workspace as the CLI does (`rulemap.cli.commands.open_host`: walking the tree,
.gitignore, indexing), selecting the agent profiles, parsing, each check family of
`rulemap.checks.PER_DOCUMENT` and `GRAPH_WIDE` separately, each selected profile's own
findings, naming them (`profile_findings`), `finalize`, and the CLI's JSON formatter (the
phases of `rulemap.checks.run_checks`, in its order); then runs the whole check
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
    print(f"{name:<44}{wall:>8.0f} ms wall{cpu:>8.0f} ms cpu   {extra}", flush=True)
    _last[:] = [w, c]

from rulemap import analysis
from rulemap.checks import GRAPH_WIDE, PER_DOCUMENT, finalize, profile_findings
from rulemap.cli.commands import open_host  # the CLI's own: user grants, home, reader
from rulemap.host.snapshot import workspace_of
lap("import rulemap (+ cli.commands)")
ws = workspace_of(open_host(sys.argv[1]).snapshot())
lap("open_host (walk + index)",
    f"{len(ws.files)} files, {len(ws.instruction_files)} instruction files, {len(ws.rules)} rules")
profiles = analysis.select_profiles(ws)  # as analysis.check does before run_checks
lap("select_profiles", ", ".join(p.name for p in profiles))
docs = ws.lint_documents()
for key in docs:
    ws.document(key)
lap("parse every lint document", f"{len(docs)} documents")
raw = []
for kind, families in (("per-document", PER_DOCUMENT), ("graph-wide", GRAPH_WIDE)):
    for family in families:
        found = family(ws)
        raw.extend(found)
        # a family is `module.function` (`checks._Family`: imported when it first runs)
        name = getattr(family, "name", None) or (
            family.__module__.rsplit(".", 1)[-1] + "." + family.__name__)
        lap(f"{kind} {name}", f"{len(found)} findings")
for profile in profiles:  # each selected agent's own findings (cached on the workspace)
    found = profile.findings(ws)
    lap(f"profile {profile.name}", f"{len(found)} findings")
named = profile_findings(ws)  # reuses the findings above; names other agents' copies
raw.extend(named)
lap("profile_findings (naming the copies)", f"{len(named)} findings")
out = finalize(ws, raw)
lap("finalize", f"{len(out)} findings")
from rulemap.cli.formats import FORMATTERS
from rulemap.host import AnalysisHost
text = FORMATTERS["json"](AnalysisHost(ws).snapshot(), out)
lap("format json (UTF-16 ranges + encoding)", f"{len(text):,} chars")
w, c = time.perf_counter(), time.process_time()
print(f"{'total (in process)':<44}{(w - _w0) * 1000:>8.0f} ms wall{(c - _c0) * 1000:>8.0f} ms cpu")
_index = ws.scoped_rules_index()  # after the total: built by the check, or now, untimed
if hasattr(_index, "pairs"):
    _rule_pairs, _pattern_pairs = _index.pairs()
    print(f"{'pairs (file, rule) / (file, pattern)':<44}{_rule_pairs:>8,} / {_pattern_pairs:,}")
import os, resource
print(f"{'peak RSS':<44}{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:>8.0f} MB"
      f"   (load average {os.getloadavg()[0]:.2f})")
"""


PROFILE = r"""
import cProfile, gc, sys
gc.disable()  # as the CLI does for a one-shot command
prof = cProfile.Profile()
prof.enable()
from rulemap.cli.main import main
code = main(["check", sys.argv[2], "--format", "json"])
prof.disable()
prof.dump_stats(sys.argv[1])
sys.stdout.flush()
sys.exit(code)
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", help="profile this workspace (default: the generated monorepo)")
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
    # `python -m cProfile -m rulemap check` would profile nothing: after a one-shot command
    # the CLI's entry point leaves with os._exit (no teardown), so cProfile never writes its
    # file. Profile the CLI's `main()` (imports included) and dump the stats ourselves.
    if os.path.exists(args.prof):
        os.remove(args.prof)
    proc = subprocess.run(
        [args.python, "-c", PROFILE, args.prof, tree], env=env, stdout=subprocess.DEVNULL
    )
    if proc.returncode not in (0, 1) or not os.path.exists(args.prof):
        print(f"profile_check: the profiled check exited {proc.returncode}", file=sys.stderr)
        return 2
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
