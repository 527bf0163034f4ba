"""A real editor nobody here wrote: headless Neovim drives `rulemap serve` (lsp_smoke.lua)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
NVIM = shutil.which("nvim")

pytestmark = pytest.mark.skipif(
    NVIM is None and not os.environ.get("CI"),
    reason="Neovim is not installed (apt-get install neovim); in CI (CI set) this test must run",
)

AGENTS = "# Project\n\nSee @docs/guid.md for more.\n"


def test_neovim_diagnostics_edit_and_hover(tmp_path: Path) -> None:
    assert NVIM is not None, "CI is set but nvim is missing: install the `neovim` package"
    root = tmp_path / "fixture"
    (root / "docs").mkdir(parents=True)
    (root / "src").mkdir()
    (root / ".git").mkdir()  # the snippet's root marker
    (root / "AGENTS.md").write_text(AGENTS)
    (root / "docs/guide.md").write_text("The guide: use four spaces.\n")
    (root / "src/app.ts").write_text("export const app = 1;\n")
    out = tmp_path / "result.json"
    env = dict(os.environ)
    env.update(
        {
            "RULEMAP_ROOT": str(root),
            "RULEMAP_OUT": str(out),
            "RULEMAP_PYTHON": sys.executable,
            "PYTHONPATH": str(REPO / "server") + os.pathsep + env.get("PYTHONPATH", ""),
            "HOME": str(tmp_path),  # no user config, no shada in the real home
            "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "XDG_DATA_HOME": str(tmp_path / "data"),
            "XDG_STATE_HOME": str(tmp_path / "state"),
        }
    )
    proc = subprocess.run(
        [
            NVIM,
            "--headless",
            "-u",
            str(HERE / "rulemap.lua"),
            "-i",
            "NONE",
            "-c",
            f"luafile {HERE / 'lsp_smoke.lua'}",
        ],
        env=env,
        cwd=root,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert out.exists(), f"nvim wrote no result (exit {proc.returncode}): {proc.stderr[-2000:]}"
    result = json.loads(out.read_text())
    assert result["ok"], result.get("error")
    steps = result["steps"]
    assert steps["root_dir"] == str(root)
    assert steps["same_client"] is True
    assert steps["pushed"], steps
    broken = [d for d in steps["diagnostics"] if d["code"] == "broken-import"]
    assert broken and broken[0]["lnum"] == 2 and broken[0]["source"] == "rulemap"
    assert steps["cleared"] and steps["after_edit"] == [], steps
    assert steps["modified"] is True  # the fix was never saved
    assert (root / "AGENTS.md").read_text() == AGENTS
    assert "docs/guide.md" in (steps["hover_import"] or "")
    assert "AGENTS.md" in (steps["hover_source"] or "")
