"""Rule frontmatter and globs: YAML errors, the globs key's types (the default model's
`paths`: `Layout.syntax`), foreign keys, bad or unmatched globs, and rules the loader never reads
from where they are."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Final

from rulemap.derived import MISSING, KeyFamily
from rulemap.globs import literal_prefix
from rulemap.model import Finding, Fix, Glob, Hint, Span
from rulemap.profiles.base import Profile, directory_chain, invalid_glob, selected
from rulemap.suggest import DirectoryIndex, similar

if TYPE_CHECKING:
    from rulemap.workspace import RuleInfo, Workspace

FOREIGN_KEYS = {"globs": "Cursor", "applyTo": "GitHub Copilot", "trigger": "Windsurf"}

_FINDINGS: Final = KeyFamily[list[Finding]]("frontmatter-findings")  # rule
_NEAR_GLOB: Final = KeyFamily[str | None]("near-glob")  # rule, pattern
_DIRECTORY_INDEX: Final = KeyFamily[DirectoryIndex]("directory-index")  # base directory


def check(ws: Workspace) -> list[Finding]:
    chain = frozenset(directory_chain(ws.config.cwd))
    out: list[Finding] = []
    for rule in ws.rules:
        # a rule's findings read only the rule and the file list (a create or delete drops
        # every derived value): an edit elsewhere re-checks none of the 200 rules
        key = _FINDINGS.key(rule.path)
        found = ws.derived.get(key)
        if found is None:
            found = ws.derived.put(key, _rule_findings(ws, rule, chain), reads=(rule.path,))
        out.extend(found)
    return out


def _rule_findings(ws: Workspace, rule: RuleInfo, chain: frozenset[str]) -> list[Finding]:
    out: list[Finding] = []
    for _ in (rule,):  # one pass; `continue` ends it, as in a loop over rules
        doc = ws.document(rule.path)
        if doc.unreadable:
            continue
        fm = doc.frontmatter
        path = rule.path
        if fm.error:
            out.append(Finding(path, fm.error_span or Span.at(0, 0, 3), "error",
                               "invalid-frontmatter", f"{fm.error}. The loader skips this rule."))
            continue
        data = fm.data or {}
        globs_key = ws.layout.syntax.globs_key
        key_span = fm.key_spans.get(globs_key, Span.at(0, 0, 3))
        if doc.rule_skip:
            kind = type(data.get(globs_key)).__name__
            out.append(Finding(path, key_span, "error", "invalid-frontmatter",
                               f"{doc.rule_skip}, not {kind}. The loader skips this rule."))
            continue
        if globs_key in data and doc.globs is None:
            out.append(Finding(path, key_span, "warning", "invalid-frontmatter",
                               f"`{globs_key}` is empty, so this rule loads for every file; "
                               "list globs or remove the key"))
        if globs_key not in data and not _always_applies(data):
            for key, tool in FOREIGN_KEYS.items():
                if key in data and key != "trigger" and not _matches_everything(data[key]):
                    out.append(Finding(
                        path, fm.key_spans.get(key, Span.at(0, 0, 3)), "warning",
                        "invalid-frontmatter",
                        f"`{key}` is {tool}'s key; this loader reads only `{globs_key}`, so the "
                        f"rule loads for every file. Add `{globs_key}:` with the same globs to "
                        f"scope it."))
        if rule.owner not in chain:
            rules_dir = ws.layout.rules_dir
            where = f"{rule.owner}/{rules_dir}" if rule.owner else rules_dir
            cwd = ws.config.cwd
            out.append(Finding(
                path, Span.at(0, 0, len(doc.lines[0])), "warning", "unreachable-rule",
                f"rules are read from the `{rules_dir}` of the directories from the root down "
                f"to the cwd (`{cwd}`); `{where}` is below it, so this rule never loads. Move it "
                f"to the root's `{rules_dir}` (prefixing its globs with `{rule.owner}/`), or "
                f"set `cwd`."))
        live = [g for g in doc.globs or [] if not g.error and not g.pattern.startswith("!")]
        reading = _readers(ws, path)  # asked once per rule: every profile's `reads` each time
        blind = _unmatched_for(ws, path, live, reading)
        readers = len(reading)
        dead = {g for g, names in blind.items() if len(names) == readers}
        for glob in doc.globs or []:
            if glob.error:
                out.append(invalid_glob(path, glob))
                continue
            if glob.pattern.startswith("!"):
                continue
            if id(glob) in blind and id(glob) not in dead:
                out.append(_unmatched_for_some(ws, rule, glob, live, blind))
                continue
            if id(glob) in dead:
                base = f"`{rule.owner}/`" if rule.owner else "the root"
                # A dead glob next to live ones is harmless (often a spelled-out `{ts,tsx}`
                # or a file type the repo may gain); only a rule that can never load warns.
                alive = len(dead) < len(live)
                tail = (" The rule still loads through its other globs." if alive else
                        " No glob of this rule matches, so it never loads.")
                # the closest glob that matches is looked for only where it is shown
                out.append(Finding(
                    path, glob.span, "information" if alive else "warning", "unmatched-glob",
                    f"`{glob.pattern}` matches no file in the workspace (globs are relative to "
                    f"{base}).{tail}", hint=Hint(NEAR_GLOB, (glob.pattern,))))
    return out


def _readers(ws: Workspace, rule: str) -> list[Profile]:
    """The selected agents that read `rule` (none selected that do: the workspace's matcher
    stands for them all, as one reader)."""
    return [p for p in selected(ws) if p.reads(ws, rule)]


def _unmatched_for(
    ws: Workspace, rule: str, live: list[Glob], readers: list[Profile]
) -> dict[int, list[str]]:
    """For each live glob of `rule` that some reader (`_readers`) matches no file with, in its
    own dialect, the names of those readers (Claude Code folds case and drops a trailing
    `/**`: `SRC/**` matches `src/a.ts` for it, nothing for the default model)."""
    own = [p for p in readers if p.own_glob_dialect]
    out: dict[int, list[str]] = {}
    for glob in live:
        workspace_dead = not ws.glob_has_matches(rule, glob.pattern)
        if not readers:
            if workspace_dead:
                out[id(glob)] = []
            continue
        names = [
            p.name for p in readers
            if (not p.glob_has_matches(ws, rule, glob.pattern) if p in own else workspace_dead)
        ]
        if names:
            out[id(glob)] = names
    return out


def _unmatched_for_some(
    ws: Workspace, rule: RuleInfo, glob: Glob, live: list[Glob], blind: dict[int, list[str]]
) -> Finding:
    """A glob one reader of the rule matches files with and another does not: named after the
    agents it matches nothing for (a warning when no other glob loads the rule for them)."""
    names = blind[id(glob)]
    readers = _readers(ws, rule.path)
    seeing = [p.title for p in readers if p.name not in names]
    titles = [p.title for p in readers if p.name in names]
    never = all(
        any(n in blind.get(id(g), ()) for n in names) for g in live
    )
    base = f"`{rule.owner}/`" if rule.owner else "the root"
    who = " and ".join(titles)
    tail = (f" No glob of this rule matches for {who}, so it never loads there." if never
            else f" The rule still loads for {who} through its other globs.")
    return Finding(
        rule.path, glob.span, "warning" if never else "information", "unmatched-glob",
        f"{', '.join(names)}: `{glob.pattern}` matches no file in the workspace as "
        f"{' and '.join(titles)} {_verb(titles)} globs (relative to {base}); "
        f"{' and '.join(seeing)} {_verb(seeing)} it.{tail}",
        profile=names[0] if len(names) == 1 else None,
    )


def _verb(subjects: list[str]) -> str:
    return "matches" if len(subjects) == 1 else "match"


# Written forms of "every file": a foreign key with these scopes nothing, so a rule that has
# only it is meant to load everywhere (Cratis: `applyTo: "**/*"`).
EVERYTHING = {"*", "**", "**/*", "/**", "/**/*", "./**", "./**/*", "**/**", "**/*.*"}


def _globs_of(value: object) -> list[str] | None:
    """A foreign key's globs (a list, or a comma-separated string), or None if not globs."""
    if isinstance(value, str):
        return [p.strip() for p in value.split(",") if p.strip()]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [v.strip() for v in value if v.strip()]
    return None


def _matches_everything(value: object) -> bool:
    """True when the key scopes nothing: empty, null, or only every-file globs."""
    if value is None:
        return True
    globs = _globs_of(value)
    if globs is None:
        return False
    return all(g in EVERYTHING for g in globs)


def _always_applies(data: dict[str, object]) -> bool:
    """Cursor's `alwaysApply: true` or Windsurf's `trigger: always_on`: meant for every file."""
    return data.get("alwaysApply") is True or data.get("trigger") == "always_on"


def _requote(line: str, span: Span, new: str) -> str:
    written = line[span.start.col : span.end.col] if span.start.line == span.end.line else ""
    if written[:1] in ("'", '"') and written[-1:] == written[:1]:
        return written[0] + new + written[0]
    return new


NEAR_GLOB = "near-glob"  # the hint of an unmatched glob: a close glob that does match


def near_glob(ws: Workspace, finding: Finding) -> Finding:
    """The unmatched-glob `finding` with its did-you-mean: a close glob that does match, in
    the message and as a fix (itself when there is none)."""
    assert finding.hint is not None
    pattern = finding.hint.args[0]
    fix = near_match(ws, finding.path, pattern)
    if fix is None:
        return replace(finding, hint=None)
    line = ws.document(finding.path).lines[finding.span.start.line]
    new = _requote(line, finding.span, fix)
    return replace(
        finding, message=f"{finding.message} Did you mean `{fix}`?", hint=None,
        fixes=[*finding.fixes,
               Fix(f"Change the glob to `{fix}`", "replace", finding.path, finding.span, new)])


def near_match(ws: Workspace, rule: str, pattern: str) -> str | None:
    """A close glob that does match (cached until a file is created or deleted, or the rule
    changes)."""
    key = _NEAR_GLOB.key(rule, pattern)
    cached = ws.derived.get(key, MISSING)
    if cached is not MISSING:
        return cached
    return ws.derived.put(key, _find_near_match(ws, rule, pattern), reads=(rule,))


def _find_near_match(ws: Workspace, rule: str, pattern: str) -> str | None:
    """A close glob that does match: anywhere-depth, or a close existing directory prefix.

    Looked up in a directory index (`suggest.DirectoryIndex`), so a hundred dead globs in a
    20,000-directory workspace cost milliseconds, not a pass over every directory."""
    owner = ws.rule_owner(rule) or ""
    base = f"{owner}/" if owner else ""
    index = _directory_index(ws, base)
    body = pattern.lstrip("/")
    prefix = literal_prefix(pattern)
    rest = body[len(prefix):]
    if prefix and not pattern.startswith("**/"):
        # `src/x/**` where only `packages/a/src/x/` exists: the glob wants `**/` in front
        for directory in index.ending_with(prefix, MAX_TRIED):
            if ws.glob_matches(rule, directory + rest, limit=1):
                return "**/" + body
    if prefix:
        for candidate in index.near(prefix):
            if not _same_leaf(prefix, candidate):
                continue  # `features/canvas/` is not a typo of `research/`
            fixed = candidate + rest
            if ws.glob_matches(rule, fixed, limit=1):
                return fixed
    return None


MAX_TRIED = 16  # directories tried for one suggestion


def _same_leaf(written: str, candidate: str) -> bool:
    """The last directory names look alike (a typo or a moved directory, not another one)."""
    a = written.rstrip("/").rsplit("/", 1)[-1].lower()
    b = candidate.rstrip("/").rsplit("/", 1)[-1].lower()
    return a == b or similar(a, b, 0.6)


def _directory_index(ws: Workspace, base: str) -> DirectoryIndex:
    """The directories below `base` (relative to it), cached until a file is created or
    deleted."""
    key = _DIRECTORY_INDEX.key(base)
    cached = ws.derived.get(key)
    if cached is None:
        cut = len(base)
        cached = DirectoryIndex(f[cut:] for f in ws.files.under(base))
        ws.derived.put(key, cached, reads=())  # only the file list: kept until a create/delete
    return cached
