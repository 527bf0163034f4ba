"""GitHub Copilot (docs/profiles/copilot.md), for the agent the `agent` option names:

- `coding-agent` (default): `.github/copilot-instructions.md`, the `.github/instructions/**/
  *.instructions.md` files whose `applyTo` matches, the nearest AGENTS.md, and CLAUDE.md /
  GEMINI.md at the root;
- `code-review`: the first two only (no AGENTS.md);
- `vscode-chat`: VS Code's chat — the first two (`applyTo` matched as VS Code's `_matches` does:
  `**/` before every relative glob, case ignored), the root's AGENTS.md (`useAgentsMdFile`),
  CLAUDE.md files (`useClaudeMdFile`), nested AGENTS.md only listed by path
  (`useNestedAgentsMdFiles`); a symlink to a file already loaded is added once.

No imports, no budget. `**`, `**/*` and `*` mean every file, even with no target.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Literal

from rulemap.derived import KeyFamily
from rulemap.globs import safe_expand
from rulemap.model import (
    Budget,
    Explanation,
    Finding,
    LoadedFile,
    LoadStatus,
    ScopedGlobs,
    Skipped,
    Span,
)
from rulemap.profiles.base import (
    EXPLAIN,
    Home,
    Profile,
    ancestry,
    cached_explanation,
    directory_chain,
    empty_file,
    glob_for,
    home_file,
    invalid_glob,
    join,
    loaded_homes,
    options_of,
    parent_dir,
    stem_for,
    unusable_file,
)
from rulemap.profiles.copilot_files import (
    AGENTS,
    CLI_USER_FILE,
    CODE_REVIEW,
    CODING_AGENT,
    CODING_AGENT_ROOT_FILES,
    EXCLUDABLE,
    INSTRUCTIONS,
    INSTRUCTIONS_DIR,
    SUFFIX,
    VSCODE_CHAT,
    VSCODE_CLAUDE_FILES,
    exists,
    instruction_files,
    is_instruction_file,
    meta,
    misnamed,
    misplaced_repository_files,
    workspace_folder_of,
)
from rulemap.profiles.copilot_names import CopilotFacts
from rulemap.profiles.placement import cached_misplaced, home_marker
from rulemap.profiles.rule_files import WrittenGlob, as_scoped

# copilot_globs.py and copilot_groups.py: imported by the methods that match `applyTo` globs
# or group files (detection, and a check of a workspace without Copilot's files, need neither)
if TYPE_CHECKING:
    from rulemap.profiles.copilot_globs import Dialect
    from rulemap.workspace import Workspace

# file, dialect, agent, whether the default checks lint it
_RULE_FINDINGS: Final = KeyFamily[list[Finding]]("copilot-rule-findings")


class CopilotProfile(CopilotFacts, Profile):
    follows_imports = False
    check_codes = ("misplaced-file",)
    own_glob_dialect = True  # applyTo, as the coding agent or VS Code matches it
    watched_globs = (".github/copilot-instructions.md", ".github/instructions/**", "**/AGENTS.md",
                     *CODING_AGENT_ROOT_FILES, *VSCODE_CLAUDE_FILES[1:])
    # ----- the interface ----------------------------------------------------------------------

    def homes(self, ws: Workspace, target: str | None, cwd: str) -> tuple[Home, ...]:
        """`.github/copilot-instructions.md` (every request), what it loads there, and for a
        target a `.github/instructions/` file whose `applyTo` matches it."""
        every = home_file(ws, ".github/copilot-instructions.md", "which it loads for every file")
        scoped = () if not target else (home_file(
            ws, f".github/instructions/{stem_for(target)}.instructions.md",
            f'a file with `applyTo: "{glob_for(target)}"`, which it loads for `{target}`'),)
        return (every, *loaded_homes(self.explain(ws, target, cwd), target), *scoped)

    # ----- for views: `applyTo` globs in its dialect (copilot_globs.py) ------------------
    def glob_key(self, ws: Workspace, key: str) -> tuple[str, str] | None:
        if not is_instruction_file(key) or key not in ws.files:
            return None
        return "applyTo", ""

    def rule_globs(self, ws: Workspace, key: str) -> ScopedGlobs | None:
        if self.glob_key(ws, key) is None:
            return None
        return as_scoped("applyTo", "", meta(ws, key).globs)

    def load_status(self, ws: Workspace, key: str) -> LoadStatus:
        """An instructions file loads for the files its `applyTo` matches (every file for
        `**`), never without one or when `excludeAgent` names the modelled agent."""
        if self.glob_key(ws, key) is None:
            return Profile.load_status(self, ws, key)
        info = meta(ws, key)
        doc = ws.document(key)
        agent = options_of(ws, self)["agent"]
        why = (f"unreadable: {doc.unreadable}" if doc.unreadable
               else f"{info.problem}; Copilot skips it" if info.problem is not None
               else f"`excludeAgent: {info.exclude}` excludes the {agent}"
               if info.exclude == agent
               else "no `applyTo`: Copilot applies it only when it is attached by hand"
               if info.globs is None else None)
        if why is not None:
            return LoadStatus(False, why_not=why)
        found = self.rule_matches(ws, key)
        return LoadStatus(bool(found), len(found), found[0] if found else None,
                          scoped=True, why_not=None if found else "its globs match no file")

    def glob_matches(self, ws: Workspace, rule: str, pattern: str) -> list[str]:
        from rulemap.profiles.copilot_globs import glob_files
        written = WrittenGlob(pattern, Span.at(0, 0), tuple(safe_expand(pattern)))
        return list(glob_files(ws, written, _dialect(ws, self)))

    def glob_has_matches(self, ws: Workspace, rule: str, pattern: str) -> bool:
        from rulemap.profiles.copilot_globs import glob_has_matches
        written = WrittenGlob(pattern, Span.at(0, 0), tuple(safe_expand(pattern)))
        return glob_has_matches(ws, written, _dialect(ws, self))

    def rule_matches(self, ws: Workspace, rule: str) -> list[str]:
        from rulemap.profiles.copilot_globs import EVERYTHING
        scoped = self.rule_globs(ws, rule)
        globs = [g for g in (scoped.globs if scoped else ()) if not g.error]
        if any(g.pattern in EVERYTHING for g in globs):
            return list(ws.files)
        return sorted({f for g in globs for f in self.glob_matches(ws, rule, g.pattern)})

    def first_matching_glob(self, ws: Workspace, rule: str, target: str) -> str | None:
        from rulemap.profiles.copilot_globs import EVERYTHING, matches
        scoped = self.rule_globs(ws, rule)
        dialect = _dialect(ws, self)
        for glob in scoped.globs if scoped else ():
            written = WrittenGlob(glob.pattern, glob.span, tuple(glob.expanded), glob.error)
            if not glob.error and (glob.pattern in EVERYTHING or matches(target, written, dialect)):
                return glob.pattern
        return None

    def explain(self, ws: Workspace, target: str | None, cwd: str) -> Explanation:
        cwd = "" if cwd in (".", "") else cwd.strip("/")
        return cached_explanation(
            ws, EXPLAIN.key(self.name, target, cwd), lambda: self._explain(ws, target, cwd)
        )

    def load_groups(self, ws: Workspace, cwd: str) -> list[tuple[Explanation, list[str]]]:
        """Files grouped by their nearest AGENTS.md and the `applyTo` files that apply to
        them (copilot_groups.py)."""
        from rulemap.profiles import copilot_groups
        return copilot_groups.load_groups(ws, self, cwd)

    def findings(self, ws: Workspace) -> list[Finding]:
        lint = frozenset(ws.lint_documents())
        dialect = _dialect(ws, self)
        agent = options_of(ws, self)["agent"]
        out: list[Finding] = []
        if exists(ws, INSTRUCTIONS) and self.reads(ws, INSTRUCTIONS):
            out.extend(_plain_findings(ws, INSTRUCTIONS, lint))
        for key in instruction_files(ws):
            out.extend(_rule_findings(ws, key, dialect, lint, agent))
        for key in misnamed(ws):
            name = key.rsplit("/", 1)[-1]
            fixed = name[: -len(".md")] + SUFFIX
            out.append(Finding(
                key, Span.at(0, 0), "warning", "unreachable-rule",
                f"Copilot reads only files named `*{SUFFIX}` from `{INSTRUCTIONS_DIR}`, so it "
                f"never reads `{name}`; rename it to `{fixed}`"))
        return out

    def misplaced(self, ws: Workspace) -> list[Finding]:
        """Every `copilot-instructions.md` but the root's `.github/` one (and a nested
        repository's own): VS Code's chat reads the one of each workspace folder."""
        agent = options_of(ws, self)["agent"]
        return cached_misplaced(ws, self, (agent,), lambda: [
            _misplaced(key, agent, home_marker(ws)) for key in misplaced_repository_files(ws)])

    # ----- loading ----------------------------------------------------------------------------

    def _explain(self, ws: Workspace, target: str | None,
                 cwd: str) -> tuple[Explanation, set[str]]:
        from rulemap.profiles.copilot_globs import applies
        opts = options_of(ws, self)
        dialect = _dialect(ws, self)
        agent: str = opts["agent"]
        vscode = agent == VSCODE_CHAT
        files: list[LoadedFile] = []
        skipped: list[Skipped] = []
        reads: set[str] = set()
        notes: list[str] = []
        start = parent_dir(target) if target is not None else cwd
        nearest = (_nearest_agents(ws, start, agent == CODING_AGENT)
                   if agent != CODE_REVIEW and opts["useAgentsMdFile"] else None)
        roots = ([k for k in CODING_AGENT_ROOT_FILES if exists(ws, k)] if agent == CODING_AGENT
                 else [k for k in VSCODE_CLAUDE_FILES if exists(ws, k)]
                 if vscode and opts["useClaudeMdFile"] else [])
        if agent == CODING_AGENT and roots and nearest and not opts["rootFilesBesideAgentsMd"]:
            # "Alternatively, you can use a single CLAUDE.md or GEMINI.md file stored in the
            # root of the repository" (GitHub's docs): read in place of an AGENTS.md
            notes.append(f"{' and '.join(f'`{k}`' for k in roots)} not read: GitHub's docs "
                         f"name a root CLAUDE.md or GEMINI.md as an alternative to AGENTS.md, "
                         f"which is read here (rootFilesBesideAgentsMd = true reads both; "
                         f"unconfirmed)")
            roots = []
        repo_file = exists(ws, INSTRUCTIONS) and (not vscode or opts["useInstructionFiles"])
        agent_files = [INSTRUCTIONS] * repo_file + ([nearest] if nearest else []) + roots
        dropped = _symlinks_already_loaded(ws, agent_files) if vscode else {}

        def add(key: str, reason: Literal["project", "nested", "scoped"], text: str | None,
                note: str | None = None) -> None:
            reads.add(key)
            doc = ws.document(key)
            if key in dropped:
                skipped.append(Skipped(key, f"a symlink to `{dropped[key]}`, already loaded: "
                                            "VS Code's chat adds a file once by real path",
                                       "duplicate-load"))
            elif doc.unreadable:
                skipped.append(Skipped(key, f"unreadable: {doc.unreadable}", "unreadable-file"))
            elif not (doc.text if text is None else text).strip():
                skipped.append(Skipped(key, "empty: it brings nothing", "empty-instructions"))
            else:
                body = doc.text if text is None else text
                files.append(LoadedFile(key, reason, None, 0, len(body), text=body, note=note))

        if repo_file:
            add(INSTRUCTIONS, "project", None)
        for key in instruction_files(ws):
            info = meta(ws, key)
            if ws.document(key).unreadable:
                add(key, "scoped", None)
            elif info.problem is not None:
                reads.add(key)
                skipped.append(Skipped(key, f"{info.problem}; Copilot skips it",
                                       "invalid-frontmatter"))
            elif info.exclude == agent:
                reads.add(key)
                skipped.append(Skipped(key, f"`excludeAgent: {info.exclude}` excludes the "
                                            f"{agent} (option `agent`)", "unreachable-rule"))
            elif info.globs is None:
                reads.add(key)
                skipped.append(Skipped(key, "no `applyTo`: Copilot applies it only when it is "
                                            "attached by hand", "unreachable-rule"))
            elif applies(ws, info.globs, target, dialect):
                add(key, "scoped", info.header.body, note=f"applyTo: {info.apply_to}")
            else:
                reads.add(key)
        if nearest is not None:
            owner = parent_dir(nearest) if nearest != AGENTS else ""
            add(nearest, "project" if owner in directory_chain(cwd) else "nested", None)
            for other in _farther_agents(ws, nearest):
                skipped.append(Skipped(other, f"the nearer `{nearest}` takes precedence",
                                       "instructions-shadowed"))
        for key in roots:
            add(key, "project", None)
        if vscode and opts["useAgentsMdFile"] and opts["useNestedAgentsMdFiles"]:
            listed = [k for k in ws.files if k.endswith("/" + AGENTS)]
            if listed:
                notes.append("listed by path for the model to read on demand "
                             "(chat.useNestedAgentsMdFiles; with a read tool): "
                             + ", ".join(sorted(listed)))
        if instruction_files(ws):
            notes.append("applyTo globs match as in VS Code: `**/` before relative globs, "
                         "case ignored" if vscode else
                         "a slash-less applyTo glob (`*.ts`) matches top-level files only, as "
                         "GitHub documents `*.py`")
        return Explanation(
            profile=self.name, root=ws.root, cwd=cwd or ".", target=target, max_chars=0,
            files=files, left_out=[], skipped=skipped, notice=None,
            requested_chars=sum(f.chars for f in files), budget=Budget("none", "chars", 0),
            notes=tuple(notes)), reads


def _dialect(ws: Workspace, profile: CopilotProfile) -> Dialect:
    from rulemap.profiles.copilot_globs import Dialect
    return Dialect(options_of(ws, profile)["agent"] == VSCODE_CHAT)


def _symlinks_already_loaded(ws: Workspace, keys: list[str]) -> dict[str, str]:
    """VS Code's chat (`listAgentInstructions`): files that are not symlinks first, then each
    symlink only when its target is not already in — the symlinks left out, each with the
    file it repeats. A copy is not a symlink: it stays."""
    identity = ws.reader.identity
    link_of = {k: identity(ws.abs(k)) for k in keys}
    plain = {real: k for k, real in link_of.items() if not _is_symlink(ws, k, real)}
    seen = dict(plain)
    out: dict[str, str] = {}
    for key, real in link_of.items():
        if key in plain.values():
            continue
        if real in seen:
            out[key] = seen[real]
        else:
            seen[real] = key
    return out


def _is_symlink(ws: Workspace, key: str, real: str) -> bool:
    directory = parent_dir(key) if "/" in key else ""
    name = key.rsplit("/", 1)[-1]
    base = ws.reader.identity(ws.abs(directory) if directory else ws.root)
    return real != base.rstrip("/") + "/" + name


def _nearest_agents(ws: Workspace, start: str, nested: bool) -> str | None:
    if not nested:
        return AGENTS if exists(ws, AGENTS) else None
    for directory in ancestry(start):
        key = join(directory, AGENTS)
        if exists(ws, key):
            return key
    return None


def _farther_agents(ws: Workspace, nearest: str) -> list[str]:
    owner = parent_dir(nearest) if nearest != AGENTS else ""
    out: list[str] = []
    for directory in ancestry(owner)[1:]:
        key = join(directory, AGENTS)
        if exists(ws, key):
            out.append(key)
    return out


# ----- findings -------------------------------------------------------------------------------

_WHO: Final = {CODING_AGENT: "The Copilot coding agent (and Copilot CLI)",
               CODE_REVIEW: "Copilot code review", VSCODE_CHAT: "VS Code's chat"}


def _misplaced(key: str, agent: str, home: str | None) -> Finding:
    """A `copilot-instructions.md` where `agent` never looks, and what would make it apply."""
    folder = workspace_folder_of(key)
    scoped = (f"; to apply it to `{folder}/` only, make it `{INSTRUCTIONS_DIR}"
              f"{folder.replace('/', '-')}{SUFFIX}` with `applyTo: \"{folder}/**\"`"
              if folder else f"; move it to `{INSTRUCTIONS}`, or to `{INSTRUCTIONS_DIR}"
              f"NAME{SUFFIX}` with an `applyTo` glob to scope it")
    # Copilot CLI's user-level file, in a home directory kept in git (dotfiles)
    cli_home = home is not None and key == CLI_USER_FILE
    if cli_home:
        scoped = (f"; this tree looks like a home directory (`{home}` at its top): installed "
                  f"as one, it is Copilot CLI's user-level file, read in every repository")
    where = "of each workspace folder" if agent == VSCODE_CHAT else "at the repository root"
    said = (f"VS Code's chat reads the `{INSTRUCTIONS}` of each workspace folder, so it reads "
            f"`{key}` only when `{folder}` is opened as a workspace folder (alone or in a "
            f"multi-root workspace), never with the repository open"
            if folder and agent == VSCODE_CHAT else
            f"{_WHO[agent]} reads `{INSTRUCTIONS}` {where} only, so it never reads `{key}`")
    return Finding(key, Span.at(0, 0), "information" if cli_home or (
        folder and agent == VSCODE_CHAT) else "warning", "misplaced-file", said + scoped)


def _plain_findings(ws: Workspace, key: str, lint: frozenset[str]) -> list[Finding]:
    return unusable_file(ws, key, lint, "Copilot", "instructions file")


def _rule_findings(ws: Workspace, key: str, dialect: Dialect, lint: frozenset[str],
                   agent: str) -> list[Finding]:
    # whether the default model's checks lint it decides who reports empty and unreadable
    cache_key = _RULE_FINDINGS.key(key, dialect, agent, key in lint)
    cached = ws.derived.get(cache_key)
    if cached is not None:
        return cached
    out = _rule_findings_of(ws, key, dialect, lint)
    ws.derived.put(cache_key, out, reads=(key,))
    return out


def _rule_findings_of(ws: Workspace, key: str, dialect: Dialect,
                      lint: frozenset[str]) -> list[Finding]:
    from rulemap.profiles.copilot_globs import EVERYTHING, glob_has_matches
    doc = ws.document(key)
    if doc.unreadable:
        return _plain_findings(ws, key, lint)
    info = meta(ws, key)
    out: list[Finding] = []
    if info.problem is not None:
        span = info.problem_span or Span.at(0, 0, 3)
        return [Finding(key, span, "error", "invalid-frontmatter",
                        f"{info.problem}. Copilot cannot read this header, so it skips the file")]
    if info.exclude is not None and info.exclude not in EXCLUDABLE:
        out.append(Finding(
            key, info.exclude_span or Span.at(0, 0, 3), "warning", "invalid-frontmatter",
            f"`excludeAgent: {info.exclude}` names no Copilot agent, so it excludes nothing; "
            f"use `coding-agent` or `code-review`"))
    if not info.header.body.strip():
        out.append(empty_file(key, doc.lines[0],
                              "instructions file has no content after its header"))
    if info.globs is None:
        out.append(Finding(
            key, info.header.key_spans.get("applyTo", Span.at(0, 0, len(doc.lines[0]))),
            "information", "unreachable-rule",
            "no `applyTo`: Copilot applies this file only when it is attached by hand; add "
            "`applyTo: \"**\"` for every file, or globs to scope it"))
        return out
    live = [g for g in info.globs if g.error is None and g.pattern not in EVERYTHING]
    everything = any(g.pattern in EVERYTHING for g in info.globs)
    dead = [g for g in live if not glob_has_matches(ws, g, dialect)]
    for glob in info.globs:
        if glob.error:
            out.append(invalid_glob(key, glob))
    for glob in dead:
        alive = everything or len(dead) < len(live)
        tail = (" The file still applies through its other globs." if alive else
                " No glob of this file matches, so Copilot never applies it.")
        hint = ""
        if not dialect.vscode and "/" not in glob.pattern:
            hint = (f" A slash-less glob matches only at the root here; `**/{glob.pattern}` "
                    f"matches at any depth.")
        out.append(Finding(
            key, glob.span, "information" if alive else "warning", "unmatched-glob",
            f"`{glob.pattern}` matches no file in the workspace (`applyTo` globs are relative "
            f"to the workspace root).{tail}{hint}"))
    return out
