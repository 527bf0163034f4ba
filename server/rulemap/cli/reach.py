"""`rulemap reach PATH[:LINE]` (who loads a file, or one line of it, per agent) and `rulemap
why "TEXT" [TARGET]` (does that sentence reach each agent's model, and if not, why): the
reverse of `explain` (docs/reach.md). This module parses the arguments, asks the host
(`rulemap.host.reaching`) and prints its answers (text, or `--json`)."""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import TYPE_CHECKING

from rulemap.cli.flags import add_shared_flags
from rulemap.cli.usage import UsageError, describe, dump_json

if TYPE_CHECKING:
    from rulemap.host.reaching import AgentReach, Reach, Way, Why

REACH_EPILOG = """\
examples:
  rulemap reach INSTRUCTIONS.md        each selected agent: who loads it, how
  rulemap reach rules/api.md:12        … whether each budget keeps line 12
  rulemap reach docs/style.md --json   an imported file, by which importers

PATH is relative to the current directory (or absolute) and must lie in the workspace; LINE
is 1-based. The agents are the configuration's (or those detected), or --profiles. For each:
the workspace files whose load includes the file, grouped by how it is loaded (why, who
imports it, its place in the load and what comes before it in the agent's unit, where the
agent stops reading it), the files whose load leaves it out over the budget, and why no file
loads it when none does. Exit 0, or 2 for usage errors.
"""

WAYS_SHOWN = 6  # per agent in the text report, the largest first (--json: all)
_REASONS = {
    "project": "project file",
    "nested": "nested instruction file of its directory",
    "rule": "rule, for every file",
    "scoped": "scoped rule, its globs match",
    "import": "imported",
    "user": "user-level file",
    "requested": "asked for",
}


def add_arguments(reach: argparse.ArgumentParser, names: str) -> None:
    """`rulemap reach`'s description and arguments (added when the command is parsed)."""
    describe(
        reach,
        description="Who loads a file (or one line of it), for each agent: how many files of\n"
        "the workspace and which, why, at what place in the agent's budget, and where the\n"
        "budget cuts it — or why no file loads it.",
        epilog=REACH_EPILOG,
    )
    reach.add_argument("path", metavar="PATH[:LINE]",
                       help="an instruction file, rule or imported file; :LINE for one line")
    add_shared_flags(reach, "reach", names,
                     format_help="text (one block per agent), or json (docs/reach.md)")


def run_reach(args: argparse.Namespace) -> int:
    from rulemap.cli.agents_line import say_agents, with_agents
    from rulemap.cli.commands import existing, inside, open_host, warn_untrusted
    from rulemap.cli.flags import chosen_profiles
    from rulemap.host.reaching import names_a_file, reach

    path, line = split_line(args.path)
    snap = open_host(args.root, args.allow_imports_from, profiles=chosen_profiles(args),
                     user_home=args.home, ref=args.ref, platform=args.platform).snapshot()
    warn_untrusted(snap)
    key = inside(snap, path, "PATH")
    if key == ".":
        raise UsageError("PATH is the workspace root; name a file inside it")
    if not names_a_file(snap, key):
        raise UsageError(f"{path}: no such file in the workspace {snap.root}")
    lines = snap.document(key).lines
    count = len(lines) - (1 if lines and lines[-1] == "" else 0)  # as an editor numbers them
    if line is not None and line >= count:
        raise UsageError(f"{path}: line {line + 1} is past its end (it has {count} lines)")
    # the selected agents (those of --profiles, else the configuration's or the detected),
    # working in --cwd, else the configuration's cwd
    result = reach(snap, key, line, cwd=existing(snap, args.cwd, "--cwd") if args.cwd else None)
    if args.format == "json":
        dump_json(with_agents(snap, result.to_json()))
    else:
        say_agents(snap)
        sys.stdout.write(render(result))
    return 0


def split_line(value: str) -> tuple[str, int | None]:
    """`a.md:12` → ("a.md", 11) when the part after the last `:` is a line number and the
    whole is not itself an existing path; a line below 1 is a usage error."""
    from rulemap.host.disk import exists

    head, colon, tail = value.rpartition(":")
    if not colon or not tail.isdigit() or exists(value):
        return value, None
    if int(tail) < 1:
        raise UsageError(f"{value}: lines are numbered from 1")
    return head, int(tail) - 1


def render(result: Reach, width: int | None = None) -> str:
    """The text report: one block per agent, each row wrapped at `width` (None: the
    terminal's, or $COLUMNS; unwrapped when piped)."""
    from rulemap.cli.check_text import output_width

    width = width or output_width()
    line = f", line {result.line + 1}" if result.line is not None else ""
    rows = [f"{result.path}{line} — who loads it ({result.files:,} files in the workspace, "
            f"cwd {result.cwd})", ""]
    for agent in result.agents:
        rows.extend(_agent(agent, result.line))
        rows.append("")
    rows.pop()  # no blank line after the last agent
    out: list[str] = []
    for row in rows:
        indent = " " * (len(row) - len(row.lstrip(" ")))
        wrapped = textwrap.wrap(row, width, subsequent_indent=indent + "    ",
                                break_long_words=False, break_on_hyphens=False) if width else []
        out.extend(wrapped or [row])
    return "\n".join(out) + "\n"


def _agent(agent: AgentReach, line: int | None) -> list[str]:
    budget = (f"{agent.setting or 'budget'} {agent.limit:,} {agent.unit}" if agent.limit
              else "no shared budget")
    if agent.never is not None:
        return [f"{agent.title} ({agent.profile}): never — {agent.never}"]
    seen = ""
    if line is not None and agent.stripped:
        seen = f"; line {line + 1} is inside an HTML comment, which it removes: it reaches none"
    elif line is not None:
        seen = (f"; line {line + 1} reaches the model for {agent.seen:,}"
                if agent.seen != agent.files else f"; line {line + 1} reaches it for all")
    noun = "file" if agent.files == 1 else "files"
    cut = f"; cut for {agent.cut:,}" if agent.cut else ""
    rows = [f"{agent.title} ({agent.profile}): {agent.files:,} {noun} · {budget}{cut}{seen}"]
    for way in agent.ways[:WAYS_SHOWN]:
        rows.append("  " + _way(way, agent.unit, line))
        if not way.where.every and len(way.where.areas) > 1:
            rows.append("    " + " · ".join(f"{p} {n:,}" for p, n in way.where.areas))
    rest = agent.ways[WAYS_SHOWN:]
    if rest:
        files = sum(w.where.count for w in rest)
        rows.append(f"  … {len(rest):,} more ways, for {files:,} files (--json lists them all)")
    if agent.left_out is not None:
        rows.append(f"  left out over the budget for {agent.left_out.phrase()}")
    return rows


def _way(way: Way, unit: str, line: int | None) -> str:
    what = _REASONS.get(way.reason, way.reason)
    if way.imported_by:
        what += f" by {way.imported_by}"
    if way.start_up:
        what += ", at start-up"
    from rulemap.host.reaching import ordinal

    place = f"{ordinal(way.position)} in the load, {way.before:,} {unit} before it"
    text = f"{way.where.phrase()}: {what}; {place}"
    if way.through is not None:
        text = f"{way.where.phrase()}: {way.through.sentence()}: {what}; {place}"
    if way.also:
        text += "; read again as " + ", ".join(f"`{p}`" for p in way.also)
    if way.cut_line is not None:
        text += f"; cut at line {way.cut_line + 1} ({way.size:,} {unit} read)"
        if line is not None and not way.seen:
            text += f": line {line + 1} is not read"
    text += f" (e.g. {way.example})" if not way.where.every else ""
    return text




WHY_EPILOG = """\
examples:
  rulemap why "Use pnpm"                          at start-up, for every selected agent
  rulemap why "Validate input" src/api/users.ts   for an agent working on that file
  rulemap why "Validate input" --session run.json at any step of a replayed session

TEXT is looked for in the instruction files, rules and the files they import: as written,
else with runs of whitespace taken as one space. TARGET is relative to the current directory.
Exit 0 when every selected agent gets it, 1 when one does not (for CI), 2 for usage errors
(TEXT found nowhere included).
"""


def add_why_arguments(why: argparse.ArgumentParser, names: str) -> None:
    """`rulemap why`'s description and arguments (added when the command is parsed)."""
    describe(
        why,
        description="Whether a sentence of the instructions reaches each agent's model — for\n"
        "an agent working on TARGET, else at start-up — and if not, why: stripped, cut or\n"
        "left out by the budget, in a file the agent does not read, a rule whose globs do not\n"
        "match, behind an import it does not follow.",
        epilog=WHY_EPILOG,
    )
    why.add_argument("text", metavar="TEXT", help="the sentence (or any part of a line)")
    why.add_argument("target", nargs="?", metavar="TARGET",
                     help="the file the agent works on (default: its start-up load)")
    add_shared_flags(why, "why", names)
    why.add_argument("--session", metavar="FILE",
                     help="a session to replay instead of TARGET (as `rulemap session --file` "
                     "reads it): does the text join the agent's context at some step")


def run_why(args: argparse.Namespace) -> int:
    from rulemap.cli.agents_line import say_agents, with_agents
    from rulemap.cli.commands import existing, open_host, target_of, warn_untrusted
    from rulemap.cli.flags import chosen_profiles
    from rulemap.host.reaching import why, why_in_session

    if args.session and args.target:
        raise UsageError("give TARGET or --session, not both: each says what the agent works on")
    snap = open_host(args.root, args.allow_imports_from, profiles=chosen_profiles(args),
                     user_home=args.home, ref=args.ref, platform=args.platform).snapshot()
    warn_untrusted(snap)
    target = target_of(snap, args.target) if args.target else None
    if target == ".":
        raise UsageError("TARGET is the workspace root; name a file inside it")
    # the selected agents, working in --cwd, else the configuration's cwd
    cwd = existing(snap, args.cwd, "--cwd") if args.cwd else None
    if args.session:
        from rulemap.cli.session import read_session_file

        parsed = read_session_file(args.session, snap, "--session")
        for problem in parsed.problems:
            at = f":{problem.line}" if problem.line is not None else ""
            print(f"rulemap: {args.session}{at}: {problem.message}", file=sys.stderr)
        result = why_in_session(snap, args.text, parsed.steps, cwd=cwd)
    else:
        result = why(snap, args.text, target, cwd=cwd)
    if not result.places:
        raise UsageError(f"{args.text!r} is in no instruction file, rule or imported file of "
                         f"{snap.root}")
    if args.format == "json":
        dump_json(with_agents(snap, result.to_json()))
    else:
        say_agents(snap)
        sys.stdout.write(render_why(result))
    return 0 if result.seen_by_all else 1


def render_why(result: Why, width: int | None = None) -> str:
    from rulemap.cli.check_text import output_width

    width = width or output_width()
    where = (f"for `{result.target}`" if result.target else "at start-up"
             if result.session is None else
             f"over the session's {result.session:,} step{'' if result.session == 1 else 's'}")
    found = ", ".join(f"{p.path}:{p.line + 1}" for p in result.places[:5])
    more = f" and {len(result.places) - 5} more" if len(result.places) > 5 else ""
    rows = [f"{result.text!r} — found in {found}{more}; {where} (cwd {result.cwd})", ""]
    for verdict in result.agents:
        mark = "yes" if verdict.seen else "no "
        also = (" Also from " + ", ".join(f"{p.path}:{p.line + 1}" for p in verdict.also)
                + ": the model gets it more than once.") if verdict.also else ""
        rows.append(f"{mark}  {verdict.title}: {verdict.why}.{also}")
    out: list[str] = []
    for row in rows:
        wrapped = textwrap.wrap(row, width, subsequent_indent="     ", break_long_words=False,
                                break_on_hyphens=False) if width else []
        out.extend(wrapped or [row])
    return "\n".join(out) + "\n"
