"""Human output of `rulemap compare`: one column per agent, its files in its own order (rich).

It fits the console ($COLUMNS, else the terminal's, else 80): an agent's column gets the width
it needs when it can, the wider ones share what is left equally; paths are shortened in the
middle (`packages/…/AGENTS.md`) but never lose their file name, and a cell whose path and size
do not fit on one line puts the size under the path. When a column is too narrow for a file
name (seven agents in 80 columns), the agents are shown one block after another instead, each
its summary then its files, so no name is ever broken.
"""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table

from rulemap.cli.fitting import ELLIPSIS, shorten_middle, trimmed, wrap
from rulemap.cli.terminal import markup_text, styled_console, terminal_text
from rulemap.host.comparing import Column, Comparison, is_cut, size_of, unit_of

__all__ = [
    "ELLIPSIS", "comparison_table", "compact", "fair_widths", "print_comparison",
    "shorten_middle", "side_by_side",
]

GAP = 2  # blanks between two columns (padding plus the divider); 1 when the table is tight
MIN_WIDTH = 6  # an agent's column never gets narrower than this


def compact(value: int) -> str:
    """12400 → `12.4k`, 1250000 → `1.2M`, 812 → `812`."""
    if value < 1000:
        return str(value)
    if value < 1_000_000:
        return f"{value / 1000:.1f}".rstrip("0").rstrip(".") + "k"
    return f"{value / 1_000_000:.1f}".rstrip("0").rstrip(".") + "M"


def _cells(col: Column, width: int | None) -> list[tuple[str, str, str]]:
    """(path, size, mark) per row of one agent: its files, then what it left out (paths
    shortened to `width`; None: whole)."""
    explanation = col.explanation
    unit = unit_of(explanation)

    def shown(path: str) -> str:
        return path if width is None else shorten_middle(terminal_text(path), width)

    rows = [
        (shown(f.path), f"{size_of(f, unit):,}", "cut" if is_cut(f) else "")
        for f in explanation.files
    ]
    rows.extend((shown(path), "", "left out") for path in explanation.left_out)
    return rows


def _one_line(path: str, size: str, mark: str) -> str:
    return " ".join(p for p in (path, size, mark) if p)


def _render(path: str, size: str, mark: str, width: int) -> str:
    """One line when it fits, else the size (compacted if need be) indented under the path."""
    styled_mark = f"[red]{mark}[/]" if mark else ""
    shown_path = f"[dim]{markup_text(path)}[/]" if mark == "left out" else markup_text(path)
    if len(_one_line(path, size, mark)) <= width:
        return " ".join(p for p in (shown_path, size, styled_mark) if p)
    indent = "  " if len(_one_line("  " + size, "", mark)) <= width else ""
    if size and len(_one_line(indent + size, "", mark)) > width:
        size = compact(int(size.replace(",", "")))
    under = " ".join(p for p in (size, styled_mark) if p)
    return f"{shown_path}\n{indent}{under}"


def _natural(col: Column) -> int:
    """The width the column needs to show everything on one line each."""
    widest = max((len(_one_line(*cell)) for cell in _cells(col, None)), default=len("nothing"))
    return max(len(col.profile), len(unit_of(col.explanation)), widest)


def fair_widths(natural: list[int], available: int, floor: int = MIN_WIDTH) -> list[int]:
    """Share `available` between columns: none gets more than it needs, the ones that need
    more share what the others leave equally (max-min fairness); never below `floor`."""
    widths = [0] * len(natural)
    pending = sorted(range(len(natural)), key=lambda i: natural[i])
    left = available
    while pending:
        share = left // len(pending)
        i = pending[0]
        if natural[i] <= share:
            widths[i] = natural[i]
            left -= natural[i]
            pending.pop(0)
            continue
        for j in pending:
            widths[j] = max(floor, share)
        break
    return [max(floor, w) if w else floor for w in widths]


def comparison_table(comparison: Comparison, width: int = 80) -> Table:
    columns = comparison.columns
    depth = max((len(c.explanation.files) + len(c.explanation.left_out) for c in columns),
                default=0)
    number_width = max(1, len(str(depth)))
    natural = [_natural(c) for c in columns]
    gap = GAP
    widths = fair_widths(natural, width - number_width - gap * len(columns))
    if widths != natural:  # tight: one blank between columns leaves more room for paths
        gap = 1
        widths = fair_widths(natural, width - number_width - gap * len(columns))
    table = Table(
        box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True,
        padding=(0, gap - 1),
    )
    table.add_column("#", justify="right", width=number_width, no_wrap=True)
    for col, w in zip(columns, widths, strict=True):
        table.add_column(
            f"{markup_text(col.profile)}\n[dim]{unit_of(col.explanation)}[/]", width=w,
            overflow="fold",
        )
    cells = [_cells(c, w) for c, w in zip(columns, widths, strict=True)]
    for row in range(max(depth, 1)):
        values = [str(row + 1) if depth else ""]
        for rows, w in zip(cells, widths, strict=True):
            if row < len(rows):
                values.append(_render(*rows[row], w))
            else:
                values.append("[dim]nothing[/]" if row == 0 else "")
        table.add_row(*values)
    return table


def _needed(col: Column) -> int:
    """The narrowest column that shows every file name whole (its directories may go)."""
    need = max(len(col.profile), len(unit_of(col.explanation)), len("nothing"))
    for path, size, mark in _cells(col, None):
        name = path[path.rfind("/") + 1 :]
        shortest = path if len(path) <= len(name) + 2 else f"{ELLIPSIS}/{name}"
        need = max(need, len(shortest), len(_one_line("", compact(_number(size)), mark)))
    return need


def _number(size: str) -> int:
    return int(size.replace(",", "")) if size else 0


def side_by_side(comparison: Comparison, width: int) -> bool:
    """Whether the table fits `width` with every file name whole: else one block per agent."""
    columns = comparison.columns
    depth = max((len(c.explanation.files) + len(c.explanation.left_out) for c in columns),
                default=0)
    number_width = max(1, len(str(depth)))
    natural = [_natural(c) for c in columns]
    widths = fair_widths(natural, width - number_width - len(columns))
    return all(w >= _needed(c) for c, w in zip(columns, widths, strict=True))


def print_comparison(comparison: Comparison, console: Console | None = None) -> None:
    console = console or styled_console()
    width = min(console.width, 200)
    target = terminal_text(comparison.target or "(start-up)")
    tail = f" from cwd {terminal_text(comparison.cwd)}, by agent"
    # on one line when the target, shortened, still reads; else wrapped, never broken
    room = width - len("loaded for ") - len(tail)
    head = f"loaded for {shorten_middle(target, room) if room >= 24 else target}{tail}"
    with trimmed(console):
        _print_lines(console, wrap(head, width))
        if not comparison.columns:
            console.print("no agent selected")
            return
        if side_by_side(comparison, width):
            console.print(comparison_table(comparison, width))
            for col in comparison.columns:
                _print_lines(console, wrap(f"{terminal_text(col.profile)}: "
                                           f"{terminal_text(col.summary)}", width))
        else:
            for col in comparison.columns:
                _print_block(console, col, width)
        console.print("[dim]why each file loads: rulemap explain TARGET --profile NAME[/]")


def _print_lines(console: Console, lines: list[str], style: str | None = None) -> None:
    for line in lines:
        console.print(line, markup=False, soft_wrap=True, style=style)


def _print_block(console: Console, col: Column, width: int) -> None:
    """One agent: `name: summary`, then its files numbered, each with its size and mark."""
    _print_lines(console, wrap(f"{terminal_text(col.profile)}: {terminal_text(col.summary)}",
                               width), style="bold")
    rows = _cells(col, None)
    if not rows:
        return
    number_width = len(str(len(rows)))
    size_width = max(len(size) for _, size, _ in rows)
    mark_width = max(len(mark) for _, _, mark in rows)
    # `  12  path  1,234 cut`: what the path leaves to the number, size and mark
    fixed = 2 + number_width + 2 + 2 + size_width + (1 + mark_width if mark_width else 0)
    room = max(width - fixed, 12)
    paths = [shorten_middle(path, room) for path, _, _ in rows]
    path_width = max(len(p) for p in paths)
    loaded = len(col.explanation.files)
    for index, (path, (_, size, mark)) in enumerate(zip(paths, rows, strict=True)):
        number = str(index + 1) if index < loaded else "–"
        line = f"  {number:>{number_width}}  {markup_text(path)}"
        line += " " * (path_width - len(path)) + f"  {size:>{size_width}}"
        if mark:
            line += f" [red]{mark}[/]"
        console.print(line, soft_wrap=True)
