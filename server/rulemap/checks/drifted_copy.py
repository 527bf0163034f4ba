"""drifted-copy: two files meant to say the same thing to different agents (an `AGENTS.md`
and a `CLAUDE.md`, a Copilot or Cursor rule copied from one) that are mostly the same
paragraphs but no longer all: reported at each paragraph that differs, in both files.

Which files are meant for which agents is each selected profile's `reads`: two files are a
candidate pair when the agents reading them differ. A symlink (the same real file) and a
file importing the other are not copies. Only pairs sharing at least one paragraph are
compared (an index by line; a line that more than MAX_HOLDERS files hold is boilerplate, not
a sign of a copy), then their paragraph lists are aligned (difflib).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Final

from rulemap.checks.paragraphs import MIN_COMPARED, Paragraph, paragraphs_of
from rulemap.derived import MISSING, KeyFamily
from rulemap.model import Finding, Related, Span
from rulemap.profiles import PROFILES
from rulemap.profiles.base import selected
from rulemap.profiles.documents import read_documents
from rulemap.suggest import lcs_ratio

if TYPE_CHECKING:
    from rulemap.profiles.base import Facts
    from rulemap.workspace import Workspace

# At least this share of the longer file's paragraphs is the same (or nearly: NEAR) in the
# other: below it, two files that share a few paragraphs are two files, not one copied.
MIN_SIMILAR: Final = 0.6
# A paragraph this similar (`lcs_ratio`, rapidfuzz's ratio: 0-100) to its counterpart is the
# same paragraph edited on one side: "there it says ...".
NEAR: Final = 70.0
# A copy that has drifted keeps most paragraphs word for word: pairs with fewer in common
# than this share of the longer file's paragraphs are not aligned at all.
MIN_EXACT: Final = 0.3
MAX_HOLDERS: Final = 8
_QUOTE = 100  # characters of the other side's words shown


def check(ws: Workspace) -> list[Finding]:
    # the files the selected agents read (the list the other checks use), each with every
    # agent Rulemap knows that reads it, selected or not: which files are meant for which
    # agents is a fact of the files (a drifted CLAUDE.md misleads Claude Code all the same);
    # asked of their light facts, so an agent not selected is never made for it
    agents = PROFILES.facts()
    readers: dict[str, frozenset[str]] = {}
    # one real file, whatever names it has (a symlinked rules directory): the agents reading
    # it by any of them, under its first name
    alias: dict[str, str] = {}
    lines: dict[str, frozenset[str]] = {}
    documents = [p for p in read_documents(ws, selected(ws)) if not p.startswith("/")]
    identities = [ws.identity(p) for p in documents]
    scopes = dict(zip(documents, map(scope, documents), strict=True))
    # a file alone in its scope with no other name pairs with nothing (pairs are made within
    # a scope): who reads it is not asked (half the files of the 20,000-file benchmark)
    per_scope = Counter(scopes.values())
    per_identity = Counter(identities)
    for path, identity in zip(documents, identities, strict=True):
        if per_scope[scopes[path]] == 1 and per_identity[identity] == 1:
            continue
        facts = _facts(ws, path, agents)
        if facts is None:
            continue
        who, lines[path] = facts
        real = alias.setdefault(identity, path)
        readers[real] = readers.get(real, frozenset()) | who
    # only files sharing a line (20 characters or more) with a file of the same scope read by
    # other agents are split into paragraphs and compared: one set per file is cheap, a split
    # is not (600 of them are most of this check's cost on the 20,000-file benchmark)
    by_scope: dict[str, list[str]] = defaultdict(list)
    for path in alias.values():
        by_scope[scopes[path]].append(path)
    index: dict[tuple[str, str], list[str]] = defaultdict(list)
    for where, paths in by_scope.items():
        if len({readers[p] for p in paths}) < 2:
            continue
        for path in paths:
            for line in lines[path]:
                index[(where, line)].append(path)
    pairs: set[tuple[str, str]] = set()
    for holders in index.values():
        if len(holders) > MAX_HOLDERS:
            continue
        for i, a in enumerate(holders):
            for b in holders[i + 1:]:
                if readers[a] != readers[b]:
                    pairs.add((a, b) if a < b else (b, a))
    paragraphs: dict[str, tuple[Paragraph, ...]] = {}
    for path in sorted({p for pair in pairs for p in pair}):
        paragraphs[path] = paragraphs_of(ws, path, ws.document(path).brought)
    titles = {p.name: p for p in agents}
    out: list[Finding] = []
    for a, b in sorted(pairs):
        if not _worth_aligning(paragraphs[a], paragraphs[b]) or _not_copies(ws, a, b):
            continue
        out.extend(_drift(ws, a, b, paragraphs[a], paragraphs[b], readers, titles))
    return out


# per document: the agents reading it and its lines long enough to pair it with another file;
# kept until it changes (or a file is created or deleted: who reads what may change), so that
# the check after an edit asks 7 agents about one file, not about 600
_FACTS: Final = KeyFamily[tuple[frozenset[str], frozenset[str]] | None]("drifted-copy-facts")


def _facts(ws: Workspace, path: str, agents: tuple[Facts, ...]
           ) -> tuple[frozenset[str], frozenset[str]] | None:
    key = _FACTS.key(path)
    found = ws.derived.get(key, MISSING)
    if found is not MISSING:
        return found
    doc = ws.document(path)
    who = frozenset(p.name for p in agents if p.reads(ws, path)) if not doc.unreadable else None
    # (one comprehension, the raw length tested first: most lines are short or blank)
    facts = None if not who else (who, frozenset({
        line for raw in (doc.brought.split("\n") if doc.kept_lines else doc.lines)
        if len(raw) >= MIN_COMPARED and len(line := raw.strip()) >= MIN_COMPARED}))
    return ws.derived.put(key, facts, reads=(path,))


def scope(path: str) -> str:
    """The directory a file speaks for: its own, above any dot-directory it sits in (an
    agent's own folder of rules or settings — `.github/…`, `.cursor/rules/…` — speaks for the
    directory holding that folder). Copies for different agents speak for the same one."""
    # by searching, not splitting: 400 levels deep a split and a walk over the parts cost
    # 18 µs a file, the searches 1.5
    directory = path.rpartition("/")[0]
    if directory.startswith("."):
        return ""
    at = directory.find("/.")
    return directory if at < 0 else directory[:at]


def _worth_aligning(left: tuple[Paragraph, ...], right: tuple[Paragraph, ...]) -> bool:
    """Cheap bounds before aligning: the shorter file has paragraphs enough to be MIN_SIMILAR
    of the longer, and at least MIN_EXACT of the longer's are in both word for word."""
    shorter, longer = sorted((len(left), len(right)))
    if not longer or shorter / longer < MIN_SIMILAR:
        return False
    shared = len({p.norm for p in left} & {p.norm for p in right})
    return shared / longer >= MIN_EXACT


def _not_copies(ws: Workspace, a: str, b: str) -> bool:
    """A symlink of the other, an import of it, or the very same text (not drifted)."""
    if ws.identity(a) == ws.identity(b) or ws.document(a).brought == ws.document(b).brought:
        return True
    return any(resolved.target == other for one, other in ((a, b), (b, a))
               for _ref, resolved in ws.imports(one))


def _drift(ws: Workspace, a: str, b: str, left: tuple[Paragraph, ...],
           right: tuple[Paragraph, ...], readers: dict[str, frozenset[str]],
           titles: dict[str, Facts]) -> list[Finding]:
    import difflib  # only for two copies to align

    matcher = difflib.SequenceMatcher(None, [p.norm for p in left], [p.norm for p in right],
                                      autojunk=False)
    same = 0
    edited: list[tuple[Paragraph, Paragraph]] = []
    only_left: list[Paragraph] = []
    only_right: list[Paragraph] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            same += i2 - i1
            continue
        ours, theirs = list(left[i1:i2]), list(right[j1:j2])
        while ours and theirs and lcs_ratio(ours[0].norm, theirs[0].norm) >= NEAR:
            edited.append((ours.pop(0), theirs.pop(0)))
        only_left.extend(ours)
        only_right.extend(theirs)
    longer = max(len(left), len(right))
    if same == 0 or not (edited or only_left or only_right) \
            or (same + len(edited)) / longer < MIN_SIMILAR:
        return []
    out: list[Finding] = []
    for mine, other in edited:
        out.append(_edited(ws, a, b, mine, other, readers, titles))
        out.append(_edited(ws, b, a, other, mine, readers, titles))
    out.extend(_missing(ws, a, b, p, readers, titles) for p in only_left)
    out.extend(_missing(ws, b, a, p, readers, titles) for p in only_right)
    return out


def _agents(names: frozenset[str], titles: dict[str, Facts]) -> str:
    named = [titles[n].title for n in sorted(names)]
    return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]


def _span(ws: Workspace, path: str, paragraph: Paragraph) -> Span:
    top, bottom = paragraph.first, paragraph.last
    lines = ws.document(path).lines
    end = len(lines[bottom]) if bottom < len(lines) else 0
    return Span(Span.at(top, 0).start, Span.at(bottom, end).start)


def _edited(ws: Workspace, here: str, there: str, ours: Paragraph, theirs: Paragraph,
            readers: dict[str, frozenset[str]], titles: dict[str, Facts]) -> Finding:
    message = (f"`{there}` (read by {_agents(readers[there], titles)}) is a copy of this file "
               f"for other agents, but there this paragraph {_difference(ours, theirs)}; "
               f"the copies have drifted apart")
    return Finding(here, _span(ws, here, ours), "information", "drifted-copy", message,
                   related=[Related(there, _span(ws, there, theirs), "the other copy")])


def _missing(ws: Workspace, here: str, there: str, ours: Paragraph,
             readers: dict[str, frozenset[str]], titles: dict[str, Facts]) -> Finding:
    message = (f"`{there}` (read by {_agents(readers[there], titles)}) is a copy of this file "
               f"for other agents, but it lacks this paragraph; the copies have drifted apart")
    return Finding(here, _span(ws, here, ours), "information", "drifted-copy", message,
                   related=[Related(there, Span.at(0, 0), "the other copy")])


def _difference(ours: Paragraph, theirs: Paragraph) -> str:
    """The first words that differ: "says “X” where this one says “Y”", or what the other
    copy adds or lacks, with a word or two around it."""
    import difflib

    mine, other = ours.norm.split(" "), theirs.norm.split(" ")
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, mine, other,
                                                       autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        said = _quote(" ".join(other[max(0, j1 - 2):j2 + 2]))
        here = _quote(" ".join(mine[max(0, i1 - 2):i2 + 2]))
        if tag == "insert":
            return f"adds “{_quote(' '.join(other[j1:j2]))}” (“{said}”)"
        if tag == "delete":
            return f"lacks “{_quote(' '.join(mine[i1:i2]))}” (“{said}”)"
        return f"says “{said}” where this one says “{here}”"
    return f"says “{_quote(theirs.norm)}”"


def _quote(text: str) -> str:
    return text if len(text) <= _QUOTE else text[:_QUOTE - 1] + "…"
