"""The issue's proof: from a fresh clone in a folder with no siblings, `make demo` works with
no warnings of ours, a quick subset of `make test` passes, and `pip install .` gives a working
`rulemap` (on PATH and as `python -m rulemap`).

It clones with `git clone`, so it tests what is *committed* (HEAD), never uncommitted edits.
The cost is a fresh virtual environment (`pip install -e '.[dev]'`, from pip's cache when
warm: about a minute); `-m 'not fresh_clone'` leaves it out of a quick local run."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent
while not (REPO / "pyproject.toml").is_file():
    REPO = REPO.parent

pytestmark = pytest.mark.fresh_clone


def _env(tmp: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        # nothing of the running session leaks in: no outer make, venv, user configuration
        if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "VIRTUAL_ENV", "PYTHONPATH",
                     "RULEMAP_CONFIG", "RULEMAP_SHARED_DIR", "COLUMNS", "PYTHONHOME")
    }
    env["XDG_CONFIG_HOME"] = str(tmp / "config")
    venv_bin = os.path.dirname(sys.executable)
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if p and p != venv_bin
    )
    return env


def _run(argv: list[str], cwd: Path, env: dict[str, str], timeout: int) -> str:
    proc = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"{' '.join(argv)} exited {proc.returncode}:\n{out[-4000:]}"
    return out


# a Python warning, make complaining, pip's own warnings and errors, a traceback
_WARNING = re.compile(
    r"\w*Warning: |^make(\[\d+\])?: |^(WARNING|ERROR|DEPRECATION): |Traceback|\(ignored\)", re.M
)


def _ours(output: str) -> list[str]:
    """Warning lines that come from this repository, not from the machine's pip
    configuration (an index folder it cannot find is the host's business)."""
    return [
        line
        for line in output.splitlines()
        if _WARNING.search(line) and "is ignored: it is neither a file nor a directory" not in line
    ]


def test_fresh_clone_runs_demo_tests_and_installs(tmp_path: Path) -> None:
    clone = tmp_path / "rulemap"
    env = _env(tmp_path)
    _run(["git", "clone", "-q", str(REPO), str(clone)], tmp_path, env, 120)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rulemap"]  # no ../shared

    demo = _run(["make", "demo", f"PYTHON={sys.executable}"], clone, env, 300)
    assert "(exit 1: the demo's planted problems, as expected)" in demo
    assert "== rulemap explain" in demo and "graph LR" in demo
    assert _ours(demo) == [], demo

    venv_python = clone / ".venv" / "bin" / "python"
    tests = _run([str(venv_python), "-m", "pytest", "-q", "-p", "no:cacheprovider",
                  "tests/core/test_cli.py"], clone, env, 300)
    assert " passed" in tests and "failed" not in tests, tests

    # the same environment with the built wheel in place of the editable install
    _run([str(venv_python), "-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall",
          "."], clone, env, 300)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = _run([str(venv_python), "-c", "import rulemap; print(rulemap.__file__)"],
                 elsewhere, env, 60)
    assert "site-packages" in where and str(clone / "server") not in where, where
    version = _run([str(clone / ".venv" / "bin" / "rulemap"), "--version"], elsewhere, env, 60)
    assert version.strip() == "rulemap 0.1.0"
    proc = subprocess.run(
        [str(venv_python), "-m", "rulemap", "check", str(clone / "examples" / "demo"),
         "--format", "json"],
        cwd=elsewhere, env=env, capture_output=True, text=True, timeout=60, check=False,
    )
    assert proc.returncode == 1 and proc.stderr == "", proc.stderr
    assert json.loads(proc.stdout)["diagnostics"]
