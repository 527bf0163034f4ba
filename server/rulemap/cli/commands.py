"""The CLI commands: open a host, ask it, print its plain answer through a formatter."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from rulemap.cli.agents_line import (
    agents_json,
    platform_json,
    say_agents,
    say_note,
    with_agents,
)
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
from rulemap.model import Finding


def open_host(
    root: str | None,
    allow: Sequence[str] = (),
    profiles: Sequence[str] | None = None,
    user_home: str | None = None,
    ref: str | None = None,
    editable: bool = False,
    wrap: ReaderWrap | Callable[..., Any] | None = None,
    cwd: str | None = None,
    platform: str | None = None,
) -> AnalysisHost:
    """The host over the workspace at `root`; imports may leave it only for what the user
    grants: their configuration file and `--allow-imports-from` (`allow`), never the
    repository's. `profiles`: the agents to check for (`--profiles`, default the
    configuration's or those detected); `user_home`: where agents' user-level files are read
    from (`--home`; none by default); `ref`: read the workspace from that git commit, not the
    working tree (`--ref`; a ref git cannot read is a usage error); `editable`: its reader
    takes edited texts before they are written (`check --fix`); `wrap(factory, root)`: a
    reader factory around the one chosen (`rulemap diff` switches BASE's reader to HEAD's);
    `cwd`: the agents' working directory, a key, over the configuration's (`check --cwd`);
    `platform`: the platform the agents run on, over the configuration's (`--platform`)."""
    root_dir = os.path.abspath(root) if root else find_root(os.getcwd())
    if not is_dir(root_dir):
        raise UsageError(f"{root_dir} is not a directory; pass the workspace root")
    granted = merge_grants(read_user_grants(), flag_grants(allow))
    home = os.path.abspath(user_home) if user_home else None
    if home is not None and not is_dir(home):
        raise UsageError(f"--home {user_home}: not a directory")
    if ref is None:
        return opened(root_dir, granted, profiles, home, home_dir(), editable=editable,
                      wrap=wrap, cwd=cwd, platform=platform)
    # git (and `subprocess`, ~12 ms) is imported only for `--ref`: a plain check never pays it
    from rulemap.host.commands import GitRefError

    try:
        return opened(root_dir, granted, profiles, home, home_dir(), ref=ref,
                      editable=editable, wrap=wrap, cwd=cwd, platform=platform)
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


def run_check_command(args: argparse.Namespace, cache: CheckCache | None) -> int:
    """`rulemap check [PATH ...]` from its parsed arguments: the root and the PATHs it
    limits the findings to (`check_scope`), then `run_check`."""
    from rulemap.cli.flags import chosen_profiles

    root, limit = check_scope(args.check_paths, args.root)
    code = run_check(
        root, args.format, args.allow_imports_from, profiles=chosen_profiles(args),
        user_home=args.home, ref=args.ref, fix=args.fix, diff=args.diff,
        statistics=args.statistics, cache=cache, suggest=args.suggest, limit=limit,
        exit_zero=args.exit_zero,
        cwd=cwd_key(root, args.cwd) if args.cwd else None, platform=args.platform,
    )
    return code


def cwd_key(root: str | None, cwd: str) -> str:
    """`check --cwd DIR` as a key of the workspace at `root` (None: found from the current
    directory), before the workspace is opened: it must be a directory inside the root."""
    root_dir = os.path.normpath(os.path.abspath(root) if root else find_root(os.getcwd()))
    absolute = os.path.normpath(os.path.abspath(cwd))
    if absolute != root_dir and not absolute.startswith(root_dir.rstrip(os.sep) + os.sep):
        raise UsageError(f"--cwd {cwd} is outside the workspace root {root_dir}; pass --root")
    if not is_dir(absolute):
        raise UsageError(f"--cwd {cwd}: no such directory")
    return os.path.relpath(absolute, root_dir).replace(os.sep, "/")


def check_scope(paths: Sequence[str], root: str | None) -> tuple[str | None, list[str] | None]:
    """The root of `rulemap check [PATH ...]` and the workspace keys its findings are
    limited to (None: all). One directory and no --root: that directory is the root, as
    before; otherwise --root, else the nearest ancestor of the current directory with .git,
    and each PATH must exist inside it (a usage error naming it otherwise)."""
    from rulemap.host.disk import exists

    if not paths:
        return root, None
    if len(paths) == 1 and root is None and is_dir(paths[0]):
        return paths[0], None
    root_dir = os.path.normpath(os.path.abspath(root) if root else find_root(os.getcwd()))
    keys: list[str] = []
    for path in paths:
        absolute = os.path.normpath(os.path.abspath(path))
        if absolute != root_dir and not absolute.startswith(root_dir.rstrip(os.sep) + os.sep):
            raise UsageError(f"PATH {path} is outside the workspace root {root_dir}; pass "
                             "--root")
        if not exists(absolute):
            raise UsageError(f"PATH {path}: no such file or directory")
        key = os.path.relpath(absolute, root_dir).replace(os.sep, "/")
        keys.append(key)
    return root_dir, keys


def limited(findings: list[Finding], keys: Sequence[str] | None) -> list[Finding]:
    """The findings of the files `keys` name (a directory: the files under it); all of them
    when `keys` is None. A finding about a file outside the workspace is no PATH's."""
    if keys is None or "." in keys:
        return findings
    return [f for f in findings
            if any(f.path == key or f.path.startswith(key + "/") for key in keys)]


def say_nothing_read(snap: Snapshot, findings: Sequence[Finding] = ()) -> None:
    """On stderr, when no selected agent has a file to read here: which agents were looked
    for, and which file names they read, so that an empty report is not taken for a pass —
    and the files named in other letter case (`agents.md`), unless the report's `name-case`
    findings (among `findings`) say so already."""
    from rulemap.host.presence import nothing_to_read

    unread = nothing_to_read(snap)
    if unread is None:
        return
    reported = {f.path for f in findings if f.code == "name-case"}
    if unread.cased and all(path in reported for path, _ in unread.cased):
        return  # the report names them, the agents and the rename: not an empty report
    import textwrap

    names = ", ".join(dict.fromkeys(g.removeprefix("**/") for g in unread.globs))
    message = (f"rulemap: no instruction file of the selected agents ({', '.join(unread.agents)}) "
               f"was found in {snap.root}; they read: {names}. Select other agents with "
               "--profiles, or pass the root with --root.")
    paragraphs = [message]
    if unread.cased:
        from rulemap.host.selection import assumed_platform

        files = ", ".join(f"`{path}` (`{name}`)" for path, name in unread.cased)
        paragraphs.append(
            f"rulemap: named in other letter case: {files}, which agents read on macOS and "
            f"Windows but not on {assumed_platform(snap).capitalize()}: rename them "
            "(name-case).")
    for paragraph in paragraphs:
        print("\n".join(textwrap.wrap(paragraph, 80, break_long_words=False,
                                       break_on_hyphens=False)), file=sys.stderr)


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
    limit: Sequence[str] | None = None,
    color: bool | None = None,
    exit_zero: bool = False,
    cwd: str | None = None,
    platform: str | None = None,
) -> int:
    """`rulemap check`; `cache`: the result cache's entry for this run (host/cache/,
    None: not cached), written after the report when nothing forbids it; `suggest`: work out
    the did-you-means in json and sarif output too; `limit`: the workspace keys whose
    findings are reported (None: all); `color`: the text report coloured (None: as
    `--color` decided for the run, `cli/terminal.use_color`); `exit_zero`: exit 0 whatever
    the findings; `cwd`: the agents' working directory (a key; None: the configuration's);
    `platform`: the platform the agents run on (None: the configuration's, else the host's)."""
    if fix or diff or statistics:
        from rulemap.cli import fix as fixing

        if ref is not None and (fix or diff):
            raise UsageError("--fix and --diff edit the working tree; leave out --ref")
        code = fixing.run_check(
            lambda editable: open_host(
                root, allow, profiles=profiles, user_home=user_home, ref=ref, editable=editable,
                cwd=cwd, platform=platform,
            ),
            output, fix, diff, statistics, suggest, lambda found: limited(found, limit),
        )
        return 0 if exit_zero and code == 1 else code
    from rulemap.host.commands import look_once

    with record(cache if ref is None else None, root, user_home) as recorder:
        resumed = recorder.resumed() if recorder else None
        if resumed is not None:
            host = resumed  # the result cache's snapshot, told what changed
        else:
            host = open_host(root, allow, profiles=profiles, user_home=user_home, ref=ref,
                             wrap=recorder.wrap if recorder else None, cwd=cwd,
                             platform=platform)
            if not (recorder and recorder.snapshot):
                # no snapshot to resume from: its values need not say what they read
                look_once(host)
        snap = host.snapshot()
        findings = limited(snap.findings(), limit)
        say_nothing_read(snap, findings)
        write_report(snap, shown(snap, findings, output, suggest), output, sys.stdout,
                     color=color)
        if output == "github":  # text, JSON and SARIF carry the agents themselves
            say_agents(snap)
        errors = any(f.severity == "error" for f in findings)
        code = 1 if errors and not exit_zero else 0
        if recorder:
            recorder.done(snap, code)
    return code


def target_of(snap: Snapshot, path: str) -> str:
    """TARGET as a workspace key (`inside`). A TARGET that does not exist is still answered
    — an edit may create the file, and what the agent gets then is the question
    (docs/semantics.md; conformance case `target-need-not-exist`) — but never silently: the
    answer is said, on stderr, to be about a file not there yet."""
    from rulemap.host.presence import exists_in

    key = inside(snap, path, "TARGET")
    if not exists_in(snap, key):
        print(f"rulemap: TARGET {path} does not exist in the workspace {snap.root}: this is "
              "what an agent gets once it creates it", file=sys.stderr)
    return key


def existing(snap: Snapshot, path: str, what: str) -> str:
    """`inside`, and the file or directory must exist in the workspace: a usage error
    naming it otherwise (never an answer about a file that is not there)."""
    from rulemap.host.presence import exists_in

    key = inside(snap, path, what)
    if not exists_in(snap, key):
        raise UsageError(f"{what} {path}: no such file in the workspace {snap.root}")
    return key


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


def one_agent_snapshot(args: argparse.Namespace) -> tuple[Snapshot, str | None]:
    """For a command that answers for one agent (explain, session, verify): the workspace's
    snapshot and the agent picked by `--profiles`/`--profile` (None: the lead agent). The
    selection stays the workspace's (the configuration's, else detected), so the agents
    line and the lead's note can name the others."""
    from rulemap.cli.flags import one_agent

    _, profile = one_agent(args)
    snap = open_host(args.root, args.allow_imports_from, user_home=args.home,
                     ref=args.ref, platform=args.platform).snapshot()
    warn_untrusted(snap)
    return snap, profile


def run_explain(args: argparse.Namespace) -> int:
    from rulemap.host.catalog import UnknownProfile
    from rulemap.host.explaining import explain
    from rulemap.host.selection import lead_agent, lead_json

    if args.text and args.format != "text":
        raise UsageError(f"--text prints the instructions as the agent receives them; leave "
                         f"out --format {args.format}")
    snap, profile = one_agent_snapshot(args)
    target = target_of(snap, args.target) if args.target else None
    if target == ".":
        raise UsageError("TARGET is the workspace root; name a file inside it")
    cwd = existing(snap, args.cwd, "--cwd") if args.cwd else None
    try:
        lead = lead_agent(snap, target, chosen=profile, cwd=cwd)
        explanation = explain(snap, target, cwd=cwd, profile=lead.name)
    except UnknownProfile as exc:
        raise UsageError(str(exc)) from None
    from rulemap.host.aliasing import load_names, read_as_field

    if args.format == "json":
        # "readAs": the entries that are another file's text (a symlink), only when some are
        dump_json({**explanation.to_json(), "selection": agents_json(snap),
                   "platform": platform_json(snap), "answeredFor": lead_json(lead),
                   **read_as_field(snap, explanation)})
        return 0
    read_as = load_names(snap, explanation)
    say_agents(snap)
    say_note(lead.note)
    if args.text:
        sys.stdout.write(explanation.render() + "\n")
    else:
        from rulemap.cli.explain_table import print_explanation

        print_explanation(explanation, read_as=read_as)
    return 0


def run_graph_command(args: argparse.Namespace) -> int:
    from rulemap.cli.flags import chosen_profiles, root_of

    return run_graph(root_of(args, args.positional_root), args.format, args.allow_imports_from,
                     user_home=args.home, ref=args.ref, profiles=chosen_profiles(args),
                     platform=args.platform)


def run_graph(
    root: str | None,
    output: str,
    allow: Sequence[str] = (),
    user_home: str | None = None,
    ref: str | None = None,
    profiles: Sequence[str] | None = None,
    platform: str | None = None,
) -> int:
    from rulemap.host.graphs import graph, to_dot, to_mermaid

    snap = open_host(root, allow, profiles=profiles, user_home=user_home, ref=ref,
                     platform=platform).snapshot()
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
