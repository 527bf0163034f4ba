"""`rulemap COMMAND` — argument parsing and exit codes only (the shared flags: flags.py)."""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, cast

from rulemap.cli.check_cache import add_cache_flag, lookup
from rulemap.cli.check_flags import add_output_flags
from rulemap.cli.flags import add_shared_flags

# what every command shares, below this module (the commands import it, not main): the names
# stay importable from here
from rulemap.cli.terminal import configure_output
from rulemap.cli.usage import Parser, UsageError, describe, dump_json, find_root, for_stderr

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
  rulemap check                    lint every instruction file and rule here
  rulemap check --fix              apply the safe fixes ([*]); --diff shows them
  rulemap check src/ docs/a.md     only these files' findings (pre-commit)
  rulemap check --profiles all     lint for every agent (or --profiles A,B)
  rulemap explain src/api/x.ts     what an agent working on that file loads
  rulemap explain --format json    the start-up load (root down to cwd), JSON
  rulemap compare src/api/x.ts     that file, side by side for each agent
  rulemap session read:src/a.ts edit:pkg/x.py   what joins at each step
  rulemap verify .rulemap/instructions-loaded.jsonl
      what the agent really loaded, against Rulemap's prediction
  rulemap graph --format mermaid   the import/rule graph, for Markdown
  rulemap diff main                which files' instructions differ from main
  rulemap map --html map.html      one page mapping the instructions
  rulemap rule broken-import       what a check code means (--all: every code)
  rulemap serve                    the language server (stdio), for editors

Every command takes --root DIR, --format, --profiles A,B|all (--profile X), --color
auto|always|never, and where they mean something --cwd, --home, --ref and
--allow-imports-from DIR (rulemap COMMAND --help).

{configuration}

Reading outside the workspace is yours to grant, never the repository's: allowImportsFrom
in $RULEMAP_CONFIG or $XDG_CONFIG_HOME/rulemap/config.toml (default
~/.config/rulemap/config.toml), or --allow-imports-from DIR. Docs: docs/semantics.md,
docs/checks.md, docs/security.md.
"""

COMPARE_EPILOG = """\
examples:
  rulemap compare src/api/x.ts                  every selected agent
  rulemap compare src/api/x.ts --profiles A,B   agents A and B only
  rulemap compare --cwd packages/web            the start-up loads from there
  rulemap compare src/x.ts --home ~             with your own user-level files
  rulemap compare src/x.ts --format json        one explanation per agent

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
    "verify": "compare an agent's log of what it loaded with Rulemap's prediction",
    "graph": "the import/rule graph",
    "diff": "which files' instructions differ between two commits",
    "reach": "who loads a file (or one line of it), per agent, and why",
    "why": "does a sentence of the instructions reach each agent, and if not, why",
    "map": "one self-contained HTML page mapping the repository's instructions",
    "rule": "what a check code means: its summary, severity, fix and docs",
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
    )
    parser.add_argument("--version", action="version", version="rulemap 0.1.0")
    # `prog` given: argparse otherwise builds a help formatter (and imports shutil) to find it;
    # `parser_class`: the sub-commands' epilogs are their own (not `_Rulemap`'s)
    sub = parser.add_subparsers(
        dest="command", metavar="COMMAND", prog="rulemap", action=_Commands,
        parser_class=Parser,
    )
    assert isinstance(sub, _Commands)
    for name, build in _BUILDERS.items():
        sub.add_command(name, COMMAND_HELP[name], build)
    return parser


def _top_epilog() -> str:
    from rulemap.host.catalog import agent_names, setting_keys

    return EPILOG.format(configuration=(
        f"Configuration: rulemap.toml at the root, or [tool.rulemap] in pyproject.toml "
        f"(keys: {', '.join(setting_keys())}). Agents: {', '.join(agent_names())}."))


def _agents() -> tuple[str, str]:
    """The agents' names (comma-separated) and the default agent's, for help texts."""
    from rulemap.host.catalog import agent_names, default_agent

    return ", ".join(agent_names()), default_agent()


class _Rulemap(Parser):
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

# where argparse keeps the arguments a sub-command's parser did not recognise
_UNRECOGNIZED = "_unrecognized_args"


class _Commands(_SubParsers):
    """The sub-commands, each a bare parser (its name and one-line help, all `rulemap --help`
    lists) until it is parsed: then `build` adds its description and arguments."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._builds: dict[str, Callable[[argparse.ArgumentParser], None]] = {}

    def add_command(
        self, name: str, help: str, build: Callable[[argparse.ArgumentParser], None]
    ) -> None:
        # its parser is made when it is parsed: an ArgumentParser asks gettext three times
        # as it is made (~0.1 ms each, and a search for translations), for every command at
        # every start-up. `rulemap --help` lists the names and helps, not the parsers.
        self._choices_actions.append(self._ChoicesPseudoAction(name, (), help))
        self._name_parser_map[name] = cast("argparse.ArgumentParser", None)
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
        command = self._name_parser_map[values[0]]
        if command is None:
            command = self._parser_class(prog=f"{self._prog_prefix} {values[0]}")
            self._name_parser_map[values[0]] = command
        if build is not None:
            build(command)
        super().__call__(parser, namespace, values, option_string)
        unknown = vars(namespace).pop(_UNRECOGNIZED, None)
        if unknown:  # the command's own error: it knows its options, to say the closest
            command.error(f"unrecognized arguments: {' '.join(unknown)}")


def _build_check(check: argparse.ArgumentParser) -> None:
    names, default = _agents()
    describe(
        check,
        description="Lint every instruction file and rule of the workspace. With PATHs, "
        "report only the findings of those files and directories (the workspace is still "
        "read whole: a PATH's imports and the agents' loads count). "
        "Exit 0 when there is no error-severity finding, 1 when there is (0 with "
        "--exit-zero), 2 for usage or configuration errors.",
    )
    check.add_argument(
        "check_paths", nargs="*", metavar="PATH",
        help="files or directories (relative to the current directory) whose findings to "
        "report (default: all). A single directory and no --root: that directory is the "
        "workspace root",
    )
    add_shared_flags(
        check, "check", names,
        format_help="text (findings grouped by file, then a summary), json (LSP ranges: "
        "0-based, UTF-16), sarif (2.1.0, for code scanning), github (annotations)",
        profiles_help="the agents to check for, comma-separated, or all (default: the "
        f"configuration's `profiles`, else {default} plus every agent whose files exist); "
        f"one of: {names}",
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
        "--exit-zero", action="store_true",
        help="exit 0 even when there are error-severity findings (2 still for usage errors)",
    )
    add_cache_flag(check)


def _build_explain(explain: argparse.ArgumentParser) -> None:
    names, default = _agents()
    describe(
        explain,
        description="Show what an agent working on TARGET loads: every file in prompt "
        "order, why, what imported it, its characters and whether the budget cut it. "
        "Without TARGET: the start-up load (root to cwd).",
    )
    explain.add_argument(
        "target", nargs="?", metavar="TARGET", help="a file (relative to the current directory)"
    )
    add_shared_flags(
        explain, "explain", names,
        profiles_help=f"the agent whose loading to show (default: the configuration's "
        f"`profile`, else {default}); with several, the first; one of: {names}",
    )
    explain.add_argument(
        "--text",
        action="store_true",
        help="print the instructions exactly as the agent receives them",
    )


def _build_compare(compare: argparse.ArgumentParser) -> None:
    names, _ = _agents()
    describe(
        compare,
        description="Show, side by side, what each agent loads when working on TARGET: one "
        "column per agent with its files in its own order, their sizes in the agent's unit "
        "(characters, tokens or bytes) and what its budget cut or left out, then one summary "
        "line per agent. Without TARGET: the start-up loads. Exit 0, or 2 for usage errors "
        "(an unknown agent, a TARGET outside the root or missing).",
        epilog=COMPARE_EPILOG.format(names=names),
    )
    compare.add_argument(
        "target", nargs="?", metavar="TARGET", help="a file (relative to the current directory)"
    )
    add_shared_flags(
        compare, "compare", names,
        format_help="text (one column per agent), or json: {target, cwd, columns: [{profile, "
        "title, summary, overBudget, explanation}]}, each explanation as `rulemap explain "
        "--format json` prints it",
        profiles_help="the agents to compare, comma-separated, in column order, or all "
        "(default: those the workspace is checked for: the configuration's `profiles`, else "
        f"detected); one of: {names}",
    )


def _build_graph(graph: argparse.ArgumentParser) -> None:
    names, _ = _agents()
    describe(graph, description=(
        "Print the graph of instruction files, rules and imports. json (the default): "
        "nodes with their kind, size, and each rule's globs and match count; edges with "
        "their line and status. dot (Graphviz) and mermaid (a flowchart for Markdown) draw "
        "the files and imports only: a rule's kind (dot), an import's line, a broken import "
        "dashed; no globs or counts."
    ))
    graph.add_argument(
        "positional_root", nargs="?", metavar="ROOT",
        help="workspace root, as --root (default: the nearest ancestor with .git)",
    )
    add_shared_flags(graph, "graph", names)


def _build_rule(rule: argparse.ArgumentParser) -> None:
    names, _ = _agents()
    describe(
        rule,
        description="Print what a check code of `rulemap check` means: its summary, default "
        "severity (and the others it may have), the agents it concerns, whether --fix "
        "repairs it, and its documentation. Exit 0, or 2 for an unknown code.",
        epilog="examples:\n  rulemap rule broken-import\n  rulemap rule --all\n"
        "  rulemap rule --all --format json\n",
    )
    rule.add_argument("code", nargs="?", metavar="CODE", help="a check code")
    rule.add_argument("--all", action="store_true", help="every code, in the registry's order")
    add_shared_flags(rule, "rule", names)


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
    "graph": "rulemap.cli.commands:run_graph_command", "rule": "rulemap.cli.rule:run_rule",
}

# in `rulemap --help`'s order
_BUILDERS: dict[str, Callable[[argparse.ArgumentParser], None]] = {
    "check": _build_check, "explain": _build_explain, "compare": _build_compare,
    "session": lambda p: _added(p, "session:add_arguments"),
    "verify": lambda p: _added(p, "verify:add_arguments"), "graph": _build_graph,
    "diff": lambda p: _added(p, "diff:add_diff_arguments"),
    "reach": lambda p: _added(p, "reach:add_arguments"),
    "why": lambda p: _added(p, "reach:add_why_arguments"),
    "map": lambda p: _added(p, "repo_map:add_arguments"), "rule": _build_rule,
    "serve": _build_serve,
}


def _added(parser: argparse.ArgumentParser, where: str) -> None:
    """A command whose module adds its own arguments (`module:function` in rulemap.cli),
    given the agents' names; each adds the shared flags (`cli/flags.py`) itself."""
    module, function = where.split(":")
    add = getattr(importlib.import_module(f"rulemap.cli.{module}"), function)
    add(parser, _agents()[0])


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
    # A one-shot command allocates ~a million small objects and frees them at exit; the
    # cyclic collector finds no garbage in them and costs ~10% of a cold check. Off before
    # parsing, which imports the engine the command runs (most of a small check's time: the
    # collector scanned its modules ~20 times)
    gc.disable()
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
        _one_shot = True
    else:
        gc.enable()
    try:
        if args.command == "check":
            from rulemap.cli.commands import run_check_command

            return run_check_command(args, cache)
        if args.command in _RUNNERS:  # `run_X(args)` of its module, imported when it runs
            module, function = _RUNNERS[args.command].split(":")
            runner = getattr(importlib.import_module(module), function)
            return runner(args)  # type: ignore[no-any-return]
        if args.command == "serve":
            # never from here: the CLI imports nothing of the server (rulemap/__main__.py)
            raise UsageError("serve is the language server's command: run `rulemap serve`")
    except UsageError as exc:
        print(for_stderr(f"rulemap: {exc}"), file=sys.stderr)
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
