"""`rulemap graph --format dot|mermaid` render as meant (issue 36, item 7): parsed by a strict
reader of the DOT and Mermaid we emit, and rendered by Graphviz when it is installed.

The parsers accept only the grammar subset `rulemap graph` writes and decode labels as the
renderers do (DOT: `\\n` a line break, `\\\\` a backslash, `\\"` a quote; Mermaid: `#quot;`,
`#35;`... entity codes), so a label that would show a literal `\\n`, or a character that
ends a Mermaid label early, fails here."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "demo"

# characters a file name may hold that DOT or Mermaid read as syntax
ODD = 'we"ird #1; <b> back\\slash.md'


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("RULEMAP_CONFIG", "COLUMNS")}
    env["XDG_CONFIG_HOME"] = str(cwd / ".no-user-config")
    return subprocess.run(
        [sys.executable, "-m", "rulemap", *args], cwd=cwd, env=env, capture_output=True,
        text=True, timeout=60, check=False,
    )


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Instruction files importing a file and a missing one, a scoped rule, and a rule
    whose name holds what DOT and Mermaid read as syntax."""
    root = tmp_path_factory.mktemp("graph")
    (root / ".git").mkdir()
    (root / "docs").mkdir()
    (root / "docs" / "a.md").write_text("a\n", encoding="utf-8")
    (root / "AGENTS.md").write_text("@docs/a.md\n@gone.md\n", encoding="utf-8")
    (root / "CLAUDE.md").write_text("@AGENTS.md\n", encoding="utf-8")
    rules = root / ".claude" / "rules"
    rules.mkdir(parents=True)
    (rules / ODD).write_text("odd\n", encoding="utf-8")
    (rules / "api.md").write_text('---\npaths: ["src/**/*.ts"]\n---\nTyped.\n', encoding="utf-8")
    (root / "src").mkdir()
    (root / "src" / "x.ts").write_text("", encoding="utf-8")
    return root


def graph_of(root: Path, fmt: str) -> str:
    proc = run(["graph", str(root), "--format", fmt], root)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


# ----- DOT: a strict reader of what to_dot writes ---------------------------------------------

_DOT_TOKEN = re.compile(r'\s*(?:(?P<string>"(?:[^"\\]|\\.)*")|(?P<id>[A-Za-z_][A-Za-z0-9_]*)'
                        r"|(?P<arrow>->)|(?P<punct>[{}\[\];,=]))")


def dot_tokens(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    at = 0
    while at < len(text.rstrip()):
        match = _DOT_TOKEN.match(text, at)
        assert match is not None, f"not DOT at {text[at:at + 40]!r}"
        kind = match.lastgroup
        assert kind is not None
        tokens.append((kind, match.group(kind)))
        at = match.end()
    return tokens


def dot_string(token: str, label: bool) -> str:
    """A quoted DOT string as Graphviz shows it. Only `\\"` and `\\\\` (and, in a label, the
    line break `\\n`) may follow a backslash: any other escape (`\\N`, `\\l`, `\\x`) would
    make Graphviz show something other than the file's name."""
    assert token[0] == token[-1] == '"'
    out: list[str] = []
    body = token[1:-1]
    i = 0
    while i < len(body):
        char = body[i]
        if char == "\n" or (ord(char) < 0x20):
            raise AssertionError(f"raw control character in DOT string {token!r}")
        if char != "\\":
            out.append(char)
            i += 1
            continue
        escaped = body[i + 1]
        if escaped in '"\\':
            out.append(escaped)
        elif escaped == "n" and label:
            out.append("\n")
        else:
            raise AssertionError(f"escape \\{escaped} in {token!r}")
        i += 2
    return "".join(out)


def parse_dot(text: str) -> tuple[dict[str, dict[str, str]], list[tuple[str, str, dict[str, str]]]]:
    """`digraph rulemap { rankdir=LR; node [...]; "id" [...]; "a" -> "b" [...]; }` →
    (nodes by id with their attributes decoded, edges)."""
    tokens = dot_tokens(text)
    assert tokens[:3] == [("id", "digraph"), ("id", "rulemap"), ("punct", "{")]
    assert tokens[-1] == ("punct", "}")
    nodes: dict[str, dict[str, str]] = {}
    edges: list[tuple[str, str, dict[str, str]]] = []
    i = 3

    def attributes() -> dict[str, str]:
        nonlocal i
        assert tokens[i] == ("punct", "["), tokens[i]
        i += 1
        found: dict[str, str] = {}
        while tokens[i] != ("punct", "]"):
            (key_kind, key), eq, (value_kind, value) = tokens[i : i + 3]
            assert key_kind == "id" and eq == ("punct", "="), tokens[i : i + 3]
            found[key] = dot_string(value, key == "label") if value_kind == "string" else value
            i += 3
            if tokens[i] == ("punct", ","):
                i += 1
        i += 1
        return found

    while i < len(tokens) - 1:
        kind, value = tokens[i]
        if (kind, value) == ("id", "rankdir"):
            assert tokens[i + 1 : i + 4] == [("punct", "="), ("id", "LR"), ("punct", ";")]
            i += 4
            continue
        if (kind, value) == ("id", "node"):
            i += 1
            attributes()
        else:
            assert kind == "string", (kind, value)
            source = dot_string(value, label=False)
            i += 1
            if tokens[i][0] == "arrow":
                target_kind, target = tokens[i + 1]
                assert target_kind == "string"
                i += 2
                edges.append((source, dot_string(target, label=False), attributes()))
            else:
                assert source not in nodes, f"node {source!r} declared twice"
                nodes[source] = attributes()
        assert tokens[i] == ("punct", ";"), tokens[i]
        i += 1
    return nodes, edges


def test_dot_labels_break_lines_once_and_names_survive(workspace: Path) -> None:
    data = json.loads(graph_of(workspace, "json"))
    nodes, edges = parse_dot(graph_of(workspace, "dot"))
    assert set(nodes) == {n["id"] for n in data["nodes"]}
    assert f".claude/rules/{ODD}" in nodes
    for node in data["nodes"]:
        label = nodes[node["id"]]["label"]
        if node["kind"] in ("instruction", "import"):
            assert label == node["id"]
        else:
            # the kind on a second line: Graphviz's line break, not a literal `\n`
            assert label.split("\n") == [node["id"], node["kind"]], label
    assert nodes[".claude/rules/api.md"]["label"] == ".claude/rules/api.md\nscoped-rule"
    assert nodes["gone.md"]["label"] == "gone.md\nmissing"
    assert nodes["gone.md"]["style"] == "dashed"
    assert {(a, b) for a, b, _ in edges} == {(e["from"], e["to"]) for e in data["edges"]}
    for _, _, attrs in edges:
        assert re.fullmatch(r"@ line \d+|symlink", attrs["label"]), attrs


def test_the_dot_reader_rejects_the_double_escape() -> None:
    """The reader sees the old bug: `\\\\n` in a label is a backslash and an `n`."""
    broken = 'digraph rulemap {\n  "a" [shape=note, label="a\\\\nrule"];\n}'
    nodes, _ = parse_dot(broken)
    assert nodes["a"]["label"] == "a\\nrule"  # what Graphviz showed: no line break
    with pytest.raises(AssertionError):
        parse_dot('digraph rulemap {\n  "a" [label="a\\lb"];\n}')


# .ci/run installs Graphviz: in CI (CI set) the render tests must run
NEEDS_GRAPHVIZ = pytest.mark.skipif(
    shutil.which("dot") is None and not os.environ.get("CI"),
    reason="Graphviz (dot) is not installed (apt-get install graphviz)",
)


@NEEDS_GRAPHVIZ
def test_graphviz_renders_the_label_on_two_lines(workspace: Path) -> None:
    svg = subprocess.run(
        ["dot", "-Tsvg"], input=graph_of(workspace, "dot"), capture_output=True, text=True,
        timeout=60, check=True,
    ).stdout
    texts = [
        "".join(t.itertext())
        for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")
    ]
    assert ".claude/rules/api.md" in texts and "scoped-rule" in texts
    assert f".claude/rules/{ODD}" in texts
    assert not any("\\n" in t for t in texts), texts


@NEEDS_GRAPHVIZ
def test_graphviz_reads_the_demo() -> None:
    proc = subprocess.run(
        ["dot", "-Tsvg"], input=graph_of(DEMO, "dot"), capture_output=True, text=True,
        timeout=60, check=False,
    )
    assert proc.returncode == 0 and not proc.stderr, proc.stderr


# ----- Mermaid: the flowchart subset to_mermaid writes ----------------------------------------

# mermaid's flowchart grammar (flow.jison): a node id of word characters that is not a
# keyword; a quoted label holding no `"`; `#name;` / `#123;` entity codes; an edge
# `A -->|"text"| B` or `A -.->|"text"| B`, its text quoted: Mermaid 11 reads a bare `@` as
# the start of an edge id, so `-->|@3|` no longer parses (checked once with mermaid 11.12's
# own `mermaid.parse`, which accepts the demo's graph as written now and refused it before)
_KEYWORDS = {"end", "graph", "flowchart", "subgraph", "class", "classDef", "style", "click"}
_NODE = re.compile(r'  (?P<id>[A-Za-z0-9_]+)\["(?P<label>[^"]*)"\]')
_EDGE = re.compile(r'  (?P<a>[A-Za-z0-9_]+) (?P<arrow>-->|-\.->)\|"(?P<text>[^|"]*)"\| '
                   r"(?P<b>[A-Za-z0-9_]+)")
_CLASS = re.compile(r"  class (?P<id>[A-Za-z0-9_]+) broken")
_CLASSDEF = "  classDef broken stroke:#d33,stroke-dasharray:4"
_ENTITY = re.compile(r"#(\w+);")


def mermaid_label(label: str) -> str:
    """A label as Mermaid shows it: entity codes decoded; a `#` outside one, or `<`/`>`
    (HTML to Mermaid's renderer), is refused."""
    bare = _ENTITY.sub("", label)
    assert "#" not in bare and "<" not in bare and ">" not in bare, label
    assert not any(ord(c) < 0x20 for c in label), label
    def decoded(match: re.Match[str]) -> str:
        name = match.group(1)
        return chr(int(name)) if name.isdigit() else html.unescape(f"&{name};")

    return _ENTITY.sub(decoded, label)


def parse_mermaid(text: str) -> tuple[dict[str, str], list[tuple[str, str, str, str]], set[str]]:
    lines = text.rstrip("\n").split("\n")
    assert lines[0] == "graph LR"
    labels: dict[str, str] = {}
    edges: list[tuple[str, str, str, str]] = []
    broken: set[str] = set()
    for line in lines[1:]:
        if (node := _NODE.fullmatch(line)) is not None:
            assert node["id"] not in _KEYWORDS and node["id"] not in labels
            labels[node["id"]] = mermaid_label(node["label"])
        elif (edge := _EDGE.fullmatch(line)) is not None:
            assert edge["a"] in labels and edge["b"] in labels, line
            edges.append((edge["a"], edge["arrow"], mermaid_label(edge["text"]), edge["b"]))
        elif (klass := _CLASS.fullmatch(line)) is not None:
            assert klass["id"] in labels
            broken.add(klass["id"])
        else:
            assert line == _CLASSDEF, f"not in Mermaid's flowchart grammar: {line!r}"
    return labels, edges, broken


def test_mermaid_is_a_flowchart_mermaid_reads(workspace: Path) -> None:
    data = json.loads(graph_of(workspace, "json"))
    labels, edges, broken = parse_mermaid(graph_of(workspace, "mermaid"))
    by_path = {path: node_id for node_id, path in labels.items()}
    assert set(by_path) == {n["id"] for n in data["nodes"]}
    assert f".claude/rules/{ODD}" in by_path  # the quote, `#`, `<`, `>` come back from their codes
    assert {(by_path[e["from"]], by_path[e["to"]]) for e in data["edges"]} == {
        (a, b) for a, _, _, b in edges
    }
    assert broken == {by_path["gone.md"]}
    dotted = {(a, b) for a, arrow, _, b in edges if arrow == "-.->"}
    assert dotted == {(by_path["AGENTS.md"], by_path["gone.md"])}


def test_the_mermaid_reader_rejects_a_raw_quote() -> None:
    with pytest.raises(AssertionError):
        parse_mermaid('graph LR\n  n0["a"b"]')
    with pytest.raises(AssertionError):  # what Mermaid 11 refuses: a bare `@` in edge text
        parse_mermaid('graph LR\n  n0["a"]\n  n1["b"]\n  n0 -->|@1| n1')
    with pytest.raises(AssertionError):
        parse_mermaid('graph LR\n  n0["a #1 b"]')


def test_the_demo_graph_parses_in_both_formats() -> None:
    nodes, _ = parse_dot(graph_of(DEMO, "dot"))
    labels, _, _ = parse_mermaid(graph_of(DEMO, "mermaid"))
    assert set(nodes) == set(labels.values()) and "AGENTS.md" in nodes
