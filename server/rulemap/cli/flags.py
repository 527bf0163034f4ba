"""The flags every command shares, spelt once: `--root`, `--format` (`--json` its alias),
`--profiles` (`--profile` a one-agent alias), `--cwd`, `--home`, `--ref`,
`--allow-imports-from`, `--platform` and `--color`.

`COMMANDS` says which of them each command takes, with which formats; a shared flag that
means nothing for a command is still known to its parser, hidden, so that it is refused with
the reason instead of argparse's "unrecognized arguments". Light: the parser is built at
every start-up, before the engine is imported (a NamedTuple, not a dataclass: no `inspect`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from rulemap.cli.usage import UsageError, did_you_mean

COLORS = ("auto", "always", "never")


class Takes(NamedTuple):
    """The shared flags one command takes: its formats (the first is the default), whether
    it answers for one agent (`explain`, `session`, `verify`: the first of `--profiles`), and
    the shared flags that mean nothing for it, each with the reason it says."""

    formats: tuple[str, ...]
    one_agent: bool = False
    refused: Mapping[str, str] = {}  # noqa: RUF012 (read only)


_NO_WORKSPACE = "a code's documentation is the same in every workspace"
COMMANDS: dict[str, Takes] = {
    "check": Takes(("text", "json", "sarif", "github")),
    "explain": Takes(("text", "json"), one_agent=True),
    "compare": Takes(("text", "json")),
    "reach": Takes(("text", "json")),
    "why": Takes(("text", "json")),
    "map": Takes(("text", "json")),
    "session": Takes(("text", "json"), one_agent=True),
    "verify": Takes(("text", "json"), one_agent=True),
    "diff": Takes(("text", "json", "markdown"), refused={
        "--ref": "diff reads BASE and HEAD: give the commits as its arguments"}),
    "graph": Takes(("json", "dot", "mermaid"), refused={
        "--cwd": "the graph is the whole workspace's, not one working directory's"}),
    "rule": Takes(("text", "json"), refused={
        flag: _NO_WORKSPACE for flag in ("--root", "--profiles", "--cwd", "--home", "--ref",
                                         "--allow-imports-from", "--platform")}),
}

FORMAT_HELP = {
    "text": "text for people",
    "json": "JSON",
    "sarif": "SARIF 2.1.0, for code scanning",
    "github": "GitHub annotations",
    "markdown": "a pull-request comment",
    "dot": "Graphviz",
    "mermaid": "a Mermaid flowchart, to paste into Markdown",
}

ROOT_HELP = "workspace root (default: the nearest ancestor with .git)"
CWD_HELP = "the agents' working directory (default: config `cwd`, else the root)"
COLOR_HELP = ("colour the output: auto (on a terminal, unless NO_COLOR is set; FORCE_COLOR "
              "forces it), always or never")
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
# the platforms of config.PLATFORMS, spelt here: the parser is built before the engine loads
PLATFORMS = ("linux", "macos", "windows")
PLATFORM_HELP = (
    "the platform the agents run on: on macOS and Windows (case-insensitive file systems) an "
    "agent that opens its file by name reads it in any letter case, on Linux it does not "
    "(default: the configuration's `platform`, else the system Rulemap runs on)"
)
REF_HELP = (
    "read instruction files, rules and imports from git commit REF (a branch, tag or sha) "
    "instead of the working tree"
)


def add_shared_flags(parser: argparse.ArgumentParser, command: str, names: str,
                     format_help: str | None = None, profiles_help: str | None = None) -> None:
    """The shared flags `command` takes added to its parser, those it does not take added
    hidden (refused with their reason). `names`: the agents' names, for `--profiles`' help;
    `format_help`, `profiles_help`: the command's own words for them."""
    takes = COMMANDS[command]
    refused = takes.refused
    if "--root" in refused:
        _refuse(parser, "--root", refused["--root"])
    else:
        parser.add_argument("--root", metavar="DIR", help=ROOT_HELP)
    choices = takes.formats
    parser.add_argument(
        "--format", choices=choices, default=choices[0],
        help=format_help or ", ".join(f"{c} ({FORMAT_HELP[c]})" for c in choices)
        + f" (default: {choices[0]})",
    )
    if "json" in choices:
        parser.add_argument("--json", action="store_const", const="json", dest="format",
                            help="the same as --format json")
    if "--profiles" in refused:
        _refuse(parser, "--profiles", refused["--profiles"])
        _refuse(parser, "--profile", refused["--profiles"])
    else:
        one = " (it answers for one: the first)" if takes.one_agent else ""
        parser.add_argument(
            "--profiles", metavar="A,B|all", dest="profiles", action=_Profiles,
            help=profiles_help or "the agents to answer for, comma-separated, or all"
            f"{one} (default: the configuration's `profiles`, else the default model and "
            f"the agents detected); one of: {names}",
        )
        parser.add_argument("--profile", metavar="NAME", dest="profiles", action=_Profiles,
                            help="one agent: the same as --profiles NAME")
    for flag, add in (("--cwd", _cwd_flag), ("--home", _home_flag), ("--ref", _ref_flag),
                      ("--allow-imports-from", _allow_flag), ("--platform", _platform_flag)):
        if flag in refused:
            _refuse(parser, flag, refused[flag])
        else:
            add(parser)
    parser.add_argument("--color", choices=COLORS, default="auto", dest="color",
                        help=COLOR_HELP)


class _Profiles(argparse.Action):
    """`--profiles A,B` and `--profile A`: the last one given wins, as for any option."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        setattr(namespace, self.dest, values)
        namespace.profiles_flag = option_string


class _Refused(argparse.Action):
    """A shared flag that means nothing for this command: refused with its reason."""

    def __init__(self, option_strings: list[str], dest: str, reason: str = "",
                 **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs="?", help=argparse.SUPPRESS, **kwargs)
        self.reason = reason

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        parser.error(f"{option_string} does not apply to `{parser.prog}`: {self.reason}")


def _refuse(parser: argparse.ArgumentParser, flag: str, reason: str) -> None:
    parser.add_argument(flag, action=_Refused, reason=reason,
                        dest=f"refused_{flag.strip('-').replace('-', '_')}")


def _cwd_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cwd", metavar="DIR", help=CWD_HELP)


def _home_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--home", metavar="DIR", help=HOME_HELP)


def _ref_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ref", metavar="REF", help=REF_HELP)


def _platform_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--platform", choices=PLATFORMS, help=PLATFORM_HELP)


def _allow_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--allow-imports-from", action="append", default=[], metavar="DIR",
                        dest="allow_imports_from", help=ALLOW_HELP)


def profile_list(value: str | None, flag: str = "--profiles") -> list[str] | None:
    """`a,b , c` → ["a", "b", "c"] checked against the registry (None when not given); `all`
    → every registered agent. An unknown or empty name is a usage error with the closest
    name ("did you mean") and every known one."""
    from rulemap.host.catalog import agent_names

    if value is None:
        return None
    known = agent_names()
    names = [n.strip() for n in value.split(",")]
    available = ", ".join(known)
    if names == ["all"]:
        return list(known)
    if not any(names) or not all(names):
        raise UsageError(f"{flag} {value!r}: name agents separated by commas, or all; "
                         f"available: {available}")
    unknown = [n for n in names if n not in known]
    if unknown:
        hint = did_you_mean(unknown[0], known)
        raise UsageError(f"{flag}: unknown profile `{unknown[0]}`{hint} Available: {available}"
                         if hint else f"{flag}: unknown profile `{unknown[0]}`; available: "
                         f"{available}")
    return list(dict.fromkeys(names))


def chosen_profiles(args: argparse.Namespace) -> list[str] | None:
    """The agents `--profiles` (or `--profile`) names, `all` expanded (None: not given)."""
    return profile_list(args.profiles, getattr(args, "profiles_flag", None) or "--profiles")


def one_agent(args: argparse.Namespace) -> tuple[list[str] | None, str | None]:
    """For a command that answers for one agent: the agents of `--profiles` (None: not
    given) and the one it answers for, the first; when several were given, says on stderr
    which it answers for."""
    chosen = chosen_profiles(args)
    if not chosen:
        return None, None
    if len(chosen) > 1:
        print(f"rulemap: {args.command} answers for one agent: {chosen[0]} (the first of "
              f"{', '.join(chosen)})", file=sys.stderr)
    return chosen, chosen[0]


def root_of(args: argparse.Namespace, positional: str | None) -> str | None:
    """The root of a command whose first positional argument may be its root (`graph`):
    `--root`, else that argument; both given and different is a usage error."""
    flag = getattr(args, "root", None)
    if flag and positional and os.path.abspath(flag) != os.path.abspath(positional):
        raise UsageError(f"two roots: {positional} and --root {flag}; give one")
    return flag or positional
