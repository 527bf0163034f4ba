"""`rulemap verify LOG`: what an agent really loaded, from the log it writes, against what
Rulemap predicts, step by step — an agreement table and a paragraph per disagreement
(docs/verify.md). Exit 0 when all agree, 1 on a disagreement, 2 on bad input."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from rulemap.cli.flags import add_shared_flags
from rulemap.cli.usage import UsageError, describe, dump_json

if TYPE_CHECKING:
    from collections.abc import Iterable

    from rich.console import Console

    from rulemap.host import Snapshot
    from rulemap.host.verifying import Verification

VERIFY_EPILOG = """\
examples, one per log format Rulemap reads:
{formats}
The format is told apart by content (--profile names it). Step 0 is the start-up load; step
N is the load the N-th touched file triggered. Paths outside the workspace (user-level files)
are listed apart, not compared, unless --home DIR gives Rulemap the home directory to read
them from. A line the log breaks its format on is named (never quoted): exit 2.
Exit status: 0 when the log and Rulemap agree, 1 on a disagreement, 2 on bad input.
"""


def _format_examples() -> str:
    from rulemap.host.verifying import log_formats

    return "".join(f"  rulemap verify {f.example} --profile {f.agent}\n      {f.what}:\n"
                   f"      {f.how}\n" for f in log_formats())


def add_arguments(verify: argparse.ArgumentParser, names: str) -> None:
    """`rulemap verify`'s description and arguments, added to its (bare) sub-parser when the
    command is parsed (rulemap.cli.main.build_parser); its one-line help is main's."""
    describe(
        verify,
        description="Compare what an agent really loaded, step by step, as its own log says,\n"
        "with what Rulemap predicts from the agent's model: an agreement table, then what\n"
        "Rulemap expected and why for each disagreement (a file the log has and Rulemap does\n"
        "not predict, a predicted file missing from the log, a load at another step).",
        epilog=VERIFY_EPILOG.replace("{formats}", _format_examples()),
    )
    verify.add_argument("log", metavar="LOG", help="the agent's log of what it loaded")
    add_shared_flags(
        verify, "verify", names,
        format_help="text (an agreement table), or json (docs/verify.md)",
        profiles_help="whose log it is (default: told apart by content); with several, the "
        f"first; one of: {names}",
    )
    verify.add_argument(
        "--log-root", metavar="DIR",
        help="where the project was when the agent ran (another machine, a container, another "
        "checkout): the log's paths under DIR are read as under --root",
    )


def run_verify(args: argparse.Namespace) -> int:
    from rulemap.cli.agents_line import say_agents, with_agents
    from rulemap.cli.commands import existing, one_agent_snapshot
    from rulemap.host.catalog import UnknownProfile
    from rulemap.host.verifying import LoadLogError, parse_load_log, rebased, verify

    snap, profile = one_agent_snapshot(args)
    cwd = existing(snap, args.cwd, "--cwd") if args.cwd else None
    lines = _read(args.log, snap)
    try:
        log = parse_load_log(lines, profile)
        if args.log_root:
            log = rebased(log, args.log_root, snap.root)
        result = verify(snap, log, profile, cwd, home=args.home is not None)
    except LoadLogError as exc:
        at = f":{exc.line}" if exc.line is not None else ""
        raise UsageError(f"{args.log}{at}: {exc.message}") from None
    except UnknownProfile as exc:
        raise UsageError(str(exc)) from None
    if args.format == "json":
        dump_json(with_agents(snap, result.to_json()))
    else:
        say_agents(snap)
        print_verification(result)
    return 0 if result.agree else 1


def _read(path: str, snap: Snapshot) -> Iterable[tuple[int, str]]:
    """LOG's lines. As for `session --file`: a file in the workspace that is a symbolic link
    leading out of it is not read (the repository chose where it points)."""
    from rulemap.host.disk import ReadError
    from rulemap.host.sessions import may_read
    from rulemap.host.verifying import LoadLogError, read_load_log

    where = os.path.abspath(os.path.expanduser(path))
    if not may_read(snap, where, named_by_user=True):
        raise UsageError(f"{path}: it lies in the workspace but is a symbolic link leading "
                         "out of it, so it is not read; pass the path of the file it leads to")
    try:
        lines = read_load_log(where)
    except ReadError as exc:
        raise UsageError(f"{path}: {exc}") from None
    except LoadLogError as exc:
        raise UsageError(f"{path}:{exc.line}: {exc.message}") from None
    if lines is None:
        raise UsageError(f"{path}: no such file")
    return lines


MARK = {"agree": "[green]agree[/]", "missing": "[red]missing in log[/]",
        "unexpected": "[red]unexpected[/]", "step": "[yellow]other step[/]"}


def print_verification(result: Verification, console: Console | None = None) -> None:
    from rulemap.cli.fitting import trimmed
    from rulemap.cli.terminal import styled_console

    console = console or styled_console()
    with trimmed(console):
        _print_verification(result, console)


def _print_verification(result: Verification, console: Console) -> None:
    from rich import box
    from rich.table import Table

    from rulemap.cli.fitting import shorten_middle, wrap
    from rulemap.cli.terminal import markup_text, terminal_text

    width = console.width or 80
    path_width = max(16, width - 52)
    title = terminal_text(f"{result.profile}: {result.format}, cwd {result.cwd}")
    console.print("\n".join(wrap(title, width)), markup=False, soft_wrap=True)
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1), show_edge=False)
    table.add_column("step", justify="right", no_wrap=True)
    table.add_column("file", no_wrap=True, max_width=path_width)
    table.add_column("log", no_wrap=True)
    table.add_column("Rulemap", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    last: int | None = -1
    for row in result.rows:
        if row.step != last:
            step = "?" if row.step is None else str(row.step)
            access = shorten_middle(terminal_text(row.access), path_width)
            table.add_row(step, f"[bold]{markup_text(access)}[/]",
                          "", "", "")
            last = row.step
        path = shorten_middle(terminal_text(row.path), path_width - 2)
        table.add_row("", "  " + markup_text(path),
                      markup_text(row.observed or "—"), markup_text(row.predicted or "—"),
                      MARK[row.verdict])
    if not result.rows:
        table.add_row("", "[dim](nothing to compare)[/]", "", "", "")
    console.print(table)
    # one print for all the lines: a log of thousands of loads apart has thousands of them,
    # and rich takes a tenth of a millisecond a print
    console.print("\n".join(part for line in summary(result)
                            for part in wrap(terminal_text(line), width)),
                  markup=False, soft_wrap=True)


def summary(result: Verification) -> list[str]:
    """The lines under the table: the count, a paragraph per disagreement, what was not
    compared, the notes."""
    counts = result.counts()
    lines = [f"{counts['agree']} agree, {counts['missing']} missing in the log, "
             f"{counts['unexpected']} unexpected, {counts['step']} at another step"]
    for row in result.disagreements:
        at = f" (log line {row.line})" if row.line is not None else ""
        if row.verdict == "missing":
            head = f"missing in the log: {row.path} at step {row.step} ({row.access})"
        elif row.verdict == "unexpected":
            head = f"unexpected: {row.path} at step {_step(row.step)} ({row.access}){at}"
        else:
            head = f"at another step: {row.path}, loaded at step {_step(row.step)} " \
                   f"({row.access}){at}"
        lines.append(f"{head}: {row.why}")
    # a file loaded apart again and again (each session start, each compaction) is one line
    same: dict[tuple[str, str], list[int | None]] = {}  # (what, kind) -> its log lines
    for apart in result.apart:
        same.setdefault((apart.what, apart.kind), []).append(apart.line)
    for (name, kind), group in same.items():
        what = {"user": "user-level, not compared (pass --home DIR to compare)",
                "outside": "outside the workspace, not compared",
                "reload": "loaded again after a compaction, not compared",
                "text": "prompt text no workspace file accounts for"}[kind]
        at = f"log line {group[0]}" if group[0] is not None else ""
        if len(group) > 1:
            at += f"{', ' if at else ''}{len(group):,} times in all"
        lines.append(f"apart: {name}{f' ({at})' if at else ''}: {what}")
    lines.extend(f"note: {note}" for note in result.notes)
    return lines


def _step(step: int | None) -> str:
    return "?" if step is None else str(step)
