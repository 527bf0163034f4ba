"""Hover on a command in an instruction file's code (`npm run build`, `make docs`, `just lint`):
what its script, target or recipe runs and which task file says so — or that the task file
does not define it, with the closest name it does (the stale-command check's question)."""

from __future__ import annotations

from lsprotocol import types

from rulemap.host import Snapshot
from rulemap.host.text import Encoding
from rulemap.lsp.convert import to_range
from rulemap.lsp.features._util import code, link
from rulemap.model import Document, Pos, Span

RUNS_WIDTH = 200  # a script's command line is cut past this many characters


def command_hover(
    snap: Snapshot, key: str, doc: Document, at: Pos, encoding: Encoding
) -> types.Hover | None:
    """The hover of the command whose name is at `at`, or None when there is none."""
    found = snap.command_at(key, at)
    if found is None:
        return None
    command = found.command
    span = Span(Pos(command.line, command.start), Pos(command.line, command.end))
    head = f"**{code(command.text)}**"
    where = link(snap, found.manifest) if found.manifest else None
    noun = found.noun
    if found.status == "found" and where is not None:
        runs = found.runs or ""
        if len(runs) > RUNS_WIDTH:
            runs = runs[:RUNS_WIDTH] + "…"
        what = f"runs {code(runs)}" if runs else f"runs the {noun} {code(command.name)}"
        body = f"{what} ({noun} {code(command.name)} of {where})"
    elif found.status == "missing" and where is not None:
        body = f"✗ no {noun} {code(command.name)} in {where}"
        suggestion = snap.closest_command(found)
        if suggestion:
            body += f"; did you mean {code(suggestion)}?"
    elif found.status == "elsewhere" and where is not None and found.elsewhere:
        body = (f"no {noun} {code(command.name)} in {where}, the nearest; "
                f"{link(snap, found.elsewhere)} defines it (run it there)")
    elif command.form == "program":
        body = f"runs the program {code(command.name)} in the project's environment"
    elif where is not None:
        body = f"{where} cannot tell whether it defines {code(command.name)}"
    else:
        body = f"no task file found for {code(command.name)}"
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=f"{head} {body}"),
        range=to_range(doc.lines, span, encoding))
