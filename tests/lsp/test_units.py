"""Pure pieces of the server: settings validation, URIs, diagnostics conversion."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from rulemap import analysis, checks
from rulemap.analysis import new_workspace
from rulemap.host import AnalysisHost
from rulemap.host.checking import document_findings
from rulemap.lsp.diagnostics import to_diagnostics, uri_for
from rulemap.lsp.folders import path_of
from rulemap.lsp.settings import Settings, merge, parse_settings
from rulemap.readers.memory import MemoryReader


def test_settings_nested_dotted_and_overrides() -> None:
    settings, errors = parse_settings(
        {
            "profile": "mastra",
            "hover": {"sourceFiles": "off"},
            "diagnostics.debounceMs": 20,
            "maxChars": 100,
            "severity": {"broken-import": "hint"},
            "files": None,
            "server": {"x": 1},
            "trace": {"server": "verbose"},
        }
    )
    assert errors == []
    assert settings == Settings(
        profile="mastra",
        hover_source_files="off",
        debounce_ms=20,
        overrides={"profile": "mastra", "maxChars": 100, "severity": {"broken-import": "hint"}},
    )


def test_settings_errors_fall_back_per_key() -> None:
    settings, errors = parse_settings(
        {
            "hover": {"sourceFiles": "always"},
            "diagnostics": {"debounceMs": "soon"},
            "maxChars": -1,
            "severity": {"broken-imports": "error"},
            "profle": "x",
            "profile": "nope",
            "cwd": "/abs",
            "maxImportDepth": 2,
        }
    )
    assert settings.hover_source_files == "firstLine" and settings.debounce_ms == 150
    assert settings.overrides == {"maxImportDepth": 2}
    text = "\n".join(errors)
    for needle in (
        "hover.sourceFiles",
        "debounceMs",
        "maxChars",
        "did you mean `broken-import`",
        "did you mean `profile`",
        "`profile` must be one of",
        "cwd",
    ):
        assert needle in text, needle
    assert parse_settings(["not", "an", "object"])[1]
    assert parse_settings(None) == (Settings(), [])


def test_merge_is_deep() -> None:
    assert merge({"hover": {"sourceFiles": "off"}, "a": 1}, {"hover": {"x": 2}, "a": 3}) == {
        "hover": {"sourceFiles": "off", "x": 2},
        "a": 3,
    }


def test_uris() -> None:
    assert path_of("file:///tmp/a%20b/AGENTS.md") == "/tmp/a b/AGENTS.md"
    assert path_of("file://localhost/tmp/x/../y.md") == "/tmp/y.md"
    assert path_of("untitled:Untitled-1") is None
    assert path_of("file://server/share/x") is None
    assert path_of("vscode-notebook-cell:/x.ipynb#y") is None
    assert uri_for("/tmp/a b/#c.md") == "file:///tmp/a%20b/%23c.md"
    assert path_of(uri_for("/tmp/é ü/@x.md")) == "/tmp/é ü/@x.md"


def test_document_findings_match_the_full_check() -> None:
    ws = new_workspace(
        MemoryReader(
            "/r",
            {
                "AGENTS.md": "@a.md @gone.md @docs/x.md,\n",
                "a.md": "@b.md\n",
                "b.md": "@a.md\n",
                "docs/x.md": "x\n",
                ".claude/rules/r.md": '---\npaths:\n  - "src/**/*.py"\n---\nRule.\n',
                "pkg/CLAUDE.md": "",
            },
        )
    )
    full = analysis.check(ws)
    split = checks.run_checks_split(ws)
    assert split.all == full
    graph = {(f.path, f.code, f.span, f.message) for f in split.graph}
    assert {f.code for f in split.graph} >= {"import-cycle"}
    snap = AnalysisHost(ws).snapshot()
    for key in ws.lint_documents():
        expected = [
            (f.code, f.span, f.message) for f in full
            if f.path == key and (f.path, f.code, f.span, f.message) not in graph
        ]
        own = document_findings(snap, key)
        assert [(f.code, f.span, f.message) for f in own] == expected, key
        # a document's fresh findings and the graph-wide ones are the whole check's again
        merged = checks.merge(own, [f for f in split.graph if f.path == key])
        assert merged == [f for f in full if f.path == key], key
    diagnostics = to_diagnostics(
        snap, "AGENTS.md", [f for f in full if f.path == "AGENTS.md"], "utf-16"
    )
    assert {str(d.code) for d in diagnostics} >= {"broken-import", "suspicious-import"}
    broken = next(d for d in diagnostics if d.code == "broken-import")
    assert (
        broken.severity == types.DiagnosticSeverity.Error and broken.data["code"] == "broken-import"
    )


def test_new_files_under_gitignored_directories_are_ignored(tmp_path: Path) -> None:
    from rulemap.readers.local import LocalReader

    (tmp_path / "pkg").mkdir()
    (tmp_path / ".gitignore").write_text("dist/\n*.log\n")
    (tmp_path / "pkg/.gitignore").write_text("build/\n")
    ignored = LocalReader(str(tmp_path)).is_ignored
    assert ignored("dist/AGENTS.md") and ignored("pkg/dist/x.md") and ignored("a.log")
    assert ignored("pkg/build/AGENTS.md") and ignored("node_modules/x/AGENTS.md")
    assert (
        not ignored("build/AGENTS.md") and not ignored("pkg/AGENTS.md") and not ignored("docs/x.md")
    )
