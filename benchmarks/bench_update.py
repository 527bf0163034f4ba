#!/usr/bin/env python3
"""Time a single-file update through the core API, in process (what the language server does
on every keystroke once the debounce fires).

    python benchmarks/bench_update.py [--tree DIR] [--edits 50] [--small] [--file PATH]

Opens the workspace over an `OverlayReader` (unsaved buffers on top of the disk, as the server
does), runs one full check, then for each edit: puts new text for one `AGENTS.md` into the
overlay, calls `ws.update(changed=[key])` and `analysis.check(ws)` again, timing update + recheck.
Three kinds of edit, interleaved:

- `text`    a prose line changes (no import added or removed);
- `import`  an `@import` line toggles between an existing doc and a missing one (the import graph
            and the findings change);
- `rule`    a rule's `paths` glob changes (its matches are recomputed against every file).

When the language server's package is present, a fourth row times `update()` followed by
`rulemap.lsp.checking.document_findings` (the findings that depend only on the edited document,
which the server publishes at once while the full check runs off the event loop).

Baselines in the same run: reading + SHA-256 of that one file from disk (the least any
incremental update must do), and a cold full check in process (`Workspace.open` + `check()` on a
new workspace), for the ratio. After the edits the incremental findings are compared with a
fresh workspace over the same overlay: they must be identical. Target: update + recheck < 20 ms
(p95 reported next to the median). Writes benchmarks/results/update.json.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import os
import posixpath
import resource
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import (  # noqa: E402
    REPO,
    ensure_tree,
    fmt_ms,
    load_manifest,
    machine,
    now_utc,
    repo_revision,
    summarize,
    use_server_sources,
    write_result,
)

TARGET_SECONDS = 0.020


def finding_key(f) -> tuple:  # noqa: ANN001
    return (f.path, f.span, f.severity, f.code, f.message)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", help="workspace (default: the cached synthetic monorepo)")
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--edits", type=int, default=50, help="timed edits per kind (50)")
    ap.add_argument("--warmup", type=int, default=3, help="untimed edits per kind first (3)")
    ap.add_argument("--file", help="instruction file to edit (root-relative)")
    ap.add_argument("--cold-runs", type=int, default=3, help="in-process cold full checks (3)")
    ap.add_argument("--out", help="result file (default benchmarks/results/update[-small].json)")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--kinds", help="comma-separated subset of text,import,rule,doc-only (all)")
    ap.add_argument(
        "--profile",
        metavar="FILE",
        help="cProfile the timed edits into FILE and print the top functions",
    )
    args = ap.parse_args(argv)

    use_server_sources()
    from rulemap import analysis
    from rulemap.readers.local import LocalReader
    from rulemap.readers.overlay import OverlayReader

    tree = os.path.abspath(args.tree) if args.tree else ensure_tree(args.small, args.seed)
    manifest = load_manifest(tree)
    load0 = os.getloadavg()[0]

    # ---------------------------------------------------------------- open + first check
    t0 = time.perf_counter()
    overlay = OverlayReader(LocalReader(tree))
    ws = analysis.open_workspace(tree, reader=overlay)
    t_open = time.perf_counter() - t0
    t0 = time.perf_counter()
    first = analysis.check(ws)
    t_first = time.perf_counter() - t0
    t0 = time.perf_counter()
    analysis.check(ws)
    t_cached = time.perf_counter() - t0

    key = args.file or manifest.get("bench", {}).get("edit_agents_md")
    if not key or key not in ws.instruction_files:
        key = next(
            (
                p
                for p in ws.instruction_files
                if p.endswith("/AGENTS.md") and not ws.document(p).unreadable
            ),
            ws.instruction_files[0],
        )
    path = ws.abs(key)
    with open(path, encoding="utf-8") as fh:
        original = fh.read()
    d = posixpath.dirname(key)
    existing = sorted(p for p in ws.files if p.startswith("docs/guides/") and p.endswith(".md"))
    good_target = posixpath.relpath(existing[0], d or ".") if existing else "README.md"
    rule_key = next((r.path for r in ws.rules if ws.is_scoped(r.path)), None)
    rule_path = ws.abs(rule_key) if rule_key else None
    rule_original = ""
    if rule_path:
        with open(rule_path, encoding="utf-8") as fh:
            rule_original = fh.read()

    def text_edit(i: int) -> tuple[str, str]:
        return key, original + f"\n- Edit {i}: keep the changelog short.\n"

    def import_edit(i: int) -> tuple[str, str]:
        tok = good_target if i % 2 == 0 else f"docs/missing-{i}.md"
        return key, original + f"\n- See @{tok} for edit {i}\n"

    def rule_edit(i: int) -> tuple[str, str]:
        assert rule_key is not None
        glob = "**/*.ts" if i % 2 == 0 else f"packages/**/*-{i % 7}.py"
        body = (
            rule_original.split("---", 2)[-1] if rule_original.startswith("---") else rule_original
        )
        return rule_key, f'---\npaths:\n  - "{glob}"\n---{body}'

    # a glob moved between two package directories: few files change rules
    package_dirs = sorted({f.rsplit("/", 1)[0] for f in ws.files if f.startswith("packages/")})

    def narrow_rule_edit(i: int) -> tuple[str, str]:
        assert rule_key is not None
        glob = package_dirs[i % len(package_dirs)] + "/**"
        body = (
            rule_original.split("---", 2)[-1] if rule_original.startswith("---") else rule_original
        )
        return rule_key, f'---\npaths:\n  - "{glob}"\n---{body}'

    kinds = {"text": text_edit, "import": import_edit}
    if rule_key:
        kinds["rule"] = rule_edit
        if package_dirs:
            kinds["rule, narrow"] = narrow_rule_edit
    try:  # the language server's per-keystroke fast path, when the server package is there
        from rulemap.lsp.checking import document_findings
    except ImportError:
        document_findings = None
    if document_findings is not None:
        kinds["import, doc-only"] = import_edit
    if args.kinds:
        chosen = {k.strip() for k in args.kinds.split(",")}
        kinds = {k: v for k, v in kinds.items() if k in chosen or k.split(", ")[-1] in chosen}
        if not kinds:
            ap.error("--kinds: choose from text, import, rule, doc-only")
    times: dict[str, list[float]] = {k: [] for k in kinds}
    upd_only: dict[str, list[float]] = {k: [] for k in kinds}
    cpu: dict[str, list[float]] = {k: [] for k in kinds}
    gc.collect()
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
    # One kind at a time, each from a settled state: interleaving them would charge an edit
    # for the recomputation the previous kind's edit left behind (a doc-only step never runs
    # the full check, so the next kind would pay for it).
    for kind, make in kinds.items():
        for i in range(args.warmup + args.edits):
            if profiler is not None and i == args.warmup:
                profiler.enable()
            k, text = make(i)
            overlay.set_buffer(ws.abs(k), text)
            c0 = time.process_time()
            t0 = time.perf_counter()
            ws.update(changed=[k])
            t1 = time.perf_counter()
            if kind.endswith("doc-only"):
                document_findings(ws, k)
            else:
                analysis.check(ws)
            t2 = time.perf_counter()
            c2 = time.process_time()
            if i >= args.warmup:
                times[kind].append(t2 - t0)
                upd_only[kind].append(t1 - t0)
                cpu[kind].append(c2 - c0)

    if profiler is not None:
        import pstats

        profiler.disable()
        profiler.dump_stats(args.profile)
        st = pstats.Stats(args.profile)
        st.strip_dirs().sort_stats("cumulative").print_stats(30)
        st.sort_stats("tottime").print_stats(20)

    # ---------------------------------------------------------------- correctness
    incremental = sorted(map(finding_key, analysis.check(ws)))
    fresh_ws = analysis.open_workspace(tree, reader=overlay)
    fresh = sorted(map(finding_key, analysis.check(fresh_ws)))
    consistent = incremental == fresh
    if not consistent:
        a, b = set(incremental), set(fresh)
        print(
            f"WARNING: incremental findings differ from a fresh check: {len(a - b)} only "
            f"incremental, {len(b - a)} only fresh",
            file=sys.stderr,
        )
        for f in sorted(a - b)[:5]:
            print(f"  only incremental: {f}", file=sys.stderr)
        for f in sorted(b - a)[:5]:
            print(f"  only fresh:       {f}", file=sys.stderr)

    # ---------------------------------------------------------------- baselines
    hash_times = []
    for _ in range(args.edits):
        t0 = time.perf_counter()
        with open(path, "rb") as fh:
            hashlib.sha256(fh.read()).hexdigest()
        hash_times.append(time.perf_counter() - t0)
    cold = []
    cold_cpu = []
    for _ in range(args.cold_runs):
        gc.collect()
        c0 = time.process_time()
        t0 = time.perf_counter()
        analysis.check(analysis.open_workspace(tree, reader=OverlayReader(LocalReader(tree))))
        cold.append(time.perf_counter() - t0)
        cold_cpu.append(time.process_time() - c0)
    load1 = os.getloadavg()[0]

    # ---------------------------------------------------------------- report
    stats = {k: summarize(v) for k, v in times.items()}
    stats_upd = {k: summarize(v) for k, v in upd_only.items()}
    stats_cpu = {k: summarize(v) for k, v in cpu.items()}
    cold_cpu_s = summarize(cold_cpu)
    hash_s = summarize(hash_times)
    cold_s = summarize(cold)
    m = machine()
    print(f"Single-file update + recheck, in process, on {tree}")
    print(f"  edited: {key}" + (f"; rule: {rule_key}" if rule_key else ""))
    print(
        f"  machine: {m['cpus']} CPUs, {m['cpu_model']}, Python {m['python']}; load average "
        f"{load0:.2f} → {load1:.2f}"
    )
    print(
        f"  open {fmt_ms(t_open)}, first check {fmt_ms(t_first)} ({len(first)} findings), "
        f"cached check {fmt_ms(t_cached)}"
    )
    print()
    hdr = (
        f"{'edit':<26}{'median':>10}{'p95':>10}{'min':>10}{'max':>10}"
        f"{'cpu':>10}{'update()':>11}{'÷ read+hash':>13}{'cold ÷ this':>13}"
    )
    print(hdr)
    print("-" * len(hdr))
    for kind in kinds:
        s = stats[kind]
        label = (
            "update+" + kind.replace(", doc-only", "") + " (doc only)"
            if kind.endswith("doc-only")
            else "update+check: " + kind
        )
        print(
            f"{label:<26}{fmt_ms(s['median']):>10}{fmt_ms(s['p95']):>10}"
            f"{fmt_ms(s['min']):>10}{fmt_ms(s['max']):>10}{fmt_ms(stats_cpu[kind]['median']):>10}"
            f"{fmt_ms(stats_upd[kind]['median']):>11}"
            f"{s['median'] / hash_s['median']:>12.0f}×{cold_s['median'] / s['median']:>12.1f}×"
        )
    print(
        f"{'baseline: read + sha256':<26}{fmt_ms(hash_s['median']):>10}{fmt_ms(hash_s['p95']):>10}"
        f"{fmt_ms(hash_s['min']):>10}{fmt_ms(hash_s['max']):>10}"
    )
    print(
        f"{'baseline: cold full check':<26}{fmt_ms(cold_s['median']):>10}"
        f"{fmt_ms(cold_s['p95']):>10}"
        f"{fmt_ms(cold_s['min']):>10}{fmt_ms(cold_s['max']):>10}{fmt_ms(cold_cpu_s['median']):>10}"
    )
    print()
    full_kinds = [k for k in kinds if not k.endswith("doc-only")] or list(kinds)
    worst = max(stats[k]["p95"] for k in full_kinds)
    ok_med = all(stats[k]["median"] < TARGET_SECONDS for k in full_kinds)
    print(
        f"target: update + recheck < {TARGET_SECONDS * 1000:.0f} ms   medians "
        + ", ".join(f"{k} {fmt_ms(stats[k]['median'])}" for k in full_kinds)
        + f"  {'PASS' if ok_med else 'FAIL'} (worst p95 {fmt_ms(worst)})"
    )
    print(f"incremental findings == fresh check: {'yes' if consistent else 'NO'}")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of this process: {rss:.0f} MB")

    result = {
        "benchmark": "single-file update + recheck (in process)",
        "date": now_utc(),
        "machine": m,
        "load_average": [load0, load1],
        "rulemap_revision": repo_revision(),
        "tree": tree,
        "edited_file": key,
        "edited_rule": rule_key,
        "edits_per_kind": args.edits,
        "open_s": t_open,
        "first_check_s": t_first,
        "cached_check_s": t_cached,
        "update_plus_check_s": stats,
        "update_only_s": stats_upd,
        "update_plus_check_cpu_s": stats_cpu,
        "baseline_cold_full_check_cpu_s": cold_cpu_s,
        "baseline_read_sha256_s": hash_s,
        "baseline_cold_full_check_s": cold_s,
        "target_s": TARGET_SECONDS,
        "target_pass_median": ok_med,
        "incremental_equals_fresh": consistent,
        "peak_rss_mb": rss,
    }
    if not args.no_write:
        out = write_result(
            "update-small.json" if args.small and not args.tree else "update.json",
            result,
            args.out,
        )
        print(f"wrote {os.path.relpath(out, REPO)}")
    return 0 if consistent else 1


if __name__ == "__main__":
    raise SystemExit(main())
