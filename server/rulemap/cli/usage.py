"""What every command of the CLI shares: its usage errors (exit 2), its help text as written,
its JSON on stdout, the workspace root it defaults to.

Below `main.py` and the commands alike, so that a command does not import the module that
dispatches it. Light: every start-up imports it (json and the engine come when used).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from typing import NoReturn

# help reads at 80 columns however wide the terminal (argparse's width, less its margin)
MAX_HELP_WIDTH = 80


class UsageError(Exception):
    pass


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Help at most `MAX_HELP_WIDTH` columns wide, no word (an option's name, a path) broken
    at a hyphen or mid-token. Descriptions and epilogs are written as paragraphs: lines that
    start at the margin are one paragraph, refilled; an indented line (an example) is kept,
    its explanation moved under it when the two do not fit on one line."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        if width is None:
            # argparse's own default (the terminal's columns less 2) imports shutil (2.8 ms,
            # with bz2 and lzma), and argparse makes a formatter for every argument added
            width = _terminal_columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width)
        # argparse's width (the terminal's, less 2), narrowed to the help's own
        self._width = min(self._width, MAX_HELP_WIDTH - 2)
        self._max_help_position = min(max_help_position,
                                      max(self._width - 20, indent_increment * 2))

    def _split_lines(self, text: str, width: int) -> list[str]:
        import textwrap

        return textwrap.wrap(" ".join(text.split()), width, break_long_words=False,
                             break_on_hyphens=False)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(indent + line if line else "" for line in fill(text, width)) + "\n"


def _terminal_columns() -> int:
    """The terminal's width as shutil's `get_terminal_size` tells it: `$COLUMNS` when it is a
    positive number, else the width of the terminal on stdout, else 80."""
    import os

    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    try:
        columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        columns = 0
    return columns if columns > 0 else 80


def fill(text: str, width: int) -> list[str]:
    """`text` (paragraphs and indented examples, as `HelpFormatter` reads them) in lines of
    at most `width` columns."""
    import textwrap

    def wrap(words: str, first: str = "", rest: str = "") -> list[str]:
        return textwrap.wrap(words, width, initial_indent=first, subsequent_indent=rest,
                             break_long_words=False, break_on_hyphens=False) or [first]

    out: list[str] = []
    paragraph: list[str] = []
    for line in [*text.splitlines(), ""]:
        words = line.strip()
        lead = line[: len(line) - len(line.lstrip(" "))]
        if paragraph and (not words or lead or words.endswith(":")):
            out.extend(wrap(" ".join(paragraph)))
            paragraph.clear()
        if not words:
            out.append("")
        elif not lead and not words.endswith(":"):
            paragraph.append(words)
        elif len(line.rstrip()) <= width:
            out.append(line.rstrip())
        else:
            example = re.match(r"(\S.*?) {2,}(\S.*)", words)
            if example is None:
                out.extend(wrap(words, lead, lead + "    "))
            else:
                out.extend(wrap(example.group(1), lead, lead + "    "))
                out.extend(wrap(example.group(2), lead + "    ", lead + "    "))
    while out and not out[-1]:
        out.pop()
    return out


class Parser(argparse.ArgumentParser):
    """A command's parser: its help through `HelpFormatter`, and its usage errors with the
    closest name (ruff's "did you mean") for a misspelt command, option or choice."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, for_stderr(f"{self.prog}: error: {message}{_hint(self, message)}") + "\n")


def for_stderr(message: str) -> str:
    """`message` for stderr: on a terminal, wrapped at its width (at most 80 columns, no
    word broken); piped, one line, whole for a program or a grep."""
    import os

    try:
        if not sys.stderr.isatty():
            return message
        columns = os.environ.get("COLUMNS", "")
        width = int(columns) if columns.isdigit() else os.get_terminal_size(
            sys.stderr.fileno()).columns
    except (AttributeError, ValueError, OSError):
        return message
    # a terminal that says no width (0), or one too narrow to wrap in: 80 columns
    width = min(width, MAX_HELP_WIDTH) if width >= 20 else MAX_HELP_WIDTH
    import textwrap

    return "\n".join(textwrap.fill(line, width, subsequent_indent="  ",
                                   break_long_words=False, break_on_hyphens=False)
                     for line in message.splitlines())


def _hint(parser: argparse.ArgumentParser, message: str) -> str:
    """What a usage error's value was most likely meant to be, as `; did you mean `x`?`."""
    choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
    if choice is not None:
        return did_you_mean(choice.group(1), re.findall(r"'([^']*)'", choice.group(2)))
    unknown = re.match(r"unrecognized arguments: (.*)", message)
    if unknown is not None:
        options = [o for action in parser._actions for o in action.option_strings
                   if action.help != argparse.SUPPRESS]
        for word in unknown.group(1).split():
            if word.startswith("--"):
                return did_you_mean(word.split("=", 1)[0], options)
    return ""


def did_you_mean(word: str, candidates: Sequence[str]) -> str:
    """`; did you mean `x`?` for the candidate closest to `word` (ruff's hint), else "".
    On an error path only: difflib is imported here."""
    import difflib

    prefixed = [c for c in candidates if word and c.startswith(word)]
    close = prefixed[:1] if len(prefixed) == 1 else difflib.get_close_matches(
        word, list(candidates), n=1, cutoff=0.6)
    return f"; did you mean `{close[0]}`?" if close else ""


def find_root(start: str) -> str:
    """The nearest ancestor of `start` holding `.git` (directory or file), else `start`."""
    from rulemap.host.disk import nearest_git_root

    return nearest_git_root(start)


def describe(parser: argparse.ArgumentParser, description: str, epilog: str | None = None) -> None:
    """A sub-command's `description` and `epilog` (paragraphs and examples, filled by
    `HelpFormatter`), given when its arguments are added (`main.build_parser`)."""
    parser.description = description
    parser.epilog = epilog
    parser.formatter_class = HelpFormatter


def dump_json(data: object) -> None:
    """`data` as indented JSON on stdout, every string shown as `printable` spells it: a
    lone surrogate would be written raw (invalid UTF-8) or as a `\\udcff` escape strict
    JSON readers reject."""
    import json

    from rulemap.host.text import printable_data

    json.dump(printable_data(data), sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
