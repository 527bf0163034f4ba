"""`rulemap check --fix` / `--diff`: which fixes are safe, the edits (pure, `rulemap.fixes`),
and the CLI edge that writes them (`cli/fix.py` through `readers/safe_write.py`)."""

from __future__ import annotations

import gc
import json
import subprocess
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulemap import analysis, fixes
from rulemap.host import AnalysisHost
from rulemap.model import Finding, Fix, Span


def _finding(code: str = "suspicious-import", severity: str = "warning", *fix: Fix) -> Finding:
    return Finding("AGENTS.md", Span.at(0, 0), severity, code, "m", fixes=list(fix))  # type: ignore[arg-type]


def _replace(line: int, col: int, end: int, new: str, path: str = "AGENTS.md") -> Fix:
    return Fix(f"Change to `{new}`", "replace", path, Span.at(line, col, end), new)


# ----- which fixes are safe -----------------------------------------------------------------


def test_only_the_single_exact_replacement_of_an_error_or_warning_is_safe():
    trim = _replace(0, 3, 8, "@a.md")
    assert fixes.safe_fix(_finding("suspicious-import", "warning", trim)) is trim
    create = Fix("Create `b.md`", "create", "b.md")
    guess = _replace(0, 3, 8, "@b.md")
    # a "did you mean" guess beside a create: the author chooses
    assert fixes.safe_fix(_finding("broken-import", "error", guess, create)) is None
    # a guess alone is still a guess
    assert fixes.safe_fix(_finding("broken-import", "error", guess)) is None
    assert fixes.safe_fix(_finding("unmatched-glob", "warning", guess)) is None
    # wrapping a mention in backticks is an information finding's suggestion
    assert fixes.safe_fix(_finding("suspicious-import", "information", trim)) is None
    assert fixes.safe_fix(_finding("suspicious-import", "warning", create)) is None
    suppress = Fix("Suppress", "suppress", "AGENTS.md")
    assert fixes.safe_fix(_finding("suspicious-import", "warning", suppress)) is None
    outside = _replace(0, 0, 1, "x", path="/etc/passwd")
    assert fixes.safe_fix(_finding("suspicious-import", "warning", outside)) is None


# ----- the edits ----------------------------------------------------------------------------


def test_overlapping_edits_resolve_the_same_whatever_the_order():
    a = _finding("suspicious-import", "warning", _replace(0, 2, 8, "A"))
    b = _finding("suspicious-import", "warning", _replace(0, 5, 10, "B"))
    c = _finding("suspicious-import", "warning", _replace(0, 10, 12, "C"))  # adjacent: kept
    for order in ([a, b, c], [c, b, a], [b, c, a]):
        edits = fixes.plan(order)["AGENTS.md"]
        assert [e.new_text for e in edits] == ["A", "C"]
    text, applied = fixes.apply("0123456789abcdef\n", fixes.plan([b, a, c])["AGENTS.md"])
    assert text == "01A89Ccdef\n" and len(applied) == 2


def test_identical_edits_merge_and_insertions_at_one_place_do_not_both_apply():
    one = _replace(0, 4, 4, "X")
    same = _finding("suspicious-import", "warning", one)
    again = _finding("instructions-shadowed", "warning", _replace(0, 4, 4, "X"))
    other = _finding("suspicious-import", "warning", _replace(0, 4, 4, "Y"))
    edits = fixes.plan([same, again, other])["AGENTS.md"]
    assert len(edits) == 1 and edits[0].new_text == "X" and len(edits[0].findings) == 2


def test_apply_keeps_crlf_and_the_byte_order_mark_and_skips_stale_spans():
    edit = fixes.Edit("A", Span.at(3, 0), "\n@AGENTS.md\n", "t", ())  # the last, empty line
    stale = fixes.Edit("A", Span.at(9, 0, 3), "zzz", "t", ())
    past_the_end = fixes.Edit("A", Span.at(1, 5), "zzz", "t", ())  # "two" has 3 columns
    text, applied = fixes.apply("\ufeffone\r\ntwo\r\nthree\r\n", [edit, stale, past_the_end])
    assert text == "\ufeffone\r\ntwo\r\nthree\r\n\r\n@AGENTS.md\r\n" and applied == [edit]
    # columns are code points: the emoji is one
    emoji = fixes.Edit("A", Span.at(0, 2, 8), "@x.md", "t", ())
    assert fixes.apply("😀 @x.md, y", [emoji])[0] == "😀 @x.md y"


def test_unified_diff_marks_a_missing_final_newline():
    diff = fixes.unified_diff("a.md", "one\ntwo", "one\n2")
    assert diff.startswith("--- a/a.md\n+++ b/a.md\n")
    assert diff.endswith("+2\n\\ No newline at end of file\n")


# ----- the command --------------------------------------------------------------------------

SHADOWED = {
    # claude-code reads pkg/CLAUDE.md, not pkg/AGENTS.md: the fix adds the import (CRLF file)
    "pkg/AGENTS.md": "# pkg\n",
    "pkg/CLAUDE.md": "# pkg for claude\r\nuse pnpm\r\n",
    "CLAUDE.md": "@AGENTS.md\n",
    "AGENTS.md": "# root\n\nSee @docs/a.md, then @docs/b.md; and @docs/missing.md\n",
    "docs/a.md": "a\n",
    "docs/b.md": "b\n",
}


def _workspace(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "ws"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    (root / ".git").mkdir()
    return root


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.parts
    }


def _run(args: list[str], capsys, monkeypatch, root: Path) -> tuple[int, str, str]:
    from rulemap.cli.main import main

    monkeypatch.chdir(root)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(root / ".git" / "no-user-config"))
    monkeypatch.delenv("RULEMAP_CONFIG", raising=False)
    monkeypatch.delenv("COLUMNS", raising=False)
    try:
        code = main(args)
    finally:
        gc.enable()  # a one-shot command turns the collector off for its process
    out, err = capsys.readouterr()
    return code, out, err


def test_fix_applies_the_safe_fixes_says_so_and_rechecks(tmp_path, capsys, monkeypatch):
    root = _workspace(tmp_path, SHADOWED)
    code, out, _ = _run(["check"], capsys, monkeypatch, root)
    assert code == 1 and "[*] 3 fixable with `rulemap check --fix`." in out
    code, out, err = _run(["check", "--fix"], capsys, monkeypatch, root)
    assert code == 1, err  # the missing import is an error no fix guesses at
    head, _, rest = out.partition("\n\n")
    assert head.splitlines()[0] == (
        "Fixed 3 findings in 2 files (2 suspicious-import, 1 instructions-shadowed):"
    )
    assert "  AGENTS.md:3:5  suspicious-import  Change to `@docs/a.md`" in head
    assert "Add `@AGENTS.md` to pkg/CLAUDE.md" in head
    files = _snapshot(root)
    assert files["AGENTS.md"] == b"# root\n\nSee @docs/a.md then @docs/b.md and @docs/missing.md\n"
    # the CRLF file stays CRLF
    assert files["pkg/CLAUDE.md"] == b"# pkg for claude\r\nuse pnpm\r\n\r\n@AGENTS.md\r\n"
    # what remains is the re-check of the written files
    assert "broken-import" in rest and "suspicious-import" not in rest
    assert "instructions-shadowed" not in rest and "[*]" not in rest


def test_a_second_fix_changes_nothing(tmp_path, capsys, monkeypatch):
    root = _workspace(tmp_path, SHADOWED)
    _run(["check", "--fix"], capsys, monkeypatch, root)
    fixed = _snapshot(root)
    code, out, _ = _run(["check", "--fix"], capsys, monkeypatch, root)
    assert code == 1 and out.startswith("No fixes to apply.\n")
    assert _snapshot(root) == fixed
    code, out, err = _run(["check", "--diff"], capsys, monkeypatch, root)
    assert out == "" and "No fixes to apply." in err


def test_diff_writes_nothing_and_applies_with_git(tmp_path, capsys, monkeypatch):
    root = _workspace(tmp_path, SHADOWED)
    before = _snapshot(root)
    code, out, err = _run(["check", "--diff"], capsys, monkeypatch, root)
    assert code == 1  # as `check`: the files still have their error
    assert _snapshot(root) == before
    assert out.startswith("--- a/AGENTS.md\n+++ b/AGENTS.md\n")
    assert "+See @docs/a.md then @docs/b.md and @docs/missing.md\n" in out
    assert err.startswith("Would fix 3 findings in 2 files")
    # the preview is exactly what --fix writes
    patch = tmp_path / "fix.patch"
    patch.write_text(out, newline="")
    subprocess.run(["git", "apply", "--unsafe-paths", str(patch)], cwd=root, check=True)
    previewed = _snapshot(root)
    copy = _workspace(tmp_path / "second", SHADOWED)
    _run(["check", "--fix"], capsys, monkeypatch, copy)
    assert _snapshot(copy) == previewed


def test_fix_with_json_keeps_stdout_json_and_flags_are_checked(tmp_path, capsys, monkeypatch):
    root = _workspace(tmp_path, SHADOWED)
    code, out, err = _run(["check", "--fix", "--format", "json"], capsys, monkeypatch, root)
    assert code == 1 and err.startswith("Fixed 3 findings")
    codes = {d["code"] for d in json.loads(out)["diagnostics"]}
    assert "suspicious-import" not in codes and "broken-import" in codes
    for args in (["--diff", "--format", "sarif"], ["--statistics", "--format", "json"],
                 ["--fix", "--ref", "HEAD"]):
        code, _, err = _run(["check", *args], capsys, monkeypatch, root)
        assert code == 2 and "Traceback" not in err and err.startswith("rulemap: "), args


def test_a_symlinked_file_is_not_written(tmp_path, capsys, monkeypatch):
    # AGENTS.md links to a file outside the workspace: its suspicious import is not fixed there
    outside = tmp_path / "shared.md"
    outside.write_text("see @docs/a.md, ok\n")
    root = _workspace(tmp_path, {"docs/a.md": "a\n", "pkg/AGENTS.md": "see @../docs/a.md, ok\n"})
    (root / "AGENTS.md").symlink_to(outside)
    code, out, err = _run(["check", "--fix", "--allow-imports-from", str(tmp_path)],
                          capsys, monkeypatch, root)
    assert outside.read_text() == "see @docs/a.md, ok\n"
    assert (root / "pkg/AGENTS.md").read_text() == "see @../docs/a.md ok\n"
    assert "Fixed 1 finding in 1 file" in out


def test_statistics_counts_per_code(tmp_path, capsys, monkeypatch):
    root = _workspace(tmp_path, SHADOWED)
    code, out, _ = _run(["check", "--statistics"], capsys, monkeypatch, root)
    assert code == 1
    rows = out.splitlines()
    assert rows[0].split() == ["2", "suspicious-import", "[*]", "an", "@import", "with",
                               "trailing", "punctuation", "whose", "trimmed", "form", "exists"]
    assert any(r.split()[:2] == ["1", "broken-import"] and "[*]" not in r for r in rows)
    # CLAUDE.md's `@AGENTS.md` brings nothing to the default model, but it is Claude Code's
    # only way to AGENTS.md: no duplicate-load calls it useless
    assert "Found 4 findings (1 error, 3 warnings) in 2 of 4 files." in out


def test_a_fix_that_does_not_cure_its_finding_is_made_once(tmp_path, monkeypatch):
    from rulemap.cli.commands import open_host
    from rulemap.host import fix_passes as fixing
    from rulemap.host.snapshot import workspace_of

    root = _workspace(tmp_path, {"AGENTS.md": "text\n"})
    ws = workspace_of(open_host(str(root), editable=True).snapshot())
    stubborn = _finding("suspicious-import", "warning", _replace(0, 0, 0, "+"))
    # the check keeps asking for the same edit, however often it is made
    monkeypatch.setattr(fixing.analysis, "check", lambda _ws: [stubborn])
    findings, result = fixing.fix_in_memory(ws, [stubborn])
    assert result.edited == {"AGENTS.md": "+text\n"} and len(result.fixed) == 1
    assert findings == [stubborn]
    assert (root / "AGENTS.md").read_text() == "text\n"  # in memory only


_PIECES = ["@docs/a.md,", "@docs/a.md.", "(@docs/a.md)", "@docs/b.md;", "@docs/a.md", "word",
           "`@docs/a.md,`", "\n", "\r\n", " ", "@missing.md,", "😀", "\ufeff"]


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(st.sampled_from(_PIECES), max_size=14),
    st.lists(st.sampled_from(_PIECES), max_size=8),
)
def test_fixing_twice_is_fixing_once(tmp_path_factory, root_text, pkg_text):
    from rulemap.cli import fix as writing
    from rulemap.cli.commands import open_host
    from rulemap.host import fix_passes as fixing
    from rulemap.host.snapshot import workspace_of

    base = tmp_path_factory.mktemp("prop")
    root = _workspace(base, {"AGENTS.md": "".join(root_text), "pkg/CLAUDE.md": "".join(pkg_text),
                             "pkg/AGENTS.md": "p\n", "docs/a.md": "a\n", "docs/b.md": "b\n"})
    try:
        ws = workspace_of(open_host(str(root), editable=True).snapshot())
        after, result = fixing.fix_in_memory(ws, analysis.check(ws))
        writing.write(AnalysisHost(ws), result)
        # nothing fixable is left, and a second run finds nothing to do
        assert [f for f in after if fixes.safe_fix(f) is not None] == []
        again = workspace_of(open_host(str(root), editable=True).snapshot())
        _, second = fixing.fix_in_memory(again, analysis.check(again))
        assert second.changed == [] and second.fixed == []
        # line endings only ever gain the file's own kind
        for key, text in result.edited.items():
            if "\r\n" in result.original[key] and "\n" not in result.original[key].replace(
                "\r\n", ""
            ):
                assert "\n" not in text.replace("\r\n", "")
    finally:
        gc.enable()
