"""The script and target names of a workspace's task files, for the stale-command check:
`package.json` scripts, Makefile targets, justfile recipes and `pyproject.toml` scripts.

Each file is read through the workspace's reader and parsed with its format's own parser where
one exists (`json`, `tomllib`); Makefiles and justfiles have none in the standard library and
are read line by line (the rules are in docs/checks.md, "stale-command"). A file that is
missing, empty (the corpus keeps every repository path as an empty placeholder) or does not
parse is *unknown* (`None`), never "has no scripts". A parsed file whose names may be longer
than what it lists (an `include` not read, a target spelled with a variable, a match-anything
pattern rule) says so (`complete=False`): a name missing from it is not reported.

Parsed files are cached in the derived cache with the files they read, so an edit of a
`package.json` drops its entry and the next check reads it again.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import field
from fnmatch import fnmatchcase
from itertools import compress, repeat
from typing import TYPE_CHECKING, Final, Literal

from rulemap.derived import MISSING, KeyFamily
from rulemap.readers.base import ReadError
from rulemap.records import record
from rulemap.text.decoding import decode

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

Kind = Literal["npm", "make", "just", "python"]

# the file names each tool reads, in the order it tries them
FILE_NAMES: Final[dict[Kind, tuple[str, ...]]] = {
    "npm": ("package.json",),
    "make": ("GNUmakefile", "makefile", "Makefile"),
    "just": ("justfile", "Justfile", ".justfile", "JUSTFILE"),
    "python": ("pyproject.toml",),
}
MANIFEST_NAMES: Final = frozenset(n for names in FILE_NAMES.values() for n in names)
TASK_FILE_GLOBS: Final = (*sorted(MANIFEST_NAMES), "*.mk", "*.just")  # watched by the server
MAX_INCLUDES = 16  # included makefiles / imported justfiles read for one file


def is_task_file(key: str) -> bool:
    """Whether `key` is named like a task file (or a makefile an `include` may read)."""
    name = posixpath.basename(key)
    return name in MANIFEST_NAMES or name.endswith((".mk", ".just"))


@record(frozen=True)
class Tasks:
    """The names one task file defines, and what each runs (a script's command line, a
    recipe's or rule's first recipe line; "" when it runs nothing written there)."""

    path: str
    kind: Kind
    names: dict[str, str]
    complete: bool = True  # False: a name not listed may exist all the same
    patterns: tuple[str, ...] = ()  # make pattern targets, as fnmatch patterns (`*.o`)
    package: str | None = None  # a package.json's `name`
    dependencies: frozenset[str] = frozenset()  # a package.json's dependency names
    reads: tuple[str, ...] = field(default=(), compare=False)  # files read (includes too)

    def has(self, name: str) -> bool | None:
        """Whether `name` is defined here: True, False, or None when it cannot be told."""
        if name in self.names or any(fnmatchcase(name, p) for p in self.patterns):
            return True
        return False if self.complete else None


_TASKS: Final = KeyFamily[Tasks | None]("stale-command-tasks")  # file key, kind
_ALL_OF_KIND: Final = KeyFamily[tuple[str, ...]]("stale-command-task-files")  # kind
_DEFINED: Final = KeyFamily["Defined"]("stale-command-defined")  # kind


def text_of(ws: Workspace, key: str) -> str | None:
    """The text of workspace file `key`; None when it is missing, unreadable or blank."""
    if key not in ws.files:
        return None
    try:
        data = ws.reader.read_bytes(ws.abs(key))
    except ReadError:
        return None
    text, why = decode(data)
    return None if why is not None or not text.strip() else text


def tasks(ws: Workspace, key: str, kind: Kind) -> Tasks | None:
    """The parsed task file `key` (None: unknown). Cached until a file it read changes."""
    cache_key = _TASKS.key(key, kind)
    cached = ws.derived.get(cache_key, MISSING)
    if cached is not MISSING:
        return cached
    parsed = _PARSERS[kind](ws, key)
    reads = parsed.reads if parsed is not None else (key,)
    return ws.derived.put(cache_key, parsed, reads=reads or (key,))


def in_directory(ws: Workspace, directory: str, kind: Kind) -> str | None:
    """The key of the task file of `kind` in `directory` ('' = the root), if there is one."""
    prefix = f"{directory}/" if directory else ""
    for name in FILE_NAMES[kind]:
        if prefix + name in ws.files:
            return prefix + name
    return None


def all_of_kind(ws: Workspace, kind: Kind) -> tuple[str, ...]:
    """Every task file of `kind` in the workspace (sorted). Kept until a file is created or
    deleted."""
    cache_key = _ALL_OF_KIND.key(kind)
    cached = ws.derived.get(cache_key)
    if cached is not None:
        return cached
    names = FILE_NAMES[kind]
    # `str.endswith` mapped over the file list (C calls, no Python test per path): cheaper
    # than building the index by suffix when nothing else has
    endings = tuple(f"/{name}" for name in names)
    below = compress(ws.files, map(str.endswith, ws.files, repeat(endings)))
    found = tuple(sorted([*below, *(name for name in names if name in ws.files)]))
    return ws.derived.put(cache_key, found, reads=())


@record(frozen=True)
class Defined:
    """Every name the task files of one kind define, with the first file that does; whether
    some file of that kind cannot be known (unreadable, or its names may be more)."""

    by_name: dict[str, str]
    patterns: tuple[tuple[str, str], ...]  # (fnmatch pattern, file)
    unknown: bool
    reads: tuple[str, ...] = ()  # the files read (includes too)

    def where(self, name: str, besides: str) -> str | None:
        """A file other than `besides` that defines `name` ("" when none does; None when it
        cannot be told)."""
        found = self.by_name.get(name)
        if found is not None and found != besides:
            return found
        for pattern, path in self.patterns:
            if path != besides and fnmatchcase(name, pattern):
                return path
        return None if self.unknown else ""


def defined(ws: Workspace, kind: Kind) -> Defined:
    """The names every task file of `kind` defines (read once, cached with those files)."""
    cache_key = _DEFINED.key(kind)
    cached = ws.derived.get(cache_key)
    if cached is not None:
        return cached
    by_name: dict[str, str] = {}
    patterns: list[tuple[str, str]] = []
    unknown = False
    reads: list[str] = []
    for key in all_of_kind(ws, kind):
        parsed = tasks(ws, key, kind)
        if parsed is None:
            unknown = True
            reads.append(key)
            continue
        reads.extend(parsed.reads)
        unknown |= not parsed.complete
        for name in parsed.names:
            by_name.setdefault(name, key)
        patterns.extend((p, key) for p in parsed.patterns)
    result = Defined(by_name, tuple(patterns), unknown, tuple(reads))
    return ws.derived.put(cache_key, result, reads=reads)


# ----- package.json ---------------------------------------------------------------------------


def _package_json(ws: Workspace, key: str) -> Tasks | None:
    text = text_of(ws, key)
    if text is None:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    scripts = data.get("scripts", {})
    if not isinstance(scripts, dict):
        return None
    deps: set[str] = set()
    for section in ("dependencies", "devDependencies", "optionalDependencies",
                    "peerDependencies"):
        value = data.get(section)
        if isinstance(value, dict):
            deps.update(str(k) for k in value)
    name = data.get("name")
    return Tasks(key, "npm", {str(k): str(v) for k, v in scripts.items()},
                 package=name if isinstance(name, str) else None,
                 dependencies=frozenset(deps), reads=(key,))


# ----- pyproject.toml -------------------------------------------------------------------------


def _pyproject(ws: Workspace, key: str) -> Tasks | None:
    text = text_of(ws, key)
    if text is None:
        return None
    import tomllib  # only for a pyproject.toml to read (4 ms of imports)

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    names: dict[str, str] = {}
    project = data.get("project")
    poetry = data.get("tool", {}).get("poetry") if isinstance(data.get("tool"), dict) else None
    for table in (project, poetry):
        scripts = table.get("scripts") if isinstance(table, dict) else None
        if isinstance(scripts, dict):
            names.update({str(k): str(v) for k, v in scripts.items()})
    return Tasks(key, "python", names, reads=(key,))


# ----- Makefile -------------------------------------------------------------------------------

# a rule line: targets, then `:`, `::`, `&:` or `&::` not followed by `=` (`:=`, `::=` assign)
_RULE: Final = re.compile(r"^([^\s#:=][^#:=]*?)\s*&?::?(?!=)")
_ASSIGNMENT: Final = re.compile(
    r"^(?:export\s+|override\s+|private\s+)*[^\s:#=]+\s*(?:[:+?!]|::)?=")
_INCLUDE: Final = re.compile(r"^(?:-include|sinclude|include)\s+(.*)$")
_DIRECTIVE: Final = re.compile(
    r"^(?:ifeq|ifneq|ifdef|ifndef|else|endif|export|unexport|override|vpath|undefine)\b")


def _logical_lines(text: str) -> list[str]:
    """Lines with backslash continuations joined."""
    out: list[str] = []
    pending = ""
    for line in text.splitlines():
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        out.append(pending + line)
        pending = ""
    if pending:
        out.append(pending)
    return out


def _makefile(ws: Workspace, key: str) -> Tasks | None:
    """Targets by a reading of rule lines: a line that does not start with a tab (a recipe),
    is no assignment, directive or `define` block, and has targets before a `:`. A target
    with `%` is a pattern; one with `$` (a variable) makes the file incomplete, as does an
    `include` that cannot be read, or a match-anything rule (`%:`)."""
    text = text_of(ws, key)
    if text is None:
        return None
    names: dict[str, str] = {}
    patterns: list[str] = []
    reads = [key]
    complete = _read_makefile(ws, key, text, names, patterns, reads)
    return Tasks(key, "make", names, complete=complete, patterns=tuple(patterns),
                 reads=tuple(reads))


def _read_makefile(ws: Workspace, key: str, text: str, names: dict[str, str],
                   patterns: list[str], reads: list[str]) -> bool:
    complete = True
    in_define = False
    last: list[str] = []  # the targets of the rule whose recipe follows
    for line in _logical_lines(text):
        stripped = line.strip()
        if in_define:
            in_define = not stripped.startswith("endef")
            continue
        if line.startswith("\t"):
            for target in last:
                if not names.get(target):
                    names[target] = stripped
            last = []
            continue
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("define ") or stripped == "define":
            in_define = True
            continue
        include = _INCLUDE.match(stripped)
        if include is not None:
            complete &= _include(ws, key, include.group(1), names, patterns, reads)
            continue
        if _DIRECTIVE.match(stripped) or _ASSIGNMENT.match(stripped):
            continue
        rule = _RULE.match(line)
        if rule is None:
            if "$(" in stripped or "${" in stripped:
                complete = False  # `$(eval ...)`, `$(foreach ...)`: rules made at run time
            continue
        last = []
        for target in rule.group(1).split():
            if "$" in target:
                complete = False
            elif target == "%":
                complete = False  # match-anything: any name may be made
            elif "%" in target:
                patterns.append(target.replace("%", "*"))
            else:
                names.setdefault(target, "")
                last.append(target)
    return complete


def _include(ws: Workspace, key: str, spec: str, names: dict[str, str],
             patterns: list[str], reads: list[str]) -> bool:
    """Read the makefiles of an `include` line; False when one cannot be known."""
    spec = spec.split("#", 1)[0]
    complete = True
    for word in spec.split():
        if "$" in word or any(c in word for c in "*?[") or len(reads) > MAX_INCLUDES:
            return False
        included = posixpath.normpath(posixpath.join(posixpath.dirname(key), word))
        if included.startswith("../") or included in reads:
            return False if included.startswith("../") else complete
        reads.append(included)
        text = text_of(ws, included)
        if text is None:
            return False
        complete &= _read_makefile(ws, included, text, names, patterns, reads)
    return complete


# ----- justfile -------------------------------------------------------------------------------

_JUST_NAME: Final = re.compile(r"^@?([A-Za-z_][A-Za-z0-9_-]*)(.*)$")
_JUST_ALIAS: Final = re.compile(r"^alias\s+([A-Za-z_][A-Za-z0-9_-]*)\s*:=\s*(\S+)")
_JUST_IMPORT: Final = re.compile(r"""^import(\?)?\s+(['"])(.+?)\2""")
_JUST_MOD: Final = re.compile(r"^mod(\?)?\s+([A-Za-z_][A-Za-z0-9_-]*)")
_JUST_KEYWORDS: Final = frozenset({"set", "export", "alias", "import", "mod", "unexport"})


def _justfile(ws: Workspace, key: str) -> Tasks | None:
    """Recipes by a reading of header lines: an unindented line starting with a name (an `@`
    before it allowed), with a `:` after its parameters and no `:=` (an assignment); an
    `[attribute]` line before it is skipped, an `alias` names a recipe too, a `mod` a module
    (`just mod recipe`), and an `import` is read (one that cannot be read makes the file
    incomplete, unless it is optional, `import?`)."""
    text = text_of(ws, key)
    if text is None:
        return None
    names: dict[str, str] = {}
    reads = [key]
    complete = _read_justfile(ws, key, text, names, reads)
    return Tasks(key, "just", names, complete=complete, reads=tuple(reads))


def _read_justfile(ws: Workspace, key: str, text: str, names: dict[str, str],
                   reads: list[str]) -> bool:
    complete = True
    last: str | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if line[:1] in (" ", "\t"):
            if last is not None and stripped and not stripped.startswith("#"):
                names[last] = stripped
                last = None
            continue
        last = None
        if not stripped or stripped.startswith(("#", "[")):
            continue
        if (alias := _JUST_ALIAS.match(stripped)) is not None:
            names.setdefault(alias.group(1), f"alias of `{alias.group(2)}`")
            continue
        if (module := _JUST_MOD.match(stripped)) is not None:
            names.setdefault(module.group(2), "a module")
            continue
        if (imported := _JUST_IMPORT.match(stripped)) is not None:
            complete &= _just_import(ws, key, imported.group(3), bool(imported.group(1)),
                                     names, reads)
            continue
        match = _JUST_NAME.match(stripped)
        if match is None or match.group(1) in _JUST_KEYWORDS:
            continue
        rest = match.group(2)
        if re.match(r"\s*:=", rest) or ":" not in rest:
            continue
        names.setdefault(match.group(1), "")
        last = match.group(1)
    return complete


def _just_import(ws: Workspace, key: str, path: str, optional: bool,
                 names: dict[str, str], reads: list[str]) -> bool:
    if path.startswith(("/", "~")) or len(reads) > MAX_INCLUDES:
        return False
    included = posixpath.normpath(posixpath.join(posixpath.dirname(key), path))
    if included.startswith("../"):
        return False
    if included in reads:
        return True
    reads.append(included)
    text = text_of(ws, included)
    if text is None:
        return optional and included not in ws.files
    return _read_justfile(ws, included, text, names, reads)


_PARSERS: Final = {"npm": _package_json, "make": _makefile, "just": _justfile,
                   "python": _pyproject}
