"""After any sequence of edits, the incremental graph answers exactly as a fresh one."""

import random

from core_helpers import make_ws

from rulemap import analysis
from rulemap.workspace import Workspace

GLOBS = ["src/**/*.ts", "src/a/*.ts", "*.py", "docs/**", "nothing/**", "src/b/**", "**/*.md"]
TARGETS = ["src/a/x.ts", "src/b/y.ts", "src/b/z.py", "tool.py", "docs/d.md", "pkg/AGENTS.md"]


def _rule(rng: random.Random) -> str:
    kind = rng.random()
    body = "rule body " * rng.randint(1, 40) + (
        "\nsee @../../docs/d.md\n" if rng.random() < 0.3 else "\n"
    )
    if kind < 0.2:
        return body  # unconditional
    globs = rng.sample(GLOBS, rng.randint(1, 3))
    return "---\npaths:\n" + "".join(f"  - '{g}'\n" for g in globs) + "---\n" + body


def _doc(rng: random.Random) -> str:
    imports = " ".join(
        f"@{rng.choice(['docs/d.md', 'docs/e.md', 'CLAUDE.md', 'gone.md'])}"
        for _ in range(rng.randint(0, 2))
    )
    return "text " * rng.randint(1, 300) + imports + "\n"


def _snapshot(ws: Workspace) -> tuple[object, ...]:
    findings = sorted((f.path, f.code, f.span, f.message) for f in analysis.check(ws))
    loads = [analysis.explain(ws, t).to_json() for t in TARGETS] + [analysis.explain(ws).to_json()]
    return (findings, loads)


def test_random_edits_match_a_fresh_workspace():
    rng = random.Random(7)
    files = {
        "AGENTS.md": _doc(rng),
        "CLAUDE.md": _doc(rng),
        "pkg/AGENTS.md": _doc(rng),
        "docs/d.md": "doc @e.md",
        "docs/e.md": "e",
        ".claude/rules/r1.md": _rule(rng),
        ".claude/rules/r2.md": _rule(rng),
        ".claude/rules/sub/r3.md": _rule(rng),
        "src/a/x.ts": "",
        "src/b/y.ts": "",
        "src/b/z.py": "",
        "tool.py": "",
    }
    ws = make_ws(files, maxChars=2500)
    analysis.check(ws)
    editable = [
        "AGENTS.md",
        "CLAUDE.md",
        "pkg/AGENTS.md",
        "docs/d.md",
        ".claude/rules/r1.md",
        ".claude/rules/r2.md",
        ".claude/rules/sub/r3.md",
    ]
    for step in range(150):
        key = rng.choice(editable)
        text = _rule(rng) if key.startswith(".claude/rules") else _doc(rng)
        ws.reader.files[ws.abs(key)] = text.encode()
        files[key] = text
        ws.update(changed=[key])
        if step % 3 == 0:
            fresh = make_ws(dict(files), maxChars=2500)
            assert _snapshot(ws) == _snapshot(fresh), f"differs after step {step} ({key})"


def test_created_and_deleted_files_re_resolve_only_the_imports_naming_them():
    """Files that many imports name appear and vanish in batches (a checkout): each importer
    re-resolves only the imports naming them, the others keep their resolution (the same
    objects), and everything answers as a fresh workspace of the same files."""
    rng = random.Random(11)
    names = [f"docs/m/{i}.md" for i in range(40)]
    files = {
        "AGENTS.md": "root @docs/many.md @docs/m/0.md\n",
        "docs/many.md": "".join(f"- @m/{i}.md\n" for i in range(40)) + "@../CLAUDE.md\n",
        "CLAUDE.md": "@docs/m/7.md and @docs/m/39.md\n",
    }
    ws = make_ws(files)
    analysis.check(ws)
    for step in range(30):
        batch = rng.sample(names, rng.randint(1, 8))
        created = [n for n in batch if n not in files]
        deleted = [n for n in batch if n in files]
        for name in created:
            files[name] = f"m {name} @{rng.choice(['../../AGENTS.md', 'gone.md', '0.md'])}\n"
            ws.reader.files[ws.abs(name)] = files[name].encode()
        for name in deleted:
            del files[name]
            del ws.reader.files[ws.abs(name)]
        before = {ref.raw: resolved for ref, resolved in ws.imports("docs/many.md")}
        ws.update(created=created, deleted=deleted)
        after = {ref.raw: resolved for ref, resolved in ws.imports("docs/many.md")}
        named = {f"m/{n.rsplit('/', 1)[1]}" for n in batch}
        kept = [raw for raw in before if raw not in named]
        assert all(after[raw] is before[raw] for raw in kept)  # not resolved again
        fresh = make_ws(dict(files))
        assert after == {ref.raw: res for ref, res in fresh.imports("docs/many.md")}
        assert _snapshot(ws) == _snapshot(fresh), f"differs after step {step}"


def _graph(ws: Workspace) -> tuple[object, ...]:
    reach = ws.import_reach()
    return (ws.all_documents(), ws.imported_documents(), ws.lint_documents(), reach.documents,
            reach.imported, reach.hops, reach.parent)


def test_graph_questions_after_random_edits_match_a_fresh_workspace():
    """The document list, the imported documents, the documents linted and the import reach
    are kept across edits that keep every import (prose typed), made again after one that
    changes an import, and rebuilt with the index on a create or delete: after any sequence,
    each equals a fresh workspace's."""
    rng = random.Random(23)
    files = {
        "AGENTS.md": "root @docs/d.md\n",
        "CLAUDE.md": _doc(rng),
        "pkg/AGENTS.md": _doc(rng),
        "docs/d.md": "doc @e.md",
        "docs/e.md": "e",
        ".claude/rules/r1.md": _rule(rng),
    }
    ws = make_ws(files)
    optional = ["pkg/sub/AGENTS.md", ".claude/rules/new.md", "gone.md", "docs/e.md"]
    editable = ["AGENTS.md", "CLAUDE.md", "pkg/AGENTS.md", "docs/d.md", ".claude/rules/r1.md"]
    for step in range(120):
        _graph(ws)  # asked between edits, as a hover and the diagnostics ask
        roll = rng.random()
        if roll < 0.2:
            key = rng.choice(optional)
            if key in files:
                del files[key]
                del ws.reader.files[ws.abs(key)]
                ws.update(deleted=[key])
            else:
                files[key] = _doc(rng)
                ws.reader.files[ws.abs(key)] = files[key].encode()
                ws.update(created=[key])
        else:
            key = rng.choice(editable)
            prose = roll < 0.6 and key in files
            text = (files[key] + "more prose\n" if prose else
                    _rule(rng) if key.startswith(".claude/rules") else _doc(rng))
            files[key] = text
            ws.reader.files[ws.abs(key)] = text.encode()
            ws.update(changed=[key])
        assert _graph(ws) == _graph(make_ws(dict(files))), f"differs after step {step} ({key})"


def test_typing_prose_keeps_the_import_reach_and_an_import_edit_renews_it():
    """A hover on a source file asks whether some document imports it (the import reach): an
    edit that keeps every import keeps the reach (before, any edit of a document on the way
    walked the whole graph again for the next hover), one that adds an import renews it."""
    files = {"AGENTS.md": "root @docs/d.md\n", "docs/d.md": "doc\n", "src/a.ts": ""}
    ws = make_ws(files)
    reach = ws.import_reach()
    assert "src/a.ts" not in reach.imported
    for key, text in (("AGENTS.md", "root @docs/d.md\nmore\n"), ("docs/d.md", "doc, more\n")):
        ws.reader.files[ws.abs(key)] = text.encode()
        ws.update(changed=[key])
        assert ws.import_reach() is reach
    ws.reader.files[ws.abs("docs/d.md")] = b"doc @../src/a.ts\n"
    ws.update(changed=["docs/d.md"])
    assert "src/a.ts" in ws.import_reach().imported
    assert ws.import_reach().hops["src/a.ts"] == 2


def test_the_document_list_is_the_index_sorted_once():
    """`all_documents` is the index's list, sorted when the index is (re)built, not per call:
    an edit that changes an import asked for it three times before the edited document's
    diagnostics, each a sort of thousands of kilobyte-long paths on a deep tree."""
    files = {"b/AGENTS.md": "", "AGENTS.md": "", ".claude/rules/z.md": "", "a/CLAUDE.md": ""}
    ws = make_ws(files)
    first = ws.all_documents()
    assert first == sorted(first) and set(first) == set(files)
    assert ws.all_documents() is first
    ws.reader.files[ws.abs("a/AGENTS.md")] = b""
    ws.update(created=["a/AGENTS.md"])
    assert ws.all_documents() == sorted({*files, "a/AGENTS.md"})


def test_an_import_of_no_file_keeps_the_documents_linted():
    """Typing `@docs/e.md` one key at a time names a missing file at each step until the
    last: which documents are imported and linted is kept until an import loads a file
    (before, every keystroke walked the whole import graph again)."""
    files = {"AGENTS.md": "root\n", "docs/e.md": "e @f.md\n", "docs/f.md": "f\n"}
    ws = make_ws(files)
    linted = ws.lint_documents()
    assert linted == ["AGENTS.md"]
    for typed in ("@d", "@docs/", "@docs/e", "@docs/e.m"):
        ws.reader.files[ws.abs("AGENTS.md")] = f"root {typed}\n".encode()
        ws.update(changed=["AGENTS.md"])
        assert ws.lint_documents() is linted
        assert typed[1:].rstrip("/") in ws.import_reach().imported  # the broken one is seen
    ws.reader.files[ws.abs("AGENTS.md")] = b"root @docs/e.md\n"
    ws.update(changed=["AGENTS.md"])
    assert ws.lint_documents() == ["AGENTS.md", "docs/e.md", "docs/f.md"]
    ws.reader.files[ws.abs("AGENTS.md")] = b"root @docs/e.md @nothing.md\n"
    ws.update(changed=["AGENTS.md"])
    kept = ws.lint_documents()
    ws.reader.files[ws.abs("AGENTS.md")] = b"root @nothing.md\n"
    ws.update(changed=["AGENTS.md"])
    assert ws.lint_documents() == ["AGENTS.md"] != kept
