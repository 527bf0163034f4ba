"""The net under everything the CLI prints: a repository's file names and instruction text
never reach the user's terminal as control sequences (docs/security.md, "Repository text
never drives your terminal").

Each command's stdout gets the guard of what it prints (`guard_output`):

- text for a person (findings, graphs, diffs of instructions): every control character
  escaped (`\\x1b`, `\\u009b`); the tables of `explain`, `compare`, `session` and `verify`
  the same, but their own styles (SGR sequences rich writes on a terminal) kept;
- JSON and SARIF: exact — its encoder escapes C0, and the guard writes what the encoder
  leaves raw (DEL, C1, bidirectional controls) as `\\uXXXX`: the same value;
- data that must be exact (`check --diff`'s patch for `git apply`, `explain --text`'s prompt):
  exact when piped, escaped like text on a terminal, as `ls` shows names.

stderr (messages for a person) is always guarded as text. The rich tables escape the text
they are given themselves (`terminal_text`), so a repository's own style sequence cannot
pass for one of theirs.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from typing import Any, Literal, TextIO, cast

# What a terminal acts on instead of showing: the C0 controls but tab and newline (and a CR
# before a newline), DEL, the C1 controls (U+009B is a one-byte CSI), and the bidirectional
# embeddings, overrides and isolates, which reorder what is shown ("Trojan Source",
# CVE-2021-42574). docs/security.md, "Repository text never drives your terminal".
_CONTROLS = "\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069"  # ESC apart
_TERMINAL_CONTROL = re.compile(f"[{_CONTROLS}\x1b]|\r(?!\n)")
# the same, but an SGR sequence (a colour or a weight, `ESC[1m`) passes: the styles the
# CLI's own tables carry on a terminal; text from a repository is escaped before styling
_CONTROL_BUT_STYLES = re.compile(f"[{_CONTROLS}]|\x1b(?!\\[[0-9;]*m)|\r(?!\n)")
# what JSON, written with ensure_ascii=False, still carries raw: the encoder escapes C0
_JSON_RAW = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


# the streams' error handler (`configure_output`): the name of
# `rulemap.host.text.ERROR_HANDLER`, which the result cache's key records, spelt here because
# every start-up registers it and `--version` or a cached check imports nothing of the package
# past the CLI (tests/core/test_startup_imports.py)
OUTPUT_ERRORS = "rulemap.printable"


def escape_unencodable(exc: UnicodeError) -> tuple[str, int]:
    """`rulemap.host.text.escape_unencodable`, imported the first time a stream cannot encode
    something: what it cannot encode as `printable` shows it, else as `\\uXXXX`."""
    from rulemap.host.text import escape_unencodable as escaped

    return escaped(exc)


def configure_output() -> None:
    """Make stdout and stderr print anything, under any locale: a file name that is not valid
    UTF-8 (a lone surrogate) as `\\xNN`, a character the encoding lacks (LC_ALL=C,
    PYTHONIOENCODING=ascii) as `\\uXXXX` (`rulemap.host.text`). Without it such a name crashes
    the output with UnicodeEncodeError, or (surrogateescape, a C locale's default) writes raw
    bytes that are not UTF-8. The encoders escape names themselves; this is the net under
    whatever text reaches a stream without them (a path in an error message)."""
    import codecs
    import contextlib

    codecs.register_error(OUTPUT_ERRORS, escape_unencodable)
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)  # not on a replaced stream
        if reconfigure is not None:
            # closed, or not a text stream after all: left as it is
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors=OUTPUT_ERRORS)


def _control_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}"


def terminal_text(text: str) -> str:
    """`text` as `printable` shows it, and each control character a terminal would act on as
    an escape a person can read (`\\x1b`, `\\u009b`): for text a repository wrote that goes
    to a terminal."""
    # the host's text helpers come with the engine: a cached check's guard (`guard_errors`)
    # is set up before, and without, it
    from rulemap.host.text import printable

    text = printable(text)
    if _TERMINAL_CONTROL.search(text) is None:
        return text
    return _TERMINAL_CONTROL.sub(_control_escape, text)


def terminal_output(text: str) -> str:
    """What the CLI writes to a terminal, as `terminal_text` but its own styles kept."""
    if _CONTROL_BUT_STYLES.search(text) is None:
        return text
    return _CONTROL_BUT_STYLES.sub(_control_escape, text)


def json_output(text: str) -> str:
    """JSON text (written with ensure_ascii=False) with the control characters its encoder
    leaves raw (DEL, C1, the bidirectional controls) as `\\uXXXX` escapes: the same JSON
    value, exact, and nothing a terminal acts on. Only for JSON, where a character outside
    ASCII can only stand inside a string."""
    if _JSON_RAW.search(text) is None:
        return text
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


Mode = Literal["text", "styled", "json", "exact"]

_GUARDS: dict[str, Callable[[str], str]] = {
    "text": terminal_text, "styled": terminal_output, "json": json_output,
}
# the commands whose text output is rich's tables, styled on a terminal
_STYLED = ("explain", "compare", "session", "verify")


class Guarded:
    """A text stream whose writes pass through its mode's guard first."""

    def __init__(self, raw: TextIO, mode: Mode) -> None:
        self.raw = raw
        self.mode = mode
        self._guard = _GUARDS.get(mode)

    def write(self, text: str) -> int:
        self.raw.write(text if self._guard is None else self._guard(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)


def unguarded(stream: TextIO) -> TextIO:
    """The stream beneath any guard."""
    while isinstance(stream, Guarded):
        stream = stream.raw
    return stream


def guard(stream: TextIO, mode: Mode) -> TextIO:
    """`stream` guarded as `mode` (a guard already there replaced)."""
    return cast(TextIO, Guarded(unguarded(stream), mode))


def guard_errors() -> None:
    """stderr guarded as text: its messages are for a person."""
    sys.stderr = guard(sys.stderr, "text")


def guard_output(mode: Mode, color: bool = False) -> None:
    """stdout guarded as `mode`; "exact" is guarded as text on a terminal. `color`: the run's
    decision (`use_color`), kept for what prints later (`color_chosen`, `styled_console`)."""
    global _color
    if mode == "exact" and _on_terminal(sys.stdout):
        mode = "text"
    sys.stdout = guard(sys.stdout, mode)
    _color = color


def output_mode(args: Any) -> Mode:
    """What a parsed command line prints on stdout."""
    if getattr(args, "json", False) or getattr(args, "format", None) in ("json", "sarif"):
        return "json"
    if getattr(args, "diff", False) is True or getattr(args, "text", False) is True:
        return "exact"  # `check --diff`'s patch, `explain --text`'s prompt
    command = getattr(args, "command", None)
    if command == "check":
        # coloured findings keep their styles; `--fix` prints what it changed beside them,
        # so its report stays plain (and every control escaped)
        plain = getattr(args, "fix", False) is True or getattr(args, "format", "text") != "text"
        colored = not plain and use_color(getattr(args, "color", None), sys.stdout)
        return "styled" if colored else "text"
    return "styled" if command in _STYLED else "text"


# ----- colour: ruff's conventions (`--color auto|always|never`, NO_COLOR, FORCE_COLOR) --------

_color = False  # the run's decision, once stdout is guarded


def use_color(choice: str | None, stream: TextIO) -> bool:
    """Whether to colour what goes to `stream`: `always` and `never` as said; `auto` (or
    None): not when NO_COLOR is set (https://no-color.org), else when FORCE_COLOR is set, else
    when `stream` is a terminal that is not `dumb`. An empty variable counts as unset."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return _on_terminal(stream) and os.environ.get("TERM") != "dumb"


def color_chosen() -> bool:
    """The run's colour decision, as `guard_output` was given it."""
    return _color


def styles_pass(stream: TextIO) -> bool:
    """Whether `stream`'s guard lets the CLI's own styles through (else they would show as
    `\\x1b[...`): colour only then."""
    return isinstance(stream, Guarded) and stream.mode == "styled"


def styled_console(**options: Any) -> Any:
    """A rich Console for the tables, coloured as the run decided: forced when `--color
    always` (or FORCE_COLOR) says so on a pipe, without any style when the decision is no."""
    from rich.console import Console

    if _color:
        return Console(highlight=False, force_terminal=True, **options)
    return Console(highlight=False, color_system=None, **options)


# Select Graphic Rendition: what the CLI's own colours are made of (and all the styled guard
# lets pass)
SGR = {
    "bold": "1", "red": "31", "green": "32", "yellow": "33", "blue": "34", "cyan": "36",
    "bold red": "1;31", "bold cyan": "1;36",
}


def styled(text: str, style: str, color: bool) -> str:
    """`text` in `style` (a key of SGR) when `color`, else as it is. `text` must already be
    safe for a terminal (`terminal_text`): styling never escapes."""
    if not color or not text:
        return text
    return f"\x1b[{SGR[style]}m{text}\x1b[0m"


def _on_terminal(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def markup_text(text: str) -> str:
    """Text a repository wrote, for a rich table: its control characters escaped
    (`terminal_text`), then its markup (`[...]`)."""
    from rich.markup import escape

    return escape(terminal_text(text))
