"""`rulemap check`'s `--suggest`, and which findings get their did-you-mean worked out.

Light on purpose (the parser is built before the engine is imported): the engine comes in
only when `shown` runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

    from rulemap.host import Snapshot
    from rulemap.model import Finding

# formats a person reads: their findings always carry the did-you-mean
FOR_PEOPLE = ("text", "github")


def add_output_flags(check: argparse.ArgumentParser) -> None:
    """`--suggest` (`--format` is every command's: cli/flags.py)."""
    check.add_argument(
        "--suggest",
        action="store_true",
        help="work out every did-you-mean in json and sarif output too (`Did you mean "
        "`src/**`?` after a glob that matches nothing, with its fix): text and github output "
        "always have them; the machine formats leave them out unless asked, as each costs a "
        "search",
    )


def shown(snap: Snapshot, findings: list[Finding], output: str, suggest: bool) -> list[Finding]:
    """The findings as `output` shows them: with their did-you-means for a person (or when
    asked with `--suggest`), else as the check left them."""
    if output not in FOR_PEOPLE and not suggest:
        return findings
    from rulemap.host.checks import with_suggestions

    return with_suggestions(snap, findings)
