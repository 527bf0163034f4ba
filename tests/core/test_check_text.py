"""`rulemap check`'s text report: grouped by file and sorted, wrapped to a width when asked,
one line per finding when piped, a summary, and `--statistics`."""

from __future__ import annotations

from core_helpers import make_ws

from rulemap import analysis
from rulemap.cli.check_text import render, statistics
from rulemap.host import AnalysisHost

FILES = {
    "AGENTS.md": "# root\n\nSee @docs/missing.md and @docs/a.md, please.\n",
    "docs/a.md": "a\n",
    "pkg/AGENTS.md": "pkg: @../nowhere.md\n",
}


def _report(width: int | None) -> tuple[str, list[str]]:
    ws = make_ws(FILES)
    findings = analysis.check(ws)
    snap = AnalysisHost(ws).snapshot()
    return render(snap, list(reversed(findings)), width), [f.path for f in findings]


def test_grouped_by_file_in_order_whatever_the_findings_order():
    text, _ = _report(None)
    lines = text.splitlines()
    # the summary's three lines: the agents checked for, the counts, the fixable ones
    headers = [line for line in lines if line and not line.startswith(" ")][:-3]
    assert headers == ["AGENTS.md", "pkg/AGENTS.md"]
    assert lines[-3] == "agents: cogitator (the default model), codex (AGENTS.md)"
    rows = lines[1:lines.index("pkg/AGENTS.md")]
    assert [r.split()[0] for r in rows] == ["3:5", "3:26"]  # by position within the file
    assert rows[0].split()[1:3] == ["error", "broken-import"]
    assert rows[1].split()[1:4] == ["warning", "suspicious-import", "[*]"]
    assert lines[-2:] == [
        "Found 3 findings (2 errors, 1 warning) in 2 of 2 files.",
        "[*] 1 fixable with `rulemap check --fix`.",
    ]


def test_wrapped_rows_stay_within_the_width_and_hang_under_the_severity():
    piped, _ = _report(None)
    wrapped, _ = _report(48)
    assert len(wrapped.splitlines()) > len(piped.splitlines())
    for line in wrapped.splitlines():
        assert len(line) <= 48 or " " not in line.strip(), line
    continued = [line for line in wrapped.splitlines() if line.startswith("       ")]
    assert continued and all(line.startswith(" " * 8) and line[8] != " " for line in continued)
    # the same words, whatever the width
    assert wrapped.split() == piped.split()


def test_a_clean_workspace_says_so():
    ws = make_ws({"AGENTS.md": "fine\n"})
    assert render(AnalysisHost(ws).snapshot(), [], 80) == (
        "agents: cogitator (the default model), codex (AGENTS.md)\n"
        "All checks passed: no findings in 1 file (instruction files, rules and imports).\n"
    )


def test_statistics_count_per_code_most_first():
    ws = make_ws(FILES)
    text = statistics(AnalysisHost(ws).snapshot(), analysis.check(ws))
    rows = text.splitlines()
    assert rows[0].split()[:2] == ["2", "broken-import"] and "[*]" not in rows[0]
    assert rows[1].split()[:3] == ["1", "suspicious-import", "[*]"]
    assert rows[2] == "" and rows[3].startswith("Found 3 findings")


def test_statistics_rows_are_shortened_to_the_width():
    ws = make_ws(FILES)
    findings = analysis.check(ws)
    wide = statistics(AnalysisHost(ws).snapshot(), findings).splitlines()
    narrow = statistics(AnalysisHost(ws).snapshot(), findings, 40).splitlines()
    assert all(len(line) <= 40 for line in narrow)
    assert narrow[0].endswith("…") and wide[0].startswith(narrow[0][:-1])
