"""The CLI commands: open a host, ask it, print its plain answer through a formatter."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from rulemap.cli.agents_line import agents_json, say_agents, say_note, with_agents
from rulemap.cli.check_cache import record
from rulemap.cli.check_flags import shown
from rulemap.cli.formats import write_report
from rulemap.cli.usage import UsageError, dump_json, find_root
from rulemap.host import AnalysisHost, Snapshot
from rulemap.host.cache.check_results import CheckCache
from rulemap.host.commands import ReaderWrap, untrusted_findings
from rulemap.host.commands import open_host as opened
from rulemap.host.disk import home_dir, is_dir
from rulemap.host.user_config import flag_grants, merge_grants, read_user_grants


def open_host(
    root: str | None,
    allow: Sequence[str] = (),
    profiles: Sequence[str] | None = None,
    user_home: str | None = None,
    ref: str | None = None,
    editable: bool = False,
    wrap: ReaderWrap | Callable[..., Any] | None = None,
) -> AnalysisHost:
    """The host over the workspace at `root`; imports may leave it only for what the user
    grants: their configuration file and `--allow-imports-from` (`allow`), never the
    repository's. `profiles`: the agents to check for (`--profiles`, default the
    configuration's or those detected); `user_home`: where agents' user-level files are read
    from (`--home`; none by default); `ref`: read the workspace from that git commit, not the
    working tree (`--ref`; a ref git cannot read is a usage error); `editable`: its reader
    takes edited texts before they are written (`check --fix`); `wrap(factory, root)`: a
    reader factory around the one chosen (`rulemap diff` switches BASE's reader to HEAD's)."""
    root_dir = os.path.abspath(root) if root else find_root(os.getcwd())
    if not is_dir(root_dir):
        raise UsageError(f"{root_dir} is not a directory; pass the workspace root")
    granted = merge_grants(read_user_grants(), flag_grants(allow))
    home = os.path.abspath(user_home) if user_home else None
    if home is not None and not is_dir(home):
        raise UsageError(f"--home {user_home}: not a directory")
    if ref is None:
        return opened(root_dir, granted, profiles, home, home_dir(), editable=editable,
                      wrap=wrap)
    # git (and `subprocess`, ~12 ms) is imported only for `--ref`: a plain check never pays it
    from rulemap.host.commands import GitRefError

    try:
        return opened(root_dir, granted, profiles, home, home_dir(), ref=ref,
                      editable=editable, wrap=wrap)
    except GitRefError as exc:
        raise UsageError(str(exc)) from None


def warn_untrusted(snap: Snapshot) -> None:
    """For explain and graph (check lists it with the other findings): say on stderr that the
    repository's own grant was ignored, so a skipped import is not a mystery."""
    for f in untrusted_findings(snap):
        print(
            f"rulemap: {f.path}:{f.span.start.line + 1}:{f.span.start.col + 1}: "
            f"{f.severity} {f.code} {f.message}",
            file=sys.stderr,
        )


def run_check(
    root: str | None,
    output: str,
    allow: Sequence[str] = (),
    profiles: Sequence[str] | None = None,
    user_home: str | None = None,
    ref: str | None = None,
    fix: bool = False,
    diff: bool = False,
    statistics: bool = False,
    cache: CheckCache | None = None,
    suggest: bool = False,
) -> int:
    """`rulemap check`; `cache`: the result cache's entry for this run (host/cache/,
    None: not cached), written after the report when nothing forbids it; `suggest`: work out
    the did-you-means in json and sarif output too."""
    if fix or diff or statistics:
        from rulemap.cli import fix as fixing

        if ref is not None and (fix or diff):
            raise UsageError("--fix and --diff edit the working tree; leave out --ref")
        return fixing.run_check(
            lambda editable: open_host(
                root, allow, profiles=profiles, user_home=user_home, ref=ref, editable=editable
            ),
            output, fix, diff, statistics, suggest,
        )
    from rulemap.host.commands import look_once

    with record(cache if ref is None else None, root, user_home) as recorder:
        resumed = recorder.resumed() if recorder else None
        if resumed is not None:
            host = resumed  # the result cache's snapshot, told what changed
        else:
            host = open_host(root, allow, profiles=profiles, user_home=user_home, ref=ref,
                             wrap=recorder.wrap if recorder else None)
            if not (recorder and recorder.snapshot):
                # no snapshot to resume from: its values need not say what they read
                look_once(host)
        snap = host.snapshot()
        findings = snap.findings()
        write_report(snap, shown(snap, findings, output, suggest), output, sys.stdout)
        if output == "github":  # text, JSON and SARIF carry the agents themselves
            say_agents(snap)
        code = 1 if any(f.severity == "error" for f in findings) else 0
        if recorder:
            recorder.done(snap, code)
    return code


def inside(snap: Snapshot, path: str, what: str) -> str:
    """`path` (as the user typed it) as a key of the workspace, `.` for the root itself; a
    usage error naming the argument (`what`) when it lies outside the root."""
    from rulemap.host.commands import key_of

    absolute = os.path.normpath(os.path.abspath(path))
    key = key_of(snap, absolute.replace(os.sep, "/"))
    if absolute == os.path.normpath(snap.root):
        return "."
    if key.startswith("/"):
        raise UsageError(f"{what} {path} is outside the workspace root {snap.root}; pass --root")
    return key


def run_explain(args: argparse.Namespace) -> int:
    from rulemap.host.catalog import UnknownProfile
    from rulemap.host.explaining import explain
    from rulemap.host.selection import lead_agent, lead_json

    snap = open_host(args.root, args.allow_imports_from, user_home=getattr(args, "home", None),
                     ref=getattr(args, "ref", None)).snapshot()
    warn_untrusted(snap)
    target = inside(snap, args.target, "TARGET") if args.target else None
    if target == ".":
        raise UsageError("TARGET is the workspace root; name a file inside it")
    cwd = inside(snap, args.cwd, "--cwd") if args.cwd else None
    try:
        lead = lead_agent(snap, target, chosen=args.profile, cwd=cwd)
        explanation = explain(snap, target, cwd=cwd, profile=lead.name)
    except UnknownProfile as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        dump_json({**explanation.to_json(), "agents": agents_json(snap),
                   "answeredFor": lead_json(lead)})
        return 0
    say_agents(snap)
    say_note(lead.note)
    if args.text:
        sys.stdout.write(explanation.render() + "\n")
    else:
        from rulemap.cli.explain_table import print_explanation

        print_explanation(explanation)
    return 0


def run_graph(
    root: str | None,
    output: str,
    allow: Sequence[str] = (),
    user_home: str | None = None,
    ref: str | None = None,
) -> int:
    from rulemap.host.graphs import graph, to_dot, to_mermaid

    snap = open_host(root, allow, user_home=user_home, ref=ref).snapshot()
    warn_untrusted(snap)
    found = graph(snap)
    if output == "json":
        dump_json(with_agents(snap, found))
        return 0
    say_agents(snap)
    if output == "dot":
        print(to_dot(found))
    else:
        print(to_mermaid(found))
    return 0
