"""A snapshot is a value: a change applied to its host after it was taken never changes its
answers (`rulemap.host.snapshot`), and a fresh snapshot sees the change.

Each test asks the old snapshot some questions before the change and others only after it:
documents are parsed lazily through the host's overlay of buffers, so an answer first worked
out after the change must still be of the state the snapshot was taken of. The reference: the
same questions asked, before the change, of another host opened on the same tree.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.core.git_repos import write

from rulemap.host import AnalysisHost, Cancelled, Snapshot
from rulemap.host.opening import open_folder
from rulemap.model import ImportStatus

TREE = {
    "AGENTS.md": "# root\n@docs/a.md\n@docs/new.md\n",
    "docs/a.md": "# a\nold text\n",
    "docs/b.md": "# b\n",
    "pkg/AGENTS.md": "# pkg\n",
    "pkg/src/x.ts": "x\n",
}


def _tree(root: Path) -> None:
    (root / ".git").mkdir()
    write(root, TREE)


def _host(root: Path) -> AnalysisHost:
    opened = open_folder(str(root), {}, {}, str(root / "home"), ())
    assert opened.host is not None
    return opened.host


def _answers(snap: Snapshot) -> dict[str, object]:
    """Questions whose answers come from the whole state: documents, imports, the index."""
    return {
        "documents": snap.all_documents(),
        "a": snap.document("docs/a.md").text,
        "pkg": snap.document("pkg/AGENTS.md").text,
        "imports": [(r.raw, x.status, x.target) for r, x in snap.imports("AGENTS.md")],
        "importers": sorted(k for k, _ in snap.importers("docs/new.md")),
        "lint": snap.lint_documents(),
        "findings": [(f.path, f.code, f.message) for f in snap.findings()],
        "agents": snap.selected_agents(),
        "explain": [entry.path for entry in snap.explain("pkg/src/x.ts").files],
    }


@pytest.fixture
def root(tmp_path: Path) -> Path:
    _tree(tmp_path)
    return tmp_path


def test_a_buffer_edit_after_a_snapshot_leaves_its_answers(root: Path) -> None:
    host, expected = _host(root), _answers(_host(root).snapshot())
    snap = host.snapshot()
    assert snap.document("AGENTS.md").text == TREE["AGENTS.md"]  # asked before the change
    host.edit_buffer("AGENTS.md", "# root\n@docs/b.md\n")
    host.edit_buffer("docs/a.md", "# a\nnew text\n")  # parsed by no one yet
    host.edit_buffer("pkg/AGENTS.md", "# pkg, edited\n")
    assert snap.document("AGENTS.md").text == TREE["AGENTS.md"]
    assert _answers(snap) == expected
    fresh = host.snapshot()
    assert fresh.document("docs/a.md").text == "# a\nnew text\n"
    assert [r.raw for r, _ in fresh.imports("AGENTS.md")] == ["docs/b.md"]


def test_a_buffer_dropped_after_a_snapshot_is_still_its_text(root: Path) -> None:
    host = _host(root)
    host.edit_buffer("docs/a.md", "# a\nunsaved\n")
    snap = host.snapshot()
    host.drop_buffer("docs/a.md")
    host.apply_change(changed=["docs/a.md"])
    assert snap.document("docs/a.md").text == "# a\nunsaved\n"
    assert host.snapshot().document("docs/a.md").text == TREE["docs/a.md"]


def test_a_file_created_after_a_snapshot_is_not_in_its_answers(root: Path) -> None:
    host, expected = _host(root), _answers(_host(root).snapshot())
    snap = host.snapshot()
    (root / "docs" / "new.md").write_text("# new\n")
    (root / "pkg" / "src" / "AGENTS.md").write_text("# src\n")
    host.apply_change(created=["docs/new.md", "pkg/src/AGENTS.md"])
    assert _answers(snap) == expected
    statuses = {r.raw: x.status for r, x in snap.imports("AGENTS.md")}
    assert statuses["docs/new.md"] is not ImportStatus.OK  # broken, as it was
    fresh = host.snapshot()
    assert {r.raw: x.status for r, x in fresh.imports("AGENTS.md")}["docs/new.md"] \
        is ImportStatus.OK
    assert "pkg/src/AGENTS.md" in fresh.all_documents()


def test_a_file_deleted_after_a_snapshot_is_still_in_its_answers(root: Path) -> None:
    host, expected = _host(root), _answers(_host(root).snapshot())
    snap = host.snapshot()
    assert snap.document("docs/a.md").text == TREE["docs/a.md"]  # read before the delete
    (root / "docs" / "a.md").unlink()
    host.apply_change(deleted=["docs/a.md"])
    assert _answers(snap) == expected
    fresh = host.snapshot()
    assert fresh.readable("docs/a.md") is None
    assert {r.raw: x.status for r, x in fresh.imports("AGENTS.md")}["docs/a.md"] \
        is not ImportStatus.OK


def test_a_settings_or_selection_change_after_a_snapshot_leaves_its_answers(root: Path) -> None:
    """The agent a snapshot speaks for is its own (the folder's `profile` setting changing
    makes new snapshots speak for another); a configuration file or another agent's file
    changed after it leaves the selection and the configuration it answers from."""
    host, expected = _host(root), _answers(_host(root).snapshot("claude-code"))
    snap = host.snapshot("claude-code")
    (root / "rulemap.toml").write_text('profile = "codex"\n')
    (root / ".cursorrules").write_text("cursor rules\n")
    touched = host.apply_change(created=["rulemap.toml", ".cursorrules"])
    assert "*config*" in touched  # (the language server opens the folder again)
    assert snap.agent_name() == "claude-code"
    assert _answers(snap) == expected
    assert host.snapshot("codex").agent_name() == "codex"


def test_no_fork_without_a_snapshot_held(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Snapshots dropped once answered (every request of the language server) cost a change
    nothing: the workspace is forked only for one still held."""
    from rulemap.host import analysis_host as module  # (its `fork`)

    host = _host(root)
    host.snapshot().document("AGENTS.md")  # taken, asked, dropped

    def no_fork(ws: object) -> None:
        raise AssertionError("forked with no snapshot held")

    monkeypatch.setattr(module, "fork", no_fork)
    host.edit_buffer("AGENTS.md", "# edited\n")
    assert host.snapshot().document("AGENTS.md").text == "# edited\n"


def test_a_snapshot_that_cannot_keep_its_state_is_cancelled(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Never an answer of a state it was not taken of: when the fork fails, Cancelled."""
    from rulemap.host import analysis_host as module  # (its `fork`)

    host = _host(root)
    snap = host.snapshot()
    monkeypatch.setattr(module, "fork", lambda ws: None)
    host.edit_buffer("AGENTS.md", "# edited\n")
    with pytest.raises(Cancelled):
        snap.document("AGENTS.md")
    assert host.snapshot().document("AGENTS.md").text == "# edited\n"
