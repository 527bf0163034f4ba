"""Human output of `rulemap explain`: a numbered table, the budget line, notes and the notice.

It fits the console (80 columns when not a terminal): paths are shortened in the middle
(`packages/…/AGENTS.md`), never losing their file name, and the columns a profile does not use
(steps, for agents without them) are left out. The
size column counts in the agent's own unit (characters, bytes or tokens)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from rulemap.cli.fitting import shorten_middle, trimmed, wrap
from rulemap.cli.terminal import markup_text, styled_console, terminal_text
from rulemap.host.budgets import amount, is_cut, size_of, total_of, unit_of
from rulemap.model import Explanation

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rulemap.host.aliasing import Through

REASON_STYLE = {
    "project": "bold",
    "import": "cyan",
    "rule": "magenta",
    "nested": "green",
    "scoped": "yellow",
    "user": "blue",
    "requested": "dim",
}
UNIT_HEADER = {"chars": "chars", "bytes": "bytes", "tokens": "tokens"}
# what the borders and padding of a rich table take per column, and once more
COLUMN_OVERHEAD = 3


def print_explanation(explanation: Explanation, console: Console | None = None,
                      read_as: Sequence[Through] = ()) -> None:
    """The table and what follows it; `read_as`: the entries that are another file's text
    (a symlink), each said under the table."""
    console = console or styled_console()
    with trimmed(console):
        _print_explanation(explanation, console, read_as)


def _print_explanation(explanation: Explanation, console: Console,
                       read_as: Sequence[Through] = ()) -> None:
    width = console.width or 80
    unit = unit_of(explanation)
    target = terminal_text(explanation.target or "(start-up)")
    head = f"{terminal_text(explanation.profile)}: loaded for "
    tail = f" from cwd {terminal_text(explanation.cwd)}"
    # on one line when the target, shortened, still reads; else wrapped, never broken
    room = width - len(head) - len(tail)
    title = head + (shorten_middle(target, room) if room >= 24 else target) + tail
    files = explanation.files
    show_step = any(f.step is not None for f in files)
    # the contract's columns (path, reason, imported by, chars, cut) for every agent, so tables
    # of two agents read alike; only `step` is shown just for the agents that have steps
    show_importer = True
    marks = [_mark(f) for f in files]
    sizes = [f"{size_of(f, unit):,}" for f in files]
    # fixed columns, then the paths share what is left (the file name is never cut)
    fixed = [len(str(len(files) + len(explanation.left_out))), 9, max([5, *map(len, sizes)])]
    fixed.append(max([3, *map(len, marks)], default=3))
    if show_step:
        fixed.append(4)
    room = width - sum(fixed) - COLUMN_OVERHEAD * (len(fixed) + 1 + int(show_importer)) - 1
    paths = ["  " * f.depth + f.path for f in files] + list(explanation.left_out)
    importers = [f.imported_by or "" for f in files]
    natural_path = max([4, *map(len, paths)])
    natural_importer = max([11, *map(len, importers)]) if show_importer else 0
    path_width, importer_width = _share(room, natural_path, natural_importer)

    for line in wrap(title, width):
        console.print(line, markup=False, soft_wrap=True, style="italic")
    table = Table(show_lines=False)
    table.add_column("#", justify="right", no_wrap=True)
    if show_step:
        table.add_column("step", justify="right", no_wrap=True)
    table.add_column("path", no_wrap=True)
    table.add_column("reason", no_wrap=True)
    if show_importer:
        table.add_column("imported by", no_wrap=True)
    table.add_column(UNIT_HEADER[unit], justify="right", no_wrap=True)
    table.add_column("cut", no_wrap=True)
    for number, (f, size, mark) in enumerate(zip(files, sizes, marks, strict=True), 1):
        indent = "  " * f.depth
        row = [str(number)]
        if show_step:
            row.append(str(f.step) if f.step is not None else "")
        path = shorten_middle(terminal_text(f.path), max(1, path_width - len(indent)))
        row.append(markup_text(indent + path))
        row.append(f"[{REASON_STYLE.get(f.reason, '')}]{f.reason}[/]")
        if show_importer:
            importer = shorten_middle(terminal_text(f.imported_by or ""), importer_width)
            row.append(markup_text(importer))
        row.extend([size, f"[red]{mark}[/]" if mark else ""])
        table.add_row(*row)
    for path in explanation.left_out:
        row = ["–"] + ([""] if show_step else [])
        short = shorten_middle(terminal_text(path), path_width)
        row += [f"[dim]{markup_text(short)}[/]", "[red]left out[/]"]
        row += ([""] if show_importer else []) + ["", ""]
        table.add_row(*row)
    console.print(table)
    said: list[tuple[str, str, str | None]] = [
        (_budget_line(explanation, total_of(explanation)), "", None)
    ]
    said += [(f"  {f.path}: {f.note}", "    ", None) for f in files if f.note]
    said += [(f"  {t.asked}: the text of {t.phrase()}", "    ", None) for t in read_as]
    said += [(f"note: {note}", "  ", None) for note in explanation.notes]
    if explanation.skipped:
        said.append(("skipped:", "", None))
        for skip in explanation.skipped:
            where = (
                f" (imported by {skip.importer}:{(skip.line or 0) + 1})" if skip.importer else ""
            )
            said.append((f"  {skip.path}{where}: {skip.why}", "    ", None))
    if explanation.notice:
        said.append((explanation.notice, "", "yellow"))
    for text, hang, style in said:
        for line in wrap(terminal_text(text), width, hang=hang):
            console.print(line, markup=False, soft_wrap=True, style=style)


def _mark(entry: object) -> str:
    from rulemap.model import LoadedFile

    assert isinstance(entry, LoadedFile)
    if entry.truncated:
        return "truncated"
    return "cut" if is_cut(entry) else ""


def _share(room: int, path: int, importer: int) -> tuple[int, int]:
    """Widths for the path and importer columns: whole when they fit, else the room split in
    proportion (the path column gets at least half)."""
    if path + importer <= room or room <= 0:
        return max(path, 1), max(importer, 1)
    if not importer:
        return max(room, 12), 0
    importer_width = min(importer, max(10, room * importer // (path + importer)))
    return max(room - importer_width, 12), max(importer_width, 10)


def _budget_line(explanation: Explanation, total: int) -> str:
    budget = explanation.budget
    unit = budget.unit
    if budget.kind == "shared" and budget.limit:
        return f"{total:,} of {amount(budget.limit, unit)}"
    if budget.kind == "per-file" and budget.limit:
        return f"{amount(total, unit)} in all; each file up to {amount(budget.limit, unit)}"
    return f"{amount(total, unit)}; no size limit"
