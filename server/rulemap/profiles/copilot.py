"""GitHub Copilot: `.github/copilot-instructions.md`, `.github/instructions/**/*.instructions.md`
scoped by `applyTo`, and the nearest AGENTS.md (docs/profiles/copilot.md). No imports, no budget.

`applyTo` globs are relative to the workspace root, in VS Code's glob dialect (`*` stays in one
directory, `**` crosses them, `{a,b}` alternates) and, by default, case-sensitive and anchored at
the root: a slash-less `*.ts` matches top-level files only (`slashlessMatchesAnyDepth`). VS
Code's chat itself prepends `**/` to every relative pattern and ignores case (`vscodeGlobs`).
`**`, `**/*` and `*` mean every file, even with no target.
"""

from __future__ import annotations

from dataclasses import dataclass
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
    Option,
    Profile,
    ancestry,
    cached_explanation,
    directory_chain,
    join,
    options_of,
    parent_dir,
)
from rulemap.profiles.copilot_globs import (
    EVERYTHING,
    Dialect,
    applies,
    glob_files,
    glob_has_matches,
    matches,
)
from rulemap.profiles.rule_files import (
    FILES_NAMED,
    Header,
    WrittenGlob,
    as_scoped,
    files_named,
    read_header,
    written_globs,
)

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

INSTRUCTIONS = ".github/copilot-instructions.md"
INSTRUCTIONS_DIR = ".github/instructions/"
SUFFIX = ".instructions.md"
AGENTS = "AGENTS.md"
AGENT_NAMES = ("coding-agent", "code-review")

_META: Final[KeyFamily[_Meta]] = KeyFamily("copilot-meta")  # file
# file, dialect, agent, whether the default checks lint it
_RULE_FINDINGS: Final = KeyFamily[list[Finding]]("copilot-rule-findings")


@dataclass
class _Meta:
    """One `.instructions.md` file as Copilot reads it."""

    header: Header
    apply_to: str | None  # as written
    globs: list[WrittenGlob] | None
    problem: str | None  # why the header cannot be used (Copilot skips the file)
    problem_span: Span | None
    exclude: str | None  # `excludeAgent`
    exclude_span: Span | None


class CopilotProfile(Profile):
    name = "copilot"
    title = "GitHub Copilot"
    description = (
        "GitHub Copilot: .github/copilot-instructions.md, .github/instructions/*.instructions.md "
        "by applyTo, the nearest AGENTS.md; no imports, no budget."
    )
    follows_imports = False
    own_glob_dialect = True  # applyTo, as the coding agent or VS Code matches it
    watched_globs = (".github/copilot-instructions.md", ".github/instructions/**", "**/AGENTS.md")
    options: tuple[Option, ...] = (
        Option("agent", (str,), "coding-agent",
               "the Copilot agent modelled; files whose `excludeAgent` names it are skipped "
               "(`coding-agent` or `code-review`)"),
        Option("useAgentsMd", (bool,), True, "read AGENTS.md"),
        Option("nestedAgentsMd", (bool,), True,
               "the AGENTS.md nearest the target (its directory, else the nearest ancestor); "
               "false: only the root's (unconfirmed which one Copilot reads)"),
        Option("slashlessMatchesAnyDepth", (bool,), False,
               "a slash-less `applyTo` glob (`*.ts`) matches at any depth, not only at the root "
               "(unconfirmed)"),
        Option("vscodeGlobs", (bool,), False,
               "match `applyTo` as VS Code's chat does: `**/` before every relative glob, case "
               "ignored"),
    )

    # ----- the interface ----------------------------------------------------------------------

    def detect(self, ws: Workspace) -> bool:
        return _exists(ws, INSTRUCTIONS) or bool(ws.files.under(INSTRUCTIONS_DIR)) or (
            ws.reader.is_dir(ws.abs(INSTRUCTIONS_DIR.rstrip("/"))))

    def reads(self, ws: Workspace, key: str) -> bool:
        if key == INSTRUCTIONS or (key.startswith(INSTRUCTIONS_DIR) and key.endswith(SUFFIX)):
            return True
        opts = options_of(ws, self)
        return bool(opts["useAgentsMd"]) and (key == AGENTS or key.endswith("/" + AGENTS)) and (
            opts["nestedAgentsMd"] or key == AGENTS)

    # ----- for views: `applyTo` globs in its dialect (copilot_globs.py) ------------------
    def glob_key(self, ws: Workspace, key: str) -> tuple[str, str] | None:
        if not (key.startswith(INSTRUCTIONS_DIR) and key.endswith(SUFFIX)) or key not in ws.files:
            return None
        return "applyTo", ""

    def rule_globs(self, ws: Workspace, key: str) -> ScopedGlobs | None:
        if self.glob_key(ws, key) is None:
            return None
        return as_scoped("applyTo", "", _meta(ws, key).globs)

    def load_status(self, ws: Workspace, key: str) -> LoadStatus:
        """An instructions file loads for the files its `applyTo` matches (every file for
        `**`), never without one or when `excludeAgent` names the modelled agent."""
        if self.glob_key(ws, key) is None:
            return Profile.load_status(self, ws, key)
        meta = _meta(ws, key)
        doc = ws.document(key)
        agent = options_of(ws, self)["agent"]
        why = (f"unreadable: {doc.unreadable}" if doc.unreadable
               else f"{meta.problem}; Copilot skips it" if meta.problem is not None
               else f"`excludeAgent: {meta.exclude}` excludes the {agent}"
               if meta.exclude == agent
               else "no `applyTo`: Copilot applies it only when it is attached by hand"
               if meta.globs is None else None)
        if why is not None:
            return LoadStatus(False, why_not=why)
        matches = self.rule_matches(ws, key)
        return LoadStatus(bool(matches), len(matches), matches[0] if matches else None,
                          scoped=True, why_not=None if matches else "its globs match no file")

    def glob_matches(self, ws: Workspace, rule: str, pattern: str) -> list[str]:
        written = WrittenGlob(pattern, Span.at(0, 0), tuple(safe_expand(pattern)))
        return list(glob_files(ws, written, _dialect(ws, self)))

    def glob_has_matches(self, ws: Workspace, rule: str, pattern: str) -> bool:
        written = WrittenGlob(pattern, Span.at(0, 0), tuple(safe_expand(pattern)))
        return glob_has_matches(ws, written, _dialect(ws, self))

    def rule_matches(self, ws: Workspace, rule: str) -> list[str]:
        scoped = self.rule_globs(ws, rule)
        globs = [g for g in (scoped.globs if scoped else ()) if not g.error]
        if any(g.pattern in EVERYTHING for g in globs):
            return list(ws.files)
        return sorted({f for g in globs for f in self.glob_matches(ws, rule, g.pattern)})

    def first_matching_glob(self, ws: Workspace, rule: str, target: str) -> str | None:
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

    def findings(self, ws: Workspace) -> list[Finding]:
        lint = frozenset(ws.lint_documents())
        dialect = _dialect(ws, self)
        out: list[Finding] = []
        if _exists(ws, INSTRUCTIONS):
            out.extend(_plain_findings(ws, INSTRUCTIONS, lint))
        for key in _instruction_files(ws):
            out.extend(_rule_findings(ws, key, dialect, lint, options_of(ws, self)["agent"]))
        for key in _misnamed(ws):
            name = key.rsplit("/", 1)[-1]
            fixed = name[: -len(".md")] + SUFFIX
            out.append(Finding(
                key, Span.at(0, 0), "warning", "unreachable-rule",
                f"Copilot reads only files named `*{SUFFIX}` from `{INSTRUCTIONS_DIR}`, so it "
                f"never reads `{name}`; rename it to `{fixed}`"))
        return out

    # ----- loading ----------------------------------------------------------------------------

    def _explain(self, ws: Workspace, target: str | None,
                 cwd: str) -> tuple[Explanation, set[str]]:
        opts = options_of(ws, self)
        dialect = _dialect(ws, self)
        agent: str = opts["agent"]
        files: list[LoadedFile] = []
        skipped: list[Skipped] = []
        reads: set[str] = set()
        notes: list[str] = []

        def add(key: str, reason: Literal["project", "nested", "scoped"], text: str,
                note: str | None = None) -> None:
            if not text.strip():
                skipped.append(Skipped(key, "empty: it brings nothing", "empty-instructions"))
                return
            files.append(LoadedFile(key, reason, None, 0, len(text), text=text, note=note))

        if _exists(ws, INSTRUCTIONS):
            reads.add(INSTRUCTIONS)
            doc = ws.document(INSTRUCTIONS)
            if doc.unreadable:
                skipped.append(Skipped(INSTRUCTIONS, f"unreadable: {doc.unreadable}",
                                       "unreadable-file"))
            else:
                add(INSTRUCTIONS, "project", doc.text)
        for key in _instruction_files(ws):
            reads.add(key)
            meta = _meta(ws, key)
            doc = ws.document(key)
            if doc.unreadable:
                skipped.append(Skipped(key, f"unreadable: {doc.unreadable}", "unreadable-file"))
                continue
            if meta.problem is not None:
                skipped.append(Skipped(key, f"{meta.problem}; Copilot skips it",
                                       "invalid-frontmatter"))
                continue
            if meta.exclude == agent:
                skipped.append(Skipped(key, f"`excludeAgent: {meta.exclude}` excludes the "
                                            f"{agent} (option `agent`)", "unreachable-rule"))
                continue
            if meta.globs is None:
                skipped.append(Skipped(key, "no `applyTo`: Copilot applies it only when it is "
                                            "attached by hand", "unreachable-rule"))
                continue
            if applies(ws, meta.globs, target, dialect):
                add(key, "scoped", meta.header.body, note=f"applyTo: {meta.apply_to}")
        if opts["useAgentsMd"]:
            start = parent_dir(target) if target is not None else cwd
            nearest = _nearest_agents(ws, start, bool(opts["nestedAgentsMd"]))
            if nearest is not None:
                reads.add(nearest)
                doc = ws.document(nearest)
                owner = parent_dir(nearest) if nearest != AGENTS else ""
                reason: Literal["project", "nested"] = (
                    "project" if owner in directory_chain(cwd) else "nested")
                if doc.unreadable:
                    skipped.append(Skipped(nearest, f"unreadable: {doc.unreadable}",
                                           "unreadable-file"))
                else:
                    add(nearest, reason, doc.text)
                for other in _farther_agents(ws, start, nearest):
                    skipped.append(Skipped(other, f"the nearer `{nearest}` takes precedence",
                                           "instructions-shadowed"))
        if _instruction_files(ws) and dialect.vscode:
            notes.append("applyTo globs match as in VS Code: `**/` before relative globs, "
                         "case ignored")
        elif _instruction_files(ws) and not dialect.any_depth:
            notes.append("a slash-less applyTo glob (`*.ts`) matches top-level files only "
                         "(slashlessMatchesAnyDepth = false; unconfirmed)")
        return Explanation(
            profile=self.name, root=ws.root, cwd=cwd or ".", target=target, max_chars=0,
            files=files, left_out=[], skipped=skipped, notice=None,
            requested_chars=sum(f.chars for f in files), budget=Budget("none", "chars", 0),
            notes=tuple(notes)), reads


def _dialect(ws: Workspace, profile: CopilotProfile) -> Dialect:
    opts = options_of(ws, profile)
    return Dialect(bool(opts["slashlessMatchesAnyDepth"]), bool(opts["vscodeGlobs"]))


def _exists(ws: Workspace, key: str) -> bool:
    if key in ws.files:
        return True
    full = ws.abs(key)
    return ws.reader.exists(full) and not ws.reader.is_dir(full)


def _instruction_files(ws: Workspace) -> list[str]:
    return files_named(ws, FILES_NAMED.key("copilot", "instructions"),
                       ws.files.under(INSTRUCTIONS_DIR),
                       lambda p: p.startswith(INSTRUCTIONS_DIR) and p.endswith(SUFFIX))


def _misnamed(ws: Workspace) -> list[str]:
    """Markdown files in `.github/instructions/` that are not `*.instructions.md`."""
    return files_named(
        ws, FILES_NAMED.key("copilot", "misnamed"), ws.files.under(INSTRUCTIONS_DIR),
        lambda p: p.startswith(INSTRUCTIONS_DIR) and p.endswith(".md") and not p.endswith(SUFFIX)
        and p.rsplit("/", 1)[-1].lower() != "readme.md")


def _nearest_agents(ws: Workspace, start: str, nested: bool) -> str | None:
    if not nested:
        return AGENTS if _exists(ws, AGENTS) else None
    for directory in ancestry(start):
        key = join(directory, AGENTS)
        if _exists(ws, key):
            return key
    return None


def _farther_agents(ws: Workspace, start: str, nearest: str) -> list[str]:
    owner = parent_dir(nearest) if nearest != AGENTS else ""
    out: list[str] = []
    for directory in ancestry(owner)[1:]:
        key = join(directory, AGENTS)
        if _exists(ws, key):
            out.append(key)
    return out


def _meta(ws: Workspace, key: str) -> _Meta:
    cache_key = _META.key(key)
    cached = ws.derived.get(cache_key)
    if cached is not None:
        return cached
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
    cached = _Meta(header, apply_to, globs, problem, problem_span, exclude,
                   header.key_spans.get("excludeAgent"))
    ws.derived.put(cache_key, cached, reads=(key,))
    return cached


# ----- findings -------------------------------------------------------------------------------


def _plain_findings(ws: Workspace, key: str, lint: frozenset[str]) -> list[Finding]:
    if key in lint:
        return []
    doc = ws.document(key)
    if doc.unreadable:
        return [Finding(key, Span.at(0, 0), "error", "unreadable-file",
                        f"`{key}` cannot be used: {doc.unreadable}. Copilot skips it.")]
    if not doc.text.strip():
        return [Finding(key, Span.at(0, 0, len(doc.lines[0])), "warning", "empty-instructions",
                        "this instructions file is empty; add content or delete it")]
    return []


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
    doc = ws.document(key)
    if doc.unreadable:
        return _plain_findings(ws, key, lint)
    meta = _meta(ws, key)
    out: list[Finding] = []
    if meta.problem is not None:
        span = meta.problem_span or Span.at(0, 0, 3)
        return [Finding(key, span, "error", "invalid-frontmatter",
                        f"{meta.problem}. Copilot cannot read this header, so it skips the file")]
    if meta.exclude is not None and meta.exclude not in AGENT_NAMES:
        out.append(Finding(
            key, meta.exclude_span or Span.at(0, 0, 3), "warning", "invalid-frontmatter",
            f"`excludeAgent: {meta.exclude}` names no Copilot agent, so it excludes nothing; "
            f"use `coding-agent` or `code-review`"))
    if not meta.header.body.strip():
        out.append(Finding(key, Span.at(0, 0, len(doc.lines[0])), "warning",
                           "empty-instructions",
                           "this instructions file has no content after its header; add "
                           "content or delete it"))
    if meta.globs is None:
        out.append(Finding(
            key, meta.header.key_spans.get("applyTo", Span.at(0, 0, len(doc.lines[0]))),
            "information", "unreachable-rule",
            "no `applyTo`: Copilot applies this file only when it is attached by hand; add "
            "`applyTo: \"**\"` for every file, or globs to scope it"))
        return out
    live = [g for g in meta.globs if g.error is None and g.pattern not in EVERYTHING]
    everything = any(g.pattern in EVERYTHING for g in meta.globs)
    dead = [g for g in live if not glob_has_matches(ws, g, dialect)]
    for glob in meta.globs:
        if glob.error:
            out.append(Finding(key, glob.span, "error", "invalid-glob",
                               f"`{glob.pattern}`: {glob.error}"))
    for glob in dead:
        alive = everything or len(dead) < len(live)
        tail = (" The file still applies through its other globs." if alive else
                " No glob of this file matches, so Copilot never applies it.")
        hint = ""
        if not dialect.vscode and not dialect.any_depth and "/" not in glob.pattern:
            hint = (f" A slash-less glob matches only at the root here; `**/{glob.pattern}` "
                    f"matches at any depth.")
        out.append(Finding(
            key, glob.span, "information" if alive else "warning", "unmatched-glob",
            f"`{glob.pattern}` matches no file in the workspace (`applyTo` globs are relative "
            f"to the workspace root).{tail}{hint}"))
    return out
