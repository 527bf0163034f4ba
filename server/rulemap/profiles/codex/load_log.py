"""The Codex CLI prompt, as `codex debug prompt-input` prints it (openai/codex, codex-rs): the
model-visible input items as a JSON list of messages (`content`: items with `text`), or that
text pasted as it is.

Codex names no file there: it concatenates them. `AgentsMdManager` (codex-rs/core/src/
agents_md.rs) reads the instruction files from the project root down to the cwd and joins
their contents with a blank line (`parts.join("\\n\\n")`); the user's own instructions (the
global `~/.codex/AGENTS.override.md` or `AGENTS.md`, or `instructions` of config.toml) come
first, followed by `AGENTS_MD_SEPARATOR`, `\\n\\n--- project-doc ---\\n\\n`. The whole is
one user message, `UserInstructions::serialize_to_text` (codex-rs/core/src/instructions/
user_instructions.rs): `# AGENTS.md instructions for <cwd>`, a blank line, then the text
between `<INSTRUCTIONS>` and `</INSTRUCTIONS>` lines. So the log is text: Rulemap finds the
predicted files' text in it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from rulemap.profiles.load_log import (
    LoadLog,
    LoadLogFormat,
    LogLine,
    ObservedLoad,
    log_text,
    strings_in,
)

PREFIX = "# AGENTS.md instructions for "
OPEN = "<INSTRUCTIONS>\n"
CLOSE = "\n</INSTRUCTIONS>"
SEPARATOR = "\n\n--- project-doc ---\n\n"
REASON = "prompt"


def detect(text: str) -> bool:
    return PREFIX in text and "<INSTRUCTIONS>" in text


def read(lines: Iterable[LogLine]) -> LoadLog:
    text = log_text(lines)
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        value = None
    strings = list(strings_in(value)) if isinstance(value, list | dict) else [text]
    log = LoadLog("codex")
    for string in strings:
        start = string.find(PREFIX)
        while start >= 0:
            start = _block(string, start, text, log)
    return log


def _block(string: str, start: int, whole: str, log: LoadLog) -> int:
    """Read the instructions block at `start`; the index to look on from (-1: done)."""
    header_end = string.find("\n", start)
    if header_end < 0:
        return -1
    opened = string.find(OPEN, header_end)
    closed = string.rfind(CLOSE) if opened >= 0 else -1
    if opened < 0 or closed < opened:
        return string.find(PREFIX, header_end)
    if log.cwd is None:
        log.cwd = string[start + len(PREFIX): header_end].strip()
    body = string[opened + len(OPEN): closed]
    line = _line_of(whole, string[start:header_end])
    user, project = body.split(SEPARATOR, 1) if SEPARATOR in body else ("", body)
    if user.strip():
        log.loads.append(ObservedLoad(None, 0, REASON, line, text=user, user=True))
    if project.strip():
        log.loads.append(ObservedLoad(None, 0, REASON, line, text=project))
    return string.find(PREFIX, closed)


def _line_of(whole: str, header: str) -> int | None:
    """The line of the raw input where the block's header is (JSON escapes it alike)."""
    at = whole.find(header)
    if at < 0:
        at = whole.find(json.dumps(header)[1:-1])
    return whole.count("\n", 0, at) + 1 if at >= 0 else None


FORMAT = LoadLogFormat(
    what="the Codex CLI prompt (`codex debug prompt-input` output)",
    detect=detect,
    read=read,
    example="prompt.json",
    how="codex debug prompt-input > prompt.json, run where Codex runs",
    source="openai/codex: codex-rs/core/src/agents_md.rs, "
           "codex-rs/core/src/instructions/user_instructions.rs",
)
