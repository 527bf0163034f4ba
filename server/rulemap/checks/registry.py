"""Every check code, its default severity and a one-line summary (docs/checks.md expands it)."""

from __future__ import annotations

from rulemap.model import Severity

DOCS_URL = "https://github.com/rulemap/rulemap/blob/main/docs/checks.md"

CHECKS: dict[str, tuple[Severity, str]] = {
    "broken-import": ("error", "an @import whose target does not exist"),
    "suspicious-import": (
        "warning",
        "an @import with trailing punctuation whose trimmed form exists",
    ),
    "import-cycle": ("warning", "imports that lead back to a file already loading"),
    "import-too-deep": ("warning", "an @import past maxImportDepth hops, which never loads"),
    "import-outside-workspace": ("warning", "an @import outside the workspace, skipped"),
    "budget-overflow": (
        "warning",
        "a load over its agent's budget (characters, bytes or tokens) that cuts or leaves out "
        "this file",
    ),
    "instructions-shadowed": (
        "warning",
        "an instruction file an agent does not read because another file takes its place",
    ),
    "import-not-followed": (
        "information",
        "an @import in a file whose only readers have no imports: it reaches them as text",
    ),
    "file-too-large": (
        "warning",
        "an instruction file over its agent's size warning (Claude Code: 40,000 characters)",
    ),
    "invalid-frontmatter": ("error", "frontmatter that is not valid YAML or has a wrong `paths`"),
    "invalid-glob": ("error", "a `paths` glob that can never match as written"),
    "unmatched-glob": ("warning", "a `paths` glob that matches no file in the workspace"),
    "unreachable-rule": ("warning", "a rule the loader never reads from this location"),
    "empty-instructions": ("warning", "an instruction file or rule with no content"),
    "unreadable-file": ("error", "a binary, non-UTF-8, oversized or unreadable file"),
    "non-utf8-name": (
        "warning",
        "a file name that is not valid UTF-8, shown with a \\xNN escape per bad byte",
    ),
    "duplicate-load": ("information", "a file brought twice, read only once"),
    "untrusted-config": (
        "warning",
        "a repository's configuration sets a key only the user may set; ignored",
    ),
}

CHECK_CODES = frozenset(CHECKS)


def doc_url(code: str) -> str:
    return f"{DOCS_URL}#{code}"
