"""`rulemap diff BASE [HEAD]`: which files' effective instructions differ between two commits
(or a commit and the working tree), per agent, grouped; text, JSON or Markdown."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from rulemap.cli.diff_phrases import CHANGES_SHOWN, areas_of, headline, no_change, where_of
from rulemap.cli.flags import add_shared_flags
from rulemap.cli.usage import describe, dump_json

# `build_parser` imports this module when `diff` is parsed (or its help printed): the diff core
# (and git, subprocess) is imported when a diff runs
if TYPE_CHECKING:
    from rulemap.host import AnalysisHost
    from rulemap.host.diffing import Diff

WIDTH = 80
FINDINGS_SHOWN = 20  # per side in text; --json has them all
_MARK = {
    "added": "+", "restored": "+", "uncut": "+",
    "removed": "-", "left-out": "-", "cut": "-",
    "edited": "~", "reason": "~", "reordered": "~",
}


def run_diff(args: argparse.Namespace) -> int:
    from rulemap.cli.agents_line import say_agents, with_agents
    from rulemap.cli.commands import inside, open_host
    from rulemap.cli.flags import chosen_profiles
    from rulemap.host.diffing import WORKTREE, diff_hosts

    chosen = chosen_profiles(args)
    output = args.format
    head_label = args.head or WORKTREE
    base, result = _diff_by_update(args, chosen)
    if result is None:
        head = open_host(args.root, args.allow_imports_from, user_home=args.home,
                         ref=args.head, platform=args.platform)
        cwd = inside(head.snapshot(), args.cwd, "--cwd") if args.cwd else None
        result = diff_hosts(base, head, chosen, cwd, args.base, head_label)
    if output == "json":
        dump_json(with_agents(base.snapshot(), result.to_json()))
    elif output == "markdown":
        from rulemap.cli.diff_markdown import render_markdown

        say_agents(base.snapshot())
        sys.stdout.write(render_markdown(result))
    else:
        say_agents(base.snapshot())
        sys.stdout.write(render_text(result))
    sys.stdout.flush()
    return 1 if args.fail_on_change and result.changed else 0


def _diff_by_update(
    args: argparse.Namespace, chosen: list[str] | None
) -> tuple[AnalysisHost, Diff | None]:
    """BASE's host, and the diff made by updating it to HEAD (None when that cannot stand for
    a fresh HEAD workspace: then the caller opens HEAD; BASE's host is still BASE's)."""
    from rulemap.cli.commands import inside, open_host
    from rulemap.cli.usage import UsageError
    from rulemap.host.commands import GitRefError
    from rulemap.host.diffing import WORKTREE, Switching, diff_by_update, head_reader

    switching = Switching()
    try:
        base = open_host(args.root, args.allow_imports_from, profiles=chosen,
                         user_home=args.home, ref=args.base, wrap=switching.wrap,
                         platform=args.platform)
    except UsageError as exc:
        raise UsageError(_named(exc, "BASE", args.base)) from None
    try:
        head = head_reader(base, args.head)
    except GitRefError as exc:
        raise UsageError(_named(exc, "HEAD", args.head)) from None

    def cwd_of() -> str | None:
        return inside(base.snapshot(), args.cwd, "--cwd") if args.cwd else None

    return base, diff_by_update(base, switching, head, chosen, cwd_of, args.base,
                                args.head or WORKTREE)


def _named(exc: Exception, side: str, ref: str) -> str:
    """The reader's message about `--ref REF`, for the argument the user gave instead."""
    return str(exc).replace(f"--ref {ref}:", f"{side} {ref}:", 1).replace(
        ", or drop --ref", "")


def render_text(d: Diff) -> str:
    out = _wrap(f"rulemap diff {d.base} → {d.head} ({', '.join(d.profiles)})")
    if not d.changed:
        out.extend(_wrap(no_change(d)))
        return "\n".join(out) + "\n"
    out.extend(_wrap(headline(d)))
    for g in d.groups:
        out.append("")
        out.extend(_wrap(f"{', '.join(g.profiles)}: {where_of(g)}"))
        for c in g.changes[:CHANGES_SHOWN]:
            out.extend(_wrap(f"{_MARK[c.kind]} {c.phrase()}", indent="  ", follow="    "))
        if len(g.changes) > CHANGES_SHOWN:
            out.append(f"  … {len(g.changes) - CHANGES_SHOWN:,} more changes (--json lists all)")
        areas = areas_of(g)
        if areas:
            out.extend(_wrap(f"in {areas}", indent="    ", follow="    "))
    out.append("")
    out.append(f"findings: {len(d.new_findings):,} new, {len(d.fixed_findings):,} fixed")
    for label, found in (("new", d.new_findings), ("fixed", d.fixed_findings)):
        for f in found[:FINDINGS_SHOWN]:
            out.extend(_wrap(f"{label}: {f.path}:{f.line}: {f.severity} {f.code} {f.message}",
                             indent="  ", follow="      "))
        if len(found) > FINDINGS_SHOWN:
            out.append(f"  … {len(found) - FINDINGS_SHOWN:,} more {label} (--json lists all)")
    return "\n".join(out) + "\n"


def _wrap(text: str, indent: str = "", follow: str = "  ") -> list[str]:
    from rulemap.cli.fitting import wrap

    return wrap(text, WIDTH, indent, follow)


DIFF_EPILOG = """\
examples:
  rulemap diff main                     the working tree against main
  rulemap diff main HEAD                two commits (HEAD~3, a tag, a sha …)
  rulemap diff main --format markdown   a pull-request comment
  rulemap diff main --format json       for scripts: every group's files
  rulemap diff main --fail-on-change    exit 1 when anything differs (CI)

BASE and HEAD are read from git's object store, never checked out. A file is compared on
both sides even where it exists on one only (what an agent working there would load). A
finding is the same on both sides when agent, code, file and message agree once plain
numbers (lines, counts) are masked. Agents: {names}. Docs: docs/diff.md.
"""


def add_diff_arguments(diff: argparse.ArgumentParser, names: str) -> None:
    """`rulemap diff`'s description and arguments, added to its (bare) sub-parser when the
    command is parsed (rulemap.cli.main.build_parser); its one-line help is main's."""
    describe(
        diff,
        description="Show, per agent, which files' effective instructions differ between "
        "BASE and HEAD (default: the working tree) — instruction files added, removed, cut "
        "differently, left out, edited or reordered — grouped by the files each change "
        "applies to, plus the findings of `check` that are new or fixed. Exit 0 (with "
        "--fail-on-change: 1 when anything differs), 2 for usage errors (a ref git cannot "
        "read, an unknown agent).",
        epilog=DIFF_EPILOG.format(names=names),
    )
    diff.add_argument("base", metavar="BASE", help="a git ref: branch, tag, commit, HEAD~1")
    diff.add_argument(
        "head", nargs="?", metavar="HEAD", help="a git ref (default: the working tree)"
    )
    add_shared_flags(
        diff, "diff", names,
        format_help="text (80 columns), json (every group with its files), markdown (a "
        "pull-request comment, under 60,000 characters)",
        profiles_help="the agents to compare, comma-separated, or all (default: those either "
        f"side is checked for: the configuration's `profiles`, else detected); one of: {names}",
    )
    diff.add_argument(
        "--fail-on-change", action="store_true",
        help="exit 1 when any file's load or any finding differs",
    )

