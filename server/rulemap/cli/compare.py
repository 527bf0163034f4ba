"""`rulemap compare TARGET`: what each agent loads for one file, side by side."""

from __future__ import annotations

import argparse
import sys

from rulemap.cli.usage import UsageError, dump_json


def profile_list(value: str | None, flag: str = "--profiles") -> list[str] | None:
    """`a,b , c` → ["a", "b", "c"] checked against the registry (None when not given); an
    unknown or empty name is a usage error listing every known one."""
    from rulemap.host.catalog import agent_names

    if value is None:
        return None
    names = [n.strip() for n in value.split(",")]
    known = agent_names()
    if "all" in names:  # every registered agent (host/selection.py)
        names = [*known, *(n for n in names if n != "all")]
    available = ", ".join(known)
    if not any(names) or not all(names):
        raise UsageError(f"{flag} {value!r}: name agents separated by commas; available: "
                         f"{available}")
    unknown = [n for n in names if n not in known]
    if unknown:
        raise UsageError(f"{flag}: unknown profile `{unknown[0]}`; available: {available}")
    return list(dict.fromkeys(names))


def run_compare(args: argparse.Namespace) -> int:
    from rulemap.cli.agents_line import say_agents, with_agents
    from rulemap.cli.commands import inside, open_host, warn_untrusted
    from rulemap.host.comparing import compare

    chosen = profile_list(args.profiles)
    snap = open_host(args.root, args.allow_imports_from, user_home=args.home, profiles=chosen,
                     ref=getattr(args, "ref", None)).snapshot()
    warn_untrusted(snap)
    target = inside(snap, args.target, "TARGET") if args.target else None
    if target == ".":
        raise UsageError("TARGET is the workspace root; name a file inside it")
    cwd = inside(snap, args.cwd, "--cwd") if args.cwd else None
    # default: the agents this workspace is checked for (configured, else detected)
    comparison = compare(snap, target, cwd, chosen)
    if args.json:
        dump_json(with_agents(snap, comparison.to_json()))
    else:
        from rulemap.cli.compare_table import print_comparison

        say_agents(snap)
        print_comparison(comparison)
    sys.stdout.flush()
    return 0
