#!/usr/bin/env python3
"""Latency of the language server (`python -m rulemap serve --stdio`) on the synthetic monorepo.

    python benchmarks/bench_lsp.py [--tree DIR] [--small] [--edits 30] [--debounce-ms 0]

A minimal LSP client written here (Content-Length framing over the server's stdin/stdout, a
reader thread that timestamps every message on arrival) impersonates VS Code's capabilities:
push diagnostics (no `textDocument.diagnostic` capability), dynamic registration of watched
files (so the server does not start its own file watcher), UTF-16 positions. Measured:

- `initialize` sent → first `textDocument/publishDiagnostics` (target < 2 s), and → the last
  publish of the initial wave (when nothing new arrived for --settle seconds);
- `didChange` of an open AGENTS.md → its `publishDiagnostics` (each edit adds a different missing
  `@import`, so the file's diagnostics change every time and must be re-published);
  p50/p95, target p95 < 20 ms. The server debounces edits (`diagnostics.debounceMs`, 150 ms by
  default); the benchmark sets it through initializationOptions (--debounce-ms, default 0) so
  the figure is the server's own work, and reports the value used;
- `textDocument/hover` at (0,0) of source files (each opened first), first hover per file and
  repeated hovers, once the server is idle; target p95 < 10 ms. Apart from those, hovers sent
  right after an edit that adds or removes an import: the server handles the edit first (its
  document's own findings, on the event loop) and checks the whole workspace in its worker
  thread meanwhile (the two share one interpreter);
- `rulemap/effectiveInstructions` for source files;
- edits while the server indexes: from the first publishDiagnostics on, while its worker still
  builds its copy of the workspace and checks it whole (issue #37: p95 ≤ 20 ms);
- hovers and completions while a whole check runs: an edit that adds or removes an import
  starts one in the worker; hovers on source files and completions after `@` in the edited
  file are sent at once, several each (issue #37: p95 ≤ 20 ms);
- the server's peak RSS (VmHWM of /proc/PID/status) at the end (issue #37: ≤ 250 MB);
- with --baseline CHECKOUT, the same run against another checkout's `server/` first, and
  each row side by side with it (the ratio is this checkout's p95 ÷ the baseline's).
- the root AGENTS.md opened after the initial wave: time to its "who loads it" code lens, then
  code lenses, paragraph hovers ("who sees this paragraph") and `rulemap/unseenLines`.

Writes benchmarks/results/lsp.json.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

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

TARGET_FIRST_DIAG_S = 1.5  # issue #37: cold, on the monorepo
TARGET_START_CACHE_S = 0.3  # issue #37: from the start cache
TARGET_BUSY_P95_S = 0.020  # issue #37: hover/completion while a whole check runs
TARGET_RSS_MB = 250.0  # issue #37: the server on every 10× shape
TARGET_EDIT_P95_S = 0.020  # issue #18 (was 50 ms)
TARGET_HOVER_P95_S = 0.010
TARGET_LENS_S = 0.050  # the "who loads it" lens once the graph is ready (issue: <= 50 ms)


class Client:
    def __init__(self, cmd: list[str], env: dict[str, str], log_path: str) -> None:
        self._log = open(log_path, "wb")  # noqa: SIM115  # the server's stderr
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log, env=env, cwd=REPO
        )
        self.inbox: queue.Queue[tuple[float, dict]] = queue.Queue()
        self._next_id = 0
        self._lock = threading.Lock()
        self.pending: dict[int, tuple[float, dict] | None] = {}
        self.notifications: list[tuple[float, dict]] = []
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()

    # ------------------------------------------------------------ transport
    def _send(self, msg: dict) -> float:
        body = json.dumps(msg, separators=(",", ":")).encode("utf-8")
        data = b"Content-Length: %d\r\n\r\n" % len(body) + body
        with self._lock:
            t = time.perf_counter()
            assert self.proc.stdin is not None
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        return t

    def _read_loop(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    with self._cond:
                        self._cond.notify_all()
                    return
                line = line.strip()
                if not line:
                    break
                k, _, v = line.partition(b":")
                if k.lower() == b"content-length":
                    length = int(v.strip())
            if length is None:
                continue
            body = out.read(length)
            t = time.perf_counter()
            msg = json.loads(body)
            self._dispatch(t, msg)

    def _dispatch(self, t: float, msg: dict) -> None:
        if "id" in msg and "method" in msg:  # a request from the server: answer at once
            method = msg["method"]
            result: object = None
            if method == "workspace/configuration":
                result = [None for _ in msg.get("params", {}).get("items", [])]
            self._send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
            return
        with self._cond:
            if "id" in msg:
                self.pending[msg["id"]] = (t, msg)
            else:
                self.notifications.append((t, msg))
            self._cond.notify_all()

    # ------------------------------------------------------------ API
    def request(self, method: str, params: object, timeout: float = 60.0) -> tuple[float, dict]:
        """Send a request; return (latency seconds, response)."""
        with self._cond:
            self._next_id += 1
            rid = self._next_id
            self.pending[rid] = None
        t0 = self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        deadline = t0 + timeout
        with self._cond:
            while self.pending.get(rid) is None:
                left = deadline - time.perf_counter()
                if left <= 0 or self.proc.poll() is not None:
                    raise TimeoutError(f"{method}: no response")
                self._cond.wait(left)
            t1, msg = self.pending.pop(rid)  # type: ignore[misc]
        if "error" in msg:
            raise RuntimeError(f"{method}: {msg['error']}")
        return t1 - t0, msg

    def notify(self, method: str, params: object) -> float:
        return self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_notification(self, pred, after: float, timeout: float = 30.0):  # noqa: ANN001,ANN201
        """First notification received at or after `after` matching pred: (time, msg)."""
        deadline = time.perf_counter() + timeout
        with self._cond:
            while True:
                for t, msg in self.notifications:
                    if t >= after and pred(msg):
                        return t, msg
                left = deadline - time.perf_counter()
                if left <= 0 or self.proc.poll() is not None:
                    return None
                self._cond.wait(left)

    def settle(self, method: str, quiet: float, timeout: float) -> float | None:
        """Wait until no `method` notification arrived for `quiet` seconds; time of the last."""
        end = time.perf_counter() + timeout
        while time.perf_counter() < end:
            with self._cond:
                times = [t for t, m in self.notifications if m.get("method") == method]
            last = times[-1] if times else None
            ref = last if last is not None else time.perf_counter()
            if last is not None and time.perf_counter() - ref >= quiet:
                return last
            time.sleep(min(quiet / 4, 0.05))
        return None

    def close(self) -> None:
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        except Exception:  # noqa: BLE001
            self.proc.kill()
            self.proc.wait()
        self._log.close()


def _start_cache_times(cmd: list[str], init_params: dict, runs: int, log: str,
                       settle: float, server_dir: str | None = None) -> list[float]:
    """Spawn + initialize → first publishDiagnostics, `runs` times over one temporary cache
    directory: the first run fills the start cache, the others start from it."""
    if runs <= 0:
        return []
    times: list[float] = []
    with tempfile.TemporaryDirectory(prefix="rulemap-start-cache-") as cache:
        env = _env(server_dir)
        env.pop("RULEMAP_NO_CACHE", None)
        env["RULEMAP_CACHE_DIR"] = cache
        for _ in range(runs):
            client = Client(cmd, env, log + ".start")
            try:
                started = time.perf_counter()
                client.request("initialize", init_params, timeout=120)
                client.notify("initialized", {})
                first = client.wait_notification(
                    lambda m: m.get("method") == "textDocument/publishDiagnostics", started,
                    timeout=120)
                if first is None:
                    break
                times.append(first[0] - started)
                # the whole check's diagnostics, then the entry written after them
                client.settle("textDocument/publishDiagnostics", settle, timeout=120)
            finally:
                client.close()
    return times


def _hovers_after_edits(client: Client, path: str, text: str, tree: str,
                          sources: list[str], runs: int = 10) -> list[float]:
    """Hovers sent right after an edit of `path` that adds or removes an import: the server
    answers each once it has handled the edit (its document's own findings, on the loop),
    while its worker checks the whole workspace again."""
    doc = {"uri": uri(path)}
    client.notify("textDocument/didOpen", {"textDocument": {
        **doc, "languageId": "markdown", "version": 1, "text": text}})
    client.settle("textDocument/publishDiagnostics", 0.3, timeout=30)
    times: list[float] = []
    for i in range(runs):
        changed = text + (f"\n- See @docs/busy-{i}.md\n" if i % 2 == 0 else "")
        client.notify("textDocument/didChange", {"textDocument": {**doc, "version": i + 2},
                                                 "contentChanges": [{"text": changed}]})
        source = {"uri": uri(os.path.join(tree, sources[i % len(sources)]))}
        times.append(client.request("textDocument/hover", {
            "textDocument": source, "position": {"line": 0, "character": 0}})[0])
        client.settle("textDocument/publishDiagnostics", 0.3, timeout=30)
    client.notify("textDocument/didClose", {"textDocument": doc})
    client.settle("textDocument/publishDiagnostics", 0.3, timeout=30)
    return times


def _reverse_views(client: Client, path: str, repeats: int = 20) -> dict[str, object]:
    """Open `path`; time its "who loads it" lens (polled), then repeated lenses, paragraph
    hovers and `rulemap/unseenLines`."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    doc = {"uri": uri(path)}
    t0 = client.notify("textDocument/didOpen", {"textDocument": {
        **doc, "languageId": "markdown", "version": 1, "text": text}})
    ready: float | None = None
    while time.perf_counter() - t0 < 30:
        _, resp = client.request("textDocument/codeLens", {"textDocument": doc})
        titles = [(lens.get("command") or {}).get("title", "") for lens in resp.get("result")
                  or []]
        if any(t.startswith("who loads it") for t in titles):
            ready = time.perf_counter() - t0
            break
        time.sleep(0.01)
    lens: list[float] = []
    hover: list[float] = []
    unseen: list[float] = []
    lines = text.splitlines()
    body = [i for i, line in enumerate(lines) if line.strip() and not line.startswith("#")
            and "@" not in line] or [0]
    for i in range(repeats):
        lens.append(client.request("textDocument/codeLens", {"textDocument": doc})[0])
        hover.append(client.request("textDocument/hover", {"textDocument": doc, "position": {
            "line": body[i % len(body)], "character": 0}})[0])
        unseen.append(client.request("rulemap/unseenLines", doc)[0])
    client.notify("textDocument/didClose", {"textDocument": doc})
    return {"who_loads_it_lens_ready_s": ready, "code_lens_s": summarize(lens),
            "paragraph_hover_s": summarize(hover), "unseen_lines_s": summarize(unseen)}


def uri(path: str) -> str:
    return Path(path).as_uri()


def peak_rss_mb(pid: int) -> float | None:
    """The process's peak resident set (VmHWM), in MB."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def _edits_while_indexing(client: Client, path: str, text: str, count: int) -> list[float]:
    """didChange → its publishDiagnostics, sent as soon as the first diagnostics are out:
    the worker is still building its copy of the workspace and checking it whole."""
    doc_uri = uri(path)
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": doc_uri, "languageId": "markdown", "version": 1, "text": text}})
    times: list[float] = []
    for i in range(count):
        version = i + 2

        def match(m: dict, v: int = version) -> bool:
            if m.get("method") != "textDocument/publishDiagnostics":
                return False
            p = m["params"]
            return bool(p["uri"] == doc_uri and (p.get("version") or 0) >= v)

        t0 = client.notify("textDocument/didChange", {
            "textDocument": {"uri": doc_uri, "version": version},
            "contentChanges": [{"text": text + f"\n- See @docs/indexing-{i}.md\n"}]})
        got = client.wait_notification(match, t0, timeout=30)
        if got is not None:
            times.append(got[0] - t0)
        time.sleep(0.02)
    client.notify("textDocument/didClose", {"textDocument": {"uri": doc_uri}})
    return times


def _busy_requests(client: Client, path: str, text: str, tree: str, sources: list[str],
                   runs: int = 8, each: int = 3) -> tuple[list[float], list[float]]:
    """Hovers on source files and completions after `@` in `path`, sent right after an edit
    of `path` that adds or removes an import (the worker checks the whole workspace
    meanwhile): their latencies."""
    doc = {"uri": uri(path)}
    client.notify("textDocument/didOpen", {"textDocument": {
        **doc, "languageId": "markdown", "version": 1, "text": text}})
    client.settle("textDocument/publishDiagnostics", 0.3, timeout=30)
    hovers: list[float] = []
    completions: list[float] = []
    for i in range(runs):
        changed = text + (f"\n- See @docs/busy-{i}.md\n" if i % 2 == 0 else "") + "\nSee @"
        line = changed.count("\n")
        client.notify("textDocument/didChange", {"textDocument": {**doc, "version": i + 2},
                                                 "contentChanges": [{"text": changed}]})
        time.sleep(0.005)  # the edit handled, the worker's check started
        for j in range(each):
            source = {"uri": uri(os.path.join(tree, sources[(i * each + j) % len(sources)]))}
            hovers.append(client.request("textDocument/hover", {
                "textDocument": source, "position": {"line": 0, "character": 0}})[0])
            completions.append(client.request("textDocument/completion", {
                "textDocument": doc, "position": {"line": line, "character": 5}})[0])
        client.settle("textDocument/publishDiagnostics", 0.3, timeout=30)
    client.notify("textDocument/didClose", {"textDocument": doc})
    client.settle("textDocument/publishDiagnostics", 0.3, timeout=30)
    return hovers, completions


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree")
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--edits", type=int, default=30)
    ap.add_argument("--hovers", type=int, default=30, help="source files to hover (30)")
    ap.add_argument(
        "--graph-edits",
        type=int,
        default=8,
        help="edits whose new finding only the full (graph-wide) check reports (6)",
    )
    ap.add_argument(
        "--debounce-ms",
        type=int,
        default=0,
        help="server-side diagnostics debounce to configure (0; the default is 150)",
    )
    ap.add_argument(
        "--settle",
        type=float,
        default=1.0,
        help="quiet seconds that end the initial diagnostics wave (1.0)",
    )
    ap.add_argument("--python", default=default_python())
    ap.add_argument("--log", default="/tmp/rulemap-bench-lsp.log", help="server stderr")
    ap.add_argument(
        "--server", help="server command line (default: PYTHON -m rulemap serve --stdio)"
    )
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--indexing-edits", type=int, default=15,
                    help="edits sent from the first diagnostics on, while indexing (15)")
    ap.add_argument("--baseline", metavar="CHECKOUT",
                    help="another checkout: the same run with its server/ first, side by side")
    ap.add_argument(
        "--start-runs", type=int, default=4,
        help="server starts timed with the start cache (lsp/start_cache.py) in a temporary "
        "cache directory: the first fills it, the others start from it (4; 0: skip)",
    )
    args = ap.parse_args(argv)

    tree = os.path.abspath(args.tree) if args.tree else ensure_tree(args.small, args.seed)
    manifest = load_manifest(tree)
    bench = manifest.get("bench", {})
    edit_key = bench.get("edit_agents_md") or "AGENTS.md"
    sources = [s for s in bench.get("hover_sources", []) if os.path.isfile(os.path.join(tree, s))]
    if not sources:
        sources = [str(p.relative_to(tree)) for p in sorted(Path(tree).rglob("*.ts"))[:50]]
    sources = sources[: args.hovers]
    load0 = os.getloadavg()[0]

    cmd = (
        shlex.split(args.server)
        if args.server
        else [args.python, "-m", "rulemap", "serve", "--stdio"]
    )
    caps = {
        "general": {"positionEncodings": ["utf-16"]},
        "textDocument": {
            "synchronization": {"dynamicRegistration": False, "didSave": True},
            "publishDiagnostics": {
                "relatedInformation": True,
                "versionSupport": True,
                "codeDescriptionSupport": True,
                "dataSupport": True,
            },
            "hover": {"contentFormat": ["markdown", "plaintext"]},
        },
        "workspace": {
            "workspaceFolders": True,
            "configuration": False,
            "didChangeWatchedFiles": {"dynamicRegistration": True},
        },
        "window": {"workDoneProgress": False},
    }
    init_params = {
        "processId": os.getpid(),
        "rootUri": uri(tree),
        "workspaceFolders": [{"uri": uri(tree), "name": os.path.basename(tree)}],
        "capabilities": caps,
        "initializationOptions": {"diagnostics": {"debounceMs": args.debounce_ms}},
    }
    baseline: dict[str, object] | None = None
    if args.baseline:
        print(f"baseline: {args.baseline}", file=sys.stderr)
        baseline = _run(args, cmd, init_params, tree, edit_key, sources,
                        os.path.join(os.path.abspath(args.baseline), "server"))
        print(f"this checkout: {REPO}", file=sys.stderr)
    results = _run(args, cmd, init_params, tree, edit_key, sources, None)
    if not results:
        return 2
    _report(args, tree, results, baseline, load0)
    return 0


def _env(server_dir: str | None) -> dict[str, str]:
    env = rulemap_env()
    if server_dir is not None:
        env["PYTHONPATH"] = server_dir
    return env


def _run(args: argparse.Namespace, cmd: list[str], init_params: dict, tree: str,
         edit_key: str, sources: list[str], server_dir: str | None) -> dict[str, object]:
    """One run of every measure against the server on PYTHONPATH `server_dir` (None: this
    checkout's); {} when the server published nothing."""
    results: dict[str, object] = {}
    start_times = _start_cache_times(cmd, init_params, args.start_runs, args.log, args.settle,
                                     server_dir)
    client = Client(cmd, _env(server_dir), args.log)
    edit_path = os.path.join(tree, edit_key)
    with open(edit_path, encoding="utf-8") as fh:
        original = fh.read()
    try:
        # ------------------------------------------------------------ startup
        t_start = time.perf_counter()
        init_latency, _ = client.request("initialize", init_params, timeout=120)
        client.notify("initialized", {})
        first = client.wait_notification(
            lambda m: m.get("method") == "textDocument/publishDiagnostics", t_start, timeout=120
        )
        if first is None:
            print(
                "no publishDiagnostics after initialize; server log: " + args.log, file=sys.stderr
            )
            return {}
        t_first = first[0] - t_start
        indexing_lat = _edits_while_indexing(client, edit_path, original, args.indexing_edits)
        last = client.settle("textDocument/publishDiagnostics", args.settle, timeout=120)
        t_wave = (last - t_start) if last else None
        n_wave = sum(
            1
            for _, m in client.notifications
            if m.get("method") == "textDocument/publishDiagnostics"
        )
        print(
            f"initialize → response {fmt_ms(init_latency)}, → first publishDiagnostics "
            f"{fmt_ms(t_first)}, → last of the initial wave {fmt_ms(t_wave) if t_wave else '?'} "
            f"({n_wave} publishes)",
            file=sys.stderr,
        )

        # ------------------------------------------------------------ edits
        edit_uri = uri(edit_path)
        client.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": edit_uri,
                    "languageId": "markdown",
                    "version": 1,
                    "text": original,
                }
            },
        )
        client.wait_notification(
            lambda m: (
                m.get("method") == "textDocument/publishDiagnostics"
                and m["params"]["uri"] == edit_uri
            ),
            0,
            timeout=5,
        )
        time.sleep(0.3)
        edit_lat: list[float] = []
        missed = 0
        for i in range(args.edits + 2):
            version = i + 2
            text = original + f"\n- See @docs/missing-{i}.md for edit {i}\n"

            def match(m: dict, v: int = version, n: int = i) -> bool:
                if m.get("method") != "textDocument/publishDiagnostics":
                    return False
                p = m["params"]
                if p["uri"] != edit_uri:
                    return False
                if p.get("version") is not None:
                    return p["version"] >= v
                return any(f"missing-{n}.md" in d.get("message", "") for d in p["diagnostics"])

            t0 = client.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": edit_uri, "version": version},
                    "contentChanges": [{"text": text}],
                },
            )
            got = client.wait_notification(match, t0, timeout=10)
            if got is None:
                missed += 1
                if missed >= 3 and not edit_lat:
                    print(
                        f"no publishDiagnostics for 3 edits; giving up on edits (see {args.log})",
                        file=sys.stderr,
                    )
                    break
                continue
            if i >= 2:  # two warm-up edits
                edit_lat.append(got[0] - t0)
            time.sleep(0.05)
        # graph-wide findings come from the server's full check (off the event loop): an edit
        # that toggles `@<root AGENTS.md>` adds/removes a duplicate-load finding on this file,
        # which only the full check reports; time didChange → the publish that shows it.
        graph_lat: list[float] = []
        graph_missed = 0
        up = os.path.relpath(os.path.join(tree, "AGENTS.md"), os.path.dirname(edit_path))
        base_text = (
            original + f"\n- See @docs/missing-{args.edits + 1}.md for edit {args.edits + 1}\n"
        )
        version = args.edits + 10
        dup_line = base_text.count("\n") + 1  # the line of the added import
        for i in range(2 * args.graph_edits):
            version += 1
            on = i % 2 == 0
            text = base_text + (f"\nThe root rules apply: @{up}\n" if on else "")

            def has_dup(m: dict, want: bool = on) -> bool:
                if m.get("method") != "textDocument/publishDiagnostics":
                    return False
                p = m["params"]
                if p["uri"] != edit_uri:
                    return False
                dup = any(
                    d.get("code") == "duplicate-load" and d["range"]["start"]["line"] == dup_line
                    for d in p["diagnostics"]
                )
                return dup == want

            t0 = client.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": edit_uri, "version": version},
                    "contentChanges": [{"text": text}],
                },
            )
            got = client.wait_notification(has_dup, t0, timeout=30)
            if got is None:
                graph_missed += on
                if graph_missed >= 2 and not graph_lat:
                    break
                continue
            if on:  # only the appearance is timed: removal is handled by the fast path
                graph_lat.append(got[0] - t0)
            time.sleep(0.2)
        client.notify("textDocument/didClose", {"textDocument": {"uri": edit_uri}})
        # closing the edited file brings its disk text back, which the server checks whole
        # once more (~40 ms in its worker); the hovers below are timed once that is published,
        # with the server idle. Hovers sent right after an edit are timed apart, further down.
        client.settle("textDocument/publishDiagnostics", 0.3, timeout=30)

        # ------------------------------------------------------------ hovers
        hover_first: list[float] = []
        hover_again: list[float] = []
        empty_hovers = 0
        for src in sources:
            p = os.path.join(tree, src)
            with open(p, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            su = uri(p)
            lang = {"ts": "typescript", "tsx": "typescriptreact", "py": "python", "go": "go"}.get(
                src.rsplit(".", 1)[-1], "plaintext"
            )
            client.notify(
                "textDocument/didOpen",
                {"textDocument": {"uri": su, "languageId": lang, "version": 1, "text": text}},
            )
            params = {"textDocument": {"uri": su}, "position": {"line": 0, "character": 0}}
            lat, resp = client.request("textDocument/hover", params)
            hover_first.append(lat)
            if not resp.get("result"):
                empty_hovers += 1
            for _ in range(3):
                lat, _ = client.request("textDocument/hover", params)
                hover_again.append(lat)
            client.notify("textDocument/didClose", {"textDocument": {"uri": su}})

        hover_after_edit = _hovers_after_edits(client, edit_path, original, tree, sources)
        busy_hovers, busy_completions = _busy_requests(client, edit_path, original, tree,
                                                       sources)

        # ------------------------------------------------------------ who sees it
        # the root AGENTS.md opened once the initial wave settled (the graph is ready): time
        # to the "who loads it" lens, then the lens, the paragraph hover and
        # rulemap/unseenLines once the per-agent overview is there
        reverse = _reverse_views(client, os.path.join(tree, "AGENTS.md"))

        # ------------------------------------------------------------ effectiveInstructions
        eff: list[float] = []
        eff_files: list[int] = []
        for src in sources:
            lat, resp = client.request(
                "rulemap/effectiveInstructions", {"uri": uri(os.path.join(tree, src))}
            )
            eff.append(lat)
            r = resp.get("result") or {}
            eff_files.append(len(r.get("files", [])))
        rss = peak_rss_mb(client.proc.pid)
    finally:
        client.close()
    errors = []
    try:
        with open(args.log, encoding="utf-8", errors="replace") as fh:
            errors = [ln.rstrip() for ln in fh if " ERROR " in ln or "Error:" in ln]
    except OSError:
        pass
    if errors:
        print(f"server log has {len(errors)} error lines, e.g.: {errors[0][:200]}", file=sys.stderr)
    results = {
        "edit_while_indexing_s": summarize(indexing_lat) if indexing_lat else None,
        "hover_during_check_s": summarize(busy_hovers) if busy_hovers else None,
        "completion_during_check_s": summarize(busy_completions) if busy_completions else None,
        "peak_rss_mb": rss,
        "edited_file": edit_key,
        "hover_files": sources,
        "initialize_response_s": init_latency,
        "first_publish_diagnostics_s": t_first,
        "initial_wave_s": t_wave,
        "initial_wave_publishes": n_wave,
        "edit_to_publish_s": summarize(edit_lat) if edit_lat else None,
        "edits_missed": missed,
        "graph_edit_to_publish_s": summarize(graph_lat) if graph_lat else None,
        "graph_edits_missed": graph_missed,
        "hover_first_s": summarize(hover_first) if hover_first else None,
        "hover_repeat_s": summarize(hover_again) if hover_again else None,
        "hover_empty": empty_hovers,
        "hover_after_edit_s": summarize(hover_after_edit) if hover_after_edit else None,
        "effective_instructions_s": summarize(eff) if eff else None,
        "effective_instructions_mean_files": (sum(eff_files) / len(eff_files))
        if eff_files
        else None,
        "server_log_error_lines": len(errors),
        **reverse,
        # spawn + initialize → first publishDiagnostics with the start cache: filling it, then
        # starting from it (the runs above have RULEMAP_NO_CACHE=1, as every cold figure)
        "first_publish_start_cache_empty_s": start_times[0] if start_times else None,
        "first_publish_from_start_cache_s": summarize(start_times[1:])
        if len(start_times) > 1 else None,
    }
    return results


def _report(args: argparse.Namespace, tree: str, results: dict[str, Any],
            baseline: dict[str, Any] | None, load0: float) -> None:
    load1 = os.getloadavg()[0]
    t_first = results["first_publish_diagnostics_s"]
    t_wave = results["initial_wave_s"]
    n_wave = results["initial_wave_publishes"]
    start_empty = results["first_publish_start_cache_empty_s"]
    missed = results["edits_missed"]
    graph_missed = results["graph_edits_missed"]
    empty_hovers = results["hover_empty"]
    m = machine()
    print()
    print(f"Language server latency on {tree}")
    print(
        f"  machine: {m['cpus']} CPUs, {m['cpu_model']}, Python {m['python']}; load average "
        f"{load0:.2f} → {load1:.2f}; diagnostics.debounceMs = {args.debounce_ms}"
    )
    print()
    hdr = f"{'measure':<44}{'p50':>10}{'p95':>10}{'max':>10}{'n':>6}   target"
    if baseline is not None:
        print(f"(in brackets: {args.baseline}, run first: its p50 / p95 and this checkout's "
              "÷ them, or its single figure and the ratio)")
    print(hdr)
    print("-" * (len(hdr) + 12))
    print(
        f"{'spawn + initialize → first publishDiagnostics':<44}{fmt_ms(t_first):>10}"
        f"{'':>10}{'':>10}{1:>6}"
        f"   ≤ {TARGET_FIRST_DIAG_S:.1f} s {'PASS' if t_first <= TARGET_FIRST_DIAG_S else 'FAIL'}"
        + _versus(baseline, "first_publish_diagnostics_s", t_first)
    )
    if t_wave:
        print(
            f"{'initialize → last initial publish':<44}{fmt_ms(t_wave):>10}{'':>10}{'':>10}"
            f"{n_wave:>6}"
        )

    if start_empty is not None:
        warm = results["first_publish_from_start_cache_s"]
        print(f"{'… the start cache empty (it is filled)':<44}{fmt_ms(start_empty):>10}")
        if isinstance(warm, dict):
            print(f"{'… from the start cache (median of runs)':<44}{fmt_ms(warm['median']):>10}"
                  f"{fmt_ms(warm['p95']):>10}{fmt_ms(warm['max']):>10}{warm['n']:>6}"
                  f"   ≤ {TARGET_START_CACHE_S * 1000:.0f} ms "
                  f"{'PASS' if warm['median'] <= TARGET_START_CACHE_S else 'FAIL'}"
                  + _versus(baseline, "first_publish_from_start_cache_s", warm["median"],
                            "median"))

    def row(label: str, s: dict | None, target: float | None, name: str = "") -> None:
        if not s:
            print(f"{label:<44}{'n/a':>10}")
            return
        verdict = ""
        if target is not None:
            verdict = f"   p95 ≤ {target * 1000:.0f} ms {'PASS' if s['p95'] <= target else 'FAIL'}"
        print(
            f"{label:<44}{fmt_ms(s['median']):>10}{fmt_ms(s['p95']):>10}{fmt_ms(s['max']):>10}"
            f"{s['n']:>6}{verdict}" + (_versus_summary(baseline, name, s) if name else "")
        )

    row("didChange while indexing → publish", results["edit_while_indexing_s"],
        TARGET_EDIT_P95_S, "edit_while_indexing_s")

    row("didChange AGENTS.md → publishDiagnostics", results["edit_to_publish_s"], TARGET_EDIT_P95_S,
        "edit_to_publish_s")
    row("didChange → graph-wide finding published", results["graph_edit_to_publish_s"], None)
    row("hover (0,0) on a source file, first", results["hover_first_s"], TARGET_HOVER_P95_S)
    row("hover (0,0) on a source file, repeated", results["hover_repeat_s"], TARGET_HOVER_P95_S)
    row("hover sent right after an edit", results["hover_after_edit_s"], None,
        "hover_after_edit_s")
    row("hover while a whole check runs", results["hover_during_check_s"], TARGET_BUSY_P95_S,
        "hover_during_check_s")
    row("completion while a whole check runs", results["completion_during_check_s"],
        TARGET_BUSY_P95_S, "completion_during_check_s")
    row("rulemap/effectiveInstructions", results["effective_instructions_s"], None)
    ready = results.get("who_loads_it_lens_ready_s")
    label = 'open AGENTS.md → "who loads it" lens'
    print(f"{label:<44}{fmt_ms(ready) if isinstance(ready, float) else 'n/a':>10}")
    row("code lens on AGENTS.md, after that", results.get("code_lens_s"), TARGET_LENS_S)
    row("hover on a paragraph of AGENTS.md", results.get("paragraph_hover_s"),
        TARGET_HOVER_P95_S)
    row("rulemap/unseenLines AGENTS.md", results.get("unseen_lines_s"), None)
    rss = results.get("peak_rss_mb")
    if isinstance(rss, float):
        print(f"{'server peak RSS (VmHWM)':<44}{rss:>8.0f} MB{'':>20}"
              f"   ≤ {TARGET_RSS_MB:.0f} MB {'PASS' if rss <= TARGET_RSS_MB else 'FAIL'}"
              + _versus(baseline, "peak_rss_mb", rss))
    if missed:
        print(f"({missed} edits got no publishDiagnostics within 10 s)")
    if graph_missed:
        print(f"({graph_missed} graph edits got no matching publishDiagnostics within 30 s)")
    if empty_hovers:
        hovered = (results["hover_first_s"] or {}).get("n", 0)
        print(f"({empty_hovers} of {hovered} hovers returned nothing)")

    if not args.no_write:
        out = write_result(
            "lsp-small.json" if args.small and not args.tree else "lsp.json",
            {
                "benchmark": "language server latency",
                "date": now_utc(),
                "machine": m,
                "load_average": [load0, load1],
                "rulemap_revision": repo_revision(),
                "tree": tree,
                "debounce_ms": args.debounce_ms,
                "edited_file": results.get("edited_file"),
                "hover_files": results.get("hover_files"),
                "results": results,
                "baseline": {"checkout": args.baseline, "results": baseline}
                if baseline is not None else None,
                "targets": {
                    "first_diagnostics_s": TARGET_FIRST_DIAG_S,
                    "start_cache_s": TARGET_START_CACHE_S,
                    "busy_p95_s": TARGET_BUSY_P95_S,
                    "peak_rss_mb": TARGET_RSS_MB,
                    "edit_p95_s": TARGET_EDIT_P95_S,
                    "hover_p95_s": TARGET_HOVER_P95_S,
                },
            },
        )
        print(f"wrote {os.path.relpath(out, REPO)}")


def _versus_summary(baseline: dict[str, Any] | None, name: str, mine: dict[str, Any]) -> str:
    """`  [baseline's p50 / p95, mine ÷ it for each]` for a row of latencies."""
    if baseline is None:
        return ""
    theirs = baseline.get(name)
    if not isinstance(theirs, dict) or not theirs.get("median") or not theirs.get("p95"):
        return "  [n/a]"
    return (f"  [{fmt_ms(theirs['median'])} / {fmt_ms(theirs['p95'])}, "
            f"×{mine['median'] / theirs['median']:.2f} / ×{mine['p95'] / theirs['p95']:.2f}]")


def _versus(baseline: dict[str, Any] | None, name: str, mine: float,
            field: str | None = None) -> str:
    """`  [baseline's figure, mine ÷ it]` for a row, or nothing without a baseline."""
    if baseline is None:
        return ""
    theirs = baseline.get(name)
    if isinstance(theirs, dict) and field is not None:
        theirs = theirs.get(field)
    if not isinstance(theirs, (int, float)) or not theirs:
        return "  [n/a]"
    shown = f"{theirs:.0f} MB" if name == "peak_rss_mb" else fmt_ms(theirs)
    return f"  [{shown}, ×{mine / theirs:.2f}]"


if __name__ == "__main__":
    raise SystemExit(main())
