"""A hostile repository through every command: no hang, no traceback, a clear finding for each
bad input, and nothing outside the workspace opened or printed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.hostile.hostile_corpus import SECRET, Hostile, build

REPO = Path(__file__).resolve().parents[2]
AUDITED = Path(__file__).with_name("audited.py")
TIME_LIMIT = 60  # seconds per command; a FIFO read would block forever


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hostile]:
    corpus = build(tmp_path_factory.mktemp("hostile"), empty_dirs=2000)
    yield corpus
    corpus.close()


def run(
    hostile: Hostile, *args: str, tmp: Path
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    log = tmp / "opened.log"
    env = {**os.environ, "HOME": str(hostile.home), "PYTHONPATH": str(REPO / "server")}
    env.pop("RULEMAP_CONFIG", None)
    env.pop("COLUMNS", None)  # piped text findings stay one line each, so messages are whole
    env["XDG_CONFIG_HOME"] = str(hostile.home / ".config")
    proc = subprocess.run(
        [sys.executable, str(AUDITED), str(log), "--", *args],
        capture_output=True,
        text=True,
        timeout=TIME_LIMIT,
        cwd=hostile.root,
        env=env,
    )
    opened = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return proc, opened


def assert_safe(
    hostile: Hostile, proc: subprocess.CompletedProcess[str], opened: list[str]
) -> None:
    assert "Traceback" not in proc.stderr, proc.stderr
    assert SECRET not in proc.stdout and SECRET not in proc.stderr
    forbidden = (str(hostile.outside), str(hostile.home / ".ssh"))
    leaked = [p for p in opened if p.startswith(forbidden)]
    assert leaked == [], f"opened outside the workspace: {leaked}"
    # the special files are never opened, only stat'ed
    for special in (
        "pkg/fifo/AGENTS.md",
        "pkg/fifo/CLAUDE.md",
        ".claude/rules/pipe.md",
        "pkg/dev/AGENTS.md",
        "pkg/sock/AGENTS.md",
    ):
        assert str(hostile.root / special) not in opened


def test_check_reports_every_bad_input(hostile: Hostile, tmp_path: Path) -> None:
    proc, opened = run(hostile, "check", ".", "--format", "json", tmp=tmp_path)
    assert_safe(hostile, proc, opened)
    assert proc.returncode == 1  # errors found, not a crash (2) or a hang
    found: dict[str, set[str]] = {}
    for diagnostic in json.loads(proc.stdout)["diagnostics"]:
        found.setdefault(diagnostic["path"], set()).add(diagnostic["code"])
        assert diagnostic["message"].strip()
        assert diagnostic["range"]["start"]["line"] >= 0
    missing = {p: c for p, c in hostile.expected.items() if c not in found.get(p, set())}
    assert missing == {}, f"expected findings missing: {missing}; got {found}"


@pytest.mark.parametrize("fmt", ["text", "sarif", "github"])
def test_check_formats(hostile: Hostile, tmp_path: Path, fmt: str) -> None:
    proc, opened = run(hostile, "check", ".", "--format", fmt, tmp=tmp_path)
    assert_safe(hostile, proc, opened)
    assert proc.returncode == 1
    assert "not a regular file (a named pipe)" in proc.stdout


@pytest.mark.parametrize("mode", ["--json", "--text", None])
@pytest.mark.parametrize("target", ["src/app.ts", "pkg/fifo/x.ts", "pkg/dev/x.ts", None])
def test_explain(hostile: Hostile, tmp_path: Path, mode: str | None, target: str | None) -> None:
    args = ["explain", *([str(hostile.root / target)] if target else []), "--root", "."]
    proc, opened = run(hostile, *args, *([mode] if mode else []), tmp=tmp_path)
    assert_safe(hostile, proc, opened)
    assert proc.returncode == 0, proc.stderr
    if mode == "--json":
        data = json.loads(proc.stdout)
        assert all(not f["path"].startswith("/") for f in data["files"])
        if target == "pkg/fifo/x.ts":
            assert any("named pipe" in s["why"] for s in data["skipped"])


@pytest.mark.parametrize("fmt", ["json", "dot", "mermaid"])
def test_graph(hostile: Hostile, tmp_path: Path, fmt: str) -> None:
    proc, opened = run(hostile, "graph", ".", "--format", fmt, tmp=tmp_path)
    assert_safe(hostile, proc, opened)
    assert proc.returncode == 0, proc.stderr


def test_invalid_toml_is_a_config_error(tmp_path: Path) -> None:
    corpus = build(tmp_path, big_mb=5)
    try:
        (corpus.root / "rulemap.toml").write_text("maxChars = [\n", encoding="utf-8")
        proc, _ = run(corpus, "check", ".", tmp=tmp_path)
        assert proc.returncode == 2
        assert "Traceback" not in proc.stderr
        assert "rulemap.toml:1: invalid TOML" in proc.stderr, proc.stderr
    finally:
        corpus.close()


def test_a_hundred_thousand_empty_directories(tmp_path: Path) -> None:
    root = tmp_path / "wide"
    for group in range(100):
        base = root / "empty" / f"g{group}"
        for index in range(1000):
            os.makedirs(base / f"d{index}")
    (root / ".git").mkdir()
    (root / "AGENTS.md").write_text("# Root\n@docs/missing.md\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO / "server")}
    proc = subprocess.run(
        [sys.executable, "-m", "rulemap", "check", str(root)],
        capture_output=True,
        text=True,
        timeout=TIME_LIMIT,
        env=env,
    )
    assert proc.returncode == 1 and "broken-import" in proc.stdout, proc.stderr
