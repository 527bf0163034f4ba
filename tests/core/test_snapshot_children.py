"""`Snapshot.children` (what an `@` completion lists): the files of a directory and its
subdirectories with their file counts, kept across edits and listed again once a file is
created or deleted."""

from __future__ import annotations

from pathlib import Path

from tests.core.git_repos import write

from rulemap.host import AnalysisHost
from rulemap.host.opening import open_folder

TREE = {
    "AGENTS.md": "# root\n@docs/a.md\n",
    "docs/a.md": "# a\n",
    "docs/deep/b.md": "# b\n",
    "docs/deep/c.ts": "c\n",
    "src/x.ts": "x\n",
}


def _host(root: Path) -> AnalysisHost:
    (root / ".git").mkdir()
    write(root, TREE)
    opened = open_folder(str(root), {}, {}, str(root / "home"), ())
    assert opened.host is not None
    return opened.host


def _plain(host: AnalysisHost, base: str) -> tuple[list[str], dict[str, int]]:
    """The same listing from the file index, computed afresh."""
    prefix = f"{base}/" if base else ""
    files, dirs = [], {}
    for path in host.snapshot().files_under(prefix):
        rest = path[len(prefix):]
        if "/" in rest:
            name = rest.split("/", 1)[0]
            dirs[name] = dirs.get(name, 0) + 1
        else:
            files.append(rest)
    return files, dirs


def test_children_of_the_root_and_of_a_directory(tmp_path: Path) -> None:
    host = _host(tmp_path)
    files, dirs = host.snapshot().children("")
    assert "AGENTS.md" in files and "x.ts" not in files
    assert dirs["docs"] == 3 and dirs["src"] == 1
    assert host.snapshot().children("docs") == (["a.md"], {"deep": 2})
    assert host.snapshot().children("docs/deep") == (["b.md", "c.ts"], {})


def test_kept_across_an_edit_and_listed_again_after_a_creation_or_deletion(
    tmp_path: Path,
) -> None:
    host = _host(tmp_path)
    before = host.snapshot().children("docs")
    host.edit_buffer("AGENTS.md", "# root\n@docs/a.md\n@docs/deep/b.md\n")
    assert host.snapshot().children("docs") is before  # an edit lists nothing again
    (tmp_path / "docs" / "new.md").write_text("# new\n")
    host.apply_change(created=["docs/new.md"])
    assert host.snapshot().children("docs") == _plain(host, "docs")
    assert "new.md" in host.snapshot().children("docs")[0]
    (tmp_path / "docs" / "deep" / "c.ts").unlink()
    host.apply_change(deleted=["docs/deep/c.ts"])
    assert host.snapshot().children("docs") == _plain(host, "docs")
    assert host.snapshot().children("docs")[1] == {"deep": 1}
