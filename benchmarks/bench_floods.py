#!/usr/bin/env python3
"""The language server under floods (issue #34): does it keep answering, and with what?

    python benchmarks/bench_floods.py [--burst 3000] [--edits 500] [--keep-asking 3]

Two sessions of `python -m rulemap serve --stdio`, driven by bench_lsp.py's client with VS
Code's capabilities (pull diagnostics, watched files registered by the client, so the server
starts no watcher of its own):

- **burst**: a document imports --burst files that do not exist; they are created on disk, then
  reported in --burst `workspace/didChangeWatchedFiles` notifications of one file each (a
  `git checkout`, a code generator). Right after them a hover, then hovers every 50 ms for
  --keep-asking seconds: their latencies (goal: each within 200 ms). Then a
  `workspace/diagnostic` pull: how long it takes, and whether its broken imports are those of
  the final tree.
- **storm**: --edits `didChange` of an open ~1 MB AGENTS.md, as fast as the pipe takes them
  (each edit changes its stale `npm run` commands, findings of the whole check); then at once a
  `textDocument/diagnostic` pull: how long it takes, whether its stale-command findings are
  those of the last text, and the server's peak RSS (VmHWM; goal < 250 MB).

Writes benchmarks/results/floods.json.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import (  # noqa: E402
    default_python,
    fmt_ms,
    machine,
    now_utc,
    repo_revision,
    rulemap_env,
    summarize,
    write_result,
)
from bench_lsp import Client, uri  # noqa: E402

HOVER_GOAL_S = 0.200
PEAK_GOAL_MB = 250

CAPS = {
    "general": {"positionEncodings": ["utf-16"]},
    "textDocument": {
        "synchronization": {"dynamicRegistration": False, "didSave": True},
        "diagnostic": {"dynamicRegistration": False},
        "hover": {"contentFormat": ["markdown", "plaintext"]},
    },
    "workspace": {
        "workspaceFolders": True,
        "configuration": False,
        "didChangeWatchedFiles": {"dynamicRegistration": True},
        "diagnostics": {"refreshSupport": False},
    },
    "window": {"workDoneProgress": False},
}


def start(cmd: list[str], tree: str, log: str) -> Client:
    client = Client(cmd, rulemap_env(), log)
    client.request("initialize", {
        "processId": os.getpid(), "rootUri": uri(tree), "capabilities": CAPS,
        "workspaceFolders": [{"uri": uri(tree), "name": os.path.basename(tree)}],
    }, timeout=120)
    client.notify("initialized", {})
    return client


def pull(client: Client, path: str, timeout: float = 300) -> tuple[float, list[dict]]:
    took, msg = client.request("textDocument/diagnostic",
                               {"textDocument": {"uri": uri(path)}}, timeout=timeout)
    return took, msg["result"].get("items", [])


def pull_until(client: Client, path: str, enough, timeout: float = 120) -> None:  # noqa: ANN001
    end = time.perf_counter() + timeout
    while time.perf_counter() < end:
        if enough(pull(client, path)[1]):
            return
        time.sleep(0.1)
    raise TimeoutError(f"diagnostics of {path} never came")


def count(items: list[dict], code: str) -> int:
    return sum(1 for d in items if d.get("code") == code)


def peak_rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def write_tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def burst(cmd: list[str], n: int, keep_asking: float, log: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="rulemap-burst-") as tmp:
        root = Path(tmp) / "repo"
        (root / ".git").mkdir(parents=True)
        write_tree(root, {
            "AGENTS.md": "# Root\n\nMany: @docs/many.md\n",
            "docs/many.md": "".join(f"- @m/{i}.md\n" for i in range(n)),
            "src/app.ts": "export {}\n",
        })
        many, app, agents = (str(root / p) for p in ("docs/many.md", "src/app.ts", "AGENTS.md"))
        client = start(cmd, str(root), log)
        try:
            pull_until(client, many, lambda items: count(items, "broken-import") == n)
            left = 7  # imports that stay broken
            for i in range(n - left):
                (root / f"docs/m/{i}.md").parent.mkdir(parents=True, exist_ok=True)
                (root / f"docs/m/{i}.md").write_text(f"m{i}\n", encoding="utf-8")
            sent = time.perf_counter()
            for i in range(n - left):
                client.notify("workspace/didChangeWatchedFiles", {"changes": [
                    {"uri": uri(str(root / f"docs/m/{i}.md")), "type": 1}]})
            sending = time.perf_counter() - sent
            hovers = []
            first, _ = client.request("textDocument/hover", {
                "textDocument": {"uri": uri(app)}, "position": {"line": 0, "character": 0}})
            hovers.append(first)
            end = time.perf_counter() + keep_asking
            i = 0
            while time.perf_counter() < end:
                time.sleep(0.05)
                target, at = ((agents, (2, 9)), (app, (0, 0)))[i % 2]
                hovers.append(client.request("textDocument/hover", {
                    "textDocument": {"uri": uri(target)},
                    "position": {"line": at[0], "character": at[1]}})[0])
                i += 1
            took, msg = client.request("workspace/diagnostic", {"previousResultIds": []},
                                       timeout=300)
            items = {r["uri"]: r.get("items", []) for r in msg["result"]["items"]}
            broken = count(items.get(uri(many), []), "broken-import")
            peak = peak_rss_mb(client.proc.pid)
        finally:
            client.close()
    return {"events": n - left, "sending_s": sending, "first_hover_s": first,
            "hovers_s": summarize(hovers), "workspace_pull_s": took,
            "broken_imports_after": broken, "broken_imports_expected": left,
            "peak_rss_mb": peak}


def big_agents_md() -> str:
    parts, size, i = ["# Project\n\n"], 0, 0
    while size < 1_000_000:
        part = (f"Paragraph {i}: keep the module boundaries clean and write tests for every "
                f"change you make to the code base.\n\n")
        if i % 40 == 0:
            part += f"Run `npm run tets{i}` before pushing.\n\n"
        parts.append(part)
        size += len(part)
        i += 1
    return "".join(parts)


def storm_text(base: str, version: int) -> str:
    head = "".join(f"Run `npm run gone{k}` first.\n\n" for k in range(version % 7))
    tail = "".join(f"Then `npm run added{k}`.\n\n" for k in range(version // 10))
    return head + base + tail


def storm(cmd: list[str], edits: int, log: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="rulemap-storm-") as tmp:
        root = Path(tmp) / "repo"
        (root / ".git").mkdir(parents=True)
        base = big_agents_md()
        write_tree(root, {
            "AGENTS.md": base,
            "package.json": '{"name": "x", "scripts": {"test": "jest", "build": "tsc"}}\n',
        })
        agents = str(root / "AGENTS.md")
        client = start(cmd, str(root), log)
        try:
            client.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri(agents), "languageId": "markdown", "version": 1, "text": base}})
            pull_until(client, agents, lambda items: count(items, "stale-command") > 200)
            before = peak_rss_mb(client.proc.pid)
            sent = time.perf_counter()
            for version in range(2, edits + 2):
                client.notify("textDocument/didChange", {
                    "textDocument": {"uri": uri(agents), "version": version},
                    "contentChanges": [{"text": storm_text(base, version)}]})
            sending = time.perf_counter() - sent
            took, items = pull(client, agents)
            answered = time.perf_counter() - sent
            last = storm_text(base, edits + 1)
            peak = peak_rss_mb(client.proc.pid)
        finally:
            client.close()
    return {"edits": edits, "text_chars": len(last), "sending_s": sending,
            "pull_s": took, "pull_answered_after_first_edit_s": answered,
            "stale_commands_pulled": count(items, "stale-command"),
            "stale_commands_of_last_text": last.count("`npm run "),
            "peak_rss_before_mb": before, "peak_rss_mb": peak}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--burst", type=int, default=3000)
    ap.add_argument("--edits", type=int, default=500)
    ap.add_argument("--keep-asking", type=float, default=3.0)
    ap.add_argument("--python", default=default_python())
    ap.add_argument("--log", default=os.path.join(tempfile.gettempdir(), "rulemap-floods.log"))
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    cmd = [args.python, "-m", "rulemap", "serve", "--stdio"]
    load0 = os.getloadavg()[0]
    b = burst(cmd, args.burst, args.keep_asking, args.log)
    s = storm(cmd, args.edits, args.log)
    load1 = os.getloadavg()[0]
    hovers = b["hovers_s"]
    print(f"\nThe language server under floods (load average {load0:.2f} → {load1:.2f})\n")
    print(f"burst: {b['events']:,} didChangeWatchedFiles of one file each, sent in "
          f"{fmt_ms(b['sending_s'])}")
    print(f"  first hover after them      {fmt_ms(b['first_hover_s'])}"
          f"   goal < {fmt_ms(HOVER_GOAL_S)}")
    print(f"  hovers meanwhile ({hovers['n']:.0f})       median {fmt_ms(hovers['median'])}, "
          f"p95 {fmt_ms(hovers['p95'])}, max {fmt_ms(hovers['max'])}")
    print(f"  workspace/diagnostic        {fmt_ms(b['workspace_pull_s'])}, "
          f"{b['broken_imports_after']} broken imports (the tree has "
          f"{b['broken_imports_expected']})")
    print(f"  peak RSS                    {b['peak_rss_mb']:.0f} MB")
    print(f"storm: {s['edits']} didChange of a {s['text_chars']:,}-character AGENTS.md, "
          f"sent in {fmt_ms(s['sending_s'])}")
    print(f"  textDocument/diagnostic     {fmt_ms(s['pull_s'])} "
          f"({s['pull_answered_after_first_edit_s']:.1f} s after the first edit), "
          f"{s['stale_commands_pulled']} stale commands (the last text has "
          f"{s['stale_commands_of_last_text']})")
    print(f"  peak RSS                    {s['peak_rss_mb']:.0f} MB "
          f"(before the edits {s['peak_rss_before_mb']:.0f} MB)   "
          f"goal < {PEAK_GOAL_MB} MB")
    if not args.no_write:
        path = write_result("floods.json", {
            "benchmark": "floods", "when": now_utc(), "revision": repo_revision(),
            "machine": machine(), "load_average": [load0, load1], "burst": b, "storm": s,
        })
        print(f"\nwrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
