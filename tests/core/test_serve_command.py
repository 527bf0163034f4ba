"""`rulemap serve` is the language server's own command line, picked by name before the CLI's
parser (rulemap/__main__.py): the CLI and the server never import each other, and `serve`'s
help, options and usage errors read as they did when the CLI parsed them."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "server" / "rulemap"

SERVE_HELP = """\
usage: rulemap serve [-h] [--stdio] [--tcp HOST:PORT] [--log-level LOG_LEVEL]

Run the Rulemap language server (LSP over stdio by default).

options:
  -h, --help            show this help message and exit
  --stdio               use stdio (the default; accepted for clients that pass
                        it)
  --tcp HOST:PORT       listen on a TCP socket instead (for debugging)
  --log-level LOG_LEVEL
                        server log level on stderr (default WARNING)
"""
SERVE_USAGE = "usage: rulemap serve [-h] [--stdio] [--tcp HOST:PORT] [--log-level LOG_LEVEL]\n"
TOP_USAGE = "usage: rulemap [-h] [--version] COMMAND ...\n"


def _rulemap(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env["PYTHONPATH"] = str(REPO / "server")
    return subprocess.run([sys.executable, "-m", "rulemap", *args], env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=120, check=False)


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_serve_help_is_the_servers(flag: str) -> None:
    done = _rulemap("serve", flag)
    assert (done.returncode, done.stdout, done.stderr) == (0, SERVE_HELP, "")


@pytest.mark.parametrize(("args", "stderr"), [
    (["--bogus"], TOP_USAGE + "rulemap: error: unrecognized arguments: --bogus\n"),
    (["extra"], TOP_USAGE + "rulemap: error: unrecognized arguments: extra\n"),
    (["--tcp"], SERVE_USAGE + "rulemap serve: error: argument --tcp: expected one argument\n"),
    (["--log-level"],
     SERVE_USAGE + "rulemap serve: error: argument --log-level: expected one argument\n"),
    (["--log-level", "loud"], "rulemap: unknown log level 'loud'\n"),
    (["--tcp", "nowhere"], "rulemap: --tcp wants HOST:PORT, not 'nowhere'\n"),
])
def test_serve_usage_errors_read_as_before(args: list[str], stderr: str) -> None:
    done = _rulemap("serve", *args)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", stderr)


def test_the_cli_still_lists_serve() -> None:
    done = _rulemap("--help")
    assert done.returncode == 0
    assert "    serve     run the language server\n" in done.stdout


def _imported(path: Path) -> set[str]:
    """Every module `path` imports, wherever the import is (type-only ones too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


@pytest.mark.parametrize(("edge", "other"), [("cli", "lsp"), ("lsp", "cli")])
def test_the_cli_and_the_server_do_not_import_each_other(edge: str, other: str) -> None:
    crossing = sorted(
        f"{path.relative_to(PACKAGE)}: {module}"
        for path in (PACKAGE / edge).rglob("*.py")
        for module in _imported(path)
        if module == f"rulemap.{other}" or module.startswith(f"rulemap.{other}.")
    )
    assert crossing == []
