from __future__ import annotations

from feature_api import definition, document_links, inlay_hints, references
from feature_helpers import P, R, rng, ws_of
from lsprotocol import types

PREFIX = "日本 🎉 "  # 5 code points, 6 UTF-16 units, 12 UTF-8 bytes
FILES = {
    "AGENTS.md": f"{PREFIX}@docs/a b.md and @docs/b\\ c.md\n@gone.md @docs\n",
    "CLAUDE.md": "@docs/b\\ c.md\n",
    "docs/b c.md": "b" * 812,
    ".claude/rules/py.md": "---\npaths:\n  - '**/*.py'\n---\npython\n",
    **{f"src/m{i}.py": "" for i in range(5)},
    "src/x.ts": "",
}


def test_document_links_only_resolving_imports_utf16_utf8():
    ws = ws_of(FILES)
    links16 = document_links(ws, "AGENTS.md", "utf-16")
    assert [link.target for link in links16] == ["file:///w/docs/b%20c.md"]
    col16 = 6 + len("@docs/a b.md and ")  # `@docs/a` then ` b.md` is prose
    start = FILES["AGENTS.md"].index("@docs/b") - 5 + 6 + 1
    assert rng(links16[0].range) == (0, start, 0, start + len("docs/b\\ c.md"))
    assert col16 < start
    links8 = document_links(ws, "AGENTS.md", "utf-8")
    start8 = start - 6 + 12
    assert rng(links8[0].range) == (0, start8, 0, start8 + len("docs/b\\ c.md"))
    assert "812 chars" in (links16[0].tooltip or "")


def test_document_links_carry_no_tooltip_for_a_client_without_tooltip_support():
    ws = ws_of(FILES)
    links = document_links(ws, "AGENTS.md", "utf-16", tooltips=False)
    assert [link.target for link in links] == ["file:///w/docs/b%20c.md"]
    assert [link.tooltip for link in links] == [None]


def test_definition():
    ws = ws_of(FILES)
    line = FILES["AGENTS.md"].split("\n")[0]
    col16 = line.index("@docs/b") + 1  # + 1 for the emoji's second UTF-16 unit
    locations = definition(ws, "AGENTS.md", P(0, col16 + 3), "utf-16")
    assert [loc.uri for loc in locations] == ["file:///w/docs/b%20c.md"]
    assert rng(locations[0].range) == (0, 0, 0, 0)
    assert definition(ws, "AGENTS.md", P(1, 2)) == []  # missing target
    assert definition(ws, "AGENTS.md", P(1, 11)) == []  # a directory
    assert definition(ws, "src/x.ts", P(0, 0)) == []
    assert definition(ws, "AGENTS.md", P(50, 0)) == []


def test_references_of_import_target_and_of_file():
    ws = ws_of(FILES)
    from_file = references(ws, "docs/b c.md", P(0, 0))
    assert sorted((loc.uri, loc.range.start.line) for loc in from_file) == [
        ("file:///w/AGENTS.md", 0), ("file:///w/CLAUDE.md", 0),
    ]
    from_import = references(ws, "CLAUDE.md", P(0, 3))
    assert {loc.uri for loc in from_import} == {"file:///w/AGENTS.md", "file:///w/CLAUDE.md"}
    agents = next(loc for loc in from_import if loc.uri.endswith("AGENTS.md"))
    start16 = FILES["AGENTS.md"].index("@docs/b") + 1
    assert rng(agents.range) == (0, start16, 0, start16 + len("@docs/b\\ c.md"))


def test_references_of_rule_are_its_matches_capped():
    ws = ws_of(FILES)
    matches = references(ws, ".claude/rules/py.md", P(4, 0))
    assert [loc.uri for loc in matches] == [f"file:///w/src/m{i}.py" for i in range(5)]
    assert len(references(ws, ".claude/rules/py.md", P(4, 0), limit=2)) == 2
    on_glob = references(ws, ".claude/rules/py.md", P(2, 6))
    assert len(on_glob) == 5


def test_references_on_source_file_are_matching_globs():
    ws = ws_of(FILES)
    locations = references(ws, "src/m1.py", P(0, 0))
    assert [(loc.uri, rng(loc.range)) for loc in locations] == [
        ("file:///w/.claude/rules/py.md", (2, 4, 2, 13)),
    ]
    assert references(ws, "src/x.ts", P(0, 0)) == []


def test_inlay_hints_after_imports():
    ws = ws_of(FILES)
    hints = inlay_hints(ws, "AGENTS.md", R(0, 0, 5, 0), "utf-16")
    labels = [h.label for h in hints]
    assert labels == ["missing", "812 chars", "missing", "directory"]
    line = FILES["AGENTS.md"].split("\n")[0]
    end_cp = line.index("@docs/b") + len("@docs/b\\ c.md")
    assert (hints[1].position.line, hints[1].position.character) == (0, end_cp + 1)
    hints8 = inlay_hints(ws, "AGENTS.md", R(0, 0, 0, 200), "utf-8")
    assert [h.label for h in hints8] == ["missing", "812 chars"]
    assert hints8[1].position.character == end_cp - 5 + 12
    assert all(h.padding_left for h in hints)
    assert inlay_hints(ws, "AGENTS.md", R(1, 0, 1, 3)) == hints[2:]


def test_inlay_hint_kilo_chars_and_unreadable():
    ws = ws_of({"AGENTS.md": "@big.md @bin.md", "big.md": "x" * 3140, "bin.md": b"\x00"})
    assert [h.label for h in inlay_hints(ws, "AGENTS.md")] == ["3.1k chars", "unreadable"]


def test_links_of_non_documents_are_empty():
    ws = ws_of(FILES)
    assert document_links(ws, "src/x.ts") == []
    assert document_links(ws, "nope.md") == []
    assert isinstance(document_links(ws, "CLAUDE.md")[0], types.DocumentLink)
