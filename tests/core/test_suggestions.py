"""A did-you-mean is worked out only where it is shown: the check leaves it pending on the
finding (`Finding.hint`); the text and GitHub reports, `check --suggest`, a quick fix and a
hover work it out (docs/checks.md, "Suggestions")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from core_helpers import make_ws
from tests.cli_runner import RunCli

from rulemap import analysis
from rulemap.checks import hints

FILES = {
    ".claude/rules/pen.md": "---\npaths:\n  - src/components/features/magic-pen/**/*\n---\nx\n",
    "src/components/magic-pen/a.tsx": "",
    "AGENTS.md": "# Project\n",
}
HINT = "Did you mean `src/components/magic-pen/**/*`?"


def _tree(tmp_path: Path) -> Path:
    for name, text in FILES.items():
        path = tmp_path / "repo" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path / "repo"


def test_the_check_leaves_the_did_you_mean_pending_and_showing_it_works_it_out() -> None:
    ws = make_ws(dict(FILES))
    [dead] = [f for f in analysis.check(ws) if f.code == "unmatched-glob"]
    assert dead.hint is not None and HINT not in dead.message and not dead.fixes
    [shown] = analysis.with_suggestions(ws, [dead])
    assert shown.message.endswith(HINT) and shown.hint is None
    assert [(f.title, f.new_text) for f in shown.fixes] == [
        ("Change the glob to `src/components/magic-pen/**/*`", "src/components/magic-pen/**/*")]
    # the cached finding is not changed: a second check still has it pending
    [again] = [f for f in analysis.check(ws) if f.code == "unmatched-glob"]
    assert again is dead and again.hint is not None and HINT not in again.message


def test_a_glob_with_nothing_close_loses_its_hint_and_keeps_its_message() -> None:
    ws = make_ws({**FILES, ".claude/rules/pen.md": "---\npaths:\n  - zzz/qqq/**\n---\nx\n"})
    [dead] = [f for f in analysis.check(ws) if f.code == "unmatched-glob"]
    [shown] = hints.with_suggestions(ws, [dead])
    assert shown.hint is None and shown.message == dead.message and not shown.fixes


def test_text_and_github_reports_have_it_json_and_sarif_only_with_suggest(
    cli: RunCli, tmp_path: Path
) -> None:
    repo = _tree(tmp_path)
    for fmt in ("text", "github"):
        _, out, _ = cli(["check", "--no-cache", "--format", fmt, str(repo)], tmp_path)
        assert HINT in out, fmt
    for fmt in ("json", "sarif"):
        _, out, _ = cli(["check", "--no-cache", "--format", fmt, str(repo)], tmp_path)
        assert "Did you mean" not in out and "magic-pen" in out, fmt
        _, out, _ = cli(["check", "--no-cache", "--suggest", "--format", fmt, str(repo)],
                        tmp_path)
        assert HINT in out, fmt
    _, out, _ = cli(["check", "--no-cache", "--format", "json", str(repo)], tmp_path)
    [dead] = [d for d in json.loads(out)["diagnostics"] if d["code"] == "unmatched-glob"]
    assert dead["message"].endswith("so it never loads.")


def test_the_help_says_what_suggest_does(
    cli: RunCli, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        cli(["check", "--help"], tmp_path)
    out = " ".join(capsys.readouterr().out.split())
    assert "--suggest work out every did-you-mean in json and sarif output too" in out
