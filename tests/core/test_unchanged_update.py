"""A change event that changed nothing touches nothing (`Workspace.reread` gives back the very
document).

The language server closing a buffer that is as it is on disk, an editor saving a file
unmodified, `touch`: each arrives as "changed". The same bytes at the same real path parse to
the same document, so nothing derived from it is dropped and no check runs again; anything
else — other bytes, a byte-order mark, another real path — is a change as before."""

from __future__ import annotations

import random

from core_helpers import make_ws

from rulemap import analysis
from rulemap.workspace import Workspace

FILES = {
    "AGENTS.md": "# Project\n\nSee @docs/style.md and @docs/gone.md\n",
    "CLAUDE.md": "@AGENTS.md\n",
    "docs/style.md": "Use tabs.\n",
    "docs/copy.md": "Use tabs.\n",
    ".claude/rules/api.md": "---\npaths: ['src/**']\n---\nValidate input.\n",
    "src/a.ts": "",
}


def _checked() -> Workspace:
    ws = make_ws(dict(FILES))
    analysis.check(ws)
    return ws


def test_the_same_bytes_touch_nothing() -> None:
    ws = _checked()
    generation, findings = ws.generation, analysis.check(ws)
    for key in ("AGENTS.md", "docs/style.md", ".claude/rules/api.md"):
        ws.reader.files[ws.abs(key)] = FILES[key].encode()  # saved as it was
        assert ws.update(changed=[key]) == set()
    assert ws.generation == generation
    assert analysis.check(ws) == findings


def test_other_bytes_are_a_change() -> None:
    ws = _checked()
    generation = ws.generation
    ws.reader.files[ws.abs("docs/style.md")] = b"Use spaces.\n"
    assert "docs/style.md" in ws.update(changed=["docs/style.md"])
    assert ws.generation == generation + 1
    assert ws.document("docs/style.md").text == "Use spaces.\n"


def test_a_byte_order_mark_is_a_change() -> None:
    ws = _checked()
    ws.reader.files[ws.abs("AGENTS.md")] = b"\xef\xbb\xbf" + FILES["AGENTS.md"].encode()
    assert "AGENTS.md" in ws.update(changed=["AGENTS.md"])
    assert ws.document("AGENTS.md").bom


def test_the_same_bytes_at_another_real_path_are_a_change() -> None:
    # docs/style.md becomes a link to docs/copy.md, whose bytes are the same: the file is
    # another one now (an alias of docs/copy.md)
    ws = _checked()
    del ws.reader.files[ws.abs("docs/style.md")]
    ws.reader.symlinks[ws.abs("docs/style.md")] = "copy.md"
    assert "docs/style.md" in ws.update(changed=["docs/style.md"])
    assert ws.identity("docs/style.md") == ws.abs("docs/copy.md")


def test_a_file_never_parsed_is_a_change() -> None:
    ws = _checked()
    generation = ws.generation
    assert "src/a.ts" in ws.update(changed=["src/a.ts"])
    assert ws.generation == generation + 1


def test_resaves_among_edits_answer_as_a_fresh_workspace() -> None:
    rng = random.Random(11)
    files = dict(FILES)
    ws = make_ws(dict(files))
    texts = ["Use tabs.\n", "See @docs/style.md\n", "@CLAUDE.md\n", "plain\n", "\ufeffbom\n"]
    for step in range(120):
        key = rng.choice(["AGENTS.md", "CLAUDE.md", "docs/style.md", "docs/copy.md"])
        if rng.random() < 0.5:
            files[key] = rng.choice(texts)
        ws.reader.files[ws.abs(key)] = files[key].encode()  # half of them saved unmodified
        ws.update(changed=[key])
        if step % 4 == 0:
            fresh = make_ws(dict(files))
            assert analysis.check(ws) == analysis.check(fresh), f"step {step} ({key})"
            assert [ws.document(k).text for k in files if k.endswith(".md")] == [
                fresh.document(k).text for k in files if k.endswith(".md")]


def test_an_edit_is_read_and_parsed_once() -> None:
    # the comparison's parse is the one the update keeps (every keystroke in the editor)
    ws = _checked()
    reads: list[str] = []
    read = ws.reader.read_bytes

    def counted(path: str) -> bytes:
        reads.append(path)
        return read(path)

    ws.reader.read_bytes = counted  # type: ignore[method-assign]
    ws.reader.files[ws.abs("AGENTS.md")] = b"# Project\n\nSee @docs/style.md only\n"
    ws.update(changed=["AGENTS.md"])
    assert ws.document("AGENTS.md").text == "# Project\n\nSee @docs/style.md only\n"
    assert reads.count(ws.abs("AGENTS.md")) == 1
