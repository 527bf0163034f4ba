"""Plain data shared by every layer: positions, parsed documents, load entries and findings.

Positions are kept as (line, column) with the column counted in Unicode code points of the
original text; `rulemap.text.positions` converts them to UTF-16 or UTF-8 at the edges.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

Severity = Literal["error", "warning", "information", "hint"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "information", "hint")

Reason = Literal["project", "import", "rule", "nested", "scoped"]


@dataclass(frozen=True, order=True)
class Pos:
    line: int  # 0-based
    col: int  # 0-based, Unicode code points


@dataclass(frozen=True, order=True)
class Span:
    start: Pos
    end: Pos

    @staticmethod
    def at(line: int, col: int, end_col: int | None = None) -> Span:
        return Span(Pos(line, col), Pos(line, col if end_col is None else end_col))


ZERO_SPAN = Span.at(0, 0)


class ImportStatus(StrEnum):
    OK = "ok"
    MISSING = "missing"
    OUTSIDE = "outside"  # outside the workspace and not allowed
    HOME = "home"  # `~/...` that is not under allowImportsFrom
    DIRECTORY = "directory"


@dataclass(frozen=True)
class ImportRef:
    """One `@path` token in a document."""

    raw: str  # the path exactly as written after `@`, escapes included
    path: str  # the path with `\\ ` unescaped
    span: Span  # the whole token, `@` included
    offset: int  # code point offset of `@` in the original text


@dataclass(frozen=True)
class Resolved:
    """Where an import points, as the workspace sees it."""

    status: ImportStatus
    target: str  # workspace-relative path (or absolute when outside the root)
    identity: str | None  # real-path identity when the target exists


@dataclass
class Frontmatter:
    present: bool
    data: dict[str, object] | None  # None when absent or invalid
    error: str | None = None
    error_span: Span | None = None
    span: Span | None = None  # the whole frontmatter block including the fences
    body_offset: int = 0  # code point offset where the body starts
    key_spans: dict[str, Span] = field(default_factory=dict)  # top-level key -> key span
    value_spans: dict[str, list[Span]] = field(default_factory=dict)  # `paths` item spans


@dataclass
class Suppressions:
    file_codes: set[str] = field(default_factory=set)  # "*" means every code
    line_codes: dict[int, set[str]] = field(default_factory=dict)

    def suppressed(self, code: str, line: int) -> bool:
        if "*" in self.file_codes or code in self.file_codes:
            return True
        codes = self.line_codes.get(line)
        return bool(codes) and ("*" in codes or code in codes)  # type: ignore[operator]


@dataclass
class Glob:
    pattern: str  # as written
    span: Span
    expanded: list[str]
    error: str | None = None


@dataclass
class Document:
    """A parsed instruction file or rule. Immutable once built; replaced on change."""

    path: str  # workspace-relative
    text: str  # original text (BOM dropped); "" when unreadable
    lines: list[str]
    unreadable: str | None  # why it cannot be read, or None
    imports: list[ImportRef]
    brought: str  # the text as the agent receives it
    kept_lines: list[int]  # brought line i comes from original line kept_lines[i]
    frontmatter: Frontmatter
    suppressions: Suppressions
    is_rule: bool
    globs: list[Glob] | None  # None: no `paths` (unconditional); a list: path-scoped
    rule_skip: str | None = None  # why a rule is not loaded at all (invalid frontmatter, ...)

    @property
    def chars(self) -> int:
        return len(self.brought)


@dataclass
class Related:
    path: str
    span: Span
    message: str


@dataclass
class Fix:
    title: str
    kind: Literal["replace", "create", "suppress"]
    path: str
    span: Span = ZERO_SPAN
    new_text: str = ""


@dataclass
class Finding:
    path: str
    span: Span
    severity: Severity
    code: str
    message: str
    related: list[Related] = field(default_factory=list)
    fixes: list[Fix] = field(default_factory=list)
    tags: list[Literal["unnecessary", "deprecated"]] = field(default_factory=list)

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.span.start.line, self.span.start.col, self.code, self.message)


@dataclass
class LoadedFile:
    path: str
    reason: Reason
    imported_by: str | None
    depth: int
    chars: int
    cut: bool = False
    import_line: int | None = None  # line of the @import in the importer
    text: str = ""  # text as brought (after the budget cut)


@dataclass
class Skipped:
    path: str
    why: str
    code: str  # the check code that explains it
    importer: str | None = None
    line: int | None = None


@dataclass
class Explanation:
    profile: str
    root: str
    cwd: str
    target: str | None
    max_chars: int
    files: list[LoadedFile]
    left_out: list[str]
    skipped: list[Skipped]
    notice: str | None
    requested_chars: int = 0  # what the load would bring without the budget

    @property
    def total_chars(self) -> int:
        return sum(f.chars for f in self.files)

    def to_json(self) -> dict[str, object]:
        return {
            "profile": self.profile,
            "root": self.root,
            "cwd": self.cwd,
            "target": self.target,
            "maxChars": self.max_chars,
            "totalChars": self.total_chars,
            "files": [
                {
                    "path": f.path,
                    "reason": f.reason,
                    "importedBy": f.imported_by,
                    "depth": f.depth,
                    "chars": f.chars,
                    "cut": f.cut,
                }
                for f in self.files
            ],
            "leftOut": list(self.left_out),
            "skipped": [{"path": s.path, "why": s.why} for s in self.skipped],
        }

    def render(self) -> str:
        """The instructions exactly as the agent receives them."""
        parts = [f.text for f in self.files]
        text = "\n\n".join(p.rstrip("\n") for p in parts if p)
        if self.notice:
            text = f"{text}\n\n{self.notice}" if text else self.notice
        return text

