"""What Claude Code alone suffers in a workspace (docs/profiles/claude-code.md#findings).

Found in the loads Claude Code really does from the configured `cwd` (start-up, each nested
directory with memory files, each scoped rule on top of start-up), so a file it never reads
gets nothing. The syntax of imports, YAML and unreadable files are the generic checks'."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, Final

from rulemap.derived import KeyFamily, ReadSet, read_set
from rulemap.model import Finding, Fix, ImportStatus, Related, Span
from rulemap.profiles.base import directory_chain, selected
from rulemap.profiles.claude_code import imports as claude_imports
from rulemap.profiles.claude_code.load import ClaudeLoad
from rulemap.profiles.claude_code.loader import ClaudeLoader, LoadKey, normalize, strictly_below
from rulemap.profiles.claude_code.names import (
    AGENTS_MD,
    LOCAL_MD,
    MEMORY_NAMES,
    name_index,
    probe,
)
from rulemap.profiles.claude_code.options import (
    CLAUDE_MD_AND_AGENTS_MD,
    CLAUDE_MD_OR_AGENTS_MD,
    Options,
)
from rulemap.profiles.pointers import points_only_to
from rulemap.text.markdown import scan

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

# chain, rule, options, home → start-up plus that scoped rule
_SCOPED_RULE: Final = KeyFamily[ClaudeLoad]("claude-code-scoped-rule")
_LINK_FINDINGS: Final = KeyFamily[list[Finding]]("claude-code-link-findings")  # link, cwd, …
# document, cwd, options, cogitator too, home → (its findings, what they read)
_DOC_FINDINGS: Final = KeyFamily[tuple[list[Finding], ReadSet]]("claude-code-doc-findings")
_SHADOW: Final = KeyFamily[Finding]("claude-code-shadow")  # AGENTS.md, cwd, options


def misplaced(ws: Workspace) -> list[Finding]:
    """A `CLAUDE.local.md` inside a `.claude/` directory: Claude Code's memory files of a
    directory are its `CLAUDE.md`, `.claude/CLAUDE.md` and `CLAUDE.local.md` (the docs'
    table of memory locations), so `.claude/CLAUDE.local.md` is no file of the project's own
    directory; Claude Code reads it only as the local memory of the `.claude` directory
    itself, when it reads a file there."""
    out: list[Finding] = []
    for directory, names in sorted(name_index(ws).items()):
        owner, _, last = directory.rpartition("/")
        key = names.get(LOCAL_MD)
        if last != ".claude" or key is None:
            continue
        there = f"`{owner}/{LOCAL_MD}`" if owner else f"`{LOCAL_MD}` at the root"
        of = f"`{owner}/`" if owner else "the project root"
        out.append(Finding(
            key, Span.at(0, 0), "warning", "misplaced-file",
            f"Claude Code reads `{LOCAL_MD}` beside `.claude/`, not in it (its memory files of "
            f"a directory are `CLAUDE.md`, `.claude/CLAUDE.md` and `{LOCAL_MD}`), so "
            f"`{key}` is not the local memory of {of}: it loads only when Claude reads a file "
            f"in `{directory}/`. Move it to {there}"))
    return out


def check(ws: Workspace, profile: ClaudeLoader) -> list[Finding]:
    opts = profile.settings_of(ws)
    cwd = normalize(ws.config.cwd)
    cogitator = any(p.name == "cogitator" for p in selected(ws))
    chain = directory_chain(cwd)
    out: list[Finding] = []
    by_dir: dict[str, ClaudeLoad] = {}
    # each link's own files' findings, kept with the link: an edit recomputes the links that
    # read the edited file (a document loaded in two links is reported by both; finalize
    # keeps one)
    for key, link in _links(ws, profile, chain, opts, by_dir):
        out.extend(_link_findings(ws, profile, key, link, cwd, opts, cogitator))
    out.extend(_shadowed(ws, cwd, opts, by_dir))
    return out


def _links(
    ws: Workspace, profile: ClaudeLoader, chain: list[str], opts: Options,
    by_dir: dict[str, ClaudeLoad],
) -> list[tuple[LoadKey, ClaudeLoad]]:
    """The links whose own files are all Claude Code ever loads from cwd: start-up, the link
    of every directory below cwd with memory files (or an AGENTS.md; the links of directories
    without any add no file), and every scoped rule of root → cwd on top of start-up.
    Fills `by_dir` with the load in force in each of those directories."""
    cwd = chain[-1]
    start_key, start = profile.startup(ws, chain, opts)
    out = [(start_key, start)]
    by_dir.update(dict.fromkeys(chain, start))
    for directory in sorted(name_index(ws)):
        if strictly_below(directory, cwd):
            key, load = profile.nested(ws, chain, directory, opts)
            by_dir[directory] = load
            out.append((key, load))
    for directory in chain:
        for rule in ws.rules_of(directory):
            # rules.py only when there is a rule
            from rulemap.profiles.claude_code.rules import rule_globs

            doc = ws.document(rule)
            if doc.rule_skip or rule_globs(ws, rule, doc, opts.case_sensitive).unconditional:
                continue
            out.append(_scoped_load(ws, chain, rule, opts, start_key, start))
    return out


def _scoped_load(
    ws: Workspace, chain: list[str], rule: str, opts: Options, start_key: LoadKey,
    start: ClaudeLoad,
) -> tuple[LoadKey, ClaudeLoad]:
    key = _SCOPED_RULE.key(tuple(chain), rule, opts, claude_imports.home_root(ws))
    cached = ws.derived.get(key)
    if cached is None:
        cached = start.child()
        cached.add(rule, "scoped")
        ws.derived.put(key, cached, reads=cached.own_reads, after=[start_key])
    return key, cached


def _link_findings(
    ws: Workspace, profile: ClaudeLoader, link_key: LoadKey, link: ClaudeLoad, cwd: str,
    opts: Options, cogitator: bool,
) -> list[Finding]:
    key = _LINK_FINDINGS.key(link_key, cwd, cogitator)
    cached = ws.derived.get(key)
    if cached is not None:
        return cached
    out: list[Finding] = []
    reads: set[str] = set()
    for entry in link.own_files:
        if entry.path.startswith("/"):
            continue  # a user-level file: not the workspace's to fix
        found, read = _document_findings(ws, profile, entry.path, cwd, opts, cogitator)
        out.extend(found)
        reads.update(read)
    ws.derived.put(key, out, reads=reads, after=[link_key])
    return out


# ----- one document's findings ---------------------------------------------------------------


def _document_findings(
    ws: Workspace, profile: ClaudeLoader, path: str, cwd: str, opts: Options,
    cogitator: bool,
) -> tuple[list[Finding], ReadSet]:
    """One loaded document's findings, and what they read."""
    key = _DOC_FINDINGS.key(path, cwd, opts, cogitator, claude_imports.home_root(ws))
    cached = ws.derived.get(key)
    if cached is not None:
        return cached
    doc = ws.document(path)
    out: list[Finding] = []
    reads = {path}
    limit = opts.size_warning
    if doc.chars > limit:
        out.append(_too_large(path, doc.chars, limit,
                              _line_at(doc.brought, doc.kept_lines, limit), doc.lines))
    claude = claude_imports.resolved_imports(ws, path, False)
    if claude or "@" in doc.text:
        reads.update(t.key for _, t in claude if not t.home)
        theirs = {ref.offset: (ref, res) for ref, res in ws.imports(path)}
        reads.update(res.target for _, res in theirs.values())
        also = "; cogitator loads it" if cogitator else ""
        if cogitator:
            for offset in sorted(claude_imports.in_indented_code(ws, path)):
                found = theirs.get(offset)
                if found is None or found[1].status is not ImportStatus.OK:
                    continue
                ref = found[0]
                out.append(Finding(
                    path, ref.span, "warning", "import-not-followed",
                    f"Claude Code does not import `@{ref.raw}`: the line is indented 4 spaces "
                    f"(or a tab), which Markdown reads as a code block{also}. Unindent it to "
                    f"import it for both, or put it in a fenced block (```) so that neither "
                    f"imports it"))
        settings = profile.load_settings(ws, cwd, opts)
        real_dir = posixpath.dirname(ws.identity(path))
        lexical_dir = posixpath.dirname(ws.abs(path))
        for token, target in claude:
            ref = token.ref
            other = theirs.get(ref.offset)
            other_ok = other is not None and other[1].status is ImportStatus.OK
            if target.status == "extension":
                extension = posixpath.splitext(target.key)[1]
                out.append(Finding(
                    path, ref.span, "warning", "import-not-followed",
                    f"Claude Code ignores `@{ref.raw}`: it follows imports of text files "
                    f"only, and `{extension}` is not one of them, so `{target.key}` never loads "
                    f"for Claude Code{also if other_ok else ''}. Copy what matters into a "
                    f"`.md` file and import that"))
            elif target.status == "missing" and other_ok and other is not None:
                if token.fragment:
                    out.append(Finding(
                        path, ref.span, "warning", "broken-import",
                        f"Claude Code reads `{token.fragment}` in `@{ref.raw}` as a fragment "
                        f"and looks for `{target.key}`, which does not exist, so it drops the "
                        f"import silently (`{other[1].target}` exists"
                        f"{', and cogitator loads it' if cogitator else ''}). Rename the file "
                        f"without `#`"))
                elif real_dir != lexical_dir:
                    out.append(Finding(
                        path, ref.span, "warning", "broken-import",
                        f"Claude Code resolves `@{ref.raw}` from where this file really is "
                        f"(`{real_dir}`: it is a symlink), and `{target.key}` does not exist "
                        f"there, so it drops the import silently (from the link's own "
                        f"directory it is `{other[1].target}`). Use a path that works from "
                        f"both, or link the imported file next to the real one"))
            elif (
                target.status == "ok"
                and cwd
                and not opts.approve_external
                and not target.home
                and not target.key.startswith("/")
                and settings.external(target)
            ):
                out.append(Finding(
                    path, ref.span, "warning", "import-outside-workspace",
                    f"Claude Code launched in `{cwd}` asks once before it loads an import "
                    f"from outside that directory, and drops it until you approve: "
                    f"`{target.key}` is outside `{cwd}`. Approve it in Claude Code (then set "
                    f"approveExternalImports = true under [profiles.claude-code]), or move "
                    f"the file below `{cwd}`"))
    kept = read_set(reads)  # one object, the entry's read set and the answer's
    result = (out, kept)
    ws.derived.put(key, result, reads=kept)
    return result


def _too_large(path: str, chars: int, limit: int, line: int, lines: list[str]) -> Finding:
    end = len(lines[line]) if line < len(lines) else 0
    return Finding(
        path, Span.at(line, 0, end), "warning", "file-too-large",
        f"this file has {chars:,} characters; Claude Code warns from "
        f"{limit:,} (line {line + 1} is where that is reached) that a large "
        f"memory file hurts performance, though it still loads it whole. Split it: move "
        f"sections into .claude/rules files with `paths`, or into files imported where needed")


def _line_at(brought: str, kept_lines: list[int], offset: int) -> int:
    """The original line holding brought character `offset`."""
    line = brought.count("\n", 0, offset)
    if not kept_lines:
        return line
    return kept_lines[min(line, len(kept_lines) - 1)]


# ----- AGENTS.md that Claude Code does not read ----------------------------------------------


def _shadowed(
    ws: Workspace, cwd: str, opts: Options, by_dir: dict[str, ClaudeLoad]
) -> list[Finding]:
    if opts.instruction_files == CLAUDE_MD_AND_AGENTS_MD:
        return []
    out: list[Finding] = []
    chain = directory_chain(cwd)
    index = name_index(ws)
    memory: set[str] | None = None
    for directory, names in sorted(index.items()):
        agents = names.get(AGENTS_MD)
        load = by_dir.get(directory)
        if agents is None or load is None:
            continue
        if not any(s.path == agents and s.code == "instructions-shadowed"
                   for s in load.own_skipped):
            continue
        if memory is None:  # once per check: 1,750 shadowed files rebuilt it 1,750 times
            memory = {key for names in index.values() for name, key in names.items()
                      if name in MEMORY_NAMES}
        if _points_back(ws, agents, memory):
            continue
        key = _SHADOW.key(agents, cwd, opts)
        finding = ws.derived.get(key)
        if finding is None:
            finding = _shadow_finding(ws, agents, directory, chain, cwd, opts)
            ws.derived.put(key, finding, reads=[agents, *(r.path for r in finding.related)])
        out.append(finding)
    return out


# Stricter than link-only's bound: skipping a shadowed file that holds a sentence of its own
# would hide an instruction Claude Code never gets ("Please read CLAUDE.md for context" is 5)
POINTER_BACK_WORDS = 12


def _points_back(ws: Workspace, agents: str, memory: set[str]) -> bool:
    """Whether `agents` only points to memory files (`memory`: "Please read `./CLAUDE.md`"):
    Claude Code loses nothing by skipping it, and importing it would import a pointer to the
    file itself."""
    targets = points_only_to(ws, agents, memory, max_words=POINTER_BACK_WORDS)
    return bool(targets) and all(target in memory for target, _ in targets)


def _shadow_finding(
    ws: Workspace, agents: str, directory: str, chain: list[str], cwd: str, opts: Options
) -> Finding:
    doc = ws.document(agents)
    span = Span.at(0, 0, len(doc.lines[0]))
    index = name_index(ws)
    own = index.get(directory, {})
    shadow = next((own[n] for n in MEMORY_NAMES if n in own), None)
    mode = opts.instruction_files
    if shadow is None and mode == CLAUDE_MD_OR_AGENTS_MD:
        for above in reversed(chain):
            present = index.get(above) or probe(ws, above)
            shadow = next((present[n] for n in MEMORY_NAMES if n in present), None)
            if shadow is not None:
                break
    name = f"`{directory}/CLAUDE.md`" if directory else "`CLAUDE.md`"
    if mode != CLAUDE_MD_OR_AGENTS_MD:
        head = f'Claude Code does not read AGENTS.md (instructionFiles = "{mode}")'
        if opts.managed_only:  # no project file loads at start-up: an import would not help
            return Finding(agents, span, "warning", "instructions-shadowed",
                           f"{head}: at start-up it loads only managed policy files and auto "
                           f"memory; put these instructions in the managed CLAUDE.md or choose "
                           f"another instructionFiles mode")
    else:
        head = (f"AGENTS.md is not read here because `{shadow}` exists (Claude Code reads "
                f"AGENTS.md only where no CLAUDE.md, .claude/CLAUDE.md or CLAUDE.local.md "
                f"exists in the launch directory or above)")
    related = []
    if shadow is not None:
        related.append(Related(shadow, Span.at(0, 0, len(ws.document(shadow).lines[0])),
                               "Claude Code reads this file instead of AGENTS.md"))
    in_dir = shadow is not None and shadow in own.values()
    fixes: list[Fix] = []
    approval = ""
    if not strictly_below(directory, cwd) and directory != cwd and not opts.approve_external:
        approval = (f" (Claude Code launched in `{cwd}` asks once to approve that import, "
                    f"as it is outside the launch directory)")
    if in_dir and shadow is not None:
        token = "@" + posixpath.relpath(agents, posixpath.dirname(shadow)).replace(" ", "\\ ")
        message = f"{head}; add `{token}` to `{shadow}`{approval}"
        fix = _append_fix(ws, shadow, token)
        if fix is not None:
            fixes.append(fix)
    else:
        message = f"{head}; create {name} containing `@AGENTS.md`{approval}"
    return Finding(agents, span, "warning", "instructions-shadowed", message, related=related,
                   fixes=fixes)


def _append_fix(ws: Workspace, path: str, token: str) -> Fix | None:
    """`token` on a line of its own at the end of `path`, when that is safe: the file is no
    symlink (the edit would land elsewhere, and the import resolve from there) and does not
    end inside a code block or an HTML comment (where the token would be no import)."""
    if ws.canonical(path) != path:
        return None
    doc = ws.document(path)
    if doc.unreadable:
        return None
    result = scan(doc.text, 0, doc.lines, indented_code=True, imports=ws.layout.syntax.imports)
    last = len(doc.lines) - 1
    tail = last if doc.lines[last] else last - 1
    if tail >= 0 and (tail in result.code_lines or tail in result.comment_lines):
        return None
    if not doc.text:
        new_text = token + "\n"
    elif doc.text.endswith(("\n", "\r")):
        new_text = "\n" + token + "\n"
    else:
        new_text = "\n\n" + token + "\n"
    end = Span.at(last, len(doc.lines[last]))
    return Fix(f"Add `{token}` to {path}", "replace", path, end, new_text)
