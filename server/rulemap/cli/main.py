"""`rulemap check | explain | compare | graph | serve` — argument parsing and exit codes only."""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from rulemap.cli.check_cache import add_cache_flag, lookup
from rulemap.cli.check_flags import add_output_flags

# what every command shares, below this module (the commands import it, not main): the names
# stay importable from here
from rulemap.cli.terminal import configure_output
from rulemap.cli.usage import UsageError, describe, dump_json, find_root

if TYPE_CHECKING:
    from rulemap.host.cache.check_results import CheckCache

__all__ = [
    "UsageError", "build_parser", "configure_output", "describe", "dump_json", "entry",
    "find_root", "main",
]

# Imported at start-up by every command: import only what parsing needs (the engine, json,
# the sub-commands' modules are imported by the command that runs them;
# tests/core/test_startup_imports.py holds this).

EPILOG = """\
examples:
  rulemap check                      lint every instruction file and rule of this repository
  rulemap check --fix                apply the safe fixes ([*]); --diff only shows them
  rulemap explain src/api/users.ts   what an agent working on that file loads, and why
  rulemap explain --json             the start-up load (root down to cwd) as JSON
  rulemap compare src/api/users.ts   the same file, side by side for every selected agent
  rulemap session read:src/a.ts edit:pkg/x.py   what joins at each step of a run
  rulemap verify .rulemap/instructions-loaded.jsonl   what the agent really loaded, vs Rulemap
  rulemap check --profiles A,B        lint for agents A and B only
  rulemap graph --format mermaid     the import/rule graph, to paste into Markdown
  rulemap diff main                  which files' instructions differ from main, per agent
  rulemap map --html map.html        one page mapping the instructions, to open in a browser
  rulemap serve                      the language server (stdio), for editors

{configuration}
Reading outside the workspace is yours to grant, never the repository's: allowImportsFrom in
$RULEMAP_CONFIG or $XDG_CONFIG_HOME/rulemap/config.toml (default ~/.config/rulemap/config.toml),
or --allow-imports-from DIR. Docs: docs/semantics.md, docs/checks.md, docs/security.md.
"""

def _wrapped(text: str, width: int = 92) -> str:
    """`text` broken at spaces into lines of at most `width` (the epilog is preformatted)."""
    import textwrap

    return "\n".join(textwrap.wrap(text, width))


ALLOW_HELP = (
    "let imports read DIR outside the workspace (repeatable; absolute, ~/..., or relative to "
    "the current directory); adds to allowImportsFrom of your user configuration file. A "
    "repository's own allowImportsFrom is ignored"
)


HOME_HELP = (
    "read the agents' user-level instruction files (each where its agent keeps them under "
    "the home directory: docs/profiles/) from DIR as the home directory; without it none are "
    "read, so the result never depends on who runs it"
)

REF_HELP = (
    "read instruction files, rules and imports from git commit REF (a branch, tag or sha) "
    "instead of the working tree"
)

COMPARE_EPILOG = """\
examples:
  rulemap compare src/api/users.ts                  every selected agent, side by side
  rulemap compare src/api/users.ts --profiles A,B  agents A and B only
  rulemap compare --cwd packages/web                the start-up loads from packages/web
  rulemap compare src/x.ts --home ~                 with your own user-level files
  rulemap compare src/x.ts --json                   for scripts: one explanation per agent

Sizes are in each agent's own unit (its budget's: characters, tokens or bytes); an agent
whose files show `cut` or `left out` is over its budget.
Agents: {names}.
"""


# `rulemap COMMAND`'s one-line help, as `rulemap --help` lists it
COMMAND_HELP = {
    "check": "lint every instruction file and rule",
    "explain": "what an agent working on TARGET loads",
    "compare": "what each agent loads for TARGET, side by side",
    "session": "replay a run step by step: what joins at each tool step",
    "verify": "compare what an agent really loaded (its log) with Rulemap's prediction",
    "graph": "the import/rule graph",
    "diff": "which files' instructions differ between two commits",
    "reach": "who loads a file (or one line of it), per agent, and why",
    "why": "does a sentence of the instructions reach each agent, and if not, why",
    "map": "one self-contained HTML page mapping the repository's instructions",
    "serve": "run the language server",
}


def build_parser() -> argparse.ArgumentParser:
    """`rulemap`'s parser, cheap to build: every start-up pays for it. What names the agents
    or the configuration keys (help texts) asks the registries, which import the whole engine
    (~70 ms), so it is written only when needed: a sub-command's description and arguments
    when that sub-command is parsed (`_Commands`), the top-level epilog when the top-level help
    is printed (`_Rulemap`). `rulemap --version` imports no engine, `rulemap serve` no CLI
    sub-command module, `rulemap check` none of session / verify / diff."""
    parser = _Rulemap(
        prog="rulemap",
        description="See what coding agents really load: instruction files, rules and "
        "@imports, in order, with budgets, broken imports and rules that never match.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version="rulemap 0.1.0")
    # `prog` given: argparse otherwise builds a help formatter (and imports shutil) to find it;
    # `parser_class`: the sub-commands' epilogs are their own (not `_Rulemap`'s)
    sub = parser.add_subparsers(
        dest="command", metavar="COMMAND", prog="rulemap", action=_Commands,
        parser_class=argparse.ArgumentParser,
    )
    assert isinstance(sub, _Commands)
    for name, build in _BUILDERS.items():
        sub.add_command(name, COMMAND_HELP[name], build)
    return parser


def _top_epilog() -> str:
    from rulemap.host.catalog import agent_names, setting_keys

    return EPILOG.format(configuration=_wrapped(
        f"configuration: rulemap.toml at the root, or [tool.rulemap] in pyproject.toml "
        f"(keys: {', '.join(setting_keys())}). Agents: {', '.join(agent_names())}."))


def _agents() -> tuple[str, str]:
    """The agents' names (comma-separated) and the default agent's, for help texts."""
    from rulemap.host.catalog import agent_names, default_agent

    return ", ".join(agent_names()), default_agent()


class _Rulemap(argparse.ArgumentParser):
    """The top-level parser: its epilog (the agents, the configuration keys) is written when
    its help is printed, so that building the parser imports no engine."""

    def format_help(self) -> str:
        if self.epilog is None:
            self.epilog = _top_epilog()
        return super().format_help()


if TYPE_CHECKING:
    _SubParsers = argparse._SubParsersAction[argparse.ArgumentParser]
else:  # not subscriptable at run time
    _SubParsers = argparse._SubParsersAction


class _Commands(_SubParsers):
    """The sub-commands, each a bare parser (its name and one-line help, all `rulemap --help`
    lists) until it is parsed: then `build` adds its description and arguments."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._builds: dict[str, Callable[[argparse.ArgumentParser], None]] = {}

    def add_command(
        self, name: str, help: str, build: Callable[[argparse.ArgumentParser], None]
    ) -> None:
        self.add_parser(name, help=help)
        self._builds[name] = build

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        assert isinstance(values, list)
        build = self._builds.pop(values[0], None)  # argparse has checked it is a command
        if build is not None:
            build(self._name_parser_map[values[0]])
        super().__call__(parser, namespace, values, option_string)


def _build_check(check: argparse.ArgumentParser) -> None:
    names, default = _agents()
    check.description = (
        "Lint every instruction file and rule of the workspace. "
        "Exit 0 when there is no error-severity finding, 1 when there is, "
        "2 for usage or configuration errors."
    )
    check.add_argument(
        "root", nargs="?", help="workspace root (default: nearest ancestor with .git)"
    )
    add_output_flags(check)
    check.add_argument(
        "--fix",
        action="store_true",
        help="apply the safe fixes (those marked [*]: exact, never a guess, a created file or "
        "a suppression), say what changed, then report what remains",
    )
    check.add_argument(
        "--diff",
        action="store_true",
        help="print what --fix would change as a unified diff; write nothing",
    )
    check.add_argument(
        "--statistics",
        action="store_true",
        help="count the findings per code instead of listing them",
    )
    check.add_argument(
        "--profiles",
        metavar="A,B",
        help="the agents to check for, comma-separated (default: the configuration's "
        f"`profiles`, else {default} plus every agent whose files exist); one of: {names}",
    )
    _allow_flag(check)
    _home_flag(check)
    _ref_flag(check)
    add_cache_flag(check)


def _build_explain(explain: argparse.ArgumentParser) -> None:
    names, default = _agents()
    explain.description = (
        "Show what an agent working on TARGET loads: every file "
        "in prompt order, why, what imported it, its characters and whether "
        "the budget cut it. Without TARGET: the start-up load (root to cwd)."
    )
    explain.add_argument(
        "target", nargs="?", metavar="TARGET", help="a file (relative to the current directory)"
    )
    explain.add_argument("--root", help="workspace root (default: nearest ancestor with .git)")
    explain.add_argument(
        "--cwd", help="the agent's working directory (default: config `cwd`, else the root)"
    )
    explain.add_argument(
        "--profile",
        metavar="NAME",
        help=f"the agent whose loading to show (default: the configuration's `profile`, else "
        f"{default}); one of: {names}",
    )
    explain.add_argument("--json", action="store_true", help="machine-readable output")
    explain.add_argument(
        "--text",
        action="store_true",
        help="print the instructions exactly as the agent receives them",
    )
    _allow_flag(explain)
    _home_flag(explain)
    _ref_flag(explain)


def _build_compare(compare: argparse.ArgumentParser) -> None:
    names, _ = _agents()
    describe(
        compare,
        description="Show, side by side, what each agent loads when working on TARGET: one "
        "column per agent with its files in its own order, their sizes in the agent's unit "
        "(characters, tokens or bytes) and what its budget cut or left out, then one summary "
        "line per agent. Without TARGET: the start-up loads. Exit 0, or 2 for usage errors "
        "(an unknown agent, a TARGET outside the root).",
        epilog=COMPARE_EPILOG.format(names=names),
    )
    compare.add_argument(
        "target", nargs="?", metavar="TARGET", help="a file (relative to the current directory)"
    )
    compare.add_argument(
        "--profiles",
        metavar="A,B",
        help="the agents to compare, comma-separated, in column order (default: those the "
        f"workspace is checked for: the configuration's `profiles`, else detected); one of: "
        f"{names}",
    )
    compare.add_argument("--root", help="workspace root (default: nearest ancestor with .git)")
    compare.add_argument(
        "--cwd", help="the agents' working directory (default: config `cwd`, else the root)"
    )
    compare.add_argument(
        "--json",
        action="store_true",
        help="machine-readable: {target, cwd, columns: [{profile, title, summary, overBudget, "
        "explanation}]}, each explanation as `rulemap explain --json` prints it",
    )
    _allow_flag(compare)
    _home_flag(compare)
    _ref_flag(compare)


def _build_graph(graph: argparse.ArgumentParser) -> None:
    graph.description = (
        "Print the graph of instruction files, rules and imports. json (the default): "
        "nodes with their kind, size, and each rule's globs and match count; edges with "
        "their line and status. dot (Graphviz) and mermaid (a flowchart for Markdown) draw "
        "the files and imports only: a rule's kind (dot), an import's line, a broken import "
        "dashed; no globs or counts."
    )
    graph.add_argument(
        "root", nargs="?", help="workspace root (default: nearest ancestor with .git)"
    )
    graph.add_argument("--format", choices=["json", "dot", "mermaid"], default="json")
    _allow_flag(graph)
    _home_flag(graph)
    _ref_flag(graph)


def _build_serve(serve: argparse.ArgumentParser) -> None:
    """Nothing: `rulemap serve` is the language server's own command line
    (lsp/command_line.py), which `rulemap` picks by name before this parser
    (rulemap/__main__.py); it is listed here for `rulemap --help` only."""


# commands whose runner takes the parsed arguments: "module:function"
_RUNNERS = {
    "explain": "rulemap.cli.commands:run_explain", "compare": "rulemap.cli.compare:run_compare",
    "session": "rulemap.cli.session:run_session", "verify": "rulemap.cli.verify:run_verify",
    "diff": "rulemap.cli.diff:run_diff", "reach": "rulemap.cli.reach:run_reach",
    "why": "rulemap.cli.reach:run_why", "map": "rulemap.cli.repo_map:run_map",
}

# in `rulemap --help`'s order
_BUILDERS: dict[str, Callable[[argparse.ArgumentParser], None]] = {
    "check": _build_check, "explain": _build_explain, "compare": _build_compare,
    "session": lambda p: _added(p, "session:add_arguments"),
    "verify": lambda p: _added(p, "verify:add_arguments"), "graph": _build_graph,
    "diff": lambda p: _added(p, "diff:add_diff_arguments"),
    "reach": lambda p: _added(p, "reach:add_arguments"),
    "why": lambda p: _added(p, "reach:add_why_arguments"),
    "map": lambda p: _added(p, "repo_map:add_arguments"), "serve": _build_serve,
}


def _added(parser: argparse.ArgumentParser, where: str) -> None:
    """A command whose module adds its own arguments (`module:function` in rulemap.cli),
    given the agents' names and the shared flags."""
    module, function = where.split(":")
    add = getattr(importlib.import_module(f"rulemap.cli.{module}"), function)
    add(parser, _agents()[0], _allow_flag, _home_flag)


def _home_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--home", metavar="DIR", help=HOME_HELP)


def _ref_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ref", metavar="REF", help=REF_HELP)


def _allow_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--allow-imports-from",
        action="append",
        default=[],
        metavar="DIR",
        dest="allow_imports_from",
        help=ALLOW_HELP,
    )


_one_shot = False  # set by `main` for check / explain / compare / graph


def entry() -> NoReturn:
    """The `rulemap` command. After a one-shot command, skip the interpreter's teardown:
    freeing the million objects of a 20,000-file check one by one costs ~12% of the run, and
    nothing is left to do but exit (output is flushed first; no file is open for writing)."""
    cache = lookup(sys.argv[1:])  # a warm `check` prints its cached report: no engine imported
    replayed = cache.replayed if cache is not None else None
    if cache is not None:
        cache.detach = True  # the process exits after the report: a snapshot is left by a child
    code = main(cache=cache) if replayed is None else replayed
    if _one_shot or replayed is not None:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BrokenPipeError:
            pass
        os._exit(code)
    sys.exit(code)


def main(argv: Sequence[str] | None = None, cache: CheckCache | None = None) -> int:
    configure_output()
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    global _one_shot
    if args.command != "serve":
        from rulemap.cli.terminal import guard_errors, guard_output, output_mode, use_color

        guard_errors()  # a repository's text never drives the terminal (cli/terminal.py)
        guard_output(output_mode(args), use_color(getattr(args, "color", None), sys.stdout))
        # A one-shot command allocates ~a million small objects and frees them at exit; the
        # cyclic collector finds no garbage in them and costs ~10% of a cold check.
        gc.disable()
        _one_shot = True
    try:
        if args.command == "check":
            from rulemap.cli.commands import run_check
            from rulemap.cli.compare import profile_list

            return run_check(
                args.root, args.format, args.allow_imports_from,
                profiles=profile_list(args.profiles), user_home=args.home, ref=args.ref,
                fix=args.fix, diff=args.diff, statistics=args.statistics, cache=cache,
                suggest=args.suggest,
            )
        if args.command in _RUNNERS:  # `run_X(args)` of its module, imported when it runs
            module, function = _RUNNERS[args.command].split(":")
            runner = getattr(importlib.import_module(module), function)
            return runner(args)  # type: ignore[no-any-return]
        if args.command == "graph":
            from rulemap.cli.commands import run_graph

            return run_graph(
                args.root, args.format, args.allow_imports_from, user_home=args.home,
                ref=args.ref,
            )
        if args.command == "serve":
            # never from here: the CLI imports nothing of the server (rulemap/__main__.py)
            raise UsageError("serve is the language server's command: run `rulemap serve`")
    except UsageError as exc:
        print(f"rulemap: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        # rulemap.config (with tomllib, the readers, pathspec) is imported by the commands
        # that read a configuration, not by every start-up: a ConfigError means it was
        from rulemap.host.settings import ConfigError

        if not isinstance(exc, ConfigError):
            raise
        print(f"rulemap: configuration error: {exc}", file=sys.stderr)
        return 2
    return 2
