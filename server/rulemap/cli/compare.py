"""`rulemap compare TARGET`: what each agent loads for one file, side by side."""

from __future__ import annotations

import argparse
import sys

from rulemap.cli.flags import chosen_profiles, profile_list
from rulemap.cli.usage import UsageError, dump_json

__all__ = ["profile_list", "run_compare"]  # profile_list: its old home, kept for callers


def run_compare(args: argparse.Namespace) -> int:
    from rulemap.cli.agents_line import say_agents, with_agents
    from rulemap.cli.commands import existing, open_host, target_of, warn_untrusted
    from rulemap.host.comparing import compare

    chosen = chosen_profiles(args)
    snap = open_host(args.root, args.allow_imports_from, profiles=chosen, user_home=args.home,
                     ref=args.ref, platform=args.platform).snapshot()
    warn_untrusted(snap)
    target = target_of(snap, args.target) if args.target else None
    if target == ".":
        raise UsageError("TARGET is the workspace root; name a file inside it")
    cwd = existing(snap, args.cwd, "--cwd") if args.cwd else None
    # default: the agents this workspace is checked for (configured, else detected)
    comparison = compare(snap, target, cwd, chosen)
    if args.format == "json":
        dump_json(with_agents(snap, comparison.to_json()))
    else:
        from rulemap.cli.compare_table import print_comparison

        say_agents(snap)
        print_comparison(comparison)
    sys.stdout.flush()
    return 0
