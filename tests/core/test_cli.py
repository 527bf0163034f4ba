"""The CLI contract: formats, exit codes, configuration errors, path handling."""

import json
import subprocess
import sys


def run(args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "rulemap", *args],
        cwd=cwd,
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
    assert text.stdout.startswith("AGENTS.md:1:3: error broken-import ")
    data = json.loads(run(["check", "--format", "json"], root).stdout)
    diag = data["diagnostics"][0]
    assert diag["range"]["start"] == {"line": 0, "character": 3}  # UTF-16: the emoji is 2 units
    assert diag["severity"] == "error" and diag["code"] == "broken-import"
    sarif = json.loads(run(["check", "--format", "sarif"], root).stdout)
    assert sarif["version"] == "2.1.0"
    region = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == 1 and region["startColumn"] == 4
    github = run(["check", "--format", "github"], root).stdout
    assert github.startswith("::error file=AGENTS.md,line=1,col=3")


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
    }


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
