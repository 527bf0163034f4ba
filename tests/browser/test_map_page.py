"""The map page (`rulemap map --html`, docs/map.md) in a real browser: headless Chromium, driven
by `drive_map.js` (playwright-core from client-vscode's dependencies, Debian's Chromium), on the
demo and on a generated 20,000-file monorepo, with no Content-Security-Policy violation (and
the policy shown to refuse what an escaping bug would inject). Screenshots go to
tests/browser/out/ (ignored by git); with RULEMAP_MAP_SCREENSHOT=1 the demo's is copied to
docs/images/ for the README.

Not part of the default `pytest` run (marker `browser`): `make test-browser` installs what it
needs first, and these tests fail — never skip — when something is missing."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
CHROMIUM = os.environ.get("RULEMAP_CHROMIUM", "/usr/bin/chromium")
PLAYWRIGHT = REPO / "client-vscode" / "node_modules" / "playwright-core"
INTERACTIVE_S = 5.0  # the 20,000-file page must answer clicks within this


def _needs() -> None:
    missing = [what for what, ok in (
        (f"Chromium at {CHROMIUM} (make test-browser installs Debian's)", Path(CHROMIUM).exists()),
        ("node", shutil.which("node") is not None),
        (f"playwright-core in {PLAYWRIGHT.parent} (npm ci in client-vscode)", PLAYWRIGHT.exists()),
    ) if not ok]
    assert not missing, "the browser tests cannot run: missing " + "; ".join(missing)


def _map(root: Path, out: Path) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "rulemap", "map", "--html", str(out), "--root",
                    str(root)], check=True, capture_output=True, text=True,
                   env={**os.environ, "PYTHONPATH": str(REPO / "server")})
    return time.perf_counter() - started


def _drive(page: Path, name: str) -> dict[str, Any]:
    _needs()
    OUT.mkdir(exist_ok=True)
    done = subprocess.run(["node", str(HERE / "drive_map.js"), str(page), str(OUT), name],
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, f"drive_map.js failed:\n{done.stderr}\n{done.stdout}"
    result: dict[str, Any] = json.loads(done.stdout)
    assert result["errors"] == [], result["errors"]
    assert result["requests"] == [], "the page reached for the network"
    _strict(result)
    return result


def _strict(result: dict[str, Any]) -> None:
    """The page worked under its Content-Security-Policy (docs/security.md) with no violation,
    styled, and the policy refused what an escaping bug would inject."""
    policy = result["policy"]
    assert policy and policy.startswith("default-src 'none'; script-src 'nonce-"), policy
    assert "unsafe" not in policy and "img-src data:;" in policy
    assert result["violations"] == [] and result["refused"] == [], (
        result["violations"], result["refused"])
    assert result["styled"] == {"main": "grid", "header": "flex", "graphPosition": "relative"}
    probe = result["probe"]
    assert not (probe["styleApplied"] or probe["attributeApplied"] or probe["handlerRan"]
                or probe["scriptRan"]), probe
    # each refusal reported: the listener above would have seen the page's own
    assert {"style-src-elem", "style-src-attr", "script-src-attr", "script-src-elem",
            "img-src"} <= set(probe["violations"]), probe
    assert len(probe["console"]) >= 5 and probe["failed"] == ["csp"], probe


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    page = tmp_path_factory.mktemp("map") / "demo.html"
    built = _map(REPO / "examples" / "demo", page)
    result = _drive(page, "demo")
    result["built_s"], result["bytes"] = built, page.stat().st_size
    return result


def _generated(tmp_path_factory: pytest.TempPathFactory, name: str, files: int
               ) -> dict[str, Any]:
    """The map of a generated monorepo of `files` source files (400 instruction files and
    200 rules), driven."""
    base = tmp_path_factory.mktemp(name)
    subprocess.run([sys.executable, str(REPO / "benchmarks" / "gen_monorepo.py"),
                    str(base / "repo"), "--seed", "1", "--files", str(files), "--quiet"],
                   check=True, capture_output=True)
    page = base / f"{name}.html"
    built = _map(base / "repo", page)
    result = _drive(page, name)
    result["built_s"], result["bytes"] = built, page.stat().st_size
    return result


@pytest.fixture(scope="module")
def monorepo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _generated(tmp_path_factory, "mono", 20_000)


@pytest.fixture(scope="module")
def monorepo_60k(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """60,000 source files (issue #38's big tree)."""
    return _generated(tmp_path_factory, "mono60", 60_000)


def test_a_60k_file_tree_is_a_small_page_and_answers_soon(monorepo_60k: dict[str, Any]) -> None:
    """Under 3 MB (the directories packed as rows), interactive within 1 s here (502–572 ms
    measured; the bound leaves CI machines room), and as usable as the 20k one."""
    assert monorepo_60k["bytes"] < 3_000_000, monorepo_60k["bytes"]
    assert monorepo_60k["interactiveMs"] < 2000, monorepo_60k["interactiveMs"]
    assert monorepo_60k["steps"]["dir"]["after"]["child"]
    _figures_say_what_each_agent_loads(monorepo_60k)
    _screenshots(monorepo_60k)
    print(f"\n60k monorepo: map built in {monorepo_60k['built_s']:.2f} s, page "
          f"{monorepo_60k['bytes']:,} bytes, interactive in {monorepo_60k['interactiveMs']} ms")


def _screenshots(result: dict[str, Any]) -> None:
    for step in result["steps"].values():
        shot = Path(step["screenshot"])
        assert shot.exists() and shot.stat().st_size > 10_000, shot


def test_the_demo_draws_and_answers_clicks(demo: dict[str, Any]) -> None:
    graph = demo["graph"]
    assert graph["canvases"] >= 1 and graph["nodes"] >= 10
    assert {"AGENTS.md", "CLAUDE.md", ".claude/rules/api-handlers.md"} <= set(graph["documents"])
    # a click on AGENTS.md: its reach, one row per agent
    rows = demo["steps"]["file"]["rows"]
    assert demo["steps"]["file"]["title"] == "AGENTS.md"
    assert len(rows) == len(demo["agents"]) and all(
        row.startswith(title) for row, title in zip(rows, demo["agents"], strict=True))
    assert rows[0].startswith("Cogitator (default)19")  # every file of the demo loads it
    # a directory opens on demand, then says what its files load
    step = demo["steps"]["dir"]
    assert not step["before"]["child"] and step["after"]["child"]
    assert step["after"]["rows"] > step["before"]["rows"]
    assert step["why"]["title"] == step["child"] + "/" and step["why"]["loads"] >= 1
    assert "Why: what Cogitator (default) loads" in step["why"]["text"]
    # and the files its load brings are highlighted in the graph
    assert step["highlight"]["shown"] == step["highlight"]["expected"] != [], step["highlight"]
    # another agent colours the tree as the data says
    agent = demo["steps"]["agent"]
    assert agent["selected"] == agent["agent"]
    assert agent["first"] == agent["firstExpected"] and agent["second"] == agent["secondExpected"]
    # switching the agent keeps what is selected (Details redrawn for it) and the graph's zoom
    assert agent["keptAfter"] == agent["keptBefore"] and agent["keptBefore"]["details"]
    first, second = (demo["figures"][n] for n in (demo["agentNames"][0], agent["agent"]))
    assert [r[1] for r in first] != [r[1] for r in second]  # in each one's own measure
    # find a nested instruction file: shown, and drawn selected
    found = demo["steps"]["find"]
    assert found["title"] == found["path"] and found["drawn"] == [found["path"]]
    _screenshots(demo)
    if os.environ.get("RULEMAP_MAP_SCREENSHOT") == "1":
        shutil.copy(demo["steps"]["dir"]["screenshot"], REPO / "docs" / "images" / "map-demo.png")
    print(f"\ndemo: map built in {demo['built_s']:.2f} s, page {demo['bytes']:,} bytes, "
          f"interactive in {demo['interactiveMs']} ms")


def _figures_say_what_each_agent_loads(result: dict[str, Any]) -> None:
    """Every agent's row figure: its budget share, or without a budget the size it loads and
    how many files ("8.3k · 3"); "–" only where it loads nothing."""
    for agent, rows in result["figures"].items():
        for directory, text, (share, over, left, size, loaded, _), _ in rows:
            if not (over or left or size or loaded):
                assert text == "–", (agent, directory, text)  # it loads nothing there
            elif share is not None:
                assert text.endswith("%"), (agent, directory, text)
            elif size or loaded:
                assert re.fullmatch(r"[\d.]+[kM]? · [\d,]+", text), (agent, directory, text)
                assert text.endswith(f" · {loaded:,}"), (agent, directory, text)
            else:
                assert text == "–", (agent, directory, text)


def test_every_agent_has_a_measure_in_the_tree(demo: dict[str, Any]) -> None:
    _figures_say_what_each_agent_loads(demo)
    claude = demo["figures"]["claude-code"]
    assert any("·" in text for _, text, _, _ in claude), claude  # no budget, yet it loads


@pytest.fixture(scope="module")
def claude_only(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A workspace written for Claude Code alone, one memory file past its 40,000-character
    size warning."""
    root = tmp_path_factory.mktemp("claude") / "repo"
    long = "".join(f"- rule {i:05}: keep the handlers small and tested\n" for i in range(900))
    files = {"CLAUDE.md": "# Project\n\nUse pnpm.\n", "web/CLAUDE.md": long,
             "web/app.ts": "", "api/server.ts": "", "api/CLAUDE.md": "# API\n",
             ".claude/rules/api.md": '---\npaths: ["api/**"]\n---\nValidate input.\n'}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    page = root.parent / "claude.html"
    _map(root, page)
    return _drive(page, "claude")


def _workspace_page(tmp_path_factory: pytest.TempPathFactory, name: str,
                    files: dict[str, str]) -> dict[str, Any]:
    root = tmp_path_factory.mktemp(name) / "repo"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    page = root.parent / f"{name}.html"
    _map(root, page)
    return _drive(page, name)


@pytest.fixture(scope="module")
def gemini_only(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Gemini CLI's nested GEMINI.md hierarchy (as gemini-cli's own repository has it)."""
    return _workspace_page(tmp_path_factory, "gemini", {
        "GEMINI.md": "# Project\n\nUse npm.\n", "packages/cli/GEMINI.md": "# CLI\n",
        "packages/cli/src/app.ts": "", "packages/core/GEMINI.md": "# Core\n",
        "packages/core/src/index.ts": "", "docs/index.md": ""})


# a workspace written for one agent alone: its own files only
ONE_AGENT: dict[str, dict[str, str]] = {
    "copilot": {".github/copilot-instructions.md": "# Project\n\nUse pnpm.\n",
                ".github/instructions/api.instructions.md":
                    '---\napplyTo: "api/**"\n---\nValidate.\n',
                "api/server.ts": "", "web/app.tsx": ""},
    "cursor": {".cursor/rules/general.mdc": "---\nalwaysApply: true\n---\nBe brief.\n",
               ".cursor/rules/api.mdc": "---\nglobs: api/**\n---\nValidate input.\n",
               "api/server.ts": "", "web/app.tsx": ""},
}


@pytest.fixture(scope="module", params=sorted(ONE_AGENT))
def one_agent(request: pytest.FixtureRequest,
              tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, Any]]:
    name: str = request.param
    return name, _workspace_page(tmp_path_factory, name, ONE_AGENT[name])


def test_gemini_s_nested_files_tied_to_what_they_load_after(gemini_only: dict[str, Any]) -> None:
    """Not eight unconnected boxes: each nested GEMINI.md drawn after the root's, for Gemini
    CLI (the page opens on it: the repository's agent)."""
    assert "gemini" in gemini_only["figures"]
    edges = {(a, b): (on, visible) for a, b, on, visible in gemini_only["nestedEdges"]}
    assert edges == {("GEMINI.md", "packages/cli/GEMINI.md"): (1, True),
                     ("GEMINI.md", "packages/core/GEMINI.md"): (1, True)}, edges
    _figures_say_what_each_agent_loads(gemini_only)
    _screenshots(gemini_only)


def test_copilot_and_cursor_only_workspaces_have_their_measure(
        one_agent: tuple[str, dict[str, Any]]) -> None:
    agent, result = one_agent
    _figures_say_what_each_agent_loads(result)
    rows = {d: text for d, text, _, _ in result["figures"][agent]}
    assert rows[""] != "–", rows  # it loads something in the repository
    # its scoped rule drawn to where its globs match, in its own dialect
    rule = {"copilot": ".github/instructions/api.instructions.md",
            "cursor": ".cursor/rules/api.mdc"}[agent]
    assert [rule, "dir:api/server.ts"] in result["matchEdges"], result["matchEdges"]
    _screenshots(result)


def test_an_agent_without_a_budget_is_coloured_by_what_it_loads(
        claude_only: dict[str, Any]) -> None:
    assert "claude-code" in claude_only["figures"]
    _figures_say_what_each_agent_loads(claude_only)
    rows = {d: (text, s, colour) for d, text, s, colour in claude_only["figures"]["claude-code"]}
    assert "–" not in {text for text, _, _ in rows.values()}, rows
    assert rows[""][1][5] >= 1 and rows[""][2] == "warn"  # web/CLAUDE.md: past the warning
    # the largest load (web/app.ts's), and the most files one loads (api/server.ts: three)
    assert rows[""][0].endswith(" · 3"), rows[""]
    _screenshots(claude_only)


@pytest.mark.parametrize("which", ["demo", "monorepo", "gemini_only"])
def test_find_by_part_of_a_name(which: str, request: pytest.FixtureRequest) -> None:
    part = request.getfixturevalue(which)["steps"]["part"]
    assert part["expected"] and part["title"] == part["expected"], part


def test_a_sentence_in_the_find_box_says_how_to_ask_where_it_reaches(
        demo: dict[str, Any]) -> None:
    """The page holds no text: opened from a file it names `rulemap why` (in the editor's
    webview the language server answers: client-vscode/e2e)."""
    step = demo["steps"]["sentence"]
    assert step["title"] == "“Keep every handler small and tested”"
    assert step["hint"] and 'rulemap why "Keep every handler small and tested"' in step["hint"]


def test_the_graph_has_a_legend(demo: dict[str, Any]) -> None:
    texts = [e["text"] for e in demo["legend"]]
    assert texts[:5] == ["instruction file", "rule", "imported file", "missing",
                         "directory (click to open)"], texts
    assert {"import (@line)", "broken import", "rule's globs match (files)",
            "never loaded by the agent", "cut by its budget"} <= set(texts)
    assert all(e["visible"] for e in demo["legend"])


@pytest.mark.parametrize("which", ["demo", "monorepo", "claude_only"])
def test_the_tree_by_keyboard_alone(which: str, request: pytest.FixtureRequest) -> None:
    """↓ to the next directory, ← closes, → opens then goes to the first child, ← back to
    the parent, Enter shows its Details; one row in the tab order at a time."""
    keys = request.getfixturevalue(which)["steps"]["keys"]
    assert keys["start"]["dir"] == "" and keys["start"]["tabbable"] == 1
    assert keys["down"]["dir"] not in ("", None) and keys["down"]["tabbable"] == 1
    target = keys["target"]
    assert keys["closed"] == {"dir": target["path"], "expanded": "false", "tabbable": 1}
    assert keys["opened"] == {"dir": target["path"], "expanded": "true", "tabbable": 1}
    assert keys["child"]["dir"] == target["child"]
    assert keys["parent"]["dir"] == target["path"]
    assert keys["details"] == target["path"] + "/"


@pytest.mark.parametrize("which", ["demo", "monorepo", "claude_only"])
def test_readable_labels_and_details_at_1024_by_700(which: str,
                                                    request: pytest.FixtureRequest) -> None:
    """Graph labels at least 11 px on screen at the zoom the page opens with; at 1024×700 the
    Details panel fits the window and scrolls no sideways, no cell cut."""
    result = request.getfixturevalue(which)
    assert result["labelPx"] is not None and result["labelPx"] >= 11 - 0.01, result["labelPx"]
    small = result["small"]
    assert small["right"] <= small["width"], small
    # narrower (a webview beside a file): every panel within the window, none squeezed
    for width, panels in result["narrow"].items():
        for panel, left, right, size, window in panels:
            assert left >= 0 and right <= window and size >= 150, (width, panel, left, right)
    assert small["scrollWidth"] <= small["clientWidth"] + 1, small
    assert small["clipped"] == [], small


def test_the_header_counts_errors_in_words_of_their_number(demo: dict[str, Any]) -> None:
    """"(1 error)", "(2 errors)": never "(1 errors)"."""
    errors = demo["errorsInData"]
    assert errors >= 1  # the demo's planted broken import
    word = "error" if errors == 1 else "errors"
    assert f"({errors:,} {word})" in demo["summary"], demo["summary"]


def test_a_20k_file_monorepo_stays_responsive(monorepo: dict[str, Any]) -> None:
    assert monorepo["interactiveMs"] < INTERACTIVE_S * 1000, monorepo["interactiveMs"]
    graph = monorepo["graph"]
    # the graph groups what it cannot draw at once, and a group opens on a click
    assert graph["canvases"] >= 1 and 0 < graph["nodes"] < 200 and graph["clusters"]
    cluster = monorepo["steps"]["cluster"]
    assert cluster["scope"] == cluster["path"] and cluster["nodes"] > 1
    rows = monorepo["steps"]["file"]["rows"]
    assert len(rows) == len(monorepo["agents"])
    step = monorepo["steps"]["dir"]
    assert not step["before"]["child"] and step["after"]["child"]
    assert step["before"]["rows"] < 20  # aggregated: only the opened directories are drawn
    found = monorepo["steps"]["find"]
    assert found["title"] == found["path"]
    agent = monorepo["steps"]["agent"]
    assert agent["first"] == agent["firstExpected"] and agent["second"] == agent["secondExpected"]
    assert monorepo["bytes"] < 4_000_000
    _screenshots(monorepo)
    print(f"\n20k monorepo: map built in {monorepo['built_s']:.2f} s, page "
          f"{monorepo['bytes']:,} bytes, interactive in {monorepo['interactiveMs']} ms")
