"""The local reader's file list from git (`git ls-files -co --exclude-standard`) against the walk.

With RULEMAP_GIT_LIST=1 (opt-in), in a git work tree the listing comes from git, typed by a scan
of the directories it names (readers/local.py's docstring); else from the walk. Both
must give the same files, ignored files, dangling links and plain paths wherever git's ignore
rules and the .gitignore files the walk reads agree — on generated trees with every kind of
entry, and as whole-check findings on the real-world entries. Where they differ by decision (a
tracked file a .gitignore matches; a root git ignores) the tests pin the decision.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.core.git_repos import GIT_ENV, git, write

from rulemap.readers.local import LocalReader

REPO = Path(__file__).resolve().parents[2]
REALWORLD = REPO / "tests" / "realworld"

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture(autouse=True)
def no_user_git_config(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader's git reads no user or system configuration (a developer's global excludes
    file would change what git lists), and git listing is on."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("RULEMAP_GIT_LIST", "1")
    monkeypatch.delenv("RULEMAP_GIT_TIMEOUT", raising=False)


def listing(root: Path, monkeypatch: pytest.MonkeyPatch, *, use_git: bool) -> dict[str, Any]:
    monkeypatch.setenv("RULEMAP_GIT_LIST", "1" if use_git else "0")
    reader = LocalReader(str(root))
    files = list(reader.list_files())
    assert len(files) == len(set(files)), "a file listed twice"
    return {
        "by_git": reader.listed_by_git,
        "files": sorted(files),
        "ignored": sorted(reader.ignored_files()),
        "dangling": sorted(reader.dangling_links()),
        "plain": sorted(reader._plain),
        "identity": {f: reader.identity(f"{reader.root}/{f}") for f in files},
    }


def assert_same(root: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    walked = listing(root, monkeypatch, use_git=False)
    listed = listing(root, monkeypatch, use_git=True)
    assert not walked["by_git"]
    assert listed["by_git"]
    for key in ("files", "ignored", "dangling", "plain", "identity"):
        assert listed[key] == walked[key], key
    return listed


def make_tree(repo: Path, outside: Path) -> None:
    """Every kind of entry the walk knows, with nested .gitignore files and negations."""
    write(repo, {
        ".gitignore": "*.log\n!keep.log\nbuild/\n/secret.md\n*.tmp\n",
        "AGENTS.md": "# a\n",
        "CLAUDE.md": "@AGENTS.md\n",
        "x.log": "", "keep.log": "", "secret.md": "",
        "build/out.md": "", "build/deep/CLAUDE.md": "",
        "logs/only.log": "",  # a directory git lists nothing in (and does not ignore)
        "logs/old/also.log": "",
        "docs/secret.md": "",  # /secret.md is anchored: this one is listed
        "pkg/.gitignore": "*.gen\n!x.gen\n",
        "pkg/a.ts": "", "pkg/b.gen": "", "pkg/x.gen": "", "pkg/c.tmp": "",
        "pkg/sub/CLAUDE.md": "", "pkg/sub/deeper/x.gen": "",
        "dir with space/ünïcødé file.md": "", "naïve.md": "", "日本/ファイル.md": "",
        "node_modules/pkg/index.js": "", "node_modules/CLAUDE.md": "",
        "src/.claude/rules/a.md": "---\npaths: ['**/*.ts']\n---\nx\n",
    })
    (repo / "empty").mkdir()
    (repo / "nested-empty" / "inner").mkdir(parents=True)
    outside.mkdir(exist_ok=True)
    (outside / "OUT.md").write_text("out\n")
    (repo / "link-in").symlink_to("pkg")  # a directory inside: followed
    (repo / "pkg" / "up").symlink_to("..")  # a loop back up: not followed
    (repo / "link-out").symlink_to(outside)  # a directory outside: never followed
    (repo / "file-out.md").symlink_to(outside / "OUT.md")  # listed; reading it is refused
    (repo / "alias.md").symlink_to("AGENTS.md")
    (repo / "gone.md").symlink_to("missing.md")
    (repo / "logs" / "gone.log").symlink_to("nowhere")  # ignored, dangling all the same
    (repo / "self.md").symlink_to("self.md")  # a loop
    (repo / "ignored-link.log").symlink_to("AGENTS.md")
    os.mkfifo(repo / "pipe.md")
    os.mkfifo(repo / "pkg" / "pipe.log")  # a FIFO a .gitignore matches
    os.mkfifo(repo / "logs" / "fifo.md")  # in a directory git lists nothing in
    nested = repo / "nested"
    write(nested, {"n.md": "", "n.log": "", ".gitignore": "*.md\n!n.md\n", "k/CLAUDE.md": ""})
    git(nested, "init", "-q")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    make_tree(repo, tmp_path / "outside")
    git(repo, "add", "AGENTS.md", "CLAUDE.md", "pkg/a.ts", ".gitignore", "alias.md")
    return repo


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_git_listing_equals_the_walk_on_a_tree_of_every_kind(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    got = assert_same(repo, monkeypatch)
    files = set(got["files"])
    assert {"AGENTS.md", "keep.log", "docs/secret.md", "pipe.md", "alias.md", "file-out.md",
            "dir with space/ünïcødé file.md", "日本/ファイル.md", "pkg/x.gen",
            "link-in/a.ts", "nested/n.md", "logs/fifo.md"} <= files
    assert not files & {"x.log", "secret.md", "build/out.md", "pkg/b.gen", "pkg/c.tmp",
                        "node_modules/CLAUDE.md", "link-out/OUT.md", "pkg/pipe.log"}
    assert {"x.log", "secret.md", "logs/only.log", "logs/old/also.log", "pkg/pipe.log",
            "ignored-link.log", "pkg/c.tmp", "nested/k/CLAUDE.md"} <= set(got["ignored"])
    assert ("gone.md", "missing.md") in got["dangling"]
    assert ("logs/gone.log", "nowhere") in got["dangling"]
    assert "alias.md" not in got["plain"] and "link-in/a.ts" not in got["plain"]
    assert "pkg/a.ts" in got["plain"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_git_listing_equals_the_walk_when_the_root_is_a_subdirectory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same tree one level down (git lists relative to the root); the repository's own
    .gitignore, which the walk from the subdirectory never reads, names no file of it."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    write(repo, {".gitignore": "/top.md\n", "top.md": ""})
    root = repo / "work space"
    make_tree(root, tmp_path / "outside")
    git(repo, "add", "work space/AGENTS.md", "work space/pkg/a.ts")
    got = assert_same(root, monkeypatch)
    assert {"AGENTS.md", "pkg/a.ts", "link-in/a.ts", "logs/fifo.md"} <= set(got["files"])
    assert "pkg/b.gen" in got["ignored"]
    assert_same(root / "docs", monkeypatch)


def test_git_listing_equals_the_walk_after_a_commit_and_deletions(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git(repo, "add", "-A", "--", ".", ":!nested")
    git(repo, "commit", "-qm", "all")
    os.remove(repo / "AGENTS.md")  # tracked, gone from the working tree
    shutil.rmtree(repo / "pkg" / "sub")
    (repo / "CLAUDE.md").unlink()
    (repo / "CLAUDE.md").symlink_to("docs")  # a tracked file now a link to a directory
    (repo / "new.md").write_text("untracked\n")
    got = assert_same(repo, monkeypatch)
    assert "AGENTS.md" not in got["files"] and "new.md" in got["files"]
    assert "CLAUDE.md/secret.md" in got["files"]


def test_a_directory_replaced_by_a_link_is_not_plain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tracked `docs/CLAUDE.md`, then `docs` swapped for a link out of the root: the index
    still names the file, the scan sees the link — nothing below it is listed or plain."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    write(repo, {"docs/CLAUDE.md": "x\n", "AGENTS.md": "y\n"})
    git(repo, "add", "-A")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "CLAUDE.md").write_text("secret\n")
    shutil.rmtree(repo / "docs")
    (repo / "docs").symlink_to(outside)
    got = assert_same(repo, monkeypatch)
    assert got["files"] == ["AGENTS.md"]
    assert "docs/CLAUDE.md" not in got["plain"]


def test_a_tracked_file_a_gitignore_matches_is_listed_from_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The decision where git and the walk differ: git's ignore rules never apply to a
    tracked file (it is part of the project as committed), so the git listing has it; the walk,
    which knows only the .gitignore files, leaves it out as ignored."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    write(repo, {".gitignore": "dist/\n*.local.md\n", "AGENTS.md": "", "dist/CLAUDE.md": "",
                 "dist/other.md": "", "CLAUDE.local.md": ""})
    git(repo, "add", "-f", "dist/CLAUDE.md", "CLAUDE.local.md", "AGENTS.md")
    listed = listing(repo, monkeypatch, use_git=True)
    walked = listing(repo, monkeypatch, use_git=False)
    assert listed["by_git"]
    assert {"CLAUDE.local.md", "dist/CLAUDE.md"} <= set(listed["files"])
    assert not {"CLAUDE.local.md", "dist/CLAUDE.md"} & set(walked["files"])
    assert "CLAUDE.local.md" in walked["ignored"]
    # an untracked file beside it in the ignored directory stays out, as an ignored file
    assert "dist/other.md" not in listed["files"] and "dist/other.md" in listed["ignored"]


def test_git_rules_the_walk_does_not_read_apply(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """.git/info/exclude, a .gitignore above the root, and a negation in a deeper .gitignore
    re-including what an upper one ignores: git's rules, exactly (the walk reads only the
    .gitignore files from the root down, and any one of them ignoring a path ignores it)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    write(repo, {".gitignore": "*.secret.md\n*.tmp\n", "app/AGENTS.md": "",
                 "app/x.secret.md": "", "app/scratch/notes.md": "", "app/keep.md": "",
                 "app/.gitignore": "!important.tmp\n", "app/important.tmp": "", "app/c.tmp": ""})
    (repo / ".git" / "info" / "exclude").write_text("scratch/\n")
    got = listing(repo / "app", monkeypatch, use_git=True)
    assert got["by_git"]
    assert got["files"] == [".gitignore", "AGENTS.md", "important.tmp", "keep.md"]
    assert {"x.secret.md", "c.tmp"} <= set(got["ignored"])
    walked = listing(repo / "app", monkeypatch, use_git=False)
    assert "scratch/notes.md" in walked["files"]  # the walk reads no rule above the root
    top = listing(repo, monkeypatch, use_git=True)
    assert "app/important.tmp" in top["files"]
    assert "app/important.tmp" in listing(repo, monkeypatch, use_git=False)["ignored"]


def test_a_root_git_ignores_is_walked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    write(repo, {".gitignore": "vendor/\n", "vendor/lib/AGENTS.md": "", "vendor/lib/a.py": ""})
    git(repo, "add", "-f", "vendor/lib/a.py")
    got = listing(repo / "vendor" / "lib", monkeypatch, use_git=True)
    assert not got["by_git"]
    assert got["files"] == ["AGENTS.md", "a.py"]


def test_the_walk_without_git_on_path(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    walked = listing(repo, monkeypatch, use_git=False)
    empty = tmp_path / "no-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    got = listing(repo, monkeypatch, use_git=True)
    assert not got["by_git"]
    assert got == walked


@pytest.mark.parametrize("value", ["", "0"])
def test_git_listing_is_opt_in(repo: Path, monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("RULEMAP_GIT_LIST", value)
    reader = LocalReader(str(repo))
    reader.list_files()
    assert not reader.listed_by_git
    monkeypatch.setenv("RULEMAP_GIT_LIST", "yes")
    reader.list_files()
    assert reader.listed_by_git


def test_no_git_call_outside_a_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty `.git` directory (a fixture's, a materialized corpus entry's) is no repository:
    the walk, and not one process started."""
    root = tmp_path / "ws"
    (root / ".git").mkdir(parents=True)
    (root / "AGENTS.md").write_text("x\n")

    def spawn(*args: object, **kwargs: object) -> int:
        raise AssertionError("git was started")

    monkeypatch.setattr(os, "posix_spawnp", spawn)
    reader = LocalReader(str(root))
    assert list(reader.list_files()) == ["AGENTS.md"]
    assert not reader.listed_by_git


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_blocked_git_falls_back_to_the_walk_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A FIFO `.gitignore` blocks git's open() for good: the deadline ends git, the walk
    lists (it never opens a FIFO), and the reader asks git no more."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    write(repo, {"AGENTS.md": "", "a/b.md": ""})
    os.mkfifo(repo / "a" / ".gitignore")
    monkeypatch.setenv("RULEMAP_GIT_TIMEOUT", "0.5")
    reader = LocalReader(str(repo))
    assert sorted(reader.list_files()) == ["AGENTS.md", "a/.gitignore", "a/b.md"]
    assert not reader.listed_by_git
    calls: list[object] = []
    real_spawn = os.posix_spawnp

    def spawn(*args: Any, **kwargs: Any) -> int:
        calls.append(args)
        return real_spawn(*args, **kwargs)

    monkeypatch.setattr(os, "posix_spawnp", spawn)
    reader.list_files()
    assert calls == []


# ----- whole-check findings: the same with and without git listing --------------------------


def _entries() -> list[Path]:
    base = REALWORLD / "entries"
    return sorted(p for p in base.iterdir() if (p / "FILES.txt").is_file()) if base.is_dir() else []


def _check(root: Path, *, use_git: bool) -> tuple[str, bool]:
    env = {k: v for k, v in os.environ.items() if k not in ("RULEMAP_CONFIG", "COLUMNS")}
    env.update(GIT_ENV, PYTHONPATH=str(REPO / "server"), XDG_CONFIG_HOME=str(root / ".nocfg"))
    env["RULEMAP_GIT_LIST"] = "1" if use_git else "0"
    probe = (
        "import sys\n"
        "from rulemap.readers import local\n"
        "used = []\n"
        "real = local.LocalReader.list_files\n"
        "def spy(self):\n"
        "    files = real(self)\n"
        "    used.append(self.listed_by_git)\n"
        "    return files\n"
        "local.LocalReader.list_files = spy\n"
        "from rulemap.cli.main import main\n"
        "try:\n"
        "    main(sys.argv[1:])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('\\nLISTED_BY_GIT', any(used))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, "check", str(root), "--format", "json"],
        cwd=root, env=env, capture_output=True, text=True, timeout=300, check=False,
    )
    out, _, flag = done.stdout.rpartition("\nLISTED_BY_GIT ")
    return out, flag.strip() == "True"


@pytest.mark.slow  # real repositories through git
@pytest.mark.parametrize("entry", _entries(), ids=lambda p: p.name)
def test_findings_are_the_same_with_git_listing_on_real_world_entries(
    entry: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sys.path.insert(0, str(REALWORLD))
    try:
        from materialize import materialize  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(REALWORLD))
    root = tmp_path / entry.name
    materialize(entry, root)
    git(root, "init", "-q")
    git(root, "add", "-A")
    assert_same(root, monkeypatch)
    walked, walked_by_git = _check(root, use_git=False)
    listed, listed_by_git = _check(root, use_git=True)
    assert not walked_by_git and listed_by_git
    assert json.loads(listed) == json.loads(walked)
