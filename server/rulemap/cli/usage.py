"""What every command of the CLI shares: its usage errors (exit 2), its help text as written,
its JSON on stdout, the workspace root it defaults to.

Below `main.py` and the commands alike, so that a command does not import the module that
dispatches it. Light: every start-up imports it (json and the engine come when used).
"""

from __future__ import annotations

import argparse
import sys


class UsageError(Exception):
    pass


def find_root(start: str) -> str:
    """The nearest ancestor of `start` holding `.git` (directory or file), else `start`."""
    from rulemap.host.disk import nearest_git_root

    return nearest_git_root(start)


def describe(parser: argparse.ArgumentParser, description: str, epilog: str | None = None) -> None:
    """A sub-command's `description` and `epilog`, both printed as written (line breaks
    kept), given when its arguments are added (`main.build_parser`)."""
    parser.description = description
    parser.epilog = epilog
    parser.formatter_class = argparse.RawDescriptionHelpFormatter


def dump_json(data: object) -> None:
    """`data` as indented JSON on stdout, every string shown as `printable` spells it: a
    lone surrogate would be written raw (invalid UTF-8) or as a `\\udcff` escape strict
    JSON readers reject."""
    import json

    from rulemap.host.text import printable_data

    json.dump(printable_data(data), sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
