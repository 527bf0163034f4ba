"""GitHub Copilot's file names, per agent, and its `.instructions.md` headers as Copilot reads
them (docs/profiles/copilot.md): which Copilot reads what, the instruction files under
`.github/instructions/`, the misnamed ones, and each file's `applyTo` / `excludeAgent`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from rulemap.derived import KeyFamily
from rulemap.model import Span
from rulemap.profiles.named_files import FILES_NAMED, files_named
from rulemap.records import record

# rule_files.py (the header reader and its globs) is imported by the first header read: the
# names and places below are what detection and `reads` ask
if TYPE_CHECKING:
    from rulemap.profiles.rule_files import Header, WrittenGlob
    from rulemap.workspace import Workspace

INSTRUCTIONS = ".github/copilot-instructions.md"
INSTRUCTIONS_DIR = ".github/instructions/"
SUFFIX = ".instructions.md"
AGENTS = "AGENTS.md"
CODING_AGENT, CODE_REVIEW, VSCODE_CHAT = "coding-agent", "code-review", "vscode-chat"
AGENT_CHOICES = (CODING_AGENT, CODE_REVIEW, VSCODE_CHAT)  # the `agent` option
EXCLUDABLE = (CODING_AGENT, CODE_REVIEW)  # the names `excludeAgent` takes
# Root files besides AGENTS.md: the coding agent's "CLAUDE.md or GEMINI.md in the root"; VS
# Code's chat (`chat.useClaudeMdFile`): CLAUDE.md, CLAUDE.local.md, .claude/CLAUDE.md.
CODING_AGENT_ROOT_FILES = ("CLAUDE.md", "GEMINI.md")
VSCODE_CLAUDE_FILES = ("CLAUDE.md", "CLAUDE.local.md", ".claude/CLAUDE.md")

_META: Final[KeyFamily[Meta]] = KeyFamily("copilot-meta")  # file


@record
class Meta:
    """One `.instructions.md` file as Copilot reads it."""

    header: Header
    apply_to: str | None  # as written
    globs: list[WrittenGlob] | None
    problem: str | None  # why the header cannot be used (Copilot skips the file)
    problem_span: Span | None
    exclude: str | None  # `excludeAgent`
    exclude_span: Span | None


def exists(ws: Workspace, key: str) -> bool:
    if key in ws.files:
        return True
    full = ws.abs(key)
    return ws.reader.exists(full) and not ws.reader.is_dir(full)


def is_instruction_file(key: str) -> bool:
    return key.startswith(INSTRUCTIONS_DIR) and key.endswith(SUFFIX)


def instruction_files(ws: Workspace) -> list[str]:
    return files_named(ws, FILES_NAMED.key("copilot", "instructions"),
                       ws.files.under(INSTRUCTIONS_DIR), is_instruction_file)


def misnamed(ws: Workspace) -> list[str]:
    """Markdown files in `.github/instructions/` that are not `*.instructions.md`."""
    return files_named(
        ws, FILES_NAMED.key("copilot", "misnamed"), ws.files.under(INSTRUCTIONS_DIR),
        lambda p: p.startswith(INSTRUCTIONS_DIR) and p.endswith(".md") and not p.endswith(SUFFIX)
        and p.rsplit("/", 1)[-1].lower() != "readme.md")


REPOSITORY_NAME = "copilot-instructions.md"
CLI_USER_FILE = ".copilot/copilot-instructions.md"  # under the home directory: Copilot CLI's


def misplaced_repository_files(ws: Workspace) -> list[str]:
    """Files named `copilot-instructions.md` other than the root's
    `.github/copilot-instructions.md` (a package's `.github/`, a subdirectory of `.github/`
    such as spec-kit's `.github/agents/`, the root itself), those in
    `.github/instructions/` aside (`misnamed` reports them), and a nested repository's (a
    submodule's) own root file."""
    found = files_named(
        ws, FILES_NAMED.key("copilot", "misplaced"), ws.files.with_suffix(".md"),
        lambda p: (p == REPOSITORY_NAME or p.endswith("/" + REPOSITORY_NAME))
        and p != INSTRUCTIONS and not p.startswith(INSTRUCTIONS_DIR))
    return [key for key in found if not _own_repository(ws, key)]


def _own_repository(ws: Workspace, key: str) -> bool:
    folder = workspace_folder_of(key)
    return folder is not None and ws.reader.exists(ws.abs(f"{folder}/.git"))


def workspace_folder_of(key: str) -> str | None:
    """The folder whose own `.github/copilot-instructions.md` `key` is (`packages/x` for
    `packages/x/.github/copilot-instructions.md`): what VS Code reads when that folder is a
    workspace folder. None when `key` is not in a `.github/` of its own."""
    tail = "/" + INSTRUCTIONS
    return key[: -len(tail)] if key.endswith(tail) else None


def meta(ws: Workspace, key: str) -> Meta:
    cache_key = _META.key(key)
    cached = ws.derived.get(cache_key)
    if cached is not None:
        return cached
    from rulemap.profiles.rule_files import read_header, written_globs

    doc = ws.document(key)
    header = read_header(doc)
    problem: str | None = None
    problem_span: Span | None = None
    globs: list[WrittenGlob] | None = None
    apply_to: str | None = None
    exclude: str | None = None
    if header.error:
        problem, problem_span = header.error, header.error_span
    else:
        value = header.data.get("applyTo")
        found = written_globs(header, "applyTo", doc.lines)
        if isinstance(found, str):
            problem, problem_span = found, header.key_spans.get("applyTo")
        else:
            globs = found
            if isinstance(value, str):
                apply_to = value
            elif isinstance(value, list):
                apply_to = ", ".join(str(v) for v in value)
        raw = header.data.get("excludeAgent")
        if raw is not None:
            exclude = str(raw)
    cached = Meta(header, apply_to, globs, problem, problem_span, exclude,
                  header.key_spans.get("excludeAgent"))
    ws.derived.put(cache_key, cached, reads=(key,))
    return cached
