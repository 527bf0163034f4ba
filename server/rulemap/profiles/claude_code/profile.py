"""Claude Code memory (docs/profiles/claude-code.md): what it loads, in what order, and why.

Why this module is long: it composes every part of Claude Code's loading (start-up, nested
directories, scoped rules, user files, the AGENTS.md fallback) and answers each question the
engine and views ask of it; the parts themselves live in load.py, rules.py, names.py and
imports.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from rulemap.derived import Key, KeyFamily
from rulemap.globs import compile_patterns
from rulemap.model import Budget, Document, Explanation, Finding, LoadStatus, Reason
from rulemap.profiles.base import (
    EXPLAIN,
    Home,
    Option,
    Profile,
    directory_chain,
    glob_for,
    home_file,
    loaded_homes,
    options_of,
    parent_dir,
    shallowest,
    stem_for,
)
from rulemap.profiles.claude_code import imports as claude_imports
from rulemap.profiles.claude_code.load import APPROVAL_WHY, ClaudeLoad, Settings
from rulemap.profiles.claude_code.loader import LoadKey, deepest_nested, normalize, strictly_below
from rulemap.profiles.claude_code.names import (
    AGENTS_MD,
    ALL_NAMES,
    CLAUDE_MD,
    DOT_CLAUDE_MD,
    LOCAL_MD,
    MEMORY_NAMES,
    name_index,
    owner_of,
    probe,
)
from rulemap.profiles.claude_code.options import (
    CLAUDE_MD_AND_AGENTS_MD,
    CLAUDE_MD_ONLY,
    CLAUDE_MD_OR_AGENTS_MD,
    MANAGED_ONLY,
    OPTIONS,
    SIZE_WARNING_CHARS,
    Options,
    parse,
)
from rulemap.profiles.deferred import Deferred
from rulemap.profiles.placement import cached_misplaced
from rulemap.workspace.rule_scope import RuleScope

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from rulemap.profiles.base import LoadShare
    from rulemap.profiles.claude_code.rules import RuleGlobs, RuleIndex
    from rulemap.profiles.load_log import LoadLogFormat
    from rulemap.profiles.steps import SessionReplay, ToolStep
    from rulemap.profiles.transcript import TranscriptFormat
    from rulemap.workspace import Workspace

USER_MEMORY = ".claude/CLAUDE.md"  # under the home directory
USER_RULES = ".claude/rules"

MANAGED_WHY = ('not read: instructionFiles = "managed-only" (at start-up Claude Code loads only '
               'managed policy files and auto memory)')


# read by the start-up link: dropped (with every link built on it) when its rule classes change
_STARTUP_PSEUDO = "claude-code:startup"

_OPTIONS: Final[Key[Options]] = KeyFamily[Options]("claude-code-options").key()
# the loads: chain, options, home → the start-up link; + a directory below cwd → its link
_STARTUP_LOAD: Final = KeyFamily[ClaudeLoad]("claude-code-startup")
_NESTED_LOAD: Final = KeyFamily[ClaudeLoad]("claude-code-nested")
_HOME_RULES: Final = KeyFamily[list[str]]("claude-code-home-rules")  # home directory
_MEMORY_IN_CHAIN: Final = KeyFamily[bool]("claude-code-memory-in-chain")  # chain
_RULE_CLASSES: Final = KeyFamily[tuple[tuple[str, bool], ...]]("claude-code-rule-classes")


def _transcript_format() -> TranscriptFormat:
    from rulemap.profiles.claude_code.transcript import FORMAT

    return FORMAT


def _load_log_format() -> LoadLogFormat:
    from rulemap.profiles.claude_code.load_log import FORMAT

    return FORMAT


class ClaudeCodeProfile(Profile):
    name = "claude-code"
    title = "Claude Code"
    description = (
        "Claude Code memory: CLAUDE.md, .claude/CLAUDE.md, .claude/rules and CLAUDE.local.md "
        "per directory, AGENTS.md as a fallback, @imports (4 hops), no shared budget."
    )
    follows_imports = True  # for other profiles' import-not-followed
    check_codes = ("instructions-shadowed", "import-not-followed", "file-too-large",
                   "misplaced-file")
    code_notes = (("file-too-large", f"Claude Code: {SIZE_WARNING_CHARS:,} characters"),)
    transcript_format = Deferred(_transcript_format)
    load_log_format = Deferred(_load_log_format)  # InstructionsLoaded hook events
    watched_globs = ("**/CLAUDE.md", "**/CLAUDE.local.md", "**/.claude/**", "**/AGENTS.md")
    own_glob_dialect = True  # a trailing `/**` dropped, case folded (rules.py)
    startup_prefix = True  # nested memory and scoped rules join after the launch load
    options: tuple[Option, ...] = OPTIONS

    # ----- options ----------------------------------------------------------------------

    def settings_of(self, ws: Workspace) -> Options:
        """The parsed `[profiles.claude-code]` options (fixed for the workspace's life)."""
        cached = ws.derived.get(_OPTIONS)
        if cached is None:
            cached = self._parse_options(ws)
            ws.derived.put(_OPTIONS, cached, reads=())
        return cached

    def _parse_options(self, ws: Workspace) -> Options:
        return parse(options_of(ws, self))

    def load_settings(self, ws: Workspace, cwd: str, opts: Options) -> Settings:
        return Settings(
            cwd=cwd,
            cwd_abs=ws.abs(cwd) if cwd else ws.root,
            cwd_real=ws.identity(cwd) if cwd else ws.real_root,
            approve_external=opts.approve_external,
            excludes=compile_patterns(opts.excludes) if opts.excludes else None,
            excludes_written=opts.excludes,
        )

    # ----- the protocol -----------------------------------------------------------------

    def homes(self, ws: Workspace, target: str | None, cwd: str) -> tuple[Home, ...]:
        """What it loads there, else the root's CLAUDE.md (memory read at start-up), and for
        a target a rule of `.claude/rules/` whose `paths` match it."""
        memory = home_file(ws, "CLAUDE.md", "its project memory, which it loads at start-up")
        rule = () if not target else (home_file(
            ws, f".claude/rules/{stem_for(target)}.md",
            f'a rule with `paths: ["{glob_for(target)}"]`, which it loads for `{target}`'),)
        return (*loaded_homes(self.explain(ws, target, cwd), target), memory, *rule)

    def detected_by(self, ws: Workspace) -> str | None:
        index = name_index(ws)
        memory = shallowest(key for names in index.values() for name, key in names.items()
                            if name in MEMORY_NAMES)
        if memory is not None:
            return memory
        if ws.rules or ws.reader.is_dir(ws.abs(USER_RULES)):
            return USER_RULES
        return None

    def names_opened(self, ws: Workspace) -> tuple[str, ...]:
        # closed source: its memory files are documented by exact name; modelled as opened
        # by name (docs/profiles/claude-code.md, "Letter case")
        return ALL_NAMES

    def reads(self, ws: Workspace, key: str) -> bool:
        opts = self.settings_of(ws)
        cwd = normalize(ws.config.cwd)
        chain = directory_chain(cwd)
        found = owner_of(key, ws.case_insensitive)
        if found is not None:
            directory, name = found
            in_chain = directory in chain
            if not in_chain and not strictly_below(directory, cwd):
                return False  # a sibling of the launch directory: never walked
            if opts.excludes:
                settings = self.load_settings(ws, cwd, opts)
                if settings.excluded(ws.abs(key), ws.identity(key)):
                    return False
            if in_chain and opts.managed_only:
                return False  # at start-up only managed files; nested ones still join on Read
            if name != AGENTS_MD:
                return True
            if opts.instruction_files != CLAUDE_MD_OR_AGENTS_MD:
                return opts.instruction_files == CLAUDE_MD_AND_AGENTS_MD
            if self.memory_in_chain(ws, chain):
                return False
            own = name_index(ws).get(directory, {})
            return in_chain or not any(n in own for n in MEMORY_NAMES)
        scope = ws.rule_scope(key)
        return scope is not None and scope.owner in chain and not opts.managed_only

    def findings(self, ws: Workspace) -> list[Finding]:
        from rulemap.profiles.claude_code import findings

        return findings.check(ws, self)

    def misplaced(self, ws: Workspace) -> list[Finding]:
        """A `.claude/CLAUDE.local.md` (findings.py `misplaced`)."""
        from rulemap.profiles.claude_code import findings

        return cached_misplaced(ws, self, (), lambda: findings.misplaced(ws))

    # ----- for views: its glob dialect and load status (rules.py: a scoped rule loads for
    # the files its globs match as Claude Code matches them) -----------------------------
    def glob_matches(self, ws: Workspace, rule: str, pattern: str) -> list[str]:
        from rulemap.profiles.claude_code import rules as claude_rules

        return claude_rules.glob_matches(ws, rule, pattern, self.settings_of(ws).case_sensitive)

    def rule_matches(self, ws: Workspace, rule: str) -> list[str]:
        from rulemap.profiles.claude_code import rules as claude_rules

        return claude_rules.rule_matches(ws, rule, self.settings_of(ws).case_sensitive)

    def glob_has_matches(self, ws: Workspace, rule: str, pattern: str) -> bool:
        from rulemap.profiles.claude_code import rules as claude_rules

        return claude_rules.glob_has_matches(
            ws, rule, pattern, self.settings_of(ws).case_sensitive)

    def first_matching_glob(self, ws: Workspace, rule: str, target: str) -> str | None:
        from rulemap.profiles.claude_code import rules as claude_rules

        return claude_rules.first_matching_glob(
            ws, rule, target, self.settings_of(ws).case_sensitive)

    def load_status(self, ws: Workspace, key: str) -> LoadStatus:
        from rulemap.profiles.claude_code import rules as claude_rules

        if not self.reads(ws, key):
            return LoadStatus(False, why_not=f"{self.title} does not read it")
        return claude_rules.rule_status(ws, key, self.settings_of(ws).case_sensitive)

    def load_groups(self, ws: Workspace, cwd: str) -> list[tuple[Explanation, list[str]]] | None:
        """Every workspace file, grouped by what it loads (groups.py; for `rulemap diff`)."""
        from rulemap.profiles.claude_code.groups import load_groups

        return load_groups(ws, self, cwd)

    def size_warning(self, ws: Workspace) -> int | None:
        """`sizeWarningChars` (40,000 by default: options.py), as `file-too-large` uses it."""
        return self.settings_of(ws).size_warning

    def load_shares(self, ws: Workspace, cwd: str) -> list[LoadShare] | None:
        """`load_groups` as the overview sums it, a rule's loads shared (groups.py)."""
        from rulemap.profiles.claude_code.groups import load_shares

        return load_shares(ws, self, cwd)

    def load_groups_for(
        self, ws: Workspace, cwd: str, key: str
    ) -> list[tuple[Explanation, list[str]]] | None:
        """By nested memory alone when no scoped rule brings `key` (groups.py)."""
        from rulemap.profiles.claude_code.groups import load_groups_for

        return load_groups_for(ws, self, cwd, key)

    def may_bring(self, ws: Workspace, cwd: str) -> frozenset[str] | None:
        """The files it reads by name and place, and what they import (groups.py)."""
        from rulemap.profiles.claude_code.groups import may_bring

        return may_bring(ws, self)

    def replay(self, ws: Workspace, steps: Sequence[ToolStep], cwd: str) -> SessionReplay:
        """The session step by step: nested memory and scoped rules on first touch."""
        from rulemap.profiles.claude_code.session import replay

        return replay(self, ws, steps, cwd)

    def explain(self, ws: Workspace, target: str | None, cwd: str) -> Explanation:
        cwd_dir = normalize(cwd)
        opts = self.settings_of(ws)
        key = EXPLAIN.key(self.name, target, cwd_dir, opts, claude_imports.home_root(ws))
        cached = ws.derived.get(key)
        if cached is not None:
            return cached
        reads: set[str] = set()
        link_key, link = self._target_link(ws, target, cwd_dir, opts, reads)
        explanation = self.explanation_of(ws, link, target, cwd_dir, opts)
        ws.derived.put(key, explanation, reads=reads, after=[link_key])
        return explanation

    def brought_through(self, ws: Workspace, importer: str, cwd: str) -> frozenset[str]:
        """From the load's links, no list of the whole load made (`Profile`)."""
        _, link = self._target_link(ws, importer, normalize(cwd), self.settings_of(ws), set())
        return frozenset(f.path for f in link.brought_by(importer))

    def _target_link(self, ws: Workspace, target: str | None, cwd_dir: str, opts: Options,
                     reads: set[str]) -> tuple[LoadKey, ClaudeLoad]:
        """The load for `target` (None: start-up) as its last link and the key of the cached
        link it continues; the scoped rules' reads are added to `reads`."""
        chain = directory_chain(cwd_dir)
        link_key, link = self.startup(ws, chain, opts)
        if target is not None:
            deepest = deepest_nested(cwd_dir, parent_dir(target))
            if deepest is not None:  # the deepest directory's link holds every one above it
                link_key, link = self.nested(ws, chain, deepest, opts)
            scoped = self.matching_rules(ws, chain, target, opts, reads)
            if scoped:
                link = link.child()
                for rule, home, note in scoped:
                    link.add(rule, "scoped", home=home, note=note)
                reads |= link.own_reads
        return link_key, link

    # ----- loads ------------------------------------------------------------------------

    def startup(self, ws: Workspace, chain: list[str], opts: Options) -> tuple[LoadKey, ClaudeLoad]:
        """User files, then per directory root → cwd: [AGENTS.md], CLAUDE.md,
        .claude/CLAUDE.md, unconditional rules, CLAUDE.local.md — each with its imports."""
        key = _STARTUP_LOAD.key(tuple(chain), opts, claude_imports.home_root(ws))
        classes = self._rule_classes(ws, chain, opts)
        cached = ws.derived.get(key)
        if cached is not None and cached.rule_classes == classes:
            return key, cached
        if cached is not None:  # a rule became unconditional or scoped: load again
            ws.derived.invalidate({_STARTUP_PSEUDO}, structural=False)
        load = ClaudeLoad(ws, self.load_settings(ws, chain[-1], opts))
        load.rule_classes = classes
        for path, home, note in () if opts.managed_only else self.user_files(ws, opts, False):
            load.add(path, "user", home=home, note=note)
        present = {d: probe(ws, d) for d in chain}
        above = any(n in present[d] for d in chain for n in MEMORY_NAMES)
        load.memory_above = above
        unread: list[tuple[str, str]] = []
        unconditional = frozenset(rule for rule, always in classes if always)
        for directory in chain:
            unread.extend(self._directory(ws, load, directory, present[directory], "project",
                                          opts, unconditional))
        self._shadowed(ws, load, unread)
        # A scoped rule's glob edit must not drop the start-up link (and every nested link
        # built on it: hundreds, each probing its directory): which rules are unconditional is
        # kept on the link and compared on the next look-up instead, so the link reads only
        # the rules it loaded.
        reads = (load.own_reads - {r for r, unconditional in classes if not unconditional})
        ws.derived.put(key, load, reads=reads | {_STARTUP_PSEUDO})
        return key, load

    def _rule_classes(
        self, ws: Workspace, chain: list[str], opts: Options
    ) -> tuple[tuple[str, bool], ...]:
        """Each rule of the chain's directories and whether it loads unconditionally (a
        frontmatter Claude Code cannot read counts as unconditional, as it loads it whole).
        Cached until one of those rules changes: every explain asks it, and with thousands of
        rules the pass cost more than the rest of an explain."""
        key = _RULE_CLASSES.key(tuple(chain), opts.case_sensitive)
        cached = ws.derived.get(key)
        if cached is not None:
            return cached
        out: list[tuple[str, bool]] = []
        for directory in chain:
            for rule in ws.rules_of(directory):
                # rules.py only when there is a rule to classify

                doc = ws.document(rule)
                out.append((rule, bool(doc.rule_skip)
                            or _rule_globs(ws, rule, doc, opts.case_sensitive).unconditional))
        result = tuple(out)
        ws.derived.put(key, result, reads=[rule for rule, _ in result])
        return result

    def nested(
        self, ws: Workspace, chain: list[str], directory: str, opts: Options
    ) -> tuple[LoadKey, ClaudeLoad]:
        """The load once a file below `directory` (strictly below cwd) was read: its parent's,
        then `directory`'s memory files (reason nested). Built top-down from the deepest link
        already cached (iteratively: a tree may be deeper than Python's recursion limit)."""
        home = claude_imports.home_root(ws)

        def key_of(d: str) -> LoadKey:
            return _NESTED_LOAD.key(tuple(chain), d, opts, home)

        if not strictly_below(directory, chain[-1]):
            return self.startup(ws, chain, opts)
        missing: list[str] = []
        current = directory
        cached: ClaudeLoad | None = None
        while current != chain[-1]:
            cached = ws.derived.get(key_of(current))
            if cached is not None:
                break
            missing.append(current)
            current = parent_dir(current)
        if cached is None:
            parent_key, parent_load = self.startup(ws, chain, opts)
        else:
            parent_key, parent_load = key_of(current), cached
        for below in reversed(missing):
            load = parent_load.child()
            self.add_nested(ws, load, below, opts)
            key = key_of(below)
            ws.derived.put(key, load, reads=load.own_reads, after=[parent_key])
            parent_key, parent_load = key, load
        return parent_key, parent_load

    def add_nested(self, ws: Workspace, load: ClaudeLoad, directory: str,
                   opts: Options) -> None:
        """The memory files of a directory below the launch directory, as they join when a
        file there is first read (its rules stay out: only path-scoped ones join, by match)."""
        unread = self._directory(ws, load, directory, probe(ws, directory), "nested", opts,
                                 None)
        self._shadowed(ws, load, unread)

    def _directory(
        self,
        ws: Workspace,
        load: ClaudeLoad,
        directory: str,
        present: dict[str, str],
        reason: Reason,
        opts: Options,
        unconditional: frozenset[str] | None,
    ) -> list[tuple[str, str]]:
        """Add one directory's files; return the AGENTS.md not read, with why. With
        `unconditional` (None: no rules), its rules too, those in it loaded (`_rule_classes`,
        cached: asking each rule's globs again was 24 ms of a hover after an edit with 1,600
        rules)."""
        mode = opts.instruction_files
        if mode == MANAGED_ONLY and reason == "project":  # nothing of the project at start-up
            rules = ws.rules_of(directory) if unconditional is not None else []
            load.add_reads(*rules)
            for path in [*(present[n] for n in (AGENTS_MD, *MEMORY_NAMES) if n in present),
                         *rules]:
                load.skip(path, MANAGED_WHY, "instructions-shadowed")
            return []
        agents = present.get(AGENTS_MD)
        own = any(n in present for n in MEMORY_NAMES)
        unread: list[tuple[str, str]] = []
        read_agents = False
        if agents is not None:
            if mode == CLAUDE_MD_AND_AGENTS_MD:
                read_agents = True
            elif mode == MANAGED_ONLY:
                unread.append((agents, 'not read: instructionFiles = "managed-only" (Claude '
                                       'Code reads no AGENTS.md)'))
            elif mode != CLAUDE_MD_OR_AGENTS_MD:
                unread.append((agents, f'not read: instructionFiles = "{mode}" (as Claude Code '
                                       f'before 2.1.277); import it with @AGENTS.md'))
            elif load.memory_above:
                where = "exists in the launch directory or above"
                unread.append((agents, f"not read: a CLAUDE.md {where}, so Claude Code reads "
                                       f"no AGENTS.md; import it (@AGENTS.md) from a CLAUDE.md"))
            elif own:
                unread.append((agents, "not read: this directory has a CLAUDE.md, so Claude "
                                       "Code skips its AGENTS.md; add @AGENTS.md to CLAUDE.md"))
            else:
                read_agents = True
        if read_agents and agents is not None and mode == CLAUDE_MD_OR_AGENTS_MD:
            load.add(agents, reason, note="no CLAUDE.md in cwd or above: AGENTS.md read instead")
        for name in (CLAUDE_MD, DOT_CLAUDE_MD):
            if name in present:
                load.add(present[name], reason)
        if unconditional is not None:
            rules = ws.rules_of(directory)
            load.add_reads(*rules)
            for rule in rules:
                if rule in unconditional:
                    load.add(rule, "rule")
        if LOCAL_MD in present:
            load.add(present[LOCAL_MD], reason)
        if read_agents and agents is not None and mode == CLAUDE_MD_AND_AGENTS_MD:
            load.add(agents, reason)  # after the directory's CLAUDE.md files
        return unread

    @staticmethod
    def _shadowed(ws: Workspace, load: ClaudeLoad, unread: list[tuple[str, str]]) -> None:
        """List the AGENTS.md files not read, unless an import brought them after all."""
        for path, why in unread:
            if load.first_loaded(ws.identity(path)) is None:
                load.skip(path, why, "instructions-shadowed")

    def user_files(
        self, ws: Workspace, opts: Options, scoped: bool
    ) -> list[tuple[str, bool, str | None]]:
        """~/.claude/CLAUDE.md and the unconditional ~/.claude/rules (scoped=False), or the
        rules with `paths` (scoped=True): (absolute path, True, note)."""
        reader = ws.home_reader
        if reader is None:
            return []
        out: list[tuple[str, bool, str | None]] = []
        root = reader.root
        memory = f"{root}/{USER_MEMORY}"
        if not scoped and reader.exists(memory) and not reader.is_dir(memory):
            out.append((memory, True, None))
        for rule in self.user_rules(ws):

            doc = claude_imports.document(ws, rule, True)
            unconditional = bool(doc.rule_skip) or _rule_globs(
                ws, rule, doc, opts.case_sensitive).unconditional
            if unconditional != scoped:
                out.append((rule, True, "~/.claude/rules"))
        return out

    @staticmethod
    def user_rules(ws: Workspace) -> list[str]:
        reader = ws.home_reader
        if reader is None:
            return []
        key = _HOME_RULES.key(reader.root)
        cached = ws.derived.get(key)
        if cached is None:
            # a reader of single files cannot list a directory: then no user rules
            lister = getattr(reader, "files_under", None)
            listed: list[str] = []
            if callable(lister):
                try:
                    listed = list(lister(USER_RULES))
                except OSError:
                    listed = []
            cached = sorted(f"{reader.root}/{k}" for k in listed if k.endswith(".md"))
            ws.derived.put(key, cached, reads=())
        return cached

    def matching_rules(
        self, ws: Workspace, chain: list[str], target: str, opts: Options, reads: set[str]
    ) -> list[tuple[str, bool, str]]:
        """Rules with `paths` that match `target`: the user's (matched against the target's
        workspace path), then those of root → cwd (relative to the directory owning
        `.claude/`), each with the glob that matched."""
        return self.rule_matcher(ws, chain, opts, reads)(target)

    def rule_matcher(
        self, ws: Workspace, chain: list[str], opts: Options, reads: set[str]
    ) -> Callable[[str], list[tuple[str, bool, str]]]:
        """`matching_rules` for any target, what does not depend on it looked up once: a
        session of 50,000 steps asks it 50,000 times with one `chain`."""

        if opts.managed_only:
            return lambda target: []  # .claude/rules (the user's too) are not read
        case = opts.case_sensitive
        user = [(rule, _rule_globs(ws, rule, claude_imports.document(ws, rule, True), case))
                for rule, _, _ in self.user_files(ws, opts, scoped=True)]
        owners: list[tuple[RuleScope, RuleIndex]] = []
        for directory in chain:
            rules = list(ws.rules_of(directory))
            reads.update(rules)
            if rules:
                owners.append((RuleScope(directory), _rule_index(ws, directory, rules, case)))

        def match(target: str) -> list[tuple[str, bool, str]]:
            out: list[tuple[str, bool, str]] = []
            for rule, globs in user:
                hit = globs.first_match(target, case)
                if hit is not None:
                    out.append((rule, True, f"paths: {hit}"))
            for scope, index in owners:
                relative = scope.relative(target)
                if relative is None:
                    continue
                for rule in index.candidates(relative, case):
                    found: RuleGlobs = _rule_globs(ws, rule, ws.document(rule), case)
                    hit = found.first_match(relative, case)
                    if hit is not None:
                        out.append((rule, False, f"paths: {hit}"))
            return out

        return match

    def memory_in_chain(self, ws: Workspace, chain: list[str]) -> bool:
        """Whether a CLAUDE.md, .claude/CLAUDE.md or CLAUDE.local.md exists root → cwd (then
        AGENTS.md is a fallback Claude Code does not use)."""
        key = _MEMORY_IN_CHAIN.key(tuple(chain))
        cached = ws.derived.get(key)
        if cached is None:
            cached = any(n in probe(ws, d) for d in chain for n in MEMORY_NAMES)
            ws.derived.put(key, cached, reads=())  # existence changes only with create/delete
        return cached

    # ----- the answer -------------------------------------------------------------------

    def explanation_of(
        self, ws: Workspace, link: ClaudeLoad, target: str | None, cwd: str, opts: Options
    ) -> Explanation:
        files = link.files
        skipped = link.skipped
        notes = [
            "Claude Code has no shared budget: every file loads whole (a file over 4 MiB is "
            f"skipped; one over {opts.size_warning:,} characters gets a size warning)",
            _MODE_NOTES[opts.instruction_files],
        ]
        if target is not None:
            notes.append(
                f"`{target}` is taken as read with the Read tool: Claude Code loads the memory "
                "files of a subdirectory and path-scoped rules when Read opens a file (edits, "
                "searches and shell commands are reported to load none)"
            )
        if ws.home_reader is None:
            notes.append(
                "user-level files (~/.claude/CLAUDE.md, ~/.claude/rules) are not read: pass "
                "--home DIR to include them"
            )
        approval = APPROVAL_WHY.format(cwd=cwd or ".")
        if any(s.why == approval for s in skipped):
            notes.append(
                f"imports from outside the launch directory `{cwd or '.'}` need a one-time "
                "approval in Claude Code and are dropped until then (approveExternalImports)"
            )
        total = sum(f.chars for f in files)
        return Explanation(
            profile=self.name,
            root=ws.root,
            cwd=cwd or ".",
            target=target,
            max_chars=0,
            files=files,
            left_out=[],
            skipped=skipped,
            notice=None,
            requested_chars=total,
            budget=Budget("none", "chars", 0),
            notes=tuple(notes),
        )


_MODE_NOTES = {
    CLAUDE_MD_OR_AGENTS_MD: (
        "AGENTS.md is read only where no CLAUDE.md, .claude/CLAUDE.md or CLAUDE.local.md exists "
        'in the launch directory or above (instructionFiles = "claude-md-or-agents-md", the '
        'default since Claude Code 2.1.277; "claude-md" for older releases)'),
    CLAUDE_MD_AND_AGENTS_MD: (
        'AGENTS.md is read in every directory, after its CLAUDE.md files (instructionFiles = '
        '"claude-md-and-agents-md")'),
    CLAUDE_MD_ONLY: (
        'AGENTS.md is never read (instructionFiles = "claude-md", as Claude Code before '
        "2.1.277): import it with @AGENTS.md"),
    MANAGED_ONLY: (
        'instructionFiles = "managed-only": at start-up Claude Code loads only managed policy '
        "files and auto memory (not modelled), so no project, local or user file and no "
        ".claude/rules load; a subdirectory's CLAUDE.md files still join when a file there is "
        "read"),
}



# rules.py is imported by the first rule matched, not by a check of a workspace without rules
def _rule_globs(ws: Workspace, rule: str, doc: Document, case_sensitive: bool) -> RuleGlobs:
    from rulemap.profiles.claude_code.rules import rule_globs

    return rule_globs(ws, rule, doc, case_sensitive)


def _rule_index(
    ws: Workspace, directory: str, rules: list[str], case_sensitive: bool
) -> RuleIndex:
    from rulemap.profiles.claude_code.rules import rule_index

    return rule_index(ws, directory, rules, case_sensitive)
