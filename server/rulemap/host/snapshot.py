"""`Snapshot`: the questions an edge asks of a workspace, in one agent's terms (its host,
`AnalysisHost`, takes the changes: host/analysis_host.py).

Why: the language server's features used to reach into `Workspace` (its documents, import
graph, rule globs) and into the profiles themselves, so that a change of the engine rippled
through every handler. The host is the one door: changes go in through `AnalysisHost`, and a
`Snapshot` answers in the core's plain data (`rulemap.model`: `Document`, `ImportRef`,
`Resolved`, `Span`) or the frozen dataclasses of the sibling modules — never lsprotocol types.

A Snapshot is a value: a change applied to the host after it was taken never changes its
answers. The snapshots of one state share a `Pin` on the host's workspace; a change that
finds that pin still held (a request that awaits with its snapshot) first re-points it at a
fork of the state — the workspace with its overlay of buffers, file index, parsed documents
and derived caches, through which documents are read lazily — so the snapshots keep theirs
while the host moves on (`host/fork.py`). The disk has no versions: the fork's reader is told
which files the change created (not there) and deleted (still there, readable only if read
before); a file no question had read, changed on disk, is read as it is when first asked.
A snapshot is dropped once its request is answered, so on the keystroke path no pin is held
and a change costs one dead weak reference; a fork copies the workspace (~0.7 s on the
20,000-file benchmark monorepo), paid only for a snapshot held across a change. Asking a
snapshot twice computes once (its caches are its workspace's). `profile` is the agent whose
loading model, glob dialect and size unit the answers speak (None: the workspace's own).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Final

from rulemap import analysis
from rulemap.derived import KeyFamily
from rulemap.host.cancel import Cancelled, CancelToken
from rulemap.host.fork import Pin
from rulemap.model import (
    Document,
    Explanation,
    Finding,
    ImportRef,
    LoadStatus,
    Pos,
    Resolved,
    ScopedGlobs,
)
from rulemap.profiles.base import Profile
from rulemap.text.names import path_bytes
from rulemap.text.references import PathResolution
from rulemap.workspace import Workspace

if TYPE_CHECKING:
    from rulemap.checks.stale_command import Resolution as CommandResolution
    from rulemap.compare import Column, Comparison, Unit

# rulemap.compare (the side-by-side view) is imported by the questions that need it: a plain
# `rulemap check` never asks them

MARKDOWN_SUFFIXES = (".md", ".mdx", ".mdc", ".markdown")


def workspace_of(snap: Snapshot) -> Workspace:
    """The workspace a snapshot answers from: for the host's own modules (`host/*.py`), which
    compose the engine's questions; an edge never asks it (tests/core/test_edge_imports.py)."""
    return snap._ws


_CHILDREN: Final = KeyFamily[tuple[list[str], dict[str, int]]]("host.children")


class Snapshot:
    """Answers about the workspace as it was when the snapshot was taken, in one agent's
    terms. A key that names nothing (a vanished file, an unreadable one) gets an unreadable
    document, None or an empty answer, not an exception."""

    def __init__(self, pin: Pin | Workspace, profile: str | None = None) -> None:
        self._pin = pin if isinstance(pin, Pin) else Pin(pin)
        self.profile = profile

    @property
    def _ws(self) -> Workspace:
        ws = self._pin.ws
        if ws is None:
            raise Cancelled()
        return ws

    # ----- names ---------------------------------------------------------------------------

    @property
    def root(self) -> str:
        return self._ws.root

    def abs(self, key: str) -> str:
        return self._ws.abs(key)

    def uri(self, key: str) -> str:
        """The file URI of a key (root-relative or absolute), quoted from the path's bytes: a
        name that is not valid UTF-8 gets its exact bytes (`%FF`), as diagnostics' URIs do."""
        from urllib.parse import quote  # urllib and ipaddress (3 ms): for the editor's URIs

        return "file://" + quote(path_bytes(self._ws.abs(key)), safe="/")

    def editable_key(self, key: str) -> str | None:
        """The key an edit of `key` must name, or None when no edit may touch it: the real
        file behind `key` (symlinks resolved) when it lies inside the workspace root — never
        outside, not even under a directory the user granted with `allowImportsFrom` (a read
        grant is not a write grant). For a file that does not exist yet, the real path of
        where it would be."""
        ws = self._ws
        if not key or key.startswith("/"):
            return None
        real = ws.identity(key)
        root = ws.real_root.rstrip("/")
        if not real.startswith(root + "/"):
            return None
        return real[len(root) + 1 :]

    def exists(self, key: str) -> bool:
        """Whether the file is there (on disk or as an open buffer)."""
        return self._ws.reader.exists(self._ws.abs(key))

    @property
    def home(self) -> str | None:
        return self._ws.home

    # ----- documents -----------------------------------------------------------------------

    def document(self, key: str) -> Document:
        """The parsed document (its `unreadable` says why when it cannot be read)."""
        return self._ws.document(key)

    def readable(self, key: str) -> Document | None:
        """The parsed document, or None when the key names nothing readable."""
        try:
            doc = self._ws.document(key)
        except Exception:
            return None
        return None if doc.unreadable else doc

    def is_instruction(self, key: str) -> bool:
        """An instruction file or rule of the workspace, or a file the agent of this snapshot
        reads by its own name (a toy agent's `TOY.txt`, Cursor's `.cursorrules`)."""
        return self._ws.is_instruction(key) or self._agent().reads(self._ws, key)

    def is_rule(self, key: str) -> bool:
        return self._ws.is_rule(key)

    def is_scoped(self, key: str) -> bool:
        """A rule that loads only for the files its `paths` globs match."""
        return self._ws.is_rule(key) and self._ws.is_scoped(key)

    def rule_owner(self, key: str) -> str:
        """The directory a rule's globs are relative to ("" for the root)."""
        return self._ws.rule_owner(key) or ""

    def is_markdown(self, key: str) -> bool:
        """Files whose `@` tokens are imports for the editor: instruction files, rules,
        Markdown, and anything some file imports."""
        return (
            self.is_instruction(key)
            or key.lower().endswith(MARKDOWN_SUFFIXES)
            or key in self._ws.import_reach().imported
        )

    def all_documents(self) -> list[str]:
        """Instruction files and rules of the workspace."""
        return self._ws.all_documents()

    def files_under(self, prefix: str) -> Sequence[str]:
        """Workspace files (the git-aware index) whose key starts with `prefix`, sorted (the
        index's own list: not to be changed)."""
        return self._ws.files.under(prefix)

    def children(self, base: str) -> tuple[list[str], dict[str, int]]:
        """The files directly in directory `base` ("" for the root) and its subdirectories
        with how many files each holds, from the file index. Kept until a file is created
        or deleted (which drops every derived value): listing them walks every file below
        `base`, 24,000 at the root of a large tree (~45 ms a completion)."""
        cache = self._ws.derived
        found = cache.get(_CHILDREN.key(base))
        if found is None:
            prefix = f"{base}/" if base else ""
            files: list[str] = []
            dirs: dict[str, int] = {}
            for path in self._ws.files.under(prefix):
                rest = path[len(prefix):]
                slash = rest.find("/")
                if slash < 0:
                    files.append(rest)
                else:
                    name = rest[:slash]
                    dirs[name] = dirs.get(name, 0) + 1
            # read nothing: only the file index, which changes by creations and deletions
            found = cache.put(_CHILDREN.key(base), (files, dirs), reads=())
        return found

    # ----- imports -------------------------------------------------------------------------

    def imports(self, key: str) -> list[tuple[ImportRef, Resolved]]:
        """Every `@import` of `key` with where it resolves."""
        return self._ws.imports(key)

    def import_at(self, key: str, pos: Pos) -> tuple[ImportRef, Resolved] | None:
        """The import whose token holds `pos` (code points)."""
        for ref, resolved in self._ws.imports(key):
            if ref.span.start <= pos <= ref.span.end:
                return ref, resolved
        return None

    def importers(self, key: str) -> list[tuple[str, ImportRef]]:
        """Who imports `key`, complete (the import graph is walked first)."""
        self._ws.import_reach()
        return self._ws.importers(key)

    def is_imported(self, key: str) -> bool:
        """Whether some import names `key` (whatever its status)."""
        return key in self._ws.import_reach().imported

    def import_documents(self) -> tuple[str, ...]:
        """Every document reachable through imports, instruction files and rules first."""
        return self._ws.import_reach().documents

    def import_hops(self, key: str) -> int | None:
        """Fewest import hops from an instruction file or rule to `key` (None: unreached)."""
        return self._ws.import_reach().hops.get(key)

    def max_import_depth(self) -> int:
        return self._ws.layout.max_import_depth

    # ----- the agent -----------------------------------------------------------------------

    def unit(self) -> Unit:
        """The unit the agent's budget counts in ("chars", "bytes", "tokens")."""
        return analysis.budget_of(self._ws, self.profile).unit

    def matches(self, rule: str, pattern: str | None = None) -> list[str]:
        """Files a rule's globs together (or one written `pattern`) match, in the agent's
        glob dialect."""
        if pattern is None:
            return analysis.rule_matches(self._ws, rule, self.profile)
        return analysis.glob_matches(self._ws, rule, pattern, self.profile)

    def tree_matches(
        self, rule: str, pattern: str | None = None, limit: int | None = None
    ) -> list[str]:
        """The same in the workspace's own dialect (as the tree is laid out, whatever the
        agent); `limit` stops the walk early."""
        if pattern is None:
            found = self._ws.rule_matches(rule)
            return found if limit is None else found[:limit]
        return self._ws.glob_matches(rule, pattern, limit)

    def glob_key(self, key: str) -> tuple[str, str] | None:
        """Where `key`, one of the agent's rule files, takes its globs — the frontmatter key
        (`paths`, `applyTo`, `globs`) and the directory they are relative to — even before
        one is written; None when it is none of the agent's rule files."""
        return self._agent().glob_key(self._ws, key)

    def rule_globs(self, key: str) -> ScopedGlobs | None:
        """The globs that scope `key` as the agent reads them — `paths` of a `.claude/rules`
        rule, Copilot's `applyTo`, Cursor's `globs` — with the directory they are relative
        to; None when `key` is none of the agent's scoped rules."""
        return self._agent().rule_globs(self._ws, key)

    def own_glob_dialect(self) -> bool:
        """Whether the agent matches `paths` globs other than the workspace does."""
        return analysis.has_own_glob_dialect(self._ws, self.profile)

    def rules_for_file(self, key: str) -> list[tuple[str, str]]:
        """(rule, first matching written glob) of every path-scoped rule matching `key`."""
        return self._ws.rules_for_file(key)

    def first_matching_glob(self, rule: str, target: str) -> str | None:
        """The first written glob of `rule` that matches `target`, in the agent's dialect."""
        return analysis.first_matching_glob(self._ws, rule, target, self.profile)

    # ----- loads ---------------------------------------------------------------------------

    def explain(self, target: str | None, cwd: str | None = None) -> Explanation:
        """What the agent loads for `target` (None: at start-up) from `cwd` (None: the
        configured one). Raises UnknownProfile for an agent that is not registered."""
        return analysis.explain(self._ws, target, cwd=cwd, profile=self.profile)

    def findings(self) -> list[Finding]:
        """Every finding of the workspace, sorted — the whole check (cached until the next
        change). Slow on a big tree: the language server runs it in its worker, never on the
        event loop (its code actions read the published findings instead)."""
        return analysis.check(self._ws)

    def load_status(self, key: str) -> LoadStatus:
        """Whether the agent ever loads the instruction file or rule `key`, and for how many."""
        return analysis.load_status(self._ws, key, self.profile)

    def load_target(self, key: str) -> tuple[bool, str | None]:
        """A target whose load by the agent includes `key`: (found, target; None is the
        start-up load)."""
        return analysis.load_target(self._ws, key, self.profile)

    def with_suggestion(self, finding: Finding) -> Finding:
        """`finding` with its did-you-mean worked out, for a quick fix (a check leaves it
        pending; `rulemap.checks.hints`). One bounded look-up."""
        return analysis.with_suggestions(self._ws, [finding])[0]

    def close_glob(self, rule: str, pattern: str) -> str | None:
        """A glob like `pattern` that matches files (a "did you mean" for one that matches
        none; None: nothing close does)."""
        from rulemap.checks.hints import close_glob

        return close_glob(self._ws, rule, pattern)

    def closest_path(self, target: str) -> str | None:
        """The existing file most like the missing `target` (a "did you mean")."""
        from rulemap.checks.imports import closest_path

        return closest_path(self._ws, target)

    def command_at(self, key: str, pos: Pos) -> CommandResolution | None:
        """The script, target or recipe a command in `key`'s code names at `pos`, resolved
        to the task file its tool reads (the stale-command check's answer), or None."""
        from rulemap.checks.stale_command import resolution_at

        return resolution_at(self._ws, key, pos.line, pos.col)

    def closest_command(self, resolution: CommandResolution) -> str | None:
        """The name the task file defines that is closest to a missing one (None: none)."""
        from rulemap.checks.stale_command import closest

        return closest(resolution)

    def is_task_file(self, key: str) -> bool:
        """Whether `key` is a package.json, Makefile, justfile or pyproject.toml whose edit
        can change what an instruction's command resolves to."""
        from rulemap.checks.manifests import is_task_file

        return is_task_file(key)

    def path_reference_at(
        self, key: str, pos: Pos
    ) -> tuple[PathResolution, str | None] | None:
        """The repository path `key` names under `pos` (a code span, a link, an `@` mention
        its readers do not import) with what it resolves to, and where it moved when it is
        stale (a git rename, the one file of its name; None: unknown)."""
        from rulemap.checks.stale_reference import moved_to, reference_at

        found = reference_at(self._ws, key, pos.line, pos.col)
        if found is None:
            return None
        moved = moved_to(self._ws, found.candidates) if found.found is None else None
        return found, moved[1] if moved is not None else None

    def _agent(self) -> Profile:
        return analysis.active_profile(self._ws, self.profile)

    def agent_name(self) -> str:
        """The agent the answers speak for (the setting's, else the configuration's, else the
        registry's default)."""
        return self._agent().name

    def agent_title(self) -> str:
        """Its title for people ("Claude Code")."""
        return self._agent().title

    def agent_reads(self, key: str) -> bool:
        """Whether the agent ever reads `key`."""
        return self._agent().reads(self._ws, key)

    def selected_agents(self) -> tuple[str, ...]:
        """The workspace's agents: chosen when it opened, else the default plus the detected."""
        return tuple(p.name for p in analysis.select_profiles(self._ws))

    def any_agent_reads(self, key: str) -> bool:
        """Whether some selected agent reads `key` (another agent's rule, `.cursorrules`)."""
        return any(p.reads(self._ws, key) for p in analysis.select_profiles(self._ws))

    def compare_steps(
        self, target: str | None, agents: Iterable[str] | None = None
    ) -> Iterator[Comparison]:
        """`compare`, one agent at a time: the comparison so far after each agent (the last
        one is complete; an empty list of agents yields one empty comparison). A caller on an
        event loop yields to it between two steps, so that a cancelled request stops there."""
        from rulemap.compare import Comparison, compare

        names = self.selected_agents() if agents is None else tuple(agents)
        columns: list[Column] = []
        seen: set[str] = set()
        for name in names:
            if name in seen:  # each agent once, in the order given
                continue
            seen.add(name)
            one = compare(self._ws, target, None, [name])
            columns.extend(one.columns)
            yield Comparison(one.target, one.cwd, tuple(columns))
        if not columns:
            yield compare(self._ws, target, None, [])

    def compare(
        self,
        target: str | None,
        agents: Iterable[str] | None = None,
        cancel: CancelToken | None = None,
    ) -> Comparison:
        """Every one of `agents` (None: the selected ones) loading `target` from the
        configured cwd, each agent once in the order given; each explanation comes from its
        profile's cache. `cancel` is checked between two agents (Cancelled)."""
        result: Comparison | None = None
        for step in self.compare_steps(target, agents):
            if cancel is not None:
                cancel.check()
            result = step
        assert result is not None
        return result

    # ----- the language server's scheduling ------------------------------------------------

    @property
    def generation(self) -> int:
        """The host's generation when the snapshot was taken."""
        return self._ws.generation

    def lint_documents(self) -> list[str]:
        """The documents a check reports on: instruction files, rules and the files they
        import, each real file once (sorted)."""
        return self._ws.lint_documents()

    def linted_by_kind(self, key: str) -> bool:
        """Whether `key` is linted whatever imports it: an instruction file or a rule that is
        no other file's alias (a symlink). Asks no document to be parsed, where
        `lint_documents` parses them all."""
        ws = self._ws
        return ws.is_instruction(key) and ws.identity(key) == ws.abs(key)

    def indexed(self, key: str) -> bool:
        """Whether `key` is in the workspace's file index."""
        return key in self._ws.files

    def content_matters(self, key: str) -> bool:
        """Whether the content of `key` can change the graph or a finding: the configuration,
        an agent's settings file (Gemini's `.gemini/settings.json`), Markdown, an instruction
        file, a file some selected agent reads (a Cursor `.mdc` rule, `.cursorrules`), a task
        file (what an instruction's `npm run X` resolves to), or an imported file. An edit of
        any other file need not reach the host."""
        from rulemap.config import CONFIG_FILES
        from rulemap.profiles import is_agent_settings

        ws = self._ws
        if key in CONFIG_FILES or key.endswith(".md") or ws.is_instruction(key):
            return True
        if is_agent_settings(key):
            return True
        if self.any_agent_reads(key) or self.is_task_file(key):
            return True
        return bool(ws.importers(key))

    def rules_moved(self, touched: Iterable[str], structural: bool) -> bool:
        """Whether a change that touched these keys can have moved rule matches: a file
        created or deleted (`structural`: globs may match it), the configuration, or a rule
        of any selected agent (its globs may differ); an instruction file's or an import's
        text never does."""
        ws = self._ws
        touched = set(touched)
        if structural or "*config*" in touched:
            return True
        agents = analysis.select_profiles(ws)
        return any(
            ws.is_rule(key)
            or (not ws.is_instruction(key) and any(p.reads(ws, key) for p in agents))
            for key in touched
            if not key.startswith("/")
        )
