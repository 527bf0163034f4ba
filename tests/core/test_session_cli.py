"""`rulemap session`: the table fits 80 columns, --json is the documented shape, --text the
messages in order, bad input is reported with its line and never a traceback."""

import json
import os
import subprocess
import sys
from pathlib import Path

FILES = {
    "AGENTS.md": "Root instructions.\n",
    ".claude/rules/api.md": "---\npaths:\n  - 'src/api/**'\n---\nAPI rule.\n",
    "src/api/a.ts": "a\n",
    "packages/very-long-package-name/with/deep/directories/AGENTS.md": "P" * 40 + "\n",
    "packages/very-long-package-name/with/deep/directories/file-with-a-long-name.py": "",
    "rulemap.toml": "maxChars = 60\n",
}


def run(args, cwd):
    env = {k: v for k, v in os.environ.items() if k not in ("RULEMAP_CONFIG", "COLUMNS")}
    env["XDG_CONFIG_HOME"] = str(Path(cwd) / ".no-user-config")
    return subprocess.run([sys.executable, "-m", "rulemap", "session", *args], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=60)


def make(tmp_path):
    for name, text in FILES.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (tmp_path / ".git").mkdir()
    return tmp_path


DEEP = "packages/very-long-package-name/with/deep/directories/file-with-a-long-name.py"


def test_table_fits_80_columns_and_names_the_first_cut(tmp_path):
    root = make(tmp_path)
    out = run(["read:src/api/a.ts", f"edit:{DEEP}"], root)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    text = " ".join(out.stdout.split())  # the lines under the table wrap at word boundaries
    assert "file-with-a-long-name.py" in text and "AGENTS.md" in text
    assert "first cut: step 2 (edit " in text
    assert "[Rulemap: instructions truncated at 60 characters." in text


def test_json_and_text(tmp_path):
    root = make(tmp_path)
    steps = tmp_path / "run.json"
    steps.write_text(json.dumps([{"kind": "read", "paths": ["src/api/a.ts"]},
                                 {"kind": "edit", "paths": [DEEP]}]))
    data = json.loads(run(["--file", str(steps), "--json"], root).stdout)
    assert data["profile"] == "cogitator" and data["hasStepModel"] is True
    assert data["budget"] == {"kind": "shared", "unit": "chars", "limit": 60}
    assert [[f["path"] for f in s["joined"]] for s in data["steps"]] == [
        ["AGENTS.md"], [".claude/rules/api.md"], [DEEP.rsplit("/", 1)[0] + "/AGENTS.md"]]
    assert data["firstCutStep"] == 2 and data["steps"][2]["left"] == 0
    text = run(["--file", str(steps), "--text"], root).stdout
    assert text.index("==> step 0: start-up <==\nRoot instructions.\n") == 0
    assert "==> step 1: read src/api/a.ts <==\nAPI rule.\n" in text
    assert text.rstrip().endswith("Cut: packages/very-long-package-name/with/deep/directories/"
                                  "AGENTS.md.]")


def test_a_claude_code_log_with_bad_lines(tmp_path):
    root = make(tmp_path)
    log = tmp_path / "session.jsonl"
    log.write_text("\n".join([
        json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "name": "Read", "input": {"file_path": str(root / "src/api/a.ts")}}
        ]}}),
        "{oops",
        json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "name": "Edit", "input": {"file_path": "/outside/x.py"}}]}}),
    ]) + "\n")
    out = run(["--file", str(log), "--json"], root)
    assert out.returncode == 0 and "Traceback" not in out.stderr
    assert f"{log}:2: not valid JSON" in out.stderr
    # named by its line, never quoted: a transcript's content is not echoed
    assert f"{log}:3: a path outside the workspace root" in out.stderr
    assert "/outside/x.py" not in out.stderr + out.stdout
    data = json.loads(out.stdout)
    assert [p["line"] for p in data["problems"]] == [2, 3]
    assert data["steps"][1]["joined"][0]["path"] == ".claude/rules/api.md"


def test_usage_errors_exit_2(tmp_path):
    root = make(tmp_path)
    bad = run(["look:src/api/a.ts"], root)
    assert bad.returncode == 2 and "is not KIND:PATH" in bad.stderr
    missing = run(["--file", "nope.json"], root)
    assert missing.returncode == 2 and "--file nope.json: no such file" in missing.stderr
    unknown = run(["--profile", "nobody"], root)
    assert unknown.returncode == 2 and "nobody" in unknown.stderr


def test_a_profile_without_a_step_model(tmp_path):
    root = make(tmp_path)
    out = run(["read:src/api/a.ts", "--profile", "codex"], root)
    assert out.returncode == 0
    assert "no per-step model" in " ".join(out.stdout.split())


def test_ref_reads_the_instructions_from_the_commit(tmp_path):
    root = make(tmp_path)
    (root / ".git").rmdir()
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "one"], cwd=root, check=True)
    (root / ".claude/rules/api.md").write_text("---\npaths: ['src/api/**']\n---\nNew rule.\n")
    steps = ["read:src/api/a.ts", "--text"]
    assert "New rule." in run(steps, root).stdout
    from_ref = run([*steps, "--ref", "HEAD"], root)
    assert from_ref.returncode == 0, from_ref.stderr
    assert "API rule." in from_ref.stdout and "New rule." not in from_ref.stdout
    missing = run([*steps, "--ref", "no-such-ref"], root)
    assert missing.returncode == 2 and "no-such-ref" in missing.stderr
