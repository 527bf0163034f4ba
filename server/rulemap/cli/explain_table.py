"""Human output of `rulemap explain`: a numbered table and the notice (rich)."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from rulemap.model import Explanation

REASON_STYLE = {
    "project": "bold",
    "import": "cyan",
    "rule": "magenta",
    "nested": "green",
    "scoped": "yellow",
}


def print_explanation(explanation: Explanation, console: Console | None = None) -> None:
    console = console or Console(highlight=False)
    target = explanation.target or "(start-up)"
    title = f"{explanation.profile}: loaded for {target} from cwd {explanation.cwd}"
    table = Table(title=title, title_justify="left", show_lines=False)
    table.add_column("#", justify="right")
    table.add_column("path")
    table.add_column("reason")
    table.add_column("imported by")
    table.add_column("chars", justify="right")
    table.add_column("cut")
    for number, f in enumerate(explanation.files, 1):
        indent = "  " * f.depth
        table.add_row(
            str(number),
            escape(indent + f.path),
            f"[{REASON_STYLE[f.reason]}]{f.reason}[/]",
            escape(f.imported_by or ""),
            f"{f.chars:,}",
            "[red]cut[/]" if f.cut else "",
        )
    for path in explanation.left_out:
        table.add_row("–", f"[dim]{escape(path)}[/]", "[red]left out[/]", "", "", "")
    console.print(table)
    console.print(f"{explanation.total_chars:,} of {explanation.max_chars:,} characters")
    if explanation.skipped:
        console.print("skipped:")
        for skip in explanation.skipped:
            where = (
                f" (imported by {skip.importer}:{(skip.line or 0) + 1})" if skip.importer else ""
            )
            console.print(f"  {skip.path}{where}: {skip.why}", markup=False)
    if explanation.notice:
        console.print(explanation.notice, style="yellow", markup=False, soft_wrap=True)
