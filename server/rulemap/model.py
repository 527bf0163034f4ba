"""Plain data shared by every layer: positions, parsed documents, load entries and findings.

Positions are kept as (line, column) with the column counted in Unicode code points of the
original text; `rulemap.text.positions` converts them to UTF-16 or UTF-8 at the edges.
"""

from __future__ import annotations

import operator
from dataclasses import field, fields
from enum import StrEnum
from typing import Any, Literal, TypeVar

from rulemap.records import record

T = TypeVar("T")


def pickled_by_fields(cls: type[T]) -> type[T]:
    """Pickle instances of the dataclass `cls` as a call of `cls` with its fields. By default
    pickle sets a state dict on each new instance, which gives every one a dict of its own
    (an instance's attributes otherwise live inline): 21 MB more when a check's snapshot of the
    20,000-import workspace is loaded (cli/check_resume.py)."""
    get = operator.attrgetter(*(f.name for f in fields(cls)))  # type: ignore[arg-type]

    def __reduce__(self: Any) -> tuple[type[T], tuple[Any, ...]]:
        return cls, get(self)

    cls.__reduce__ = __reduce__  # type: ignore[method-assign]
    return cls


class EmptyList(list[Any]):
    """The one empty list that many values share instead of each making its own: a finding's
    `related`, `fixes` and `tags` are empty for most of the 20,000 findings of a large check
    (56 bytes each, 5 MB in all), as are most of the per-document lists the derived cache
    keeps. Changing it raises: a value that needs items gets a list of its own."""

    __slots__ = ()

    def _refuse(self, *args: object, **kwargs: object) -> Any:
        raise TypeError("EMPTY is shared: assign a new list instead of changing it")

    append = extend = insert = remove = pop = clear = sort = reverse = _refuse
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse

    def __reduce__(self) -> str:
        return "EMPTY"  # the module's own: one instance after a snapshot is loaded too


EMPTY: Any = EmptyList()


def empty() -> Any:
    """`field(default_factory=empty)`: the shared `EMPTY` (a list's type to its users)."""
    return EMPTY


Severity = Literal["error", "warning", "information", "hint"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "information", "hint")

# project: a file of the root→cwd directories; import: brought by an @import; rule: an
# unconditional rule; nested: a file of a directory below cwd (or, for per-step agents, of the
# touched file's ancestry); scoped: a rule whose globs match the target; user: a user-level
# file (from `--home`); requested: a rule the agent may pull in by its description
Reason = Literal["project", "import", "rule", "nested", "scoped", "user", "requested"]


# slots: a check makes hundreds of thousands of positions and spans (every import token,
# every finding); without a __dict__ each is about half the size
@record(frozen=True, order=True, slots=True)
class Pos:
    line: int  # 0-based
    col: int  # 0-based, Unicode code points

    # pickled as a call rather than slot state (dataclasses' `__setstate__` is a Python loop
    # per object: a third of loading a check's snapshot, cli/check_resume.py)
    def __reduce__(self) -> tuple[type[Pos], tuple[int, int]]:
        return Pos, (self.line, self.col)


@record(frozen=True, order=True, slots=True)
class Span:
    start: Pos
    end: Pos

    def __reduce__(self) -> tuple[type[Span], tuple[Pos, Pos]]:
        return Span, (self.start, self.end)  # as Pos's

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


@record(frozen=True, slots=True)
class ImportRef:
    """One `@path` token in a document."""

    raw: str  # the path exactly as written after `@`, escapes included
    path: str  # the path with `\\ ` unescaped
    span: Span  # the whole token, `@` included
    offset: int  # code point offset of `@` in the original text

    def __reduce__(self) -> tuple[type[ImportRef], tuple[str, str, Span, int]]:
        return ImportRef, (self.raw, self.path, self.span, self.offset)  # as Pos's


@pickled_by_fields
@record(frozen=True)
class Resolved:
    """Where an import points, as the workspace sees it."""

    status: ImportStatus
    target: str  # workspace-relative path (or absolute when outside the root)
    identity: str | None  # real-path identity when the target exists


@pickled_by_fields
@record
class Frontmatter:
    present: bool
    data: dict[str, object] | None  # None when absent or invalid
    error: str | None = None
    error_span: Span | None = None
    span: Span | None = None  # the whole frontmatter block including the fences
    body_offset: int = 0  # code point offset where the body starts
    key_spans: dict[str, Span] = field(default_factory=dict)  # top-level key -> key span
    value_spans: dict[str, list[Span]] = field(default_factory=dict)  # `paths` item spans


@pickled_by_fields
@record
class Suppressions:
    file_codes: set[str] = field(default_factory=set)  # "*" means every code
    line_codes: dict[int, set[str]] = field(default_factory=dict)

    def suppressed(self, code: str, line: int) -> bool:
        if "*" in self.file_codes or code in self.file_codes:
            return True
        codes = self.line_codes.get(line)
        return bool(codes) and ("*" in codes or code in codes)  # type: ignore[operator]


@record
class Glob:
    pattern: str  # as written
    span: Span
    expanded: list[str]
    error: str | None = None


@record(frozen=True)
class ScopedGlobs:
    """The globs that scope one rule file as an agent reads them: the frontmatter key that holds
    them (`paths`, `applyTo`, `globs`), the directory they are relative to ('' = the root) and
    each glob where it is written."""

    key: str
    base: str
    globs: tuple[Glob, ...]


@record
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
    bom: bool = False  # the file began with a UTF-8 byte-order mark (not in `text`)

    @property
    def chars(self) -> int:
        return len(self.brought)

    # pickled without `lines`, which is `text` split again: a check's snapshot
    # (cli/check_resume.py) holds every document, and their lines were a third of its objects
    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        del state["lines"]
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        from rulemap.text.positions import split_lines

        self.__dict__.update(state)
        self.lines = split_lines(self.text)


@pickled_by_fields
@record
class Related:
    path: str
    span: Span
    message: str


@record
class Fix:
    title: str
    kind: Literal["replace", "create", "suppress"]
    path: str
    span: Span = ZERO_SPAN
    new_text: str = ""


@record(frozen=True)
class Hint:
    """A "did you mean" not computed yet: it is worked out only where it is shown (the text
    report, `--suggest`, an editor's quick fix; `rulemap.checks.hints`). `kind` names its
    resolver, `args` is what the resolver needs besides the finding itself."""

    kind: str
    args: tuple[str, ...] = ()


@pickled_by_fields
@record
class Finding:
    path: str
    span: Span
    severity: Severity
    code: str
    message: str
    related: list[Related] = field(default_factory=empty)  # never changed: replaced
    fixes: list[Fix] = field(default_factory=empty)
    tags: list[Literal["unnecessary", "deprecated"]] = field(default_factory=empty)
    # the agent (profile name) that alone suffers this finding; None: any agent reading the
    # file (syntax, unreadable bytes, the default model's findings)
    profile: str | None = None
    hint: Hint | None = None  # a did-you-mean to add to the message and fixes when shown

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.span.start.line, self.span.start.col, self.code, self.message)


# Not frozen, though nothing changes one once made: a check of a 20,000-file workspace builds
# tens of thousands, and a frozen dataclass's __init__ costs 4.5x as much (2.9 vs 0.64 us,
# measured); slots make them smaller and faster still.
@record(slots=True, weakref_slot=True)  # profiles/links.py shares equal ones
class LoadedFile:
    path: str
    reason: Reason
    imported_by: str | None
    depth: int
    chars: int
    cut: bool = False
    import_line: int | None = None  # line of the @import in the importer
    text: str = ""  # text as brought (after the budget cut)
    # Profile-specific facts, shown in JSON only when set:
    step: int | None = None  # the model step at which it is injected (one file per step)
    tokens: int | None = None  # its estimated tokens (profiles with a token budget)
    truncated: bool | None = None  # cut at a per-file limit (a notice follows it)
    cut_line: int | None = None  # 0-based line of the original file where reading stops
    bytes: int | None = None  # UTF-8 bytes kept (profiles with a byte budget)
    note: str | None = None  # a short why beyond `reason` (`reminderText`, `applyTo: src/**`)


@record(frozen=True)
class Budget:
    """How a profile limits what it loads, for views: `shared` (one limit for all files in
    load order: cogitator's maxChars, Codex's bytes), `per-file` (each file cut at the limit:
    Mastra's tokens) or `none`."""

    kind: Literal["shared", "per-file", "none"] = "none"
    unit: Literal["chars", "bytes", "tokens"] = "chars"
    limit: int = 0
    # the agent's own name for the limit (`maxChars`, `project_doc_max_bytes`, `maxTokens`),
    # set by the profile that builds the budget, so that views say what cut a file in the
    # agent's terms instead of spelling an agent fact themselves; None: no limit to name
    setting: str | None = None

    def to_json(self) -> dict[str, object]:
        # `setting` stays out: the JSON form is pinned by the conformance fixtures and the
        # protocol, and the views that name the setting are the server's own
        return {"kind": self.kind, "unit": self.unit, "limit": self.limit}


@record(slots=True)  # not frozen, for the same reason as LoadedFile
class Skipped:
    path: str
    why: str
    code: str  # the check code that explains it
    importer: str | None = None
    line: int | None = None


@record(frozen=True)
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
    budget: Budget = Budget()
    # what the profile decided where its agent is unclear or Rulemap bounds it ("the walk
    # stops at the workspace root; walkToFilesystemRoot = true goes on"), shown under tables
    notes: tuple[str, ...] = ()

    @property
    def total_chars(self) -> int:
        return sum(f.chars for f in self.files)

    @property
    def over_budget(self) -> bool:
        """Whether the agent does not get everything: a file cut (by the shared budget or at a
        per-file limit) or left out."""
        return bool(self.left_out) or any(f.cut or f.truncated for f in self.files)

    def to_json(self) -> dict[str, object]:
        return {
            "profile": self.profile,
            "root": self.root,
            "cwd": self.cwd,
            "target": self.target,
            "maxChars": self.max_chars,
            "totalChars": self.total_chars,
            "budget": self.budget.to_json(),
            "files": [_loaded_json(f) for f in self.files],
            "leftOut": list(self.left_out),
            "skipped": [{"path": s.path, "why": s.why} for s in self.skipped],
            **({"notes": list(self.notes)} if self.notes else {}),
        }

    def render(self) -> str:
        """The instructions exactly as the agent receives them."""
        parts = [f.text for f in self.files]
        text = "\n\n".join(p.rstrip("\n") for p in parts if p)
        if self.notice:
            text = f"{text}\n\n{self.notice}" if text else self.notice
        return text



_EXTRA_FIELDS = (
    ("step", "step"),
    ("tokens", "tokens"),
    ("truncated", "truncated"),
    ("cutLine", "cut_line"),
    ("bytes", "bytes"),
    ("note", "note"),
)


def _loaded_json(f: LoadedFile) -> dict[str, object]:
    out: dict[str, object] = {
        "path": f.path,
        "reason": f.reason,
        "importedBy": f.imported_by,
        "depth": f.depth,
        "chars": f.chars,
        "cut": f.cut,
    }
    for key, attribute in _EXTRA_FIELDS:
        value = getattr(f, attribute)
        if value is not None:
            out[key] = value
    return out


@record(frozen=True)
class LoadStatus:
    """Whether an agent ever loads an instruction file or rule (by its own place and
    settings; imports aside): for how many workspace files, a target it loads for (None:
    the start-up load, so every target), or why it never does."""

    loads: bool
    files: int = 0  # workspace files whose load includes it
    target: str | None = None  # an example target (None: at start-up)
    scoped: bool = False  # loads only for the files its globs match
    why_not: str | None = None  # why it never loads ("`pkg/.claude/rules` is below the cwd")
