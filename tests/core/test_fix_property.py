"""No safe fix introduces a finding, on every conformance fixture a safe fix applies to: the
workspace is copied, `rulemap check --fix` applied, and the check after it must report no
(path, code) more often than before (tests/fix_property.py). The same property runs over the
project's own real repositories (tests/realworld) and the shared corpus (tests/corpus)."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest
from tests.cli_runner import in_process_cli
from tests.fix_property import introduced_by_fixes

from rulemap.checks.registry import codes_where

CASES = Path(__file__).resolve().parents[1] / "conformance" / "cases"
SAFE = codes_where("safe")


def _fixable_cases() -> list[str]:
    out = []
    for case in sorted(CASES.iterdir()):
        spec = tomllib.loads((case / "case.toml").read_text(encoding="utf-8"))
        expected = spec.get("expect", {}).get("diagnostics", [])
        codes = {str(d.get("code")) for d in expected}
        if spec.get("command", [""])[0] == "check" and codes & SAFE:
            out.append(case.name)
    return out


FIXABLE = _fixable_cases()


def test_some_fixtures_have_safe_fixes() -> None:
    assert len(FIXABLE) >= 5, FIXABLE


@pytest.mark.parametrize("case", FIXABLE)
def test_safe_fixes_introduce_no_finding(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = tmp_path / case
    shutil.copytree(CASES / case / "workspace", root, symlinks=True)
    run = in_process_cli(monkeypatch, capsys, tmp_path)
    assert introduced_by_fixes(run, root) == []


def test_the_instructions_shadowed_fix_draws_no_duplicate_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    # the fix writes `@AGENTS.md` into CLAUDE.md; cogitator reads AGENTS.md anyway, but the
    # line is Claude Code's only way to it, so nothing may call it useless afterwards
    root = tmp_path / "w"
    root.mkdir()
    (root / "AGENTS.md").write_text("# Agents\n\n" + "Run the tests before you push.\n" * 3)
    (root / "CLAUDE.md").write_text("# Claude\n\nBe brief.\n")
    run = in_process_cli(monkeypatch, capsys, tmp_path)
    assert introduced_by_fixes(run, root) == []
    assert "@AGENTS.md" in (root / "CLAUDE.md").read_text()
