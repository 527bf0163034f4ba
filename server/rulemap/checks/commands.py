"""The task-runner commands an instruction file tells an agent to run — `npm run build`,
`pnpm --filter web test`, `make -C docs html`, `just lint` — found in the text the agent
receives: code spans and fenced code blocks of a shell language (or none), never prose, and
never lines the loader strips (HTML comments: `Document.kept_lines`).

A line is split into simple commands at `&&`, `||`, `;`, `|` and parentheses; a `$ ` prompt
is dropped (a `console` block's lines without one are output); `cd DIR` (or `pushd DIR`)
changes the directory of the commands after it on its line, and, alone on a line, of the
lines after it in the block. Words are read with their quotes removed; a word with `$` or a
backtick is dynamic, and a command naming a dynamic script or a placeholder (`X`, `<name>`,
`{script}`) is skipped, as are code spans on a prose line that shows what not to run (`❌`,
"never", "don't", "instead of") or examples. What each tool's arguments name is
`tool_args`'s, documented in docs/checks.md ("stale-command").
"""

from __future__ import annotations

import posixpath
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final, Literal

from rulemap.checks.tool_args import PARSERS, Form, Word
from rulemap.records import record
from rulemap.text.lazy_pattern import lazy_pattern
from rulemap.text.positions import split_lines

if TYPE_CHECKING:
    from rulemap.model import Document

Tool = Literal["npm", "pnpm", "yarn", "bun", "make", "just", "uv", "poetry"]
SHELL_LANGUAGES: Final = frozenset(
    {"", "sh", "bash", "shell", "zsh", "console", "shellsession", "shell-session", "terminal"})
_OUTPUT_LANGUAGES: Final = frozenset({"console", "shellsession", "shell-session", "terminal"})
_TOOLS_IN_TEXT: Final = lazy_pattern(r"\b(?:npm|pnpm|yarn|bun|make|just|uv|poetry)\b")
_FENCE_OPEN: Final = lazy_pattern(r"^ {0,3}(`{3,}|~{3,})\s*([^\s`{]*)")
# a prose line that shows what not to run, or examples: its commands are not instructions
_NOT_TO_RUN: Final = lazy_pattern(
    r"❌|🚫|⛔|\b(?:never|don'?t|do not|avoid|instead of|nonexistent|no longer|not exist|"
    r"e\.g\.|for example)\b", re.IGNORECASE)
# a name that stands for one (`npm run X`, `build:<name>`, `{script}`, `...`)
_PLACEHOLDER: Final = lazy_pattern(r"[<>{}\[\]]|\.\.\.|…|^[A-Z][A-Z_]*$")
_PLAIN: Final = lazy_pattern(r"[^'\"`\\;|&()#]*")
_SPACED: Final = lazy_pattern(r"\S+")
_ASSIGNMENT: Final = lazy_pattern(r"[A-Za-z_][A-Za-z0-9_]*=")
_QUOTED: Final = lazy_pattern(r"""'([^']*)'|"((?:[^"\\]|\\.)*)"|\\(.)""")
_READ_IN_BLOCK: Final = lazy_pattern(r"\b(?:npm|pnpm|yarn|bun|make|just|uv|poetry|cd|pushd)\b")
_PROMPT: Final = lazy_pattern(r"^\s*[$%>❯]\s+")
_TOKEN: Final = lazy_pattern(
    r"""\s*(?:(?P<op>&&|\|\||[;|&()])|(?P<word>(?:[^\s;|&()'"`\\]|\\.|'[^']*'|"(?:[^"\\]|\\.)*")+)"""
    r"""|(?P<bad>\S))""")


# Not frozen, though nothing changes one once made: a frozen dataclass's __init__ costs ~4x
# as much, and the 20,000-file benchmark makes 3,300 of them (model.LoadedFile says the same)
@record(slots=True)
class Command:
    """One script, target or recipe a command names, where it is written."""

    tool: Tool
    form: Form
    name: str
    line: int  # original line of the document
    start: int  # columns of the name on that line
    end: int
    text: str  # the simple command as written
    cwd: str | None = None  # a directory (relative, POSIX) from `cd`, `-C`, `--prefix`...
    package: str | None = None  # a workspace package (`--filter`, `yarn workspace`, `-w`)
    root: bool = False  # `pnpm -w`: the workspace root's package.json

    def at(self, line: int) -> Command:
        """This command written on `line`."""
        return Command(self.tool, self.form, self.name, line, self.start, self.end, self.text,
                       self.cwd, self.package, self.root)


def commands(doc: Document) -> list[Command]:
    """Every script, target or recipe `doc`'s code names (cheap when it names no tool)."""
    return [command.at(line) for line, command in written_commands(doc)]


# (the line a command is written on, the command as parsed once for every line with that
# text: its own `line` is not that one)
Written = tuple[int, Command]


def written_commands(doc: Document) -> list[Written]:
    """`commands` without a `Command` made for each line (the check asks only the line).

    Fence lines open and close blocks as CommonMark's do (the same character, at least as
    many, no info string on the closing one); block-level HTML comments are already out of
    the brought lines. Only the lines with a backtick or `~~` are visited one by one (a
    comprehension picks them: most of an instruction file is prose without code, and a
    Python loop over every line was most of this check's cost); a shell block's lines are
    read when it closes, and only those naming a tool (or `cd`)."""
    text = doc.brought
    if "`" not in text and "~~~" not in text or not _may_name_a_tool(text):
        return []
    kept = doc.kept_lines
    out: list[Written] = []
    lines = _brought_lines(doc)
    marked = ([n for n, line in enumerate(lines) if "`" in line or "~~" in line]
              if "~~" in text else [n for n, line in enumerate(lines) if "`" in line])
    block: tuple[str, int, int, bool, bool] | None = None  # char, run, first line, shell, output
    for number in marked:
        line = lines[number]
        opening = _FENCE_OPEN.match(line) if "``" in line or "~~" in line else None
        if block is not None:
            if (opening is not None and opening.group(1)[0] == block[0]
                    and len(opening.group(1)) >= block[1] and not line.strip("`~ \t")):
                if block[3]:
                    _block(lines, block[2], number, block[4], kept, out)
                block = None
            continue
        if opening is not None and not (opening.group(1)[0] == "`" and "`" in line[
                opening.end(1):]):
            language = opening.group(2).lower()
            block = (opening.group(1)[0], len(opening.group(1)), number + 1,
                     language in SHELL_LANGUAGES, language in _OUTPUT_LANGUAGES)
            continue
        if "`" in line:
            original = kept[number] if kept else number
            out.extend((original, command) for command in _prose_commands(line))
    if block is not None and block[3]:  # a block left open runs to the end of the document
        _block(lines, block[2], len(lines), block[4], kept, out)
    return out


def _brought_lines(doc: Document) -> list[str]:
    """The brought text's lines as the document numbers them (\n, \r\n, \r: LSP's)."""
    if not doc.kept_lines:
        return doc.lines  # nothing was taken out: the document's own, already split
    text = doc.brought
    return split_lines(text) if "\r" in text else text.split("\n")


@lru_cache(maxsize=4096)
def _prose_commands(line: str) -> tuple[Command, ...]:
    """The commands of one prose line's code spans, at line 0 (the same line is often in
    many files: an `AGENTS.md` and its copies, a template's nested files)."""
    if not _may_name_a_tool(line) or not _TOOLS_IN_TEXT.search(line) or _NOT_TO_RUN.search(
            line):
        return ()
    out: list[Command] = []
    for body_start, body_end in _code_spans(line):
        body = line[body_start:body_end]
        if not _TOOLS_IN_TEXT.search(body):
            continue
        # the span's text at its own columns, so positions are the line's
        content = " " * body_start + body
        prompt = _PROMPT.match(content)
        _parse(content, prompt.end() if prompt else 0, 0, "", out)
    return tuple(out)


def _block(lines: list[str], first: int, end: int, output: bool, kept: list[int],
           out: list[Written]) -> None:
    """The commands of a shell block's lines `first` to `end` (excluded)."""
    for command in _block_commands(tuple(lines[first:end]), output):
        number = first + command.line
        out.append((kept[number] if kept else number, command))


@lru_cache(maxsize=1024)
def _block_commands(lines: tuple[str, ...], output: bool) -> tuple[Command, ...]:
    """The commands of a shell block's lines, at their lines in it; in an output language's
    block (`console`), only the lines with a prompt. Once per distinct block: the same block
    is often in many files (a template's nested files, copies for other agents)."""
    out: list[Command] = []
    cwd: str | None = ""
    for number, line in enumerate(lines):
        if (not (_may_name_a_tool(line) or "cd" in line or "pushd" in line)
                or not _READ_IN_BLOCK.search(line)):
            continue
        prompt = _PROMPT.match(line)
        if not output or prompt is not None:
            cwd = _parse(line, prompt.end() if prompt else 0, number, cwd, out)
    return tuple(out)


def _may_name_a_tool(text: str) -> bool:
    """False when `text` surely names no tool: substring tests scan at C speed, where
    `_TOOLS_IN_TEXT` costs ~10 ns a character (docs/checks.md, "What the drift checks
    cost"); `pnpm` contains `npm`."""
    return ("npm" in text or "yarn" in text or "make" in text or "just" in text
            or "bun" in text or "uv" in text or "poetry" in text)


def _code_spans(line: str) -> list[tuple[int, int]]:
    """The (start, end) columns of the text of each code span of one prose line (a span
    over several lines is not read)."""
    spans: list[tuple[int, int]] = []
    i = 0
    length = len(line)
    while i < length:
        i = line.find("`", i)
        if i < 0:
            break
        if i > 0 and line[i - 1] == "\\":
            i += 1
            continue
        run_end = i
        while run_end < length and line[run_end] == "`":
            run_end += 1
        close = _closing_run(line, run_end, run_end - i)
        if close < 0:
            i = run_end
            continue
        spans.append((run_end, close))
        i = close + run_end - i
    return spans


def _closing_run(line: str, start: int, run: int) -> int:
    """Where the next run of exactly `run` backticks at or after `start` begins, or -1."""
    i = start
    while (i := line.find("`", i)) >= 0:
        j = i
        while j < len(line) and line[j] == "`":
            j += 1
        if j - i == run:
            return i
        i = j
    return -1


def _words(line: str, column: int) -> list[list[Word]]:
    """The simple commands of `line` from `column`, each a list of words (stops at a `#`
    comment or an unbalanced quote)."""
    if _PLAIN.fullmatch(line, column):  # no quote, operator or comment: split on spaces
        return [[Word(m.group(), m.start(), m.end(), "$" in m.group())
                 for m in _SPACED.finditer(line, column)]] if line[column:].strip() else []
    out: list[list[Word]] = [[]]
    position = column
    while position < len(line):
        match = _TOKEN.match(line, position)
        if match is None or match.end() == position:
            break
        position = match.end()
        if match.group("bad") is not None:
            break
        if match.group("op") is not None:
            out.append([])
            continue
        raw = match.group("word")
        if raw.startswith("#"):
            break
        start = match.start("word")
        dynamic = "$" in raw or "`" in raw
        out[-1].append(Word(_unquote(raw), start, match.end("word"), dynamic))
    return [words for words in out if words]


def _unquote(raw: str) -> str:
    if "'" not in raw and '"' not in raw and "\\" not in raw:
        return raw
    return _QUOTED.sub(lambda m: m.group(1) or m.group(2) or m.group(3) or "", raw)


def _parse(line: str, column: int, number: int, cwd: str | None, out: list[Command]) -> str | None:
    """Add the commands of one line; returns the directory after it (None: unknown): a line
    that is only `cd DIR` moves the lines after it, a `cd DIR && ...` only its own line (a
    block is often a list of commands to run one by one, not a script)."""
    before = cwd
    steps = _line_steps(line, column)
    for step in steps:
        if step[0] == "cd":
            cwd = _cd(cwd, step[1])
            continue
        if step[0] != "tool":
            continue
        _tool, head, text, found = step
        for form, name, extra in found:
            directory = extra.get("cwd")
            if directory is not None:
                directory = None if cwd is None else _join(cwd, directory)
                if directory is None:
                    continue
            elif cwd is None:
                continue
            else:
                directory = cwd or None
            out.append(Command(head, form, name.text, number, name.start, name.end,
                               text, directory, extra.get("package"),
                               extra.get("root") is not None))
    return cwd if len(steps) == 1 else before


# ("cd", its arguments) or ("tool", head, the command's text, what it names)
_Step = tuple[Any, ...]


@lru_cache(maxsize=4096)
def _line_steps(line: str, column: int) -> tuple[_Step, ...]:
    """What one line does, step by step, whatever its directory (the same line is often in
    many files: an `AGENTS.md` and its copies, a template's nested files)."""
    steps: list[_Step] = []
    for words in _words(line, column):
        while words and _ASSIGNMENT.match(words[0].text):
            words = words[1:]  # `NODE_ENV=test npm run x`
        if not words:
            continue
        head = words[0].text
        if head in ("cd", "pushd"):
            steps.append(("cd", words[1:]))
            continue
        parser = PARSERS.get(head)
        if parser is None:
            steps.append(("other",))
            continue
        found = tuple(f for f in parser(words[1:]) if not (
            f[1].dynamic or not f[1].text or _PLACEHOLDER.search(f[1].text)))
        steps.append(("tool", head, line[words[0].start:words[-1].end], found))
    return tuple(steps)


def _cd(cwd: str | None, args: list[Word]) -> str | None:
    if cwd is None or len(args) != 1 or args[0].dynamic:
        return None
    return _join(cwd, args[0].text)


def _join(cwd: str, path: str) -> str | None:
    if path.startswith(("/", "~", "-")) or not path:
        return None
    joined = posixpath.normpath(posixpath.join(cwd, path))
    if joined == ".":
        return ""
    return None if joined.startswith("..") else joined


