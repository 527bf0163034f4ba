"""Fuzz: random globs, frontmatter and import lines through every check, every output format,
explain and graph — no exception, and every finding well-formed."""

from __future__ import annotations

import gc
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.hostile.fuzz_inputs import frontmatter, globs, path_pieces

from rulemap import analysis
from rulemap.analysis import new_workspace
from rulemap.checks.registry import CHECK_CODES
from rulemap.cli.formats import FORMATTERS
from rulemap.graph_export import build_graph, to_dot, to_mermaid
from rulemap.host import AnalysisHost
from rulemap.model import SEVERITIES
from rulemap.readers import MemoryReader
from rulemap.workspace import Workspace

import_paths = path_pieces


def rule_text(front: str, paths: list[str], body_imports: list[str]) -> str:
    # mostly quoted (so the globs reach the glob code), sometimes bare (so YAML sees them)
    listed = "".join(
        f"\n  - {p}" if i % 3 == 2 else f"\n  - {json.dumps(p)}" for i, p in enumerate(paths)
    )
    imports = " ".join("@" + p for p in body_imports)
    return f"---\n{front}\npaths:{listed}\n---\nRule body {imports}\n"


@st.composite
def workspaces(draw: st.DrawFn) -> dict[str, str]:
    files = {
        "AGENTS.md": "# Root\n"
        + " ".join("@" + p for p in draw(st.lists(import_paths, max_size=6))),
        "CLAUDE.md": draw(st.sampled_from(["@AGENTS.md\n", "", "see @./AGENTS.md,\n"])),
        "pkg/AGENTS.md": "\n".join("- @" + p for p in draw(st.lists(import_paths, max_size=4))),
        "src/a.ts": "x",
        "pkg/src/b.py": "y",
        "docs/x.md": "@../AGENTS.md @x.md",
    }
    for index in range(draw(st.integers(0, 3))):
        files[f".claude/rules/r{index}.md"] = rule_text(
            draw(st.one_of(st.just(""), frontmatter)),
            draw(st.lists(globs, max_size=4)),
            draw(st.lists(import_paths, max_size=3)),
        )
    files["pkg/.claude/rules/p.md"] = rule_text("", draw(st.lists(globs, max_size=2)), [])
    return files


def assert_well_formed(ws: Workspace) -> None:
    for finding in analysis.check(ws):
        assert finding.code in CHECK_CODES, finding
        assert finding.severity in SEVERITIES, finding
        assert finding.message.strip(), finding
        if finding.path.startswith("/"):
            continue
        doc = ws.document(finding.path)
        start, end = finding.span.start, finding.span.end
        assert 0 <= start.line < max(1, len(doc.lines)), finding
        assert (start.line, start.col) <= (end.line, end.col), finding
        assert start.col <= len(doc.lines[start.line]) if doc.lines else True, finding


def json_layout(data: dict[str, list[object]]) -> str:
    """The `json` report's layout: the object indented, the selected agents on one line, one
    compact diagnostic a line (the formatter writes it piece by piece; this is it written
    whole)."""
    head = ('{\n  "selection": ' + json.dumps(data["selection"], ensure_ascii=False)
            + ',\n  "platform": ' + json.dumps(data["platform"]) + ",")
    items = data["diagnostics"]
    if not items:
        return head + '\n  "diagnostics": []\n}\n'
    lines = ",\n".join("    " + json.dumps(d, ensure_ascii=False) for d in items)
    return head + '\n  "diagnostics": [\n' + lines + "\n  ]\n}\n"


@settings(
    max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
@given(workspaces())
def test_any_workspace_checks_explains_and_graphs(files: dict[str, str]) -> None:
    ws = new_workspace(MemoryReader("/w", files), home="/home/u")
    assert_well_formed(ws)
    for name, formatter in FORMATTERS.items():
        out = formatter(AnalysisHost(ws).snapshot(), analysis.check(ws))
        if name in ("json", "sarif"):
            data = json.loads(out)
        if name == "json":
            assert out == json_layout(data)
    for target in (None, "src/a.ts", "pkg/src/b.py", "pkg/AGENTS.md", "nowhere/x.ts"):
        explanation = analysis.explain(ws, target)
        json.dumps(explanation.to_json())
        assert all(not f.path.startswith("/") for f in explanation.files)
    graph = build_graph(ws)
    to_dot(graph), to_mermaid(graph), json.dumps(graph)


@settings(max_examples=120, deadline=None, derandomize=True)
@given(workspaces(), st.data())
def test_edits_keep_findings_well_formed(files: dict[str, str], data: st.DataObject) -> None:
    from rulemap.readers import OverlayReader

    reader = OverlayReader(MemoryReader("/w", files))
    ws = new_workspace(reader, home="/home/u")
    analysis.check(ws)
    for _ in range(3):
        key = data.draw(st.sampled_from(sorted(files)))
        text = data.draw(
            st.one_of(
                st.builds(
                    rule_text,
                    frontmatter,
                    st.lists(globs, max_size=3),
                    st.lists(import_paths, max_size=2),
                ),
                st.lists(import_paths, max_size=4).map(lambda ps: " ".join("@" + p for p in ps)),
            )
        )
        reader.set_buffer(ws.abs(key), text)
        ws.update(changed=[key])
        assert_well_formed(ws)


@settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(workspaces())
def test_every_command_on_disk(tmp_path_factory, capsys, files: dict[str, str]) -> None:
    """The same random workspaces written to disk, through the CLI's own entry point: every
    command and format answers with exit 0 or 1 (findings), never 2 or a traceback."""
    from rulemap.cli.main import main

    root = tmp_path_factory.mktemp("fuzz")
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / ".git").mkdir()
    runs = [
        *(["check", str(root), "--format", fmt] for fmt in ("text", "json", "sarif", "github")),
        *(
            ["explain", str(root / t), "--root", str(root), *m]
            for t in ("src/a.ts", "pkg/src/b.py")
            for m in ([], ["--json"], ["--text"])
        ),
        *(["graph", str(root), "--format", fmt] for fmt in ("json", "dot", "mermaid")),
    ]
    for argv in runs:
        try:
            code = main(argv)
        finally:
            gc.enable()  # a one-shot command turns the collector off for its process
        out = capsys.readouterr()
        assert code in (0, 1), (argv, out.err)
        if "--json" in argv or argv[-1] in ("json", "sarif"):
            json.loads(out.out)
