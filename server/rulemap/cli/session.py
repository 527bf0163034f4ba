"""`rulemap session [STEP ...] [--file F]`: a run replayed step by step — what joins at each
tool step, the budget used and left, and the step at which it first cuts (table, --json, or
--text: the system messages as the agent gets them)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from rulemap.cli.flags import add_shared_flags
from rulemap.cli.usage import UsageError, describe, dump_json
from rulemap.host.catalog import default_agent, session_formats

# `build_parser` imports this module when `session` is parsed (or its help printed): what only
# a session run needs (rich, the core) is imported when it runs
if TYPE_CHECKING:
    from collections.abc import Sequence

    from rich.console import Console

    from rulemap.host import Snapshot
    from rulemap.host.sessions import Parsed, Problem, SessionReplay, SessionStep
    from rulemap.model import LoadedFile

# Session logs of long runs reach tens of MB. Read a line at a time, so the size costs time,
# not memory (docs/sessions.md, "Limits"); this only bounds how long one run can take.

SESSION_EPILOG = """\
examples:
  rulemap session read:src/api/users.ts edit:packages/api/src/x.py
  rulemap session --file run.json              [{"kind": "read", "paths": ["src/a.ts"]}, ...]
{formats}  rulemap session --file run.json --text       the system messages, in order

STEP is KIND:PATH (KIND read or edit; several paths of one step: read:a.ts,b.ts), PATH
relative to the current directory; paths in --file are relative to the root (absolute ones
are made relative; those outside the root are reported and skipped). Step 0 is the start-up
load. Lines or entries of --file that are not understood are reported on stderr with their
line (or entry) number, never quoted, and skipped (the first 100; then how many more). A
--file in the workspace that is a symbolic link leading out of it is not read
(docs/sessions.md).
"""


def _format_examples() -> str:
    """One example line per agent's own session format (the registry's)."""
    lines = []
    for found in session_formats():
        where = (f"~/{found.log_dirs[0]}/…/{found.example}" if found.log_dirs
                 else found.example)
        lines.append(f"  rulemap session --profile {found.agent} --file {where}\n"
                     f"      {found.what}\n")
    return "".join(lines)


def add_arguments(session: argparse.ArgumentParser, names: str) -> None:
    """`rulemap session`'s description and arguments, added to its (bare) sub-parser when
    the command is parsed (rulemap.cli.main.build_parser); its one-line help is main's."""
    describe(
        session,
        description="Replay a run step by step: the start-up load, then what each tool step\n"
        "(a read or an edit of some paths) brings — files, why, characters, cut — with the\n"
        "budget used and left after each, and the step at which the budget first cuts or\n"
        "leaves something out. Exit 0, or 2 for usage errors.",
        epilog=SESSION_EPILOG.replace("{formats}", _format_examples()),
    )
    session.add_argument("steps", nargs="*", metavar="STEP", help="KIND:PATH, one step each")
    session.add_argument(
        "--file", metavar="F",
        help="the steps from a file: a JSON list of {kind, paths}, or "
        + " or ".join(f.what for f in session_formats()) + " (told apart by shape)",
    )
    add_shared_flags(
        session, "session", names,
        format_help="text (a table per step), or json (docs/sessions.md)",
        profiles_help=f"the agent whose run to replay (default: the configuration's "
        f"`profile`, else {default_agent()}); with several, the first; one of: {names}",
    )
    session.add_argument("--text", action="store_true",
                         help="the system messages exactly as the agent gets them, in order")


def run_session(args: argparse.Namespace) -> int:
    from rulemap.cli.agents_line import say_agents, say_note, with_agents
    from rulemap.cli.commands import existing, one_agent_snapshot
    from rulemap.host.catalog import UnknownProfile
    from rulemap.host.selection import lead_agent
    from rulemap.host.sessions import parse_tokens, replay

    if args.text and args.format != "text":
        raise UsageError(f"--text prints the system messages as the agent gets them; leave "
                         f"out --format {args.format}")
    snap, profile = one_agent_snapshot(args)
    cwd = existing(snap, args.cwd, "--cwd") if args.cwd else None
    tokens = parse_tokens(args.steps, snap.root, os.getcwd())
    if tokens.problems:
        raise UsageError("; ".join(p.message for p in tokens.problems))
    missing_steps(snap, tokens)
    steps = list(tokens.steps)
    problems: list[Problem] = []
    if args.file:
        parsed = read_session_file(args.file, snap)
        steps.extend(parsed.steps)
        problems = parsed.problems
    try:
        lead = lead_agent(snap, chosen=profile)  # no --profile: the lead agent
        result = replay(snap, steps, lead.name, cwd, problems)
    except UnknownProfile as exc:
        raise UsageError(str(exc)) from None
    where = args.file or "input"
    for problem in result.problems:
        at = f":{problem.line}" if problem.line is not None else ""
        print(f"rulemap: {where}{at}: {problem.message}", file=sys.stderr)
    if args.format == "json":
        dump_json(with_agents(snap, result.to_json()))
        return 0
    say_agents(snap)
    say_note(lead.note)
    if args.text:
        sys.stdout.write(render_messages(result))
    else:
        print_session(result)
    return 0


def missing_steps(snap: Snapshot, parsed: Parsed) -> None:
    """A usage error naming the first path a `read:` step of the command line names that
    is not in the workspace (an `edit:` may create its file)."""
    from rulemap.host.presence import exists_in

    for step in parsed.steps:
        if step.kind != "read":
            continue
        for path in step.paths:
            if not exists_in(snap, path.rstrip("/") or "."):
                raise UsageError(f"STEP read:{path}: no such file in the workspace {snap.root}")


def read_session_file(
    path: str, snap: Snapshot, flag: str = "--file"
) -> Parsed:
    """The steps of the session file `flag` names, read a line at a time. A file the user
    names outside the workspace is theirs to read; one inside it that is a symbolic link
    leading out is not read (unless it leads to a place of `transcript_places`): the
    repository chose where it points, and the user, naming a file of the repository, did not
    mean that place (`host/sessions.py` decides, as for the language server)."""
    from rulemap.host.disk import ReadError
    from rulemap.host.sessions import NotATranscript, TranscriptRefused, read_transcript

    where = os.path.abspath(os.path.expanduser(path))
    try:
        parsed = read_transcript(snap, where, named_by_user=True)
    except TranscriptRefused:
        raise UsageError(
            f"{flag} {path}: it lies in the workspace but is a symbolic link leading out "
            "of it, so it is not read (a repository can point such a link at any file of "
            "yours). Pass the path of the file it leads to if you mean that file, or grant "
            "its directory with --allow-imports-from"
        ) from None
    except NotATranscript as exc:  # the give-up rule (docs/sessions.md): what was counted
        raise UsageError(f"{flag} {path} does not look like {exc.what}: {exc.why}") from None
    except ReadError as exc:  # its messages say why (size, kind, permission), never content
        raise UsageError(f"{flag} {path}: {exc}") from None
    if parsed is None:
        raise UsageError(f"{flag} {path}: no such file")
    return parsed


def access(step: SessionStep) -> str:
    """`read src/a.ts, src/b.ts` (step 0: `start-up`)."""
    if step.index == 0:
        return "start-up"
    return f"{step.kind} {', '.join(step.paths)}"


def _shortened_access(step: SessionStep, width: int) -> str:
    """`access(step)` in `width`: the kind of access whole, the paths shortened."""
    from rulemap.cli.fitting import shorten_middle
    from rulemap.cli.terminal import terminal_text

    whole = terminal_text(access(step))
    if len(whole) <= width or step.index == 0 or len(step.paths) != 1:
        return shorten_middle(whole, width)
    room = width - len(step.kind) - 1
    return f"{step.kind} {shorten_middle(terminal_text(step.paths[0]), room)}"


def render_messages(result: SessionReplay) -> str:
    """Each step's system message, in order, under a `==> step N: … <==` line (the
    messages themselves exactly as the agent gets them)."""
    parts = [f"==> step {step.index}: {access(step)} <==\n{text}\n"
             for step, text in result.messages()]
    return "\n".join(parts)


def print_session(result: SessionReplay, console: Console | None = None) -> None:
    from rulemap.cli.fitting import trimmed
    from rulemap.cli.terminal import styled_console

    console = console or styled_console()
    with trimmed(console):
        _print_session(result, console)


def _print_session(result: SessionReplay, console: Console) -> None:
    from rich import box
    from rich.table import Table

    from rulemap.cli.explain_table import REASON_STYLE
    from rulemap.cli.fitting import shorten_middle, wrap
    from rulemap.cli.terminal import markup_text, terminal_text

    width = console.width or 80
    budget = result.budget
    unit = budget.unit
    shared = budget.kind == "shared" and budget.limit > 0
    steps = result.steps
    sizes = {id(f): f"{_size(f, unit):,}" + (" cut" if f.cut else "")
             for s in steps for f in s.joined}
    rows = _rows(steps)
    fixed = [max(4, *(len(_label(row)) for row in rows)), 8,
             max([5, *map(len, sizes.values())])]
    if shared:
        fixed += [max(6, len(f"{budget.limit:,}"))] * 2
    else:
        fixed += [max(6, len(f"{steps[-1].used:,}"))]
    # each column takes its padding (2) and a separator (1)
    path_width = max(16, width - sum(fixed) - 3 * (len(fixed) + 1))
    for line in wrap(_title(result), width):
        console.print(line, markup=False, soft_wrap=True, style="italic")
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1), show_edge=False)
    table.add_column("step", justify="right", no_wrap=True)
    table.add_column("joins", no_wrap=True, max_width=path_width)
    table.add_column("reason", no_wrap=True)
    table.add_column(unit, justify="right", no_wrap=True)
    table.add_column("used", justify="right", no_wrap=True, min_width=fixed[3])
    if shared:
        table.add_column("left", justify="right", no_wrap=True, min_width=fixed[4])
    for row in rows:
        step = row[-1]
        left = [f"{step.left:,}" if step.left is not None else ""] if shared else []
        if len(row) > 1:
            table.add_row(_label(row), f"[dim]({len(row):,} steps: nothing joins)[/]", "", "",
                          f"{step.used:,}", *left)
            continue
        head = markup_text(_shortened_access(step, path_width))
        table.add_row(str(step.index), f"[bold]{head}[/]", "", "", f"{step.used:,}", *left)
        for f in step.joined:
            indent = "  " + "  " * f.depth
            short = shorten_middle(terminal_text(f.path), max(1, path_width - len(indent)))
            path = markup_text(short)
            size = sizes[id(f)]
            table.add_row("", indent + path, f"[{REASON_STYLE.get(f.reason, '')}]{f.reason}[/]",
                          f"[red]{size}[/]" if f.cut else size, "", *([""] if shared else []))
        for path in step.left_out:
            short = markup_text(shorten_middle(terminal_text(path), path_width - 2))
            table.add_row("", f"  [dim]{short}[/]", "[red]left out[/]", "", "",
                          *([""] if shared else []))
        if not step.joined and not step.left_out:
            table.add_row("", "  [dim](nothing joins)[/]", "", "", "", *([""] if shared else []))
    console.print(table)
    for line in summary(result):
        # wrapped here at word boundaries with a hanging indent, so a wrapped line reads as the
        # continuation of its sentence (rich's own wrap starts it at column 0)
        for part in wrap(terminal_text(line), width):
            console.print(part, markup=False, soft_wrap=True)


# At least this many steps in a row that bring nothing are one row of the table: a long run's
# table shows where files join, not thousands of "(nothing joins)" (and rich takes about a
# millisecond a row: a 30 MB Claude Code log of 1,700 steps took 1.5 s to print)
COLLAPSED = 3


def _rows(steps: Sequence[SessionStep]) -> list[list[SessionStep]]:
    """The table's rows of steps: a step each, or COLLAPSED or more in a row that bring
    nothing (no file joins or is left out) together."""
    rows: list[list[SessionStep]] = []
    idle: list[SessionStep] = []
    for step in steps:
        if step.index and not step.joined and not step.left_out:
            idle.append(step)
            continue
        rows.extend([idle] if len(idle) >= COLLAPSED else [[s] for s in idle])
        idle = []
        rows.append([step])
    rows.extend([idle] if len(idle) >= COLLAPSED else [[s] for s in idle])
    return rows


def _label(row: Sequence[SessionStep]) -> str:
    """The step column of a row: `7`, or `8–120` for steps together."""
    return str(row[0].index) if len(row) == 1 else f"{row[0].index}–{row[-1].index}"


def _title(result: SessionReplay) -> str:
    from rulemap.cli.terminal import terminal_text

    steps = len(result.steps) - 1
    return terminal_text(f"{result.profile}: a run of {steps} step{'s' if steps != 1 else ''} "
                         f"from cwd {result.cwd}")


def summary(result: SessionReplay) -> list[str]:
    """The lines under the table: the budget, the first cut, notes, the notice."""
    from rulemap.host.budgets import amount

    budget = result.budget
    last = result.steps[-1]
    lines: list[str] = []
    if budget.kind == "shared" and budget.limit:
        lines.append(f"budget: {amount(budget.limit, budget.unit)} shared by the whole run; "
                     f"used {last.used:,}, {last.left or 0:,} left")
    elif budget.kind == "per-file":
        lines.append(f"budget: each file up to {amount(budget.limit, budget.unit)}; "
                     f"{amount(last.used, budget.unit)} joined in all")
    else:
        lines.append(f"budget: none; {amount(last.used, budget.unit)} joined in all")
    first = result.first_cut_step
    if first is None:
        lines.append("the budget cuts nothing and leaves nothing out in this run")
    else:
        step = result.steps[first]
        what = []
        if step.cut:
            what.append("cuts " + ", ".join(step.cut))
        if step.left_out:
            what.append("leaves out " + ", ".join(step.left_out))
        lines.append(f"first cut: step {first} ({access(step)}) {' and '.join(what)}")
    for step in result.steps:
        for skip in step.skipped:
            where = f" (imported by {skip.importer}:{(skip.line or 0) + 1})" if skip.importer \
                else ""
            lines.append(f"skipped at step {step.index}: {skip.path}{where}: {skip.why}")
    if result.note:
        lines.append(f"note: {result.note}")
    lines.extend(f"note: {note}" for note in result.notes)
    if result.notice:
        lines.append(result.notice)
    return lines


def _size(f: LoadedFile, unit: str) -> int:
    if unit == "tokens" and f.tokens is not None:
        return f.tokens
    if unit == "bytes" and f.bytes is not None:
        return f.bytes
    return f.chars
