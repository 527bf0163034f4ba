"""The benchmark scripts whose figures the README quotes run, and measure what they say, on a
small tree built here (no agnix: they time without it). Two of them broke unseen: the profiler
named check families by `__name__` after the families became lazily imported objects, and
`bench_edit.py` wrote two texts in turn, so every other "resumed" round resumed after no edit
and its `first` and `snapshot` rounds ran outside its cache directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "benchmarks"

pytestmark = pytest.mark.slow


def _tree(root: Path) -> Path:
    files = {
        "AGENTS.md": "# Project\n\nUse tabs. See [the guide](docs/guide.md).\n",
        "CLAUDE.md": "@AGENTS.md\n",
        "docs/guide.md": "Keep functions short.\n",
        ".claude/rules/api.md": "---\npaths:\n  - \"src/api/**\"\n---\nValidate input.\n",
        "src/api/a.ts": "a\n",
        "src/b.ts": "b\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    (root / ".git").mkdir()
    return root


def _run(script: str, *args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home), "RULEMAP_CACHE_DIR": str(home / "cache")}
    return subprocess.run([sys.executable, str(BENCH / script), *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


def test_the_profiler_names_every_phase(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "tree")
    done = _run("profile_check.py", "--tree", str(tree), "--top", "3", "--prof",
                str(tmp_path / "check.prof"), home=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "graph-wide link_only.check" in done.stdout
    assert "per-document frontmatter.check" in done.stdout
    assert "total (in process)" in done.stdout


def test_each_round_of_bench_edit_resumes_after_an_edit_of_its_own(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "tree")
    before = (tree / "AGENTS.md").read_text(encoding="utf-8")
    out = tmp_path / "edit.json"
    done = _run("bench_edit.py", "--tree", str(tree), "--file", "AGENTS.md", "--runs", "2",
                "--snapshot-runs", "1", "--out", str(out), home=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "resumed output identical to the cold check's: yes" in done.stdout
    result = json.loads(out.read_text(encoding="utf-8"))
    # the snapshot round found the snapshot in the bench's own cache (it waited 120 s for
    # one written elsewhere before), and the file is as it was
    assert result["walls"]["snapshot on disk"]["median"] < 60
    assert result["snapshot_bytes"] > 0
    assert (tree / "AGENTS.md").read_text(encoding="utf-8") == before
    # every edit wrote a text of its own: no round finds the text the snapshot was taken of
    assert result["edits"] >= 5 and result["distinct_texts"] == result["edits"]
