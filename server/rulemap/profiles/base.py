"""The profile interface: one agent's rules for loading instructions, read over one workspace.

A profile owns everything that differs between agents — which files are instructions, the
import syntax and depth, rule globs and their dialect, the budget and how it truncates — and
answers three questions: what the agent loads for a target (`explain`), what this agent alone
suffers in the workspace (`findings`), and whether it ever reads a file (`reads`). Nothing
outside `profiles/` knows an agent's rules; checks and views ask the selected profiles.

Adding an agent: a module in `profiles/` with a class implementing `Profile`, listed in
`profiles/__init__.py` (or given to `register_profile`), and its conformance fixtures. What
every check asks of every agent (`Facts`: its names, options, detection, which files it
reads) may live in a light module its profile class inherits from, named on the same
registry line.

Why this module is long: it is the whole interface, each capability with its default, so
that no caller probes a profile for one (tests/core/test_profile_interface.py).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final, Protocol, cast

from rulemap.config import ConfigError
from rulemap.derived import Key, KeyFamily
from rulemap.model import Explanation, Finding, LoadedFile, LoadStatus, ScopedGlobs, Span
from rulemap.profiles.placement import not_read_why
from rulemap.records import record

if TYPE_CHECKING:
    from rulemap.profiles.load_log import LoadLogFormat
    from rulemap.profiles.steps import SessionReplay, ToolStep
    from rulemap.profiles.transcript import TranscriptFormat
    from rulemap.text.references import PathRef
    from rulemap.workspace import Layout, Workspace

# (the files a load brings, the files it leaves out, how many targets load so): `load_shares`
LoadShare = tuple[Sequence[LoadedFile], Sequence[str], int]


class Facts(Protocol):
    """An agent's light facts: its names, options, and which files are its own, by their
    names and places — what a check asks of every agent Rulemap knows, selected or not
    (detection, `drifted-copy`, `stale-reference`, `name-case`, default options). An agent
    package keeps them in a light module (`<agent>/names.py`) its profile class inherits
    from, so answering them imports none of its loading code (`PROFILES.facts`)."""

    name: str  # as on the command line: `claude-code`
    title: str  # for people: "Claude Code"
    description: str  # one line: what it loads
    options: tuple[Option, ...]  # what `[profiles.<name>]` may set
    # The agent's own settings files that decide which files it reads (Gemini CLI's
    # `.gemini/settings.json`), as paths from a directory: a change of one re-opens the
    # workspace, as a change of Rulemap's configuration does (the editor re-reads everything;
    # a resumed check is a whole check)
    settings_files: tuple[str, ...] = ()
    # Whether a file of one of its `names_opened` selects it (`detected_by`); False for an
    # agent something else selects (Mastra: a dependency), named by `name-case` if selected.
    selected_by_name: bool = True

    def names_opened(self, ws: Workspace) -> tuple[str, ...]:
        """The names (a file name, or a short path: `.claude/CLAUDE.md`) its agent opens by
        name in the directories it reads (a `stat` or `open` of `dir/AGENTS.md`, not a
        listing compared name by name): on a case-insensitive file system (macOS, Windows)
        it is handed a file of that name in other letter case. Its lookups model that
        through `workspace/letter_case.py`, and `name-case` reports such files
        (checks/name_case.py). Default: none (names compared exactly everywhere)."""
        return ()

    def detect(self, ws: Workspace) -> bool:
        """Whether files only this agent reads exist here (so it is selected by default).
        Default: whether `detected_by` names one (a profile overrides one of the two)."""
        return self.detected_by(ws) is not None

    def detected_by(self, ws: Workspace) -> str | None:
        """Why it is selected by default, in a few words a person reads after its name: the
        file or directory of its own found here (`GEMINI.md`, `.cursor/rules`), "the default
        model" for the default; None when nothing here selects it. Default: none."""
        return None

    def detection_reads(self, ws: Workspace) -> tuple[str, ...]:
        """The files whose text (not only their names) `detected_by` reads: an edit of one
        may change the selection, so a resumed check asks again. Default: none."""
        return ()

    def reads(self, ws: Workspace, key: str) -> bool:
        """Whether the agent ever reads `key` as an instruction file or rule (imports
        aside): by its name and place alone, without loading anything."""
        ...

    def checks_links(self, ws: Workspace, key: str) -> bool:
        """Whether this agent's own findings report the broken links of `key` (Cursor: the
        `mdc:` links of its rules), so `stale-reference` leaves them alone. Default: no."""
        return False

    def own_links(self, ws: Workspace, key: str) -> list[tuple[PathRef, tuple[str, ...]]]:
        """The links of `key` written in this agent's own syntax (Cursor: `[x](mdc:path)`),
        whichever file they are in: each as an `agent-link` reference with where the linked
        file may be (workspace-relative, the first reading first), links that leave the
        workspace left out. `stale-reference` asks every registered profile. Default: none."""
        return []


class Profile(Facts, Protocol):
    """One agent. A profile class inherits this (explicitly: its defaults are the answers of
    an agent without that capability) and overrides what its agent does differently; callers
    never probe a profile with `getattr` — what a profile offers is declared here."""

    # Whether its agent follows `@path` imports (another agent's `import-not-followed` asks).
    follows_imports: bool = True
    # Workspace-relative globs of the files whose content it reads (the server watches them;
    # creations and deletions of any file are watched anyway).
    watched_globs: tuple[str, ...] = ()
    # The codes of the registry (checks/registry.py) only its own findings use, beside the
    # shared ones every agent's files get: the registry lists it among their agents.
    check_codes: tuple[str, ...] = ()
    # What a registry code means for it in particular, in its own words, as (code, note): the
    # registry's description of the code names it (`file-too-large`: its size warning).
    code_notes: tuple[tuple[str, str], ...] = ()
    # Its own session format (a log, a message list) when `rulemap session --file` reads it
    transcript_format: TranscriptFormat | None = None
    # The log its agent writes of the instruction files it loads, when `rulemap verify` reads
    # one (hook events, a session log's context blocks, the prompt it sends)
    load_log_format: LoadLogFormat | None = None
    # Whether it matches rule globs in a dialect of its own (`glob_matches` and friends
    # below); views then show its verdicts instead of the workspace's matcher's.
    own_glob_dialect: bool = False
    # Whether every target's load begins with its start-up load unchanged (the same files in
    # the same order, sizes and cuts): what a target brings joins after it and never cuts it.
    # `rulemap reach` then answers for a start-up file without grouping every file's load.
    startup_prefix: bool = False

    def explain(self, ws: Workspace, target: str | None, cwd: str) -> Explanation:
        """What the agent loads when working on `target` (None: at start-up) from `cwd`."""
        ...

    def findings(self, ws: Workspace) -> list[Finding]:
        """What this agent's loading does wrong in the workspace (not yet finalized)."""
        ...

    def layout(self, options: Mapping[str, Any]) -> Layout | None:
        """Where a workspace's documents are by this agent's rules and `options` (instruction
        file names, rules directory, import depth), when it is the registry's default model
        (the workspace, which knows no agent, is handed it); None: it cannot be."""
        return None

    def load_status(self, ws: Workspace, key: str) -> LoadStatus:
        """Whether it ever loads `key` by its own place, for how many files, or why not.
        Default: a file it reads loads for every target (an agent without scoped rules)."""
        if self.reads(ws, key):
            return LoadStatus(True, len(ws.files))
        return LoadStatus(False, why_not=not_read_why(ws, self, key))

    def misplaced(self, ws: Workspace) -> list[Finding]:
        """`misplaced-file` findings (not yet named after the agent): files with a name it
        reads in a place it never looks (or only for work in that very directory), each
        saying where the file would have to be. `check` asks every selected agent;
        `load_status` and `why` give the same words (`misplaced_why`). Default: none."""
        return []

    def load_groups(self, ws: Workspace, cwd: str) -> list[tuple[Explanation, list[str]]] | None:
        """Every workspace file grouped by what it loads, one explanation per group (for
        `rulemap diff`); None: no grouping, so each file is explained on its own."""
        return None

    def load_shares(self, ws: Workspace, cwd: str) -> list[LoadShare] | None:
        """What the editor's per-file overview (`reach.overview`) sums of the load groups:
        (files loaded, files left out, how many targets) shares whose sums per file are the
        load groups' (None: no load groups). Default: one share per load group; an agent
        without a shared budget may share a file's loads more coarsely."""
        groups = self.load_groups(ws, cwd)
        if groups is None:
            return None
        return [(e.files, e.left_out, len(members)) for e, members in groups]

    def load_groups_for(self, ws: Workspace, cwd: str,
                        key: str) -> list[tuple[Explanation, list[str]]] | None:
        """`load_groups`, coarser where that cannot change what a load says of `key` (its
        place, what comes before it, its cut, its other names): `rulemap reach` asks that."""
        return self.load_groups(ws, cwd)

    def size_warning(self, ws: Workspace) -> int | None:
        """The size, in characters, past which the agent warns about one instruction file it
        loads (the document's own size, as its `file-too-large` finding measures it); None:
        it documents no such warning. The map marks the directories whose loads pass it."""
        return None

    def may_bring(self, ws: Workspace, cwd: str) -> frozenset[str] | None:
        """Every workspace file some load of the agent from `cwd` may bring, or more (None:
        not known): `why` searches these before it builds every load group."""
        return None

    def replay(
        self, ws: Workspace, steps: Sequence[ToolStep], cwd: str
    ) -> SessionReplay | None:
        """A run step by step by the agent's own per-step model; None: it has none (the
        session shows its start-up load and says nothing joins later by its model)."""
        return None

    # ----- its glob dialect (used when `own_glob_dialect`; default: the workspace's) -----
    def glob_matches(self, ws: Workspace, rule: str, pattern: str) -> list[str]:
        """Files one written `paths` glob of `rule` matches."""
        return ws.glob_matches(rule, pattern)

    def glob_key(self, ws: Workspace, key: str) -> tuple[str, str] | None:
        """Where `key`, one of this agent's rule files, takes its globs: the frontmatter key
        and the directory they are relative to ('' = the root) — also before any glob is
        written (completion); None when `key` is not one of its rule files. Default: a rule
        of the workspace's layout, `paths`."""
        if not ws.is_rule(key):
            return None
        return "paths", ws.rule_owner(key) or ""

    def rule_globs(self, ws: Workspace, key: str) -> ScopedGlobs | None:
        """The globs that scope `key` as this agent reads them (None: not one of its scoped
        rules). Default: a rule of the workspace's layout and its `paths`."""
        if not ws.is_rule(key):
            return None
        doc = ws.document(key)
        if doc.globs is None:
            return None
        return ScopedGlobs("paths", ws.rule_owner(key) or "", tuple(doc.globs))

    def glob_has_matches(self, ws: Workspace, rule: str, pattern: str) -> bool:
        """Whether one written glob of `rule` matches any file, git-ignored ones counted
        (agents know nothing of git)."""
        return ws.glob_has_matches(rule, pattern)

    def rule_matches(self, ws: Workspace, rule: str) -> list[str]:
        """Files all `paths` globs of `rule` together match."""
        return ws.rule_matches(rule)

    def first_matching_glob(self, ws: Workspace, rule: str, target: str) -> str | None:
        """The first written glob of `rule` that matches `target`."""
        return ws.first_matching_glob(rule, target)

    def brought_through(self, ws: Workspace, importer: str, cwd: str) -> frozenset[str]:
        """The files this agent's load for `importer` (as a target, from `cwd`) brings through
        `importer`'s own imports. Default: read off `explain`; a profile whose loads are
        linked answers from its links, without a list of the whole load (which, kept in the
        cached explanation of each importer, was 21 MB on the fan-out shape)."""
        return frozenset(f.path for f in self.explain(ws, importer, cwd).files
                         if f.imported_by == importer)

    def homes(self, ws: Workspace, target: str | None, cwd: str) -> tuple[Home, ...]:
        """Where a sentence must be written for this agent to read it when working on
        `target` (None: at start-up) from `cwd`, the best first: the files it loads there
        already, then a file to create by its own names and places (`rulemap why` advises
        the first that does not hold the sentence). Default: the files it loads."""
        return loaded_homes(self.explain(ws, target, cwd), target)

    def resolve_hint(self, ws: Workspace, finding: Finding) -> Finding | None:
        """`finding` (one of this agent's) with its pending did-you-mean worked out, when the
        hint is one of this agent's own kinds (None: it is not; `checks.hints`)."""
        return None



@record(frozen=True)
class Home:
    """A file an agent would read a sentence from (`Profile.homes`): `how` says, in the
    agent's terms, when it reads it ("which it loads at start-up", "a new rule with
    `globs: src/**`, which it loads for `src/a.ts`"); `new`: the file does not exist yet."""

    path: str  # workspace-relative
    how: str
    new: bool = False

    def to_json(self) -> dict[str, object]:
        return {"path": self.path, "how": self.how, "new": self.new}


def for_what(target: str | None) -> str:
    """`for `src/a.ts`` or `at start-up`, as the homes and `rulemap why` say it."""
    return f"for `{target}`" if target else "at start-up"


def loaded_homes(explanation: Explanation, target: str | None) -> tuple[Home, ...]:
    """The workspace files an explanation loads by their own name or place (imports and
    user-level files aside), as homes: a sentence written there reaches the agent."""
    return tuple(Home(f.path, f"which it loads {for_what(target)}")
                 for f in explanation.files
                 if f.reason in ("project", "nested", "rule", "scoped")
                 and not f.path.startswith("/"))


def home_file(ws: Workspace, path: str, how: str) -> Home:
    """A home by the agent's own names and places, new when no such file exists yet — the
    file there in other letter case standing for it where the platform ignores case (an
    agent opening `AGENTS.md` on macOS reads `agents.md`: workspace/letter_case.py)."""
    from rulemap.workspace.letter_case import find_named

    directory, _, name = path.rpartition("/")
    found = find_named(ws, directory, name) if ws.case_insensitive else None
    if found is not None:
        return Home(found, how)
    return Home(path, how, not ws.reader.exists(ws.abs(path)))


def glob_for(target: str) -> str:
    """A glob that matches `target` and its neighbours: its directory's `**`, or the file's
    own name at the root."""
    directory = parent_dir(target)
    return f"{directory}/**" if directory else target


def stem_for(target: str) -> str:
    """A name for a new scoped rule about `target`: its directory's path with dashes
    (`src-api`), or the file's own stem at the root."""
    directory = parent_dir(target)
    return directory.replace("/", "-") if directory else target.split(".", 1)[0] or "root"


@record(frozen=True)
class Option:
    """One key of `[profiles.<name>]`: its name as written, the Python types it accepts, its
    default, and one line of help (for docs and error messages)."""

    key: str
    types: tuple[type, ...]
    default: Any
    help: str
    choices: tuple[str, ...] = ()  # the values a string option accepts (empty: any)
    # also written as a top-level key of rulemap.toml (an alias of `[profiles.<name>] key`)
    top_level: bool = False
    # a further rule on the value: the problem, worded for the user, or None when it holds
    check: Callable[[Any], str | None] | None = None
    # keys this option replaced, each with how to write it now (named in the error for it)
    replaces: tuple[tuple[str, str], ...] = ()

    def describe(self) -> str:
        names = " or ".join(_TYPE_NAMES.get(t, t.__name__) for t in self.types)
        if self.choices:
            names = "one of " + ", ".join(f'"{c}"' for c in self.choices)
        return f"`{self.key}` ({names}, default {self.default!r}): {self.help}"


_TYPE_NAMES = {bool: "true/false", int: "an integer", str: "a string", list: "a list"}


def parse_options(
    profile: Facts,
    raw: Mapping[str, Any],
    source: str,
    top_level: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """`[profiles.<name>]` (plus the top-level keys that are its `top_level` options) → every
    option of the profile with its value (defaults filled in). An unknown key, a value of the
    wrong type or an option set both ways is a ConfigError naming the key and the fix."""
    return parse_option_values(profile.name, profile.options, raw, source, top_level)


def parse_option_values(
    name: str,
    options: tuple[Option, ...],
    raw: Mapping[str, Any],
    source: str,
    top_level: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """`parse_options` for the profile called `name` that declares `options`."""
    known = {o.key: o for o in options}
    values = {o.key: o.default for o in options}
    aliases = {
        k: v for k, v in (top_level or {}).items() if k in known and known[k].top_level
    }
    for key in aliases:
        if key in raw:
            raise ConfigError(
                f"{source}: `{key}` is set both at the top level and in "
                f"[profiles.{name}]; keep one"
            )
    for key, value in aliases.items():
        values[key] = _checked(known[key], key, value, source)
    where = f"{source}: [profiles.{name}]"
    for key, value in raw.items():
        option = known.get(key)
        if option is None:
            moved = [(o.key, how) for o in options for old, how in o.replaces if old == key]
            if moved:
                raise ConfigError(f"{where}: `{key}` was replaced by `{moved[0][0]}`: "
                                  f"{moved[0][1]}")
            import difflib

            hint = difflib.get_close_matches(key, list(known), n=1)
            did_you_mean = f" (did you mean `{hint[0]}`?)" if hint else ""
            keys = ", ".join(known) or "none"
            raise ConfigError(f"{where}: unknown key `{key}`{did_you_mean}; known keys: {keys}")
        values[key] = _checked(option, key, value, where)
    return values


def _checked(option: Option, key: str, value: Any, where: str) -> Any:
    # bool is an int in Python: `maxTokens = true` must not pass as 1
    wrong_bool = isinstance(value, bool) and bool not in option.types
    if wrong_bool or not isinstance(value, option.types):
        raise ConfigError(f"{where}: {option.describe()}; got {value!r}")
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        raise ConfigError(f"{where}: `{key}` must not be negative, got {value}")
    if option.choices and value not in option.choices:
        raise ConfigError(f"{where}: {option.describe()}; got {value!r}")
    if isinstance(value, list) and not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: `{key}` must list strings, got {value!r}")
    problem = option.check(value) if option.check is not None else None
    if problem is not None:
        raise ConfigError(f"{where}: `{key}` {problem}")
    return value


def selected(ws: Workspace) -> tuple[Profile, ...]:
    """The agents checks run for, as the composition root selected them
    (`analysis.select_profiles`; none before). The workspace holds them without knowing what
    they are; only profiles are ever put there."""
    return cast("tuple[Profile, ...]", ws.selected_profiles or ())


def options_of(ws: Workspace, profile: Facts) -> dict[str, Any]:
    """The profile's options in this workspace (parsed once, when the workspace opened)."""
    found = ws.profile_options.get(profile.name)
    if found is None:
        raw = ws.config.profile_options.get(profile.name, {})
        found = parse_options(profile, raw, ws.config.source or "configuration",
                              ws.config.top_level)
    return dict(found)


# A profile's explanation: `EXPLAIN.key(profile.name, target, cwd, …whatever else it depends on)`.
EXPLAIN: Final = KeyFamily[Explanation]("explain")


def cached_explanation(
    ws: Workspace,
    key: Key[Explanation],
    compute: Callable[[], tuple[Explanation, Iterable[str]]],
) -> Explanation:
    """The explanation under `key` in the workspace's derived cache, else `compute()`'s
    (explanation, the keys it read), stored until one of those files changes."""
    cached = ws.derived.get(key)
    if cached is None:
        cached, reads = compute()
        ws.derived.put(key, cached, reads=reads)
    return cached


def prefixed(profile: Profile, findings: list[Finding]) -> list[Finding]:
    """Findings of one agent, each naming it (`claude-code: AGENTS.md is not read here …`)."""
    head = profile.name + ": "
    return [
        f if f.profile == profile.name and f.message.startswith(head)
        else replace(f, profile=profile.name,
                     message=f.message if f.message.startswith(head) else head + f.message)
        for f in findings
    ]


# ----- the findings every agent's files can get, written once ---------------------------------
# The generic checks (`checks/files.py`, `checks/frontmatter.py`) report them for the files
# they lint, and each agent for its own files they do not: the code, severity and span are the
# same for all, and only what the agent then does is said in its own words.


def unreadable_file(key: str, why: str, then: str, cannot: str = "be used") -> Finding:
    """`key` cannot be read (binary, not UTF-8, too large, unreadable): an error at its start,
    `then` saying what the agent does instead (`Copilot skips it.`)."""
    return Finding(key, Span.at(0, 0), "error", "unreadable-file",
                   f"`{key}` cannot {cannot}: {why}. {then}")


def empty_file(key: str, first_line: str, what: str) -> Finding:
    """`key` brings nothing: a warning on its first line; `what` is the file and what is
    wrong with it (`instructions file is empty`, `rule has no content after its header`)."""
    return Finding(key, Span.at(0, 0, len(first_line)), "warning", "empty-instructions",
                   f"this {what}; add content or delete it")


def unusable_file(
    ws: Workspace, key: str, linted: Collection[str], who: str, what: str
) -> list[Finding]:
    """`key`, a file `who` (the agent's title) reads whole, when it cannot be read or is
    empty — unless the generic checks lint it (`linted`) and so report it already; `what`
    names it (`file`, `instructions file`)."""
    if key in linted:
        return []
    doc = ws.document(key)
    if doc.unreadable:
        return [unreadable_file(key, doc.unreadable, f"{who} skips it.")]
    if not doc.text.strip():
        return [empty_file(key, doc.lines[0], f"{what} is empty")]
    return []


class ParsedGlob(Protocol):
    """A glob a file writes, whichever parser read it (`model.Glob`, `rule_files.WrittenGlob`)."""

    @property
    def pattern(self) -> str: ...
    @property
    def span(self) -> Span: ...
    @property
    def error(self) -> str | None: ...


def invalid_glob(key: str, glob: ParsedGlob) -> Finding:
    """A glob of `key` that can never match as written (`glob.error` says why)."""
    return Finding(key, glob.span, "error", "invalid-glob", f"`{glob.pattern}`: {glob.error}")


def shallowest(paths: Iterable[str]) -> str | None:
    """The path nearest the root among `paths` (then the first by name); None when empty:
    the file `detected_by` names when several select an agent."""
    return min(paths, key=lambda p: (p.count("/"), p), default=None)


def directory_chain(cwd: str) -> list[str]:
    """'' (the root), then each directory down to `cwd` ('.' or '' is the root)."""
    cwd = "" if cwd in (".", "") else cwd.strip("/")
    chain = [""]
    if cwd:
        parts = cwd.split("/")
        chain.extend("/".join(parts[: i + 1]) for i in range(len(parts)))
    return chain


def ancestry(directory: str) -> list[str]:
    """`directory`, then each parent up to the root '' (nearest first)."""
    out = [directory]
    while directory:
        directory = parent_dir(directory)
        out.append(directory)
    return out


# Remembered: every agent's ancestor walks ask each directory's parent, and copying and hashing
# a kilobyte-long parent each time was 5 % of a check 400 levels deep (3.29 → 3.16 s, 7
# alternating runs). Bounded: past 65,536 paths the least recent go.
@functools.lru_cache(maxsize=1 << 16)
def parent_dir(path: str) -> str:
    # interned: the loads of 20,000 files keep their directories as keys, one copy each
    # (paths 400 directories deep are kilobytes long)
    slash = path.rfind("/")
    return sys.intern(path[:slash]) if slash > 0 else ""


def join(directory: str, name: str) -> str:
    return f"{directory}/{name}" if directory else name
