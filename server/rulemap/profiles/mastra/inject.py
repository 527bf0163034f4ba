"""What Mastra's AgentsMDInjector injects after one tool call on a path, step by step.

The injector runs before every model step. It looks at the paths of completed tool calls and
searches each path's directory ancestry for `AGENTS.md`, `CLAUDE.md`, `CONTEXT.md` (in that
order in each directory, nearest directory first); a path that is itself one of those names
(case-insensitively) is used directly. Each step injects at most one new file, so after one
tool call on TARGET the ancestry arrives one file a step: `step` 1 is the nearest file. Paths
already injected (by identity, `identity.py`) and paths in the static instructions
(`ignoredInstructionPaths`) are passed over and the search goes on.

Each file is cut at `maxTokens` estimated tokens (ceil(characters / 4), the reference's "≈ 4
characters a token") back to the last line break, and a truncation notice follows; an empty
or unreadable file injects `reminderText` instead. No imports, no globs, no shared budget.
"""

from __future__ import annotations

import bisect
import posixpath
from typing import TYPE_CHECKING, Any

from rulemap.model import Budget, Explanation, LoadedFile, Skipped
from rulemap.profiles.base import ancestry, join, parent_dir
from rulemap.profiles.mastra.identity import path_identity
from rulemap.profiles.mastra.names import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_REMINDER_TEXT,
    NAMES,
    is_instruction_name,
)
from rulemap.readers.base import ReadError
from rulemap.records import record
from rulemap.text.positions import line_starts
from rulemap.workspace.letter_case import find_named

if TYPE_CHECKING:
    from rulemap.model import Document
    from rulemap.workspace import Workspace

CHARS_PER_TOKEN = 4

# JavaScript's String.prototype.trim() removes exactly these (WhiteSpace and LineTerminator):
# not Python's str.strip() set, which lacks U+FEFF and adds U+001C-U+001F and U+0085.
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)

NOTE_ROOT = (
    "the walk stops at the workspace root; Mastra's goes on to the filesystem root (set "
    "walkToFilesystemRoot = true in [profiles.mastra] to follow it)"
)
NOTE_FILESYSTEM = (
    "the walk goes on above the workspace root to the filesystem root, as Mastra's does; "
    "files there are named by absolute path"
)
NOTE_DISABLED = (
    "instruction discovery is disabled (enabled = false in [profiles.mastra], as when "
    "isEnabled returns false): nothing is injected"
)
NOTE_START_UP = (
    "no TARGET: Mastra's injector adds nothing before a tool call, so this is what one tool "
    "call on the cwd directory brings; name a TARGET (the path a tool touched) for a file"
)


def js_trim(text: str) -> str:
    return text.strip(JS_WHITESPACE)


def estimate_tokens(text: str) -> int:
    """Rulemap's estimate: ceil(characters / 4), characters being code points."""
    return -(-len(text) // CHARS_PER_TOKEN)


@record(frozen=True)
class Settings:
    """`[profiles.mastra]`, as the injector's constructor options."""

    max_tokens: int = DEFAULT_MAX_TOKENS
    reminder_text: str = DEFAULT_REMINDER_TEXT  # trimmed; "" = no fallback
    ignored: tuple[str, ...] = ()  # as written: root-relative or absolute
    enabled: bool = True
    walk_to_filesystem_root: bool = False
    nearest_only: bool = False

    @staticmethod
    def from_options(options: dict[str, Any]) -> Settings:
        return Settings(
            max_tokens=int(options["maxTokens"]),
            # the injector trims its fallback, and a blank one counts as none
            reminder_text=js_trim(str(options["reminderText"])),
            ignored=tuple(options["ignoredInstructionPaths"]),
            enabled=bool(options["enabled"]),
            walk_to_filesystem_root=bool(options["walkToFilesystemRoot"]),
            nearest_only=bool(options["nearestOnly"]),
        )


@record(frozen=True)
class Injected:
    """What the injector makes of a readable, non-empty file."""

    text: str  # the reminder's contents: the trimmed text, or its cut and the notice
    truncated: bool
    total_tokens: int  # estimate of the whole (trimmed) file
    shown_tokens: int  # estimate of what is kept of it
    stop: int | None  # offset in the original text where reading stops (when truncated)
    at_line_break: bool = False  # the cut fell back to a line break (else: mid-line)


def truncation_notice(shown: int, total: int) -> str:
    """The notice the injector appends to a cut file, after a blank line."""
    return f"[truncated — showing first ~{shown} of ~{total} estimated tokens]"


def inject_text(original: str, max_tokens: int) -> Injected:
    """The injector's `truncateToTokenLimit` over the file's trimmed text: within the limit it
    is injected whole; over it, it is cut at `maxTokens × 4` characters (at least 1) back to
    the last line break at or before that point (none: at the point itself), trailing
    whitespace dropped, and the notice follows."""
    content = js_trim(original)
    lead = len(original) - len(original.lstrip(JS_WHITESPACE))
    total = estimate_tokens(content)
    if total <= max_tokens:
        return Injected(content, False, total, total, None)
    limit = max(max_tokens * CHARS_PER_TOKEN, 1)
    slice_end = min(len(content), limit)
    # JavaScript's lastIndexOf("\n", slice_end) finds a break at slice_end itself too
    newline = content.rfind("\n", 0, slice_end + 1)
    end = newline if newline > 0 else slice_end
    kept = content[:end].rstrip(JS_WHITESPACE)
    shown = estimate_tokens(kept)
    text = f"{kept}\n\n{truncation_notice(shown, total)}"
    return Injected(text, True, total, shown, lead + end, newline > 0)


def line_of(text: str, offset: int) -> int:
    """The 0-based line (\\n, \\r\\n or \\r breaks, as everywhere in Rulemap) holding `offset`;
    a line break belongs to the line it ends."""
    return bisect.bisect_right(line_starts(text), offset) - 1


def line_count(doc: Document) -> int:
    """Lines as an editor numbers them (a final line break starts no line of its own)."""
    lines = doc.lines
    return len(lines) - 1 if len(lines) > 1 and lines[-1] == "" else len(lines)


# ----------------------------------------------------------------------------- the search


def _exists(ws: Workspace, key: str) -> bool:
    # the injector's `pathExists`: a directory named AGENTS.md passes too (its read then
    # fails and the reminder text stands in); git knows nothing of it, so no index look-up
    return ws.reader.exists(ws.abs(key))


def _above_root(root: str) -> list[str]:
    """The directories above the root, nearest first, up to `/`."""
    out: list[str] = []
    current = root
    while True:
        parent = posixpath.dirname(current)
        if parent == current:
            return out
        out.append(parent)
        current = parent


def candidates(ws: Workspace, target: str, settings: Settings) -> tuple[list[str], bool]:
    """The instruction paths a tool call on `target` leads to, in injection order (nearest
    first), before identity and ignored paths are applied; and whether `target` is used
    directly."""
    if is_instruction_name(target):
        return [target], True
    return search_from(ws, search_start(ws, target), settings), False


def search_start(ws: Workspace, target: str) -> str:
    """Where the search for a touched path starts: a directory is searched from itself, a file
    (or a path not there) from its parent."""
    full = ws.abs(target)
    return target if ws.reader.exists(full) and ws.reader.is_dir(full) else parent_dir(target)


def _named(ws: Workspace, directory: str, name: str) -> str | None:
    """What `pathExists(join(directory, name))` finds: that path, else, on a platform whose
    file system ignores letter case (the default reader is the local disk), the file there
    whose name differs only in case (workspace/letter_case.py)."""
    key = join(directory, name)
    if _exists(ws, key):
        return key
    return find_named(ws, directory, name) if ws.case_insensitive else None


def holds_instructions(ws: Workspace, directory: str) -> bool:
    """Whether the search finds anything in `directory` (one of the names exists there)."""
    return any(_named(ws, directory, name) for name in NAMES)


def search_from(ws: Workspace, start: str, settings: Settings) -> list[str]:
    """The instruction files of `start` ('' = the root) and every directory above it; with
    `nearest_only`, the first of them alone (@mastra/core 1.71.0 returns from its search at
    the first name that exists, and the step goes on to the next path, never further up)."""
    found = list(dict.fromkeys(
        key
        for directory in ancestry(start)
        for name in NAMES
        if (key := _named(ws, directory, name)) is not None
    ))
    if settings.nearest_only and found:
        return found[:1]
    if settings.walk_to_filesystem_root:
        for directory in _above_root(ws.root):
            for name in NAMES:
                path = posixpath.join(directory, name)
                if ws.reader.exists(path):
                    found.append(path)
                    if settings.nearest_only:
                        return found
    return found


@record
class _Search:
    """One explanation being built."""

    ws: Workspace
    settings: Settings
    files: list[LoadedFile]
    skipped: list[Skipped]
    notes: list[str]
    requested: int = 0

    def ignored_identities(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for written in self.settings.ignored:
            absolute = posixpath.normpath(self.ws.abs(written.replace("\\", "/")))
            out.setdefault(path_identity(self.ws, self.ws.key(absolute)), written)
        return out

    def run(self, found: list[str]) -> None:
        ignored = self.ignored_identities()
        seen: dict[str, str] = {}  # identity → the path that first had it
        step_of: dict[str, int] = {}
        for key in found:
            identity = path_identity(self.ws, key)
            if identity in ignored:
                self.skipped.append(Skipped(
                    key,
                    f"in ignoredInstructionPaths (`{ignored[identity]}`): already part of the "
                    "static instructions, so it is not injected again",
                    "duplicate-load",
                ))
                continue
            first = seen.get(identity)
            if first is not None:
                when = f" at step {step_of[first]}" if first in step_of else ""
                self.skipped.append(Skipped(
                    key,
                    f"the same file as `{first}` (already injected{when}): read once, the "
                    "search goes on",
                    "duplicate-load",
                ))
                continue
            seen[identity] = key
            entry = self.entry(key, len(self.files) + 1)
            if isinstance(entry, Skipped):
                self.skipped.append(entry)
            else:
                step_of[key] = len(self.files) + 1
                self.files.append(entry)

    def entry(self, key: str, step: int) -> LoadedFile | Skipped:
        doc = self.ws.document(key)
        if doc.unreadable:
            unreachable = self._out_of_reach(key)
            if unreachable is not None:
                self.notes.append(
                    f"`{key}` is outside the workspace: Rulemap's reader cannot read it "
                    f"({unreachable}), so its text and size are unknown; Mastra injects it "
                    f"at step {step}"
                )
                return LoadedFile(
                    key, "nested", None, 0, 0, step=step,
                    note=f"not readable by Rulemap ({unreachable}): text and size unknown",
                )
            return self.reminder(key, step, f"unreadable ({doc.unreadable})", "unreadable-file")
        if not js_trim(doc.text):
            return self.reminder(key, step, "empty", "empty-instructions")
        injected = inject_text(doc.text, self.settings.max_tokens)
        self.requested += len(js_trim(doc.text))
        note = None
        cut_line = None
        if injected.truncated and injected.stop is not None:
            cut_line = line_of(doc.text, injected.stop)
            where = "after" if injected.at_line_break else "inside"
            note = (
                f"over maxTokens {self.settings.max_tokens:,}: cut {where} line {cut_line + 1} "
                f"of {line_count(doc)} (~{injected.shown_tokens:,} of "
                f"~{injected.total_tokens:,} estimated tokens kept); a truncation notice "
                "follows"
            )
        return LoadedFile(
            key, "nested", None, 0, len(injected.text), cut=injected.truncated,
            text=injected.text, step=step, tokens=estimate_tokens(injected.text),
            truncated=injected.truncated, cut_line=cut_line, note=note,
        )

    def reminder(self, key: str, step: int, why: str, code: str) -> LoadedFile | Skipped:
        text = self.settings.reminder_text
        if not text:
            return Skipped(
                key,
                f"{why}, and reminderText is empty: nothing is injected for it and the "
                "search goes on",
                code,
            )
        self.requested += len(text)
        return LoadedFile(
            key, "nested", None, 0, len(text), text=text, step=step,
            tokens=estimate_tokens(text), truncated=False,
            note=f"{why}: the reminderText is injected instead",
        )

    def _out_of_reach(self, key: str) -> str | None:
        """Why Rulemap's reader refuses a file the injector itself would read from the disk
        (outside the workspace, or a link out of it); None when the file is merely unusable
        (binary, not UTF-8), which the injector would not show either."""
        if self.ws.inside(self.ws.identity(key)):
            return None
        try:
            self.ws.reader.read_bytes(self.ws.abs(key))
        except ReadError as exc:
            return str(exc)
        return None


def explain(
    ws: Workspace, profile_name: str, settings: Settings, target: str | None, cwd: str
) -> tuple[Explanation, list[str]]:
    """The explanation, and the files it read (for the derived cache)."""
    search = _Search(ws, settings, [], [], [])
    notes = search.notes
    found: list[str] = []
    if not settings.enabled:
        notes.append(NOTE_DISABLED)
    elif target is None:
        # the old single-walk view, kept for views that explain without a target (hovers, the
        # editor's instructions panel): it is the first tool call's in the cwd, and says so
        notes.append(NOTE_START_UP)
        notes.append(NOTE_FILESYSTEM if settings.walk_to_filesystem_root else NOTE_ROOT)
        found = search_from(ws, "" if cwd in ("", ".") else cwd.strip("/"), settings)
        search.run(found)
    else:
        found, direct = candidates(ws, target, settings)
        notes.append(
            f"after one tool call on `{target}`: each model step injects one new instruction "
            "file, nearest first (`step`); tokens are estimated as characters / 4, rounded up"
        )
        if direct:
            notes.append(
                f"`{target}` is itself an instruction file name: the injector uses it "
                "directly and searches no directory for it"
            )
        else:
            notes.append(NOTE_FILESYSTEM if settings.walk_to_filesystem_root else NOTE_ROOT)
        search.run(found)
    explanation = Explanation(
        profile=profile_name,
        root=ws.root,
        cwd="." if cwd in ("", ".") else cwd,
        target=target,
        max_chars=settings.max_tokens * CHARS_PER_TOKEN,
        files=search.files,
        left_out=[],
        skipped=search.skipped,
        notice=None,  # each cut file carries its own notice; nothing is shared
        requested_chars=search.requested,
        budget=Budget("per-file", "tokens", settings.max_tokens, "maxTokens"),
        notes=tuple(notes),
    )
    return explanation, found
