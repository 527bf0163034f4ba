"""`rulemap check | explain | graph | serve` — argument parsing and exit codes only."""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from rulemap.config import ConfigError

EPILOG = """\
examples:
  rulemap check                      lint every instruction file and rule of this repository
  rulemap explain src/api/users.ts   what an agent working on that file loads, and why
  rulemap explain --json             the start-up load (root down to cwd) as JSON
  rulemap graph --format mermaid     the import/rule graph, to paste into Markdown
  rulemap serve                      the language server (stdio), for editors

configuration: rulemap.toml at the root, or [tool.rulemap] in pyproject.toml
(keys: files, cwd, maxChars, maxImportDepth, rules, nested, ignore, severity, profile).
Reading outside the workspace is yours to grant, never the repository's: allowImportsFrom in
$RULEMAP_CONFIG or $XDG_CONFIG_HOME/rulemap/config.toml (default ~/.config/rulemap/config.toml),
or --allow-imports-from DIR. Docs: docs/semantics.md, docs/checks.md, docs/security.md.
"""

ALLOW_HELP = (
    "let imports read DIR outside the workspace (repeatable; absolute, ~/..., or relative to "
    "the current directory); adds to allowImportsFrom of your user configuration file. A "
    "repository's own allowImportsFrom is ignored"
)


class UsageError(Exception):
    pass


def find_root(start: str) -> str:
    """The nearest ancestor of `start` holding `.git` (directory or file), else `start`."""
    current = os.path.abspath(start)
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return os.path.abspath(start)
        current = parent


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rulemap",
        description="See what coding agents really load: AGENTS.md, CLAUDE.md, .claude/rules "
        "and @imports, in order, with budgets, broken imports and rules that never match.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version="rulemap 0.1.0")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = sub.add_parser(
        "check",
        help="lint every instruction file and rule",
        description="Lint every instruction file and rule of the workspace. "
        "Exit 0 when there is no error-severity finding, 1 when there is, "
        "2 for usage or configuration errors.",
    )
    check.add_argument(
        "root", nargs="?", help="workspace root (default: nearest ancestor with .git)"
    )
    check.add_argument(
        "--format",
        choices=["text", "json", "sarif", "github"],
        default="text",
        help="text (path:line:col: severity code message), json (LSP ranges: "
        "0-based, UTF-16), sarif (2.1.0, for code scanning), github (annotations)",
    )
    _allow_flag(check)

    explain = sub.add_parser(
        "explain",
        help="what an agent working on TARGET loads",
        description="Show what an agent working on TARGET loads: every file "
        "in prompt order, why, what imported it, its characters and whether "
        "the budget cut it. Without TARGET: the start-up load (root to cwd).",
    )
    explain.add_argument(
        "target", nargs="?", metavar="TARGET", help="a file (relative to the current directory)"
    )
    explain.add_argument("--root", help="workspace root (default: nearest ancestor with .git)")
    explain.add_argument(
        "--cwd", help="the agent's working directory (default: config `cwd`, else the root)"
    )
    explain.add_argument("--profile", help="loading model: cogitator (default) or mastra")
    explain.add_argument("--json", action="store_true", help="machine-readable output")
    explain.add_argument(
        "--text",
        action="store_true",
        help="print the instructions exactly as the agent receives them",
    )
    _allow_flag(explain)

    graph = sub.add_parser(
        "graph",
        help="the import/rule graph",
        description="Print the graph of instruction files, rules and imports.",
    )
    graph.add_argument(
        "root", nargs="?", help="workspace root (default: nearest ancestor with .git)"
    )
    graph.add_argument("--format", choices=["json", "dot", "mermaid"], default="json")
    _allow_flag(graph)

    serve = sub.add_parser(
        "serve",
        help="run the language server",
        description="Run the Rulemap language server (LSP over stdio by default).",
    )
    serve.add_argument(
        "--stdio",
        action="store_true",
        help="use stdio (the default; accepted for clients that pass it)",
    )
    serve.add_argument(
        "--tcp", metavar="HOST:PORT", help="listen on a TCP socket instead (for debugging)"
    )
    serve.add_argument(
        "--log-level", default="WARNING", help="server log level on stderr (default WARNING)"
    )
    return parser


def _allow_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--allow-imports-from",
        action="append",
        default=[],
        metavar="DIR",
        dest="allow_imports_from",
        help=ALLOW_HELP,
    )


_one_shot = False  # set by `main` for check / explain / graph


def entry() -> NoReturn:
    """The `rulemap` command. After a one-shot command, skip the interpreter's teardown:
    freeing the million objects of a 20,000-file check one by one costs ~12% of the run, and
    nothing is left to do but exit (output is flushed first; no file is open for writing)."""
    code = main()
    if _one_shot:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BrokenPipeError:
            pass
        os._exit(code)
    sys.exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    global _one_shot
    if args.command != "serve":
        # A one-shot command allocates ~a million small objects and frees them at exit; the
        # cyclic collector finds no garbage in them and costs ~10% of a cold check.
        gc.disable()
        _one_shot = True
    try:
        if args.command == "check":
            from rulemap.cli.commands import run_check

            return run_check(args.root, args.format, args.allow_imports_from)
        if args.command == "explain":
            from rulemap.cli.commands import run_explain

            return run_explain(args)
        if args.command == "graph":
            from rulemap.cli.commands import run_graph

            return run_graph(args.root, args.format, args.allow_imports_from)
        if args.command == "serve":
            from rulemap.lsp.server import run_server

            return run_server(tcp=args.tcp, log_level=args.log_level)
    except ConfigError as exc:
        print(f"rulemap: configuration error: {exc}", file=sys.stderr)
        return 2
    except UsageError as exc:
        print(f"rulemap: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    return 2


def dump_json(data: object) -> None:
    json.dump(data, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
