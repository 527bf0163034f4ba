"""`rulemap map --html OUT.html`: one self-contained page mapping the repository's
instructions (docs/map.md). The engine builds the map (`rulemap.repo_map`); this module parses
the arguments, writes the page (`host/maps.py`: atomically, never over what is not a
page) and says where it went."""

from __future__ import annotations

import argparse
import sys
import time

from rulemap.cli.flags import add_shared_flags
from rulemap.cli.usage import UsageError, describe, dump_json

MAP_EPILOG = """\
examples:
  rulemap map --html map.html                  this repository's map
  rulemap map --html out/map.html --root ../x  another repository (out/ must exist)
  rulemap map --html map.html --cwd pkg/web    the agents working in pkg/web
  rulemap map --html map.html --profiles A,B   agents A and B only

The page holds everything (no network, no CDN): the instruction graph (instruction files,
rules and the directories their globs match, imports), the directories coloured by how much of
the chosen agent's budget their files' loads use (green under half, amber, red when cut or a
file is left out), the findings of `rulemap check`, and on a click who loads a file, per agent,
or what a directory's files load and why. Big trees stay quick: directories are aggregated and
opened on demand, and the graph groups what it cannot draw at once. Exit 0, or 2 for usage
errors (no such root, OUT's directory missing, OUT not a page's name or place).
Agents: {names}.
"""


def add_arguments(parser: argparse.ArgumentParser, names: str) -> None:
    """`rulemap map`'s description and arguments (added when the command is parsed)."""
    describe(
        parser,
        description="Write one self-contained HTML page mapping the repository's instructions:\n"
        "the graph of instruction files, rules and imports, the directories by budget use per\n"
        "agent, the findings, and who loads what (and why) on a click.",
        epilog=MAP_EPILOG.format(names=names),
    )
    parser.add_argument("--html", metavar="OUT.html", required=True,
                        help="the page to write (its directory must exist; replaced atomically)")
    add_shared_flags(parser, "map", names,
                     format_help="how to say what was written: text (one line), or json "
                     "({written, bytes, seconds, files, directories, documents, findings, "
                     "agents})")


def run_map(args: argparse.Namespace) -> int:
    from rulemap.cli.agents_line import say_agents, say_note
    from rulemap.cli.commands import existing, open_host, warn_untrusted
    from rulemap.cli.flags import chosen_profiles
    from rulemap.host.maps import PageRefused, check_page_path, map_data, render_page, write_page

    try:
        check_page_path(args.html)  # before the work: a wrong OUT fails at once
    except PageRefused as exc:
        raise UsageError(str(exc)) from None
    started = time.perf_counter()
    snap = open_host(args.root, args.allow_imports_from, profiles=chosen_profiles(args),
                     user_home=args.home, ref=args.ref, platform=args.platform).snapshot()
    warn_untrusted(snap)
    cwd = existing(snap, args.cwd, "--cwd") if args.cwd else None
    data = map_data(snap, None, cwd)
    say_agents(snap)
    say_note(data["lead"].get("note"))
    page = render_page(data).encode("utf-8")
    try:
        written = write_page(args.html, page)
    except PageRefused as exc:
        raise UsageError(str(exc)) from None
    took = time.perf_counter() - started
    documents = sum(1 for n in data["graph"]["nodes"]
                    if n["kind"] in ("instruction", "rule", "scoped-rule"))
    agents = ", ".join(a["title"] for a in data["agents"])
    if args.format == "json":
        dump_json({"written": written, "bytes": len(page), "seconds": round(took, 3),
                   "files": data["files"], "directories": len(data["tree"]),
                   "documents": documents, "findings": data["findingsTotal"],
                   "agents": [a["title"] for a in data["agents"]]})
        return 0
    import textwrap

    from rulemap.cli.agents_line import message_width

    said = (f"rulemap: wrote {written} ({_size(len(page))}, in {took:.2f} s): "
            f"{_count(data['files'], 'file')} in "
            f"{_count(len(data['tree']), 'directory', 'directories')}, "
            f"{_count(documents, 'instruction file or rule', 'instruction files and rules')}, "
            f"{_count(data['findingsTotal'], 'finding')}; agents: {agents}. Open it in a "
            "browser.")
    # the page's path stays whole (the one word of the result a person copies)
    sys.stdout.write("\n".join(textwrap.wrap(
        said, message_width(sys.stdout), subsequent_indent="  ", break_long_words=False,
        break_on_hyphens=False)) + "\n")
    return 0


def _count(count: int, one: str, many: str | None = None) -> str:
    """"1 finding", "2 findings"."""
    return f"{count:,} {one if count == 1 else many or one + 's'}"


def _size(count: int) -> str:
    if count < 1024 * 1024:
        return f"{count / 1024:.0f} KB"
    return f"{count / 1024 / 1024:.1f} MB"
