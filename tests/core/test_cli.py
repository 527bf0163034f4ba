"""The CLI contract: formats, exit codes, configuration errors, path handling."""

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def run(args, cwd):
    # never the user configuration file of the machine running the tests
    # nor its $COLUMNS: piped, text findings are one line each
    env = {k: v for k, v in os.environ.items() if k not in ("RULEMAP_CONFIG", "COLUMNS")}
    env["XDG_CONFIG_HOME"] = str(Path(cwd) / ".no-user-config")
    return subprocess.run(
        [sys.executable, "-m", "rulemap", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def make(tmp_path, files):
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (tmp_path / ".git").mkdir(exist_ok=True)
    return tmp_path


def test_check_text_json_sarif_github_and_exit_codes(tmp_path):
    root = make(tmp_path, {"AGENTS.md": "😀 @missing.md\n"})
    text = run(["check"], root)
    assert text.returncode == 1
    # grouped by file; piped, a finding is one line (grep finds its message whole)
    assert text.stdout.startswith("AGENTS.md\n  1:3  error  broken-import  `@missing.md`: ")
    # the summary says which agents the findings are for, and why each was selected
    assert text.stdout.endswith(
        "\n\nagents: cogitator (the default model), codex (AGENTS.md)\n"
        "Found 1 finding (1 error) in 1 of 1 file.\n")
    data = json.loads(run(["check", "--format", "json"], root).stdout)
    agents = [{"name": "cogitator", "title": "Cogitator (default)", "why": "the default model"},
              {"name": "codex", "title": "OpenAI Codex CLI", "why": "AGENTS.md"}]
    assert data["selection"] == agents
    diag = data["diagnostics"][0]
    assert diag["range"]["start"] == {"line": 0, "character": 3}  # UTF-16: the emoji is 2 units
    assert diag["severity"] == "error" and diag["code"] == "broken-import"
    sarif = json.loads(run(["check", "--format", "sarif"], root).stdout)
    assert sarif["version"] == "2.1.0"
    region = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == 1 and region["startColumn"] == 4
    # the platform assumed: Linux, as tests/conftest.py pins $RULEMAP_PLATFORM
    assert sarif["runs"][0]["properties"] == {"selection": agents, "platform": "linux"}
    github = run(["check", "--format", "github"], root)
    assert github.stdout.startswith("::error file=AGENTS.md,line=1,col=3")
    assert github.stderr == "agents: cogitator (the default model), codex (AGENTS.md)\n"


def test_clean_workspace_exits_zero(tmp_path):
    root = make(tmp_path, {"AGENTS.md": "fine\n"})
    assert run(["check"], root).returncode == 0


def test_config_errors_exit_2_and_name_key_and_file(tmp_path):
    root = make(tmp_path, {"AGENTS.md": "x", "rulemap.toml": "maxChar = 3\n"})
    result = run(["check"], root)
    assert result.returncode == 2
    assert (
        "rulemap.toml" in result.stderr
        and "maxChar" in result.stderr
        and "maxChars" in result.stderr
    )
    assert "Traceback" not in result.stderr
    (root / "rulemap.toml").write_text("maxChars = 'big'\n")
    result = run(["check"], root)
    assert result.returncode == 2 and "maxChars" in result.stderr


def test_pyproject_section(tmp_path):
    root = make(
        tmp_path,
        {
            "AGENTS.md": "@x.md",
            "pyproject.toml": "[tool.rulemap]\nseverity = {broken-import = 'off'}\n",
        },
    )
    assert run(["check"], root).returncode == 0


def test_explain_relative_target_and_cwd(tmp_path):
    root = make(tmp_path, {"AGENTS.md": "r", "pkg/AGENTS.md": "p", "pkg/src/a.ts": ""})
    out = json.loads(run(["explain", "src/a.ts", "--json"], root / "pkg").stdout)
    assert out["target"] == "pkg/src/a.ts" and out["cwd"] == "."
    assert [f["path"] for f in out["files"]] == ["AGENTS.md", "pkg/AGENTS.md"]
    out = json.loads(run(["explain", "pkg/src/a.ts", "--cwd", "pkg", "--json"], root).stdout)
    assert out["cwd"] == "pkg" and [f["reason"] for f in out["files"]] == ["project", "project"]
    assert set(out) == {
        "profile",
        "root",
        "cwd",
        "target",
        "maxChars",
        "totalChars",
        "files",
        "leftOut",
        "skipped",
        "budget",
        "selection",  # the selection, and which agent answered and why
        "answeredFor",
        "platform",  # the platform assumed (tests/conftest.py: Linux)
    }
    assert out["answeredFor"] == {"name": "cogitator", "why": "the default model"}
    assert [a["name"] for a in out["selection"]] == ["cogitator", "codex"]


def test_explain_outside_root_is_a_usage_error(tmp_path):
    root = make(tmp_path / "r", {"AGENTS.md": "r"})
    result = run(["explain", str(tmp_path), "--root", str(root)], root)
    assert result.returncode == 2 and "outside" in result.stderr


def test_graph_formats(tmp_path):
    root = make(tmp_path, {"AGENTS.md": "@a.md @gone.md", "a.md": "a"})
    graph = json.loads(run(["graph"], root).stdout)
    assert {(e["from"], e["to"], e["status"]) for e in graph["edges"]} == {
        ("AGENTS.md", "a.md", "ok"),
        ("AGENTS.md", "gone.md", "missing"),
    }
    assert "digraph" in run(["graph", "--format", "dot"], root).stdout
    assert run(["graph", "--format", "mermaid"], root).stdout.startswith("graph LR")


def test_help_teaches():
    result = run(["--help"], ".")
    assert "examples:" in result.stdout and "rulemap explain" in result.stdout


def test_graph_draws_a_symlinked_alias_once(tmp_path):
    import os

    root = make(tmp_path, {"AGENTS.md": "@a.md", "a.md": "a"})
    os.symlink("AGENTS.md", root / "CLAUDE.md")
    graph = json.loads(run(["graph"], root).stdout)
    edges = {(e["from"], e["to"], e["kind"]) for e in graph["edges"]}
    assert edges == {("CLAUDE.md", "AGENTS.md", "symlink"), ("AGENTS.md", "a.md", "import")}


# ----- trust: only the user grants reading outside the workspace (docs/security.md) ----------

SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- not-a-real-key"


def hostile_repo(tmp_path):
    """A repository that grants itself `~` and imports the user's key, and a temporary HOME
    (never the real one) holding that key."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(SECRET + "\n")
    root = make(
        tmp_path / "repo",
        {
            "AGENTS.md": "# Project\n@~/.ssh/id_rsa\n",
            "rulemap.toml": 'allowImportsFrom = ["~"]\n',
        },
    )
    env = {k: v for k, v in os.environ.items()
           if k not in ("RULEMAP_CONFIG", "XDG_CONFIG_HOME", "COLUMNS")}
    env.update(HOME=str(home), PYTHONPATH=str(REPO / "server"))
    return root, home, env


def run_env(args, cwd, env):
    return subprocess.run(
        [sys.executable, "-m", "rulemap", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=60,
    )


def test_repository_cannot_grant_itself_the_home_directory(tmp_path):
    root, _home, env = hostile_repo(tmp_path)
    for args in (["explain", "--text"], ["explain", "--json"], ["explain"], ["graph"],
                 ["check"], ["check", "--format", "sarif"]):
        result = run_env(args, root, env)
        assert result.returncode == 0, (args, result.stderr)
        assert SECRET not in result.stdout and SECRET not in result.stderr, args
    data = json.loads(run_env(["explain", "--json"], root, env).stdout)
    assert [f["path"] for f in data["files"]] == ["AGENTS.md"]
    explained = run_env(["explain", "--text"], root, env)
    assert "untrusted-config" in explained.stderr and "rulemap.toml:1:1" in explained.stderr
    check = run_env(["check"], root, env)
    assert "rulemap.toml\n  1:1  warning  untrusted-config  `allowImportsFrom` in rulemap.toml " \
        "is ignored" in check.stdout
    assert "--allow-imports-from" in check.stdout


def test_pyproject_cannot_grant_it_either(tmp_path):
    root, _home, env = hostile_repo(tmp_path)
    (root / "rulemap.toml").unlink()
    (root / "pyproject.toml").write_text('[tool.rulemap]\nallowImportsFrom = ["~"]\n')
    result = run_env(["explain", "--text"], root, env)
    assert result.returncode == 0 and SECRET not in result.stdout
    check = run_env(["check"], root, env).stdout
    assert "pyproject.toml\n  2:1  warning  untrusted-config" in check


def test_the_flag_grants_it(tmp_path):
    root, home, env = hostile_repo(tmp_path)
    result = run_env(["explain", "--text", "--allow-imports-from", "~/.ssh"], root, env)
    assert result.returncode == 0 and SECRET in result.stdout
    # absolute and relative (to the current directory) spellings, and repeatable
    absolute = run_env(["explain", "--text", "--allow-imports-from", "/nowhere",
                        "--allow-imports-from", str(home / ".ssh")], root, env)
    assert SECRET in absolute.stdout
    relative = run_env(["explain", "--root", str(root), "--text",
                        "--allow-imports-from", ".ssh"], home, env)
    assert SECRET in relative.stdout
    checked = run_env(["check", "--allow-imports-from", "~/.ssh"], root, env)
    assert "import-outside-workspace" not in checked.stdout
    assert "untrusted-config" in checked.stdout  # the repository's own setting stays ignored
    graph = json.loads(run_env(["graph", "--allow-imports-from", "~/.ssh"], root, env).stdout)
    assert str(home / ".ssh" / "id_rsa") in json.dumps(graph)


def test_the_user_config_file_grants_it(tmp_path):
    root, home, env = hostile_repo(tmp_path)
    mine = tmp_path / "mine.toml"
    mine.write_text('allowImportsFrom = ["~/.ssh"]\n')
    result = run_env(["explain", "--text"], root, {**env, "RULEMAP_CONFIG": str(mine)})
    assert result.returncode == 0 and SECRET in result.stdout
    # the default place: $XDG_CONFIG_HOME/rulemap/config.toml, else ~/.config/rulemap/config.toml
    (home / ".config" / "rulemap").mkdir(parents=True)
    (home / ".config" / "rulemap" / "config.toml").write_text('allowImportsFrom = ["~/.ssh"]\n')
    assert SECRET in run_env(["explain", "--text"], root, env).stdout
    assert SECRET not in run_env(
        ["explain", "--text"], root, {**env, "XDG_CONFIG_HOME": str(tmp_path / "empty")}
    ).stdout


def test_user_config_file_errors_exit_2(tmp_path):
    root, _home, env = hostile_repo(tmp_path)
    missing = run_env(["check"], root, {**env, "RULEMAP_CONFIG": str(tmp_path / "none.toml")})
    assert missing.returncode == 2 and "RULEMAP_CONFIG" in missing.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text('allowImportsFrom = ["relative"]\n')
    result = run_env(["explain"], root, {**env, "RULEMAP_CONFIG": str(bad)})
    assert result.returncode == 2 and str(bad) in result.stderr and "absolute" in result.stderr
    assert "Traceback" not in result.stderr
