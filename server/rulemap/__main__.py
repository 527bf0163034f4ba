"""`rulemap` and `python -m rulemap`: the command line, or the language server for `serve`.

The command's name picks the edge before either is imported, so that neither imports the
other: `rulemap serve ...` is the server's own command line (lsp/command_line.py), every other
command the CLI's (cli/main.py), whose `rulemap --help` lists `serve` too.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import NoReturn


def entry() -> NoReturn:
    """The `rulemap` command."""
    if sys.argv[1:2] == ["serve"]:
        from rulemap.lsp.command_line import main as serve

        sys.exit(serve(sys.argv[2:]))
    from rulemap.cli.main import entry as command_line

    command_line()


def main(argv: Sequence[str]) -> int:
    """`rulemap ARGV` in this process, without the result cache: for a test's own launcher
    (a server with its agents registered first)."""
    if argv[:1] == ["serve"]:
        from rulemap.lsp.command_line import main as serve

        return serve(argv[1:])
    from rulemap.cli.main import main as command_line

    return command_line(argv)


if __name__ == "__main__":
    entry()
