"""`rulemap serve`'s command line: the language server's own, picked by name by `rulemap`'s
entry point (rulemap/__main__.py) before the CLI's parser, so that neither edge imports the
other.

Its help and its errors read as they always have: `serve`'s options are parsed by a `serve`
parser under a top level shaped as `rulemap`'s (`rulemap [-h] [--version] COMMAND ...`), which
reports an argument it does not know. Light: argparse, then the server (lsp/server.py).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import rulemap

DESCRIPTION = "Run the Rulemap language server (LSP over stdio by default)."


def build_parser() -> argparse.ArgumentParser:
    """`rulemap`'s top level with the one command `serve` and its options."""
    parser = argparse.ArgumentParser(prog="rulemap")
    parser.add_argument("--version", action="version", version=f"rulemap {rulemap.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", prog="rulemap")
    serve = sub.add_parser("serve", help="run the language server")
    serve.description = DESCRIPTION
    serve.add_argument(
        "--stdio",
        action="store_true",
        help="use stdio (the default; accepted for clients that pass it)",
    )
    serve.add_argument(
        "--tcp", metavar="HOST:PORT", help="listen on a TCP socket instead (for debugging)"
    )
    serve.add_argument(
        "--log-level", default="WARNING", help="server log level on stderr (default WARNING)"
    )
    return parser


def main(argv: Sequence[str]) -> int:
    """`rulemap serve ARGV`: the server until its client exits (an exit code: 2 for a usage
    error; argparse exits itself for `--help` and an unknown option)."""
    _print_anything()
    args = build_parser().parse_args(["serve", *argv])
    streams = None
    if not args.tcp:
        # before pygls is imported: the start cache's diagnostics, from the first messages
        from rulemap.lsp.front import handover

        streams = handover()
    from rulemap.lsp.server import run_server

    return run_server(tcp=args.tcp, log_level=args.log_level, streams=streams)


def _print_anything() -> None:
    """stdout and stderr print any name, under any locale, as the CLI's do (a file name that
    is not valid UTF-8 in a log line as `\\xNN`: rulemap.host.text)."""
    import codecs
    import contextlib

    from rulemap.host.text import ERROR_HANDLER, escape_unencodable

    codecs.register_error(ERROR_HANDLER, escape_unencodable)
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)  # not on a replaced stream
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors=ERROR_HANDLER)
