"""stale-command: an instruction that tells the agent to run a script, target or recipe its
task file does not define — `npm run tets` beside a `package.json` whose scripts are `test`
and `build`, `make docs` with no `docs` target — so the agent runs a command that fails (or
does something else) and improvises. With a did-you-mean, worked out only where it is shown.

Commands are what `checks.commands` finds in the text agents receive; each is resolved to the
task file the tool would read (`resolve`): the nearest `package.json` (or Makefile, justfile)
from the file's directory upward — a rule's directory is its owner's — or the one of the
directory a `cd DIR`, `-C DIR` or `--prefix DIR` names, or the workspace package a `--filter`,
`yarn workspace` or `-w` names. Nothing is reported when it cannot be known: a missing,
empty or unparseable task file, a Makefile with an include not read, a script some other task
file of the workspace defines (the text may mean "run it there"), a name that may be a
dependency's binary (`yarn vitest`). Graph-wide: it reads files besides the document, and
its findings per document are cached with every task file they read, so an edit of a
`package.json` re-checks the documents that resolved through it (docs/checks.md).
"""

from __future__ import annotations

import posixpath
from dataclasses import replace
from typing import TYPE_CHECKING, Final, Literal

from rulemap.checks.commands import Command, commands, written_commands
from rulemap.derived import MISSING, KeyFamily
from rulemap.model import Finding, Fix, Hint, Pos, Span
from rulemap.profiles.base import parent_dir, selected
from rulemap.profiles.documents import read_documents
from rulemap.records import record
from rulemap.suggest import close_matches

if TYPE_CHECKING:
    from rulemap.checks.manifests import Kind, Tasks
    from rulemap.workspace import Workspace

NEAR_COMMAND: Final = "near-command"
Status = Literal["found", "missing", "unknown", "elsewhere"]

_KINDS: Final[dict[str, Kind]] = {"npm": "npm", "pnpm": "npm", "yarn": "npm", "bun": "npm",
                                  "make": "make", "just": "just", "uv": "python",
                                  "poetry": "python"}
_NOUNS: Final[dict[Kind, str]] = {"npm": "script", "make": "target", "just": "recipe",
                                  "python": "script"}
# `yarn X`, `pnpm X`, `bun run X` run a script X or else a binary X of node_modules/.bin: a name
# missing from the scripts is reported only when it reads as a script, not as a binary — it
# has a `:` (`test:unit`) or is one of these conventional script names no package's binary has
SCRIPT_WORDS: Final = frozenset({
    "build", "dev", "lint", "format", "fmt", "typecheck", "type-check", "check-types",
    "types", "ci", "preview", "watch", "clean", "verify", "validate", "codegen", "e2e",
    "bootstrap", "check", "test-unit", "unit", "integration", "storybook:build"})

_FINDINGS: Final = KeyFamily[list[Finding]]("stale-command-findings")  # document
_NEAREST: Final = KeyFamily[dict[str, "str | None"]]("stale-command-nearest")  # kind
_NEAREST_KEYS: Final = {kind: _NEAREST.key(kind) for kind in set(_KINDS.values())}


@record(frozen=True)
class Resolution:
    """What one command's script, target or recipe resolves to."""

    command: Command
    kind: Kind
    status: Status
    manifest: str | None = None  # the task file the tool reads (None: none found)
    runs: str | None = None  # what the name runs, when found
    elsewhere: str | None = None  # another task file that defines it
    names: tuple[str, ...] = ()  # the names the task file defines (for a did-you-mean)
    certain: bool = False  # a script-only form against a package.json that parsed

    @property
    def noun(self) -> str:
        return _NOUNS[self.kind]


def check(ws: Workspace) -> list[Finding]:
    """Every document an agent reads (another agent's rules, `GEMINI.md`, and imports too)."""
    lint = ws.lint_documents()
    linted = set(lint)
    others = [k for k in read_documents(ws, selected(ws)) if k not in linted]
    if others:
        seen = {ws.identity(key) for key in lint}  # a symlinked alias is checked as its target
        others = [k for k in others if ws.identity(k) not in seen]
    documents = [*lint, *others]
    out: list[Finding] = []
    # the same command from the same directory (or naming the same in the same task file)
    # resolves the same way in every document (a template's nested files, copies): resolved
    # once per check
    memo: _Memo = {}
    for key in sorted(set(documents)):
        if not key.startswith("/"):
            out.extend(_document(ws, key, memo))
    return out


# (directory, the command as written) or (task file, what the command names there) -> its
# resolution and the files that read
_Memo = dict[tuple[object, ...], tuple["Resolution", frozenset[str]]]


def _document(ws: Workspace, key: str, memo: _Memo) -> list[Finding]:
    cache_key = _FINDINGS.key(key)
    cached = ws.derived.get(cache_key)
    if cached is not None:
        return cached
    doc = ws.document(key)
    read_sets: set[frozenset[str]] = {frozenset((key,))}  # (a frozenset keeps its hash)
    found: list[Finding] = []
    if doc.unreadable is None:
        found_commands = written_commands(doc)
        base = _base(ws, key) if found_commands else ""
        for line, command in found_commands:
            resolution, read = _memoized(ws, base, command, memo)
            read_sets.add(read)
            if resolution.status == "missing":
                found.append(_finding(key, line, command, resolution))
    return ws.derived.put(cache_key, found, reads=frozenset().union(*read_sets))


def resolutions(ws: Workspace, key: str) -> list[Resolution]:
    """Every command of document `key`, resolved (the hover's question)."""
    doc = ws.document(key)
    if doc.unreadable is not None or key.startswith("/"):
        return []
    reads: set[str] = set()
    return [resolve(ws, key, c, reads) for c in commands(doc)]


def resolve(ws: Workspace, key: str, command: Command, reads: set[str]) -> Resolution:
    """Where `command`'s name resolves from document `key`; every file read is added to
    `reads`."""
    kind = _KINDS[command.tool]
    manifest = _manifest(ws, _base(ws, key), command, kind, reads)
    return _resolved(ws, manifest, command, kind, reads)


def _memoized(ws: Workspace, base: str, command: Command, memo: _Memo
              ) -> tuple[Resolution, frozenset[str]]:
    """How `command` resolves from directory `base`, and the files that read. The resolution
    may be of an earlier command that names the same from the same directory, or in the same
    task file (its `command` is that one): what follows the task file depends on it, the name
    and the form alone."""
    written = (base, command.tool, command.form, command.name, command.cwd, command.package,
               command.root)
    entry = memo.get(written)
    if entry is None:
        kind = _KINDS[command.tool]
        read: set[str] = set()
        manifest = _manifest(ws, base, command, kind, read)
        named = (manifest, kind, command.form, command.name,
                 command.cwd is None and command.package is None and not command.root)
        found = memo.get(named)
        if found is None:
            found = memo[named] = (_resolved(ws, manifest, command, kind, read),
                                   frozenset(read))
        entry = memo[written] = (found[0], frozenset(read) | found[1])
    return entry


def _resolved(ws: Workspace, manifest: str | None, command: Command, kind: Kind,
              reads: set[str]) -> Resolution:
    from rulemap.checks.manifests import tasks

    if manifest is None:
        return Resolution(command, kind, "unknown")
    parsed = tasks(ws, manifest, kind)
    reads.update(parsed.reads if parsed is not None else (manifest,))
    if parsed is None:
        return Resolution(command, kind, "unknown", manifest)
    name = command.name
    names = tuple(parsed.names)
    has = parsed.has(name)
    if has:
        return Resolution(command, kind, "found", manifest, parsed.names.get(name, ""),
                          names=names)
    if has is None or command.form == "program" or not _may_report(ws, command, parsed):
        return Resolution(command, kind, "unknown", manifest, names=names)
    if command.cwd is None and command.package is None and not command.root:
        other = _elsewhere(ws, kind, name, manifest, reads)
        if other is None:
            return Resolution(command, kind, "unknown", manifest, names=names)
        if other:
            return Resolution(command, kind, "elsewhere", manifest, elsewhere=other,
                              names=names)
    return Resolution(command, kind, "missing", manifest, names=names,
                      certain=command.form == "run" and kind == "npm")


def _may_report(ws: Workspace, command: Command, parsed: Tasks) -> bool:
    name = command.name
    if command.form == "maybe-bin":
        return (":" in name or name in SCRIPT_WORDS) and name not in parsed.dependencies
    if command.form == "target":
        # make finds a file of that name up to date: "nothing to be done", not an error
        directory = posixpath.dirname(parsed.path)
        path = f"{directory}/{name}" if directory else name
        return path not in ws.files and not ws.files.under(path + "/")
    return True


def _elsewhere(ws: Workspace, kind: Kind, name: str, nearest: str,
               reads: set[str]) -> str | None:
    """Another task file of `kind` that defines `name` ("" when none does; None when one
    cannot be read, so it cannot be told)."""
    from rulemap.checks.manifests import defined

    known = defined(ws, kind)
    reads.update(known.reads)
    return known.where(name, nearest)


def _base(ws: Workspace, key: str) -> str:
    """The directory a document's commands run from: a rule's owner, else its own."""
    owner = ws.rule_owner(key)
    return owner if owner is not None else parent_dir(key)


def _exists_dir(ws: Workspace, directory: str) -> bool:
    return directory == "" or bool(ws.files.under(directory + "/"))


def _manifest(ws: Workspace, base: str, command: Command, kind: Kind,
              reads: set[str]) -> str | None:
    from rulemap.checks.manifests import in_directory

    if command.package is not None:
        return _package(ws, command.package, reads)
    if command.root:
        return in_directory(ws, "", kind)
    if command.cwd is not None:
        start = posixpath.normpath(posixpath.join(base, command.cwd)) if base else command.cwd
        if not _exists_dir(ws, start):
            start = command.cwd  # written from the root
            if not _exists_dir(ws, start):
                return None
        if kind == "make":
            return in_directory(ws, start, kind)  # make does not look upward
    else:
        start = base
    return _nearest(ws, start, kind)


def _nearest(ws: Workspace, start: str, kind: Kind) -> str | None:
    """The task file of `kind` in `start` or the nearest directory above it. One table per
    kind, filled as directories are asked for, kept until a file is created or deleted."""
    from rulemap.checks.manifests import in_directory

    cache_key = _NEAREST_KEYS[kind]
    table = ws.derived.get(cache_key)
    if table is None:
        table = ws.derived.put(cache_key, {}, reads=())
    walked: list[str] = []
    directory = start
    while True:
        found = table.get(directory, MISSING)
        if found is not MISSING:
            break
        walked.append(directory)
        found = in_directory(ws, directory, kind)
        if found is not None or not directory:
            break
        directory = parent_dir(directory)  # (interned: one copy per directory)
    for below in walked:  # each directory walked has the same nearest
        table[below] = found
    return found


def _package(ws: Workspace, name: str, reads: set[str]) -> str | None:
    """The package.json of the workspace package called `name` (None: none, or unknown)."""
    from rulemap.checks.manifests import all_of_kind, tasks

    for key in all_of_kind(ws, "npm"):
        parsed = tasks(ws, key, "npm")
        reads.add(key)
        if parsed is not None and parsed.package == name:
            return key
    return None


def _finding(key: str, line: int, command: Command, resolution: Resolution) -> Finding:
    span = Span(Pos(line, command.start), Pos(line, command.end))
    message = (f"`{command.text}` runs {resolution.noun} `{command.name}`, which "
               f"`{resolution.manifest}` does not define: the instruction is likely out of "
               f"date")
    hint = Hint(NEAR_COMMAND, (command.name,))
    # the conditional stays at each Finding: the registry test reads severities from there
    if resolution.certain:
        return Finding(key, span, "warning", "stale-command", message, hint=hint)
    return Finding(key, span, "information", "stale-command", message, hint=hint)


def closest(resolution: Resolution) -> str | None:
    """The defined name closest to a missing one (None: none is close)."""
    found = close_matches(resolution.command.name, resolution.names, n=1)
    return found[0] if found else None


def near_command(ws: Workspace, finding: Finding) -> Finding:
    """The stale-command `finding` with its did-you-mean in the message and as a fix."""
    for resolution in resolutions(ws, finding.path):
        command = resolution.command
        if (command.line, command.start, command.end) != (
                finding.span.start.line, finding.span.start.col, finding.span.end.col):
            continue
        suggestion = closest(resolution) if resolution.status == "missing" else None
        if suggestion is None:
            break
        return replace(
            finding, message=f"{finding.message}; did you mean `{suggestion}`?", hint=None,
            fixes=[Fix(f"Change `{command.name}` to `{suggestion}`", "replace", finding.path,
                       finding.span, suggestion)])
    return replace(finding, hint=None)


def resolution_at(ws: Workspace, key: str, line: int, col: int) -> Resolution | None:
    """The command whose name is at (line, col) of document `key`, resolved."""
    for resolution in resolutions(ws, key):
        command = resolution.command
        if command.line == line and command.start <= col <= command.end:
            return resolution
    return None
