"""`--ref REF` and the git-ref reader, on real temporary git repositories.

Every repository here is made with the `git` command in `tmp_path`; the reader must answer from
the commit's objects only — a working tree that differs (or is gone) changes nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from git_repos import GIT_ENV, git, write

from rulemap.readers.base import ReadError
from rulemap.readers.git import GitRefReader
from rulemap.readers.git_process import GitRefError
from rulemap.readers.local import LocalReader


def link(repo: Path, name: str, target: str) -> None:
    path = repo / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_symlink() or path.exists():
        path.unlink()
    path.symlink_to(target)


def commit(repo: Path, message: str = "c") -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def new_repo(path: Path, files: dict[str, str] | None = None) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q")
    if files:
        write(path, files)
    return path


# ----- what the ref holds, not the working tree ---------------------------------------------


def test_two_commits_explain_differs_and_the_working_tree_is_not_read(tmp_path, cli):
    repo = new_repo(tmp_path / "r", {"AGENTS.md": "# v1\nSee @docs/a.md\n", "docs/a.md": "A1\n"})
    first = commit(repo)
    write(repo, {"AGENTS.md": "# v2 only\n"})
    commit(repo)
    write(repo, {"AGENTS.md": "# working tree\n"})
    code, out, _ = cli(["explain", "--ref", first, "--text"], repo)
    assert code == 0 and "# v1" in out and "A1" in out
    code, out, _ = cli(["explain", "--ref", "HEAD", "--text"], repo)
    assert code == 0 and "# v2 only" in out and "A1" not in out and "working tree" not in out
    code, out, _ = cli(["explain", "--text"], repo)
    assert "# working tree" in out


def test_a_file_only_in_the_working_tree_is_invisible(tmp_path, cli):
    repo = new_repo(tmp_path / "r", {"AGENTS.md": "root\n", "src/x.ts": "x\n"})
    commit(repo)
    write(repo, {"src/AGENTS.md": "untracked nested\n", "extra.md": "new\n"})
    reader = GitRefReader(str(repo), "HEAD")
    assert sorted(reader.list_files()) == ["AGENTS.md", "src/x.ts"]
    assert not reader.exists(str(repo / "src/AGENTS.md"))
    with pytest.raises(ReadError, match="does not exist in HEAD"):
        reader.read_bytes(str(repo / "extra.md"))
    code, out, _ = cli(["explain", "src/x.ts", "--ref", "HEAD", "--json"], repo)
    paths = [f["path"] for f in json.loads(out)["files"]]
    assert code == 0 and paths == ["AGENTS.md"]


def test_everything_loads_with_the_working_tree_gone(tmp_path, cli):
    repo = new_repo(tmp_path / "r", {
        "AGENTS.md": "root @docs/a.md\n", "docs/a.md": "imported\n",
        ".claude/rules/api.md": "---\npaths: src/**\n---\nAPI rule\n", "src/x.ts": "x\n",
    })
    commit(repo)
    for child in repo.iterdir():
        if child.name != ".git":
            shutil.rmtree(child) if child.is_dir() else child.unlink()
    code, out, _ = cli(["explain", "src/x.ts", "--ref", "HEAD", "--text"], repo)
    assert code == 0 and "root" in out and "imported" in out and "API rule" in out
    code, out, _ = cli(["check", "--ref", "HEAD"], repo)
    assert code == 0, out


def test_a_branch(tmp_path, cli):
    repo = new_repo(tmp_path / "r", {"AGENTS.md": "root\n", "src/x.ts": "x\n"})
    commit(repo)
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {".claude/rules/ts.md": "---\npaths: '**/*.ts'\n---\nUse strict TS.\n"})
    commit(repo)
    git(repo, "checkout", "-q", "main")
    assert not (repo / ".claude").exists()
    _, out, _ = cli(["explain", "src/x.ts", "--ref", "feature", "--text"], repo)
    assert "Use strict TS." in out
    _, out, _ = cli(["explain", "src/x.ts", "--ref", "main", "--text"], repo)
    assert "Use strict TS." not in out


def test_a_deleted_file_still_loads_from_the_ref(tmp_path, cli):
    repo = new_repo(tmp_path / "r", {"AGENTS.md": "See @docs/a.md\n", "docs/a.md": "kept\n"})
    commit(repo)
    (repo / "docs/a.md").unlink()
    code, out, _ = cli(["check"], repo)
    assert code == 1 and "broken-import" in out
    code, out, _ = cli(["check", "--ref", "HEAD"], repo)
    assert code == 0 and "broken-import" not in out
    _, out, _ = cli(["explain", "--ref", "HEAD", "--text"], repo)
    assert "kept" in out


def test_a_renamed_rule(tmp_path, cli):
    rule = "---\npaths: src/api/**\n---\nValidate input.\n"
    repo = new_repo(tmp_path / "r", {"AGENTS.md": "root\n", ".claude/rules/api.md": rule,
                                     "src/api/x.ts": "x\n"})
    before = commit(repo)
    git(repo, "mv", ".claude/rules/api.md", ".claude/rules/backend.md")
    after = commit(repo)
    shutil.rmtree(repo / "src")  # a TARGET need not exist in the working tree
    loads = {}
    for ref in (before, after):
        code, out, _ = cli(["explain", "src/api/x.ts", "--ref", ref, "--json"], repo)
        assert code == 0
        loads[ref] = [f["path"] for f in json.loads(out)["files"]]
    assert ".claude/rules/api.md" in loads[before] and ".claude/rules/backend.md" not in loads[
        before]
    assert ".claude/rules/backend.md" in loads[after] and ".claude/rules/api.md" not in loads[
        after]


def test_the_repositorys_configuration_comes_from_the_ref(tmp_path, cli):
    repo = new_repo(tmp_path / "r", {"AGENTS.md": "x" * 50 + "\n",
                                     "rulemap.toml": "maxChars = 10\n"})
    commit(repo)
    (repo / "rulemap.toml").unlink()
    _, out, _ = cli(["explain", "--ref", "HEAD", "--json"], repo)
    assert json.loads(out)["files"][0]["cut"] is True
    _, out, _ = cli(["explain", "--json"], repo)
    assert json.loads(out)["files"][0]["cut"] is False


# ----- symlinks and identity ----------------------------------------------------------------


def test_checkout_links_claude_md_to_agents_md_but_the_ref_has_two_files(tmp_path, cli):
    repo = new_repo(tmp_path / "r", {"AGENTS.md": "agents text\n", "CLAUDE.md": "claude text\n"})
    commit(repo)
    link(repo, "CLAUDE.md", "AGENTS.md")  # the checkout's alias, not committed
    local = LocalReader(str(repo))
    assert local.identity(str(repo / "CLAUDE.md")) == local.identity(str(repo / "AGENTS.md"))
    reader = GitRefReader(str(repo), "HEAD")
    assert reader.identity(str(repo / "CLAUDE.md")) != reader.identity(str(repo / "AGENTS.md"))
    assert reader.identity(str(repo / "CLAUDE.md")) == os.path.realpath(repo) + "/CLAUDE.md"
    assert reader.read_bytes(str(repo / "CLAUDE.md")) == b"claude text\n"
    _, out, _ = cli(["explain", "--ref", "HEAD", "--text", "--profile", "cogitator"], repo)
    assert "agents text" in out and "claude text" in out
    _, out, _ = cli(["explain", "--text", "--profile", "cogitator"], repo)
    assert "claude text" not in out and out.count("agents text") == 1


def test_the_ref_links_claude_md_to_agents_md_but_the_checkout_has_two_files(tmp_path, cli):
    repo = new_repo(tmp_path / "r", {"AGENTS.md": "agents text\n"})
    link(repo, "CLAUDE.md", "AGENTS.md")
    commit(repo)
    (repo / "CLAUDE.md").unlink()
    write(repo, {"CLAUDE.md": "checkout claude\n"})
    reader = GitRefReader(str(repo), "HEAD")
    assert reader.identity(str(repo / "CLAUDE.md")) == reader.identity(str(repo / "AGENTS.md"))
    assert reader.read_bytes(str(repo / "CLAUDE.md")) == b"agents text\n"
    _, out, _ = cli(["explain", "--ref", "HEAD", "--text", "--profile", "cogitator"], repo)
    assert out.count("agents text") == 1 and "checkout claude" not in out
    _, out, _ = cli(["explain", "--ref", "HEAD", "--text", "--profile", "mastra"], repo)
    assert "checkout claude" not in out


def test_a_symlink_in_the_ref_out_of_the_repository_is_an_escape(tmp_path, cli):
    outside = tmp_path / "outside"
    write(outside, {"secret.md": "SECRET\n"})
    repo = new_repo(tmp_path / "r", {"AGENTS.md": "root @docs/shared.md\n"})
    link(repo, "CLAUDE.md", str(outside / "secret.md"))
    link(repo, "docs/shared.md", "../../outside/secret.md")
    commit(repo)
    reader = GitRefReader(str(repo), "HEAD")
    with pytest.raises(ReadError, match="pointing outside the repository"):
        reader.read_bytes(str(repo / "CLAUDE.md"))
    assert "CLAUDE.md" in reader.list_files()
    code, out, _ = cli(["check", "--ref", "HEAD", "--format", "json"], repo)
    assert code == 1 and "SECRET" not in out
    found = {(d["path"], d["code"]): d["message"] for d in json.loads(out)["diagnostics"]}
    assert "pointing outside the repository" in found["CLAUDE.md", "unreadable-file"]
    assert "points outside the workspace (through a symlink)" in found[
        "AGENTS.md", "import-outside-workspace"]
    _, out, _ = cli(["explain", "--ref", "HEAD", "--text"], repo)
    assert "SECRET" not in out
    # the user's grant (never the repository's) lets the import through, from the host disk
    _, out, _ = cli(["explain", "--ref", "HEAD", "--text", "--allow-imports-from",
                     str(outside)], repo)
    assert "SECRET" in out


def test_the_user_configuration_grant_works_with_ref(tmp_path, cli, monkeypatch):
    outside = tmp_path / "outside"
    write(outside, {"shared.md": "SHARED\n"})
    repo = new_repo(tmp_path / "r", {"AGENTS.md": f"root @{outside}/shared.md\n"})
    commit(repo)
    config = tmp_path / "user.toml"
    config.write_text(f'allowImportsFrom = ["{outside}"]\n')
    _, out, _ = cli(["explain", "--ref", "HEAD", "--text"], repo)
    assert "SHARED" not in out
    monkeypatch.setenv("RULEMAP_CONFIG", str(config))
    _, out, _ = cli(["explain", "--ref", "HEAD", "--text"], repo)
    assert "SHARED" in out


def test_links_loops_dangling_and_linked_directories(tmp_path):
    repo = new_repo(tmp_path / "r", {"shared/rules/a.md": "rule a\n", "AGENTS.md": "x\n"})
    link(repo, "loop1", "loop2")
    link(repo, "loop2", "loop1")
    link(repo, "gone.md", "nowhere.md")
    link(repo, ".claude/rules", "../shared/rules")
    link(repo, "shared/up", "..")  # a link back up is not walked
    commit(repo)
    reader = GitRefReader(str(repo), "HEAD")
    files = sorted(reader.list_files())
    assert ".claude/rules/a.md" in files and "shared/rules/a.md" in files
    assert not any(f.startswith("shared/up/") for f in files)
    assert sorted(reader.dangling_links()) == [("gone.md", "nowhere.md"), ("loop1", "loop2"),
                                               ("loop2", "loop1")]
    with pytest.raises(ReadError, match="loop"):
        reader.read_bytes(str(repo / "loop1"))
    assert reader.read_bytes(str(repo / ".claude/rules/a.md")) == b"rule a\n"
    assert reader.identity(str(repo / ".claude/rules/a.md")) == reader.identity(
        str(repo / "shared/rules/a.md"))
    assert reader.is_dir(str(repo / ".claude/rules")) and not reader.is_dir(str(repo / "AGENTS.md"))
    assert reader.files_under(".claude") == [".claude/rules/a.md"]


def test_skipped_directories_size_limit_and_attributes(tmp_path):
    repo = new_repo(tmp_path / "r", {"AGENTS.md": "x\n", "node_modules/p/AGENTS.md": "dep\n",
                                     "big.md": "b" * 5000})
    sha = commit(repo)
    reader = GitRefReader(str(repo), "main", max_bytes=4096)
    assert reader.commit == sha and reader.ref == "main" and reader.lexical_identity is False
    assert "node_modules/p/AGENTS.md" not in reader.list_files()
    assert reader.is_ignored("node_modules/p/AGENTS.md") and not reader.is_ignored("AGENTS.md")
    assert list(reader.ignored_files()) == []
    with pytest.raises(ReadError, match="over the"):
        reader.read_bytes(str(repo / "big.md"))
    assert reader.read_bytes(str(repo / "AGENTS.md")) == b"x\n"  # the batch process survived
    reader.close()
    assert reader.read_bytes(str(repo / "AGENTS.md")) == b"x\n"  # a new one starts
    reader.close()


# ----- a workspace root below the repository's top ------------------------------------------


def test_a_workspace_root_that_is_a_subdirectory(tmp_path, cli):
    repo = new_repo(tmp_path / "r", {
        "AGENTS.md": "top\n", "shared/style.md": "STYLE v1\n",
        "packages/app/AGENTS.md": "app @../../shared/style.md\n", "packages/app/src/x.ts": "x\n",
    })
    commit(repo)
    write(repo, {"shared/style.md": "STYLE working tree\n"})
    app = repo / "packages/app"
    reader = GitRefReader(str(app), "HEAD")
    assert reader.prefix == "packages/app"
    assert sorted(reader.list_files()) == ["AGENTS.md", "src/x.ts"]
    assert reader.identity(str(app)) == os.path.realpath(app)
    code, out, _ = cli(["check", "--ref", "HEAD", str(app)], app)
    assert "import-outside-workspace" in out and "STYLE" not in out
    _, out, _ = cli(["explain", "--ref", "HEAD", "--text", "--root", str(app),
                     "--allow-imports-from", str(repo / "shared")], app)
    assert "app" in out and "STYLE v1" in out and "working tree" not in out and "top" not in out


def test_a_root_reached_through_a_symlink_and_a_root_the_commit_lacks(tmp_path, cli):
    repo = new_repo(tmp_path / "r", {"AGENTS.md": "top\n"})
    before = commit(repo)
    write(repo, {"packages/app/AGENTS.md": "app @../../AGENTS.md\n"})
    commit(repo)
    (tmp_path / "alias").symlink_to(repo / "packages/app")
    alias = str(tmp_path / "alias")
    reader = GitRefReader(alias, "HEAD")
    assert reader.prefix == "packages/app" and reader.root == alias
    assert reader.read_bytes(alias + "/AGENTS.md") == b"app @../../AGENTS.md\n"
    real = os.path.realpath(repo)
    assert reader.identity(alias + "/AGENTS.md") == real + "/packages/app/AGENTS.md"
    code, _, err = cli(["check", "--ref", before, str(repo / "packages/app")], repo)
    assert code == 2 and "`packages/app/` does not exist in commit" in err


# ----- errors: exit 2, naming the ref and the fix -------------------------------------------


def test_a_missing_ref(tmp_path, cli):
    repo = new_repo(tmp_path / "r", {"AGENTS.md": "x\n"})
    commit(repo)
    for command in (["check"], ["explain"], ["graph"], ["compare"]):
        code, out, err = cli([*command, "--ref", "no-such-branch"], repo)
        assert code == 2 and out == ""
        assert err.startswith("rulemap: --ref no-such-branch: no such commit in ")
        assert "git fetch" in err and "Traceback" not in err
    code, _, err = cli(["check", "--ref=--output=/tmp/x"], repo)  # never a git option
    assert code == 2 and "cannot start with `-`" in err


def test_a_shallow_clone_missing_the_commit(tmp_path, cli):
    origin = new_repo(tmp_path / "origin", {"AGENTS.md": "old\n"})
    old = commit(origin)
    write(origin, {"AGENTS.md": "new\n"})
    commit(origin)
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{origin}",
                    str(tmp_path / "clone")], check=True, env={**os.environ, **GIT_ENV})
    clone = tmp_path / "clone"
    code, out, err = cli(["explain", "--ref", old, "--text"], clone)
    assert code == 2 and out == ""
    assert f"--ref {old}:" in err and "shallow clone" in err and "git fetch --unshallow" in err
    code, out, _ = cli(["explain", "--ref", "HEAD", "--text"], clone)
    assert code == 0 and "new" in out


def test_an_empty_repository(tmp_path, cli):
    repo = new_repo(tmp_path / "r", {"AGENTS.md": "uncommitted\n"})
    code, _, err = cli(["check", "--ref", "HEAD"], repo)
    assert code == 2 and "--ref HEAD:" in err and "no commits yet" in err


def test_not_a_git_repository(tmp_path, monkeypatch):
    plain = tmp_path / "plain"
    plain.mkdir()
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    with pytest.raises(GitRefError, match=r"--ref HEAD: .* is not inside a git repository"):
        GitRefReader(str(plain), "HEAD")


def test_git_not_installed(tmp_path, monkeypatch):
    repo = new_repo(tmp_path / "r", {"AGENTS.md": "x\n"})
    commit(repo)
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    with pytest.raises(GitRefError, match="git is not installed"):
        GitRefReader(str(repo), "HEAD")


# ----- the CLI end to end -------------------------------------------------------------------


def run_cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "RULEMAP_CONFIG"}
    env["XDG_CONFIG_HOME"] = str(cwd / ".no-user-config")
    return subprocess.run([sys.executable, "-m", "rulemap", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)


def test_cli_end_to_end_explain_check_graph_compare(tmp_path):
    repo = new_repo(tmp_path / "r", {"AGENTS.md": "See @docs/a.md\n", "docs/a.md": "A\n",
                                     "src/x.ts": "x\n"})
    old = commit(repo)
    write(repo, {"AGENTS.md": "See @docs/missing.md\n"})
    commit(repo)
    explain = run_cli(["explain", "src/x.ts", "--ref", old, "--json"], repo)
    assert explain.returncode == 0
    assert [f["path"] for f in json.loads(explain.stdout)["files"]] == ["AGENTS.md", "docs/a.md"]
    assert run_cli(["check", "--ref", old], repo).returncode == 0
    broken = run_cli(["check", "--ref", "HEAD"], repo)
    assert broken.returncode == 1 and "docs/missing.md" in broken.stdout
    graph = json.loads(run_cli(["graph", "--ref", old], repo).stdout)
    assert {"from": "AGENTS.md", "to": "docs/a.md"}.items() <= graph["edges"][0].items()
    compare = run_cli(["compare", "src/x.ts", "--ref", old, "--json", "--profiles",
                       "cogitator,codex"], repo)
    assert compare.returncode == 0
    columns = json.loads(compare.stdout)["columns"]
    assert [c["profile"] for c in columns] == ["cogitator", "codex"]
    assert "docs/a.md" in [f["path"] for f in columns[0]["explanation"]["files"]]
    for command in ("explain", "check", "graph", "compare"):
        helped = " ".join(run_cli([command, "--help"], repo).stdout.split())
        assert "--ref REF read instruction files, rules and imports from git commit REF" in helped
