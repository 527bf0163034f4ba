"""Hover: on an `@import`, on a rule's `paths` glob, and on any other file (what loads for it)."""

from __future__ import annotations

import re

from lsprotocol import types

from rulemap.host import Snapshot
from rulemap.host.budgets import (
    agent_loads,
    amount,
    budget_line,
    budget_share,
    is_cut,
    limit_name,
    size_of,
    text_size,
    unit_of,
)
from rulemap.host.reach import ImportReach, import_reach
from rulemap.host.selection import lead_agent, selection
from rulemap.host.text import Encoding
from rulemap.lsp.convert import span_contains, to_range
from rulemap.lsp.features._util import (
    code,
    core_pos,
    fenced,
    glob_at,
    link,
    never_raise,
    plural,
    readable_doc,
    relative_import,
    tokens,
)
from rulemap.lsp.features.command_hover import command_hover
from rulemap.lsp.features.reference_hover import reference_hover
from rulemap.lsp.settings import HOVER_MODES, SourceFiles
from rulemap.model import (
    Document,
    Explanation,
    Glob,
    ImportRef,
    ImportStatus,
    LoadedFile,
    Resolved,
    ScopedGlobs,
    Span,
)

SOURCE_FILE_MODES = HOVER_MODES
PREVIEW_LINES = 8
PREVIEW_WIDTH = 120
GLOB_EXAMPLES = 5
AGENT_ROWS = 8  # the agents table of a source-file hover stays this small


@never_raise(lambda: None)
def hover(
    snap: Snapshot,
    key: str,
    pos: types.Position,
    encoding: Encoding = "utf-16",
    source_files: SourceFiles = "firstLine",
) -> types.Hover | None:
    """The hover at `pos` (in `encoding` units) of the file `key`, or None.

    `source_files` (the `rulemap.hover.sourceFiles` setting): where a source file's hover
    shows what loads for it — its first line, everywhere, or off. The snapshot's agent (its
    `profile`) chooses the loading model of the explanations.
    """
    if snap.is_markdown(key):
        doc = readable_doc(snap, key)
        at = core_pos(doc, pos, encoding) if doc is not None else None
        if doc is not None and at is not None:
            found = snap.import_at(key, at)
            if found is not None:
                return _import_hover(snap, key, doc, found[0], found[1], encoding)
            referenced = reference_hover(snap, key, doc, at, encoding)
            if referenced is not None:
                return referenced
            scoped = snap.rule_globs(key)
            if scoped is not None:
                glob = glob_at(scoped.globs, at)
                if glob is not None:
                    return _glob_hover(snap, key, doc, scoped, glob, encoding)
                globs_key = doc.frontmatter.key_spans.get(scoped.key)
                if globs_key is not None and span_contains(globs_key, at):
                    return _globs_key_hover(snap, key, doc, scoped, globs_key, encoding)
            command = command_hover(snap, key, doc, at, encoding)
            if command is not None:
                return command
        if snap.is_instruction(key):
            return None
    mode = source_files if source_files in SOURCE_FILE_MODES else "firstLine"
    if mode == "off" or (mode == "firstLine" and pos.line != 0) or key.startswith("/"):
        return None
    return _source_hover(snap, key)


def _markdown(text: str, range_: types.Range | None = None) -> types.Hover:
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text), range=range_
    )


# ----- @import ------------------------------------------------------------------------------


def _import_hover(
    snap: Snapshot,
    key: str,
    doc: Document,
    ref: ImportRef,
    resolved: Resolved,
    encoding: Encoding,
) -> types.Hover:
    target = resolved.target
    status = resolved.status
    shown = (
        link(snap, target) if status in (ImportStatus.OK, ImportStatus.DIRECTORY) else code(target)
    )
    parts = [f"**{code('@' + ref.raw)}** → {shown}"]
    if status is ImportStatus.MISSING:
        line = f"✗ `{target}` does not exist, so the loader skips this import"
        suggestion = snap.closest_path(target)
        if suggestion:
            line += f"; did you mean {code('@' + relative_import(suggestion, key))}?"
        parts.append(line)
    elif status is ImportStatus.DIRECTORY:
        parts.append("✗ this is a directory; imports name files, so the loader skips it")
    elif status is ImportStatus.HOME:
        parts.append(
            "✗ skipped: it is in the home directory, outside the workspace (grant it in your "
            "user configuration's `allowImportsFrom` to load it)"
        )
    elif status is ImportStatus.OUTSIDE:
        via = " through a symlink" if resolved.identity else ""
        parts.append(
            f"✗ skipped: it points outside the workspace{via} and is not under a directory you "
            f"granted (`allowImportsFrom` in your user configuration)"
        )
    else:
        target_doc = snap.document(target)
        if target_doc.unreadable:
            parts.append(f"✗ cannot be read: {target_doc.unreadable}")
        else:
            chars = target_doc.chars
            status_text = _load_status(snap, key, ref, target)
            unit = snap.unit()
            # in the selected agent's unit; characters also give the usual token estimate
            size = (f"{chars:,} chars ≈ {plural(tokens(chars), 'token')}" if unit == "chars"
                    else amount(text_size(target_doc.brought, unit), unit))
            parts.append(f"✓ exists · {size} · {status_text}")
            preview = _preview(target_doc)
            if preview:
                parts.append(fenced(preview))
    return _markdown("\n\n".join(parts), to_range(doc.lines, ref.span, encoding))


def _load_status(snap: Snapshot, importer: str, ref: ImportRef, target: str) -> str:
    """Hop depth in a real load that reaches the importer, or why this import is not read."""
    reach = import_reach(snap, importer, ref, target)
    explanation = reach.explanation
    if reach.kind == "graph" or explanation is None:
        hops = _graph_hops(reach, importer)
        if not reach.importer_loads:
            return f"{hops}, but `{importer}` itself never loads from the cwd"
        return hops
    limit = limit_name(explanation.budget)
    if reach.kind == "read" and reach.entry is not None:
        entry = reach.entry
        unit = unit_of(explanation)
        kept = amount(size_of(entry, unit), unit)
        cut = f" (cut to {kept} by {limit})" if is_cut(entry) else ""
        return f"import hop {entry.depth}{_chain(explanation, entry)}{cut}"
    if reach.kind == "skipped":
        return f"skipped: {reach.why}"
    if reach.kind == "left-out":
        return f"left out: the load is over {limit} before it"
    if reach.kind == "importer-left-out":
        return f"not read: `{importer}` is left out by {limit}"
    return f"not followed: the `{explanation.profile}` loader does not read imports"


def _graph_hops(reach: ImportReach, importer: str) -> str:
    if reach.hop is None:
        return f"not read: nothing that loads imports `{importer}`"
    past = f", past maxImportDepth {reach.max_depth}" if reach.hop > reach.max_depth else ""
    return f"import hop {reach.hop}{past}"


def _chain(explanation: Explanation, entry: LoadedFile) -> str:
    by_path = {f.path: f for f in explanation.files}
    names = [entry.path]
    current: LoadedFile | None = entry
    while current is not None and current.imported_by is not None and len(names) < 12:
        names.append(current.imported_by)
        current = by_path.get(current.imported_by)
    return " (" + " → ".join(code(n) for n in reversed(names)) + ")"


def _preview(doc: Document) -> str:
    lines = [line for line in doc.brought.splitlines()]
    while lines and not lines[0].strip():
        lines.pop(0)
    shown = [
        line if len(line) <= PREVIEW_WIDTH else line[: PREVIEW_WIDTH - 1] + "…"
        for line in lines[:PREVIEW_LINES]
    ]
    if len(lines) > PREVIEW_LINES:
        shown.append(f"… {len(lines) - PREVIEW_LINES:,} more lines")
    return "\n".join(shown).rstrip()


# ----- paths globs --------------------------------------------------------------------------


def _glob_hover(
    snap: Snapshot, rule: str, doc: Document, scoped: ScopedGlobs, glob: Glob,
    encoding: Encoding,
) -> types.Hover:
    base = f"`{scoped.base}/`" if scoped.base else "the workspace root"
    title = f"**{code(glob.pattern)}**"
    range_ = to_range(doc.lines, glob.span, encoding)
    if glob.error:
        return _markdown(f"{title} can never match: {glob.error}", range_)
    if not snap.agent_reads(rule):
        # an agent that never reads this rule has no verdict on its globs
        return _markdown(
            f"{title}: {snap.agent_title()} does not read this rule, so its globs decide nothing "
            f"for it", range_)
    negated = glob.pattern.startswith("!")
    pattern = glob.pattern[1:] if negated else glob.pattern
    # in the selected agent's glob dialect (the profile's, not the workspace's)
    matches = snap.matches(rule, pattern)
    verb = "excludes" if negated else "matches"
    parts = [f"{title} {verb} {plural(len(matches), 'file')} (relative to {base}) · "
             f"{snap.agent_title()}"]
    if matches:
        parts.append(_examples(snap, matches))
    elif not negated:
        near = snap.close_glob(rule, pattern)  # looked for only when shown
        hint = f" Did you mean {code(near)}?" if near else ""
        parts.append(f"No file of the workspace matches it, so it never loads this rule.{hint}")
    if len(scoped.globs) > 1 and not negated:
        total = len(snap.matches(rule))
        parts.append(f"All `{scoped.key}` globs of this rule together match "
                     f"{plural(total, 'file')}.")
    return _markdown("\n\n".join(parts), range_)


def _globs_key_hover(
    snap: Snapshot, rule: str, doc: Document, scoped: ScopedGlobs, span: Span,
    encoding: Encoding,
) -> types.Hover:
    matches = snap.matches(rule)
    parts = [
        f"**`{scoped.key}`**: this rule loads only when an agent works on one of the "
        f"{plural(len(matches), 'file')} its globs match"
    ]
    if matches:
        parts.append(_examples(snap, matches))
    return _markdown("\n\n".join(parts), to_range(doc.lines, span, encoding))


def _examples(snap: Snapshot, matches: list[str]) -> str:
    lines = [f"- {link(snap, m)}" for m in matches[:GLOB_EXAMPLES]]
    if len(matches) > GLOB_EXAMPLES:
        lines.append(f"- … and {len(matches) - GLOB_EXAMPLES:,} more")
    return "\n".join(lines)


# ----- any other file -----------------------------------------------------------------------


def _source_hover(snap: Snapshot, key: str) -> types.Hover:
    explanation = snap.explain(key)
    matched_by = {
        entry.path: _matched_by(snap, entry.path, key)
        for entry in explanation.files
        if entry.reason == "scoped"
    }
    cwd = explanation.cwd
    parts = [
        f"**Instructions an agent loads for {code(key)}** · {explanation.profile} · cwd {code(cwd)}"
    ]
    if not explanation.files and not explanation.left_out:
        parts.append("Nothing: no instruction file or rule applies to this file.")
        # another selected agent loads something for it: say which to pick
        note = lead_agent(snap, key, chosen=explanation.profile).note
        if note:
            parts.append(f"_{note}_")
    rows = []
    # sizes in the agent's unit and its own name for the limit (`project_doc_max_bytes`)
    unit = unit_of(explanation)
    limit = limit_name(explanation.budget)
    for number, entry in enumerate(explanation.files, 1):
        indent = "\u2003" * entry.depth + ("↳ " if entry.depth else "")
        cut = ""
        if entry.cut:
            cut = f" — **cut** by {limit}"
        elif entry.truncated:
            cut = f" — **truncated** at {limit}"
        rows.append(
            f"{number}. {indent}{link(snap, entry.path)} — {_reason(entry, matched_by)} · "
            f"{amount(size_of(entry, unit), unit)}{cut}"
        )
    for path in explanation.left_out:
        rows.append(f"- ~~{link(snap, path)}~~ — **left out**: over {limit}")
    if rows:
        parts.append("\n".join(rows))
    line = f"**{budget_line(explanation)}**{budget_share(explanation)}"
    if unit == "chars":
        line += f" ≈ {plural(tokens(explanation.total_chars), 'token')}"
    parts.append(line)
    if explanation.skipped:
        skipped = [
            f"- {code(s.path)}: {s.why}"
            + (f" (imported by {code(s.importer)}:{(s.line or 0) + 1})" if s.importer else "")
            for s in explanation.skipped[:10]
        ]
        if len(explanation.skipped) > 10:
            skipped.append(f"- … and {len(explanation.skipped) - 10:,} more")
        parts.append("Skipped:\n" + "\n".join(skipped))
    table = _agents_table(snap, key, explanation)
    if table:
        parts.append(table)
    return _markdown("\n\n".join(parts))


@never_raise(lambda: None)
def _agents_table(snap: Snapshot, key: str, shown: Explanation) -> str | None:
    """Every selected agent's load for `key` in one compact table (agent | files | size |
    cut/left out), when they are more than the one detailed above. The explanations come from
    the profiles' caches: a repeated hover recomputes nothing. A failing agent costs this
    table, never the hover."""
    selected = snap.selected_agents()
    if not selected or list(selected) == [shown.profile]:
        return None
    # the configured cwd, as the detailed load above: the same cache entries
    loads = agent_loads(snap, key, selected[:AGENT_ROWS])
    rows = [
        "| agent | files | size | cut / left out |",
        "|---|--:|--:|---|",
    ]
    for load in loads:
        total = amount(load.size, load.unit)
        if load.shared_limit:
            total = f"{load.size:,} / {amount(load.shared_limit, load.unit)}"
        over = []
        if load.cut:
            more = f" +{len(load.cut) - 1}" if len(load.cut) > 1 else ""
            over.append(f"cut {_cell(code(load.cut[0]))}{more}")
        if load.left_out:
            over.append(f"{load.left_out:,} left out")
        name = _cell(load.profile)
        rows.append(
            f"| {'**' + name + '**' if load.profile == shown.profile else name} | "
            f"{load.files:,} | {total} | {' · '.join(over) or '—'} |"
        )
    if len(selected) > AGENT_ROWS:
        rows.append(f"| … {len(selected) - AGENT_ROWS:,} more | | | |")
    why = ", ".join(f"{code(c.name)} ({_plain(c.why)})" for c in selection(snap))
    return "**Every selected agent**\n\n" + "\n".join(rows) + f"\n\nSelected: {why}."


def _plain(text: str) -> str:
    """`text` shown as written in Markdown (a file name's `_` or `*` is no emphasis)."""
    return re.sub(r"([\\`*_{}\[\]<>()#+!|~])", r"\\\1", " ".join(text.split()))


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell (a `|` would end it, even in code)."""
    return text.replace("|", "\\|").replace("\n", " ")


def _matched_by(snap: Snapshot, rule: str, target: str) -> str:
    """`` `paths` matches `src/**` ``: the rule's key (`paths`, `applyTo`, `globs`) and its
    first glob that matches `target`, as the agent matches it ("" when it cannot say)."""
    scoped = snap.rule_globs(rule)
    glob = snap.first_matching_glob(rule, target)
    if scoped is None or not glob:
        return ""
    return f"`{scoped.key}` matches {code(glob)}"


def _reason(entry: LoadedFile, matched_by: dict[str, str]) -> str:
    if entry.reason == "project":
        return "project instructions"
    if entry.reason == "nested":
        directory = entry.path.rsplit("/", 1)[0] if "/" in entry.path else ""
        where = code(directory + "/") if directory else "the workspace root"
        return f"nested: in {where}, above this file"
    if entry.reason == "rule":
        return "rule for every file"
    if entry.reason == "scoped":
        matched = matched_by.get(entry.path)
        if matched:
            return f"rule, {matched}"
        # an agent whose rules scope with another key says which, and how (`applyTo: src/**`)
        return f"rule, {code(entry.note)}" if entry.note else "rule, `paths` matches"
    return f"imported by {code(entry.imported_by or '?')} (hop {entry.depth})"
