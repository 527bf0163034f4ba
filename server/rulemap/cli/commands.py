"""The CLI commands: open the workspace, ask the core, print through a formatter."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from rulemap import analysis
from rulemap.cli.check_cache import record
from rulemap.cli.check_flags import shown
from rulemap.cli.formats import write_report
from rulemap.cli.main import UsageError, dump_json, find_root
from rulemap.host.cache.check_results import CheckCache
from rulemap.host.commands import OpenWorkspace, untrusted_findings
from rulemap.host.user_config import flag_grants, merge_grants, read_user_grants
from rulemap.readers import host
from rulemap.readers.base import WalkingReader

# a reader factory built around another, for the workspace at a root (see open_workspace)
ReaderWrap = Callable[[analysis.ReaderFactory, str], analysis.ReaderFactory]


def open_workspace(
    root: str | None,
    allow: Sequence[str] = (),
    profiles: Sequence[str] | None = None,
    user_home: str | None = None,
    ref: str | None = None,
    editable: bool = False,
    wrap: ReaderWrap | None = None,
) -> OpenWorkspace:
    """The workspace at `root`; imports may leave it only for what the user grants: their
    configuration file and `--allow-imports-from` (`allow`), never the repository's.
    `profiles`: the agents to check for (`--profiles`, default the configuration's or those
    detected); `user_home`: where agents' user-level files are read from (`--home`; none by
    default); `ref`: read the workspace from that git commit, not the working tree (`--ref`;
    a ref git cannot read is a usage error); `editable`: its reader takes edited texts before
    they are written (`check --fix`); `wrap(factory, root)`: a reader factory around the one
    chosen (`rulemap diff` switches BASE's reader to HEAD's)."""
    root_dir = os.path.abspath(root) if root else find_root(os.getcwd())
    if not host.is_dir(root_dir):
        raise UsageError(f"{root_dir} is not a directory; pass the workspace root")
    granted = merge_grants(read_user_grants(), flag_grants(allow))
    home = os.path.abspath(user_home) if user_home else None
    if home is not None and not host.is_dir(home):
        raise UsageError(f"--home {user_home}: not a directory")
    if editable:
        from rulemap.cli.fix import overlaid

        wrap = overlaid
    if ref is None:
        # a command looks once and exits (`--fix` edits what it looked at: it asks the disk)
        factory = analysis.local_reader if editable else analysis.one_shot_reader
        return _open(root_dir, granted, profiles, home, factory, wrap)
    # git (and `subprocess`, ~12 ms) is imported only for `--ref`: a plain check never pays it
    from rulemap.readers.git_process import GitRefError

    try:
        return _open(root_dir, granted, profiles, home, ref_reader_factory(root_dir, ref), wrap)
    except GitRefError as exc:
        raise UsageError(str(exc)) from None


def _open(
    root_dir: str,
    granted: tuple[str, ...],
    profiles: Sequence[str] | None,
    home: str | None,
    factory: analysis.ReaderFactory,
    wrap: ReaderWrap | None,
) -> OpenWorkspace:
    if wrap is not None:
        factory = wrap(factory, root_dir)
    return analysis.open_workspace(
        root_dir,
        home=host.home_dir(),
        allow_imports_from=granted,
        profiles=profiles,
        user_home=home,
        reader_factory=factory,
    )


def ref_reader_factory(root_dir: str, ref: str) -> analysis.ReaderFactory:
    """Readers for `--ref`: the workspace from the commit (listed once, whatever grants the
    second reader carries); the user's home directory (`--home`) stays theirs, on disk."""
    from rulemap.readers.git import GitRefReader

    built: list[GitRefReader] = []

    def factory(root: str, allowed: tuple[str, ...]) -> WalkingReader:
        if root != root_dir:
            return analysis.local_reader(root, allowed)
        if not built:
            built.append(GitRefReader(root, ref, allowed))
            return built[0]
        return built[0].with_allowed(allowed)

    return factory


def warn_untrusted(ws: OpenWorkspace) -> None:
    """For explain and graph (check lists it with the other findings): say on stderr that the
    repository's own grant was ignored, so a skipped import is not a mystery."""
    for f in untrusted_findings(ws):
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
            lambda editable: open_workspace(
                root, allow, profiles=profiles, user_home=user_home, ref=ref, editable=editable
            ),
            output, fix, diff, statistics, suggest,
        )
    with record(cache if ref is None else None, root, user_home) as recorder:
        ws = recorder.workspace if recorder else None
        if ws is None:
            ws = open_workspace(root, allow, profiles=profiles, user_home=user_home, ref=ref,
                                wrap=recorder.wrap if recorder else None)
            if not (recorder and recorder.snapshot):
                ws.look_once()  # no snapshot to resume from: its values need not say what they read
        findings = analysis.check(ws)
        write_report(ws, shown(ws, findings, output, suggest), output, sys.stdout)
        code = 1 if any(f.severity == "error" for f in findings) else 0
        if recorder:
            recorder.done(ws, code)
    return code


def inside(ws: OpenWorkspace, path: str, what: str) -> str:
    """`path` (as the user typed it) as a key of the workspace, `.` for the root itself; a
    usage error naming the argument (`what`) when it lies outside the root."""
    absolute = os.path.normpath(os.path.abspath(path))
    key = ws.key(absolute.replace(os.sep, "/"))
    if absolute == os.path.normpath(ws.root):
        return "."
    if key.startswith("/"):
        raise UsageError(f"{what} {path} is outside the workspace root {ws.root}; pass --root")
    return key


def run_explain(args: argparse.Namespace) -> int:
    from rulemap.host.catalog import UnknownProfile

    ws = open_workspace(args.root, args.allow_imports_from, user_home=getattr(args, "home", None),
                        ref=getattr(args, "ref", None))
    warn_untrusted(ws)
    target = inside(ws, args.target, "TARGET") if args.target else None
    if target == ".":
        raise UsageError("TARGET is the workspace root; name a file inside it")
    cwd = inside(ws, args.cwd, "--cwd") if args.cwd else None
    try:
        explanation = analysis.explain(ws, target, cwd=cwd, profile=args.profile)
    except UnknownProfile as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        dump_json(explanation.to_json())
    elif args.text:
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
    from rulemap.graph_export import build_graph, to_dot, to_mermaid

    ws = open_workspace(root, allow, user_home=user_home, ref=ref)
    warn_untrusted(ws)
    graph = build_graph(ws)
    if output == "json":
        dump_json(graph)
    elif output == "dot":
        print(to_dot(graph))
    else:
        print(to_mermaid(graph))
    return 0
