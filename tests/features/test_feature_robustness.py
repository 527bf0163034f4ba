from __future__ import annotations

import feature_api as features
import pytest
from feature_helpers import P, R, ws_of
from lsprotocol import types

from rulemap.analysis import new_workspace
from rulemap.readers import OverlayReader

FILES = {
    "AGENTS.md": (
        "---\nx: [\n---\n# 🎉 T\n\n日本 @docs/a.md, `@no` @\n```\n@in-code\n```\n<!-- @c -->\n@"
    ),
    "docs/a.md": "a @b\\ c.md\n",
    "docs/b c.md": "",
    ".claude/rules/r.md": "---\npaths:\n  - '**/*.py'\n  - [bad\n---\n",
    ".claude/rules/bin.md": b"\xff\xfe\x00",
    "src/x.py": "",
    "empty.md": "",
}


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8", "utf-32"])
def test_every_position_of_every_file_answers(encoding):
    ws = ws_of(FILES)
    keys = [*FILES, "nope.md", "dir/", "/abs/else.md", ""]
    for key in keys:
        lines = ws.document(key).lines if key else [""]
        for line in range(len(lines) + 2):
            for character in (0, 1, 2, 5, 9, 13, 40, 10_000):
                pos = P(line, character)
                features.hover(ws, key, pos, encoding, "everywhere")
                assert isinstance(features.definition(ws, key, pos, encoding), list)
                assert isinstance(features.references(ws, key, pos, encoding), list)
                result = features.completion(ws, key, pos, encoding)
                assert isinstance(result, types.CompletionList)
        whole = R(0, 0, len(lines) + 3, 0)
        assert isinstance(features.document_links(ws, key, encoding), list)
        assert isinstance(features.inlay_hints(ws, key, whole, encoding), list)
        assert isinstance(features.document_symbols(ws, key, encoding), list)
        assert isinstance(features.code_lenses(ws, key), list)
        assert isinstance(features.code_actions(ws, key, whole, [], encoding), list)
    assert isinstance(features.workspace_symbols(ws, "🎉"), list)
    assert features.will_rename_files(ws, [("nope", "x"), ("/abs", "y")], encoding) is None


def test_features_follow_workspace_updates():
    reader = OverlayReader(ws_of({"AGENTS.md": "hello\n", "docs/a.md": "a"}).reader)
    ws = new_workspace(reader)
    assert features.references(ws, "docs/a.md", P(0, 0)) == []
    reader.set_buffer("/w/AGENTS.md", "hello @docs/a.md\n")
    ws.update(changed=["AGENTS.md"])
    refs = features.references(ws, "docs/a.md", P(0, 0))
    assert [loc.uri for loc in refs] == ["file:///w/AGENTS.md"]
    assert [h.label for h in features.inlay_hints(ws, "AGENTS.md")] == ["1 char"]
    reader.set_buffer("/w/AGENTS.md", "bye\n")
    ws.update(changed=["AGENTS.md"])
    assert features.references(ws, "docs/a.md", P(0, 0)) == []


def test_uri_quoting():
    ws = ws_of({"AGENTS.md": "@my\\ dir/ü#1.md", "my dir/ü#1.md": "x"})
    [link] = features.document_links(ws, "AGENTS.md")
    assert link.target == "file:///w/my%20dir/%C3%BC%231.md"


def test_a_name_that_is_not_utf8_links_to_its_exact_bytes():
    """A document link or location to a file whose name is not valid UTF-8 (a lone surrogate
    in the key) is its exact bytes percent-encoded — the URI leads back to the file — and no
    feature raises on it."""
    from rulemap.analysis import new_workspace
    from rulemap.host import AnalysisHost
    from rulemap.readers import MemoryReader

    ws = new_workspace(MemoryReader("/w", {"AGENTS.md": "a", "b\udcff.md": "b"}))
    snap = AnalysisHost(ws).snapshot()
    assert snap.uri("b\udcff.md") == "file:///w/b%FF.md"
    assert snap.uri("x y.md") == "file:///w/x%20y.md"
