"""Nothing lost, nothing leaked: every output is valid in its format under any locale, and a
symlink loop in the working tree gets a finding.

A file name that is not valid UTF-8 reaches Python as lone surrogates (surrogateescape). Every
encoder shows each such byte as `\\xNN` (rulemap.text.names.printable), a URI percent-encodes
the exact bytes, and a `non-utf8-name` warning says so. The CLI runs in a subprocess with an
explicit locale, as a user's shell would start it.
"""

from __future__ import annotations

import codecs
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from git_repos import git

from rulemap import analysis
from rulemap.lsp.diagnostics import uri_for
from rulemap.lsp.folders import path_of
from rulemap.model import Finding
from rulemap.text.names import (
    ERROR_HANDLER,
    escape_unencodable,
    is_undecodable,
    printable,
    uri_path,
)

BAD = b".claude/rules/\xff\xfe.md"  # not UTF-8: two bytes that never start a character
ESCAPED = ".claude/rules/\\xff\\xfe.md"  # how every output shows it
PERCENT = ".claude/rules/%FF%FE.md"  # how a URI carries it
CAFE = ".claude/rules/café.md"  # valid UTF-8, not ASCII: shown as it is wherever it can be

# (id, environment overrides, encoding stdout must decode with strictly)
LOCALES = [
    # UTF-8 mode is on under the C locale (3.7+), and stdout writes surrogates raw
    ("LC_ALL=C", {"LC_ALL": "C"}, "utf-8"),
    ("LC_ALL=C.UTF-8", {"LC_ALL": "C.UTF-8"}, "utf-8"),
    # what a UTF-8 locale such as en_US.UTF-8 gives: strict UTF-8, so a surrogate raises
    ("strict-utf-8", {"LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8"}, "utf-8"),
    ("PYTHONIOENCODING=ascii", {"PYTHONIOENCODING": "ascii"}, "ascii"),
    # a C locale neither coerced nor in UTF-8 mode: stdout is ASCII
    (
        "LC_ALL=C-no-utf8-mode",
        {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"},
        "ascii",
    ),
]

CHECK_FORMATS = ["text", "json", "sarif", "github"]
GRAPH_FORMATS = ["json", "dot", "mermaid"]


def _env(root: Path, overrides: dict[str, str]) -> dict[str, str]:
    # nothing of the machine's own locale, user configuration or terminal width
    dropped = ("RULEMAP_CONFIG", "COLUMNS", "LANG", "LANGUAGE", "PYTHONIOENCODING", "PYTHONUTF8",
               "PYTHONCOERCECLOCALE")
    env = {k: v for k, v in os.environ.items() if k not in dropped and not k.startswith("LC_")}
    env["XDG_CONFIG_HOME"] = str(root.parent / "no-user-config")
    return {**env, **overrides}


def _run(
    root: Path, args: list[str], overrides: dict[str, str]
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "rulemap", *args],
        cwd=root, env=_env(root, overrides), capture_output=True, timeout=60,
    )


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("encoding") / "ws"
    (root / ".git").mkdir(parents=True)
    (root / ".claude/rules").mkdir(parents=True)
    (root / "AGENTS.md").write_text("Be brief. ✓ 😀\n")
    # the name is bytes: Python would refuse to spell it as a str
    with open(os.path.join(os.fsencode(root), BAD), "wb") as f:
        f.write(b"Use tabs.\n")
    (root / CAFE).write_text("")  # empty: a finding on a non-ASCII (valid) name
    return root


def _finding_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if "non-utf8-name" in line]


@pytest.mark.parametrize("fmt", CHECK_FORMATS)
@pytest.mark.parametrize(("locale", "overrides", "encoding"), LOCALES, ids=[x[0] for x in LOCALES])
def test_check_output_is_valid_under_any_locale(
    workspace: Path, fmt: str, locale: str, overrides: dict[str, str], encoding: str
) -> None:
    """`check` exits as it always does (warnings only: 0), its stdout decodes strictly, JSON
    and SARIF parse, the `non-utf8-name` warning is there and the name is `\\xff\\xfe`
    everywhere (`%FF%FE` in a SARIF URI)."""
    proc = _run(workspace, ["check", str(workspace), "--format", fmt], overrides)
    stderr = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 0, stderr
    assert "Traceback" not in stderr
    out = proc.stdout.decode(encoding)  # strict: raises on a raw byte or a non-ASCII character
    if fmt == "text":
        assert ESCAPED in out.splitlines()  # the file's heading
        (line,) = _finding_lines(out)
        assert "warning" in line and f"the name `{ESCAPED}` is not valid UTF-8" in line
        assert ("café" if encoding == "utf-8" else "caf\\u00e9") in out
    elif fmt == "json":
        diagnostics = json.loads(out)["diagnostics"]
        (named,) = [d for d in diagnostics if d["code"] == "non-utf8-name"]
        assert named["path"] == ESCAPED and named["severity"] == "warning"
        assert f"`{ESCAPED}`" in named["message"]
        assert {d["path"] for d in diagnostics} == {ESCAPED, CAFE}  # é exact, even in ASCII
    elif fmt == "sarif":
        run = json.loads(out)["runs"][0]
        (named,) = [r for r in run["results"] if r["ruleId"] == "non-utf8-name"]
        location = named["locations"][0]["physicalLocation"]["artifactLocation"]
        assert location["uri"] == PERCENT  # the exact bytes
        assert named["level"] == "warning" and f"`{ESCAPED}`" in named["message"]["text"]
        uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                for r in run["results"]}
        assert uris == {PERCENT, ".claude/rules/caf%C3%A9.md"}
        assert "non-utf8-name" in [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    else:
        (line,) = _finding_lines(out)
        assert line.startswith(f"::warning file={ESCAPED},line=1,col=1,")
        assert f"`{ESCAPED}`" in line


@pytest.mark.parametrize("fmt", GRAPH_FORMATS)
@pytest.mark.parametrize(("locale", "overrides", "encoding"), LOCALES, ids=[x[0] for x in LOCALES])
def test_graph_output_is_valid_under_any_locale(
    workspace: Path, fmt: str, locale: str, overrides: dict[str, str], encoding: str
) -> None:
    """`graph` in every format: exit 0, stdout decodes strictly, JSON parses, the rule is the
    node `\\xff\\xfe` as `check` names it."""
    proc = _run(workspace, ["graph", str(workspace), "--format", fmt], overrides)
    stderr = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 0, stderr
    assert "Traceback" not in stderr
    out = proc.stdout.decode(encoding)
    if fmt == "json":
        graph = json.loads(out)
        ids = {n["id"] for n in graph["nodes"]}
        assert {ESCAPED, CAFE, "AGENTS.md"} <= ids
    elif fmt == "dot":
        # a DOT string doubles its backslashes: `"\\xff"` is the text `\xff`
        dot_name = ESCAPED.replace("\\", "\\\\")
        assert f'"{dot_name}" [shape=note' in out
    else:
        assert f'["{ESCAPED}"]' in out


def test_the_escape_is_one_rule() -> None:
    """printable, the stream error handler and the URIs agree on one spelling per byte; a name
    that is valid UTF-8 is left alone."""
    name = os.fsdecode(BAD)
    assert is_undecodable(name) and not is_undecodable(CAFE) and not is_undecodable("a.md")
    assert printable(name) == ESCAPED
    assert printable(CAFE) == CAFE
    assert printable("\ud800x") == "\\ud800x"  # a surrogate no byte produced: its code point
    codecs.register_error(ERROR_HANDLER, escape_unencodable)  # as the CLI does at start-up
    assert name.encode("ascii", ERROR_HANDLER) == ESCAPED.encode()
    assert name.encode("utf-8", ERROR_HANDLER) == ESCAPED.encode()
    escaped, end = escape_unencodable(UnicodeEncodeError("ascii", name, 14, 16, "x"))
    assert (escaped, end) == ("\\xff\\xfe", 16)
    # characters a stream lacks: JSON escapes (a UTF-16 pair beyond the BMP), so JSON stays valid
    text = "é😀"
    escaped, _ = escape_unencodable(UnicodeEncodeError("ascii", text, 0, 2, "x"))
    assert escaped == "\\u00e9\\ud83d\\ude00" and json.loads(f'"{escaped}"') == text
    assert uri_path(name) == PERCENT
    assert uri_path("a b/c#d/@scope/x.md") == "a%20b/c%23d/@scope/x.md"


def test_lsp_uris_carry_the_exact_bytes() -> None:
    """The server's URI of such a file is built without raising (it stopped every publish) and
    reads back as the same path."""
    path = "/w/" + os.fsdecode(BAD)
    uri = uri_for(path)
    assert uri == "file:///w/" + PERCENT
    assert path_of(uri) == path
    assert path_of(uri_for("/w/" + CAFE)) == "/w/" + CAFE


# ----- symlink loops in the working tree ----------------------------------------------------


def _link_findings(root: Path) -> dict[str, Finding]:
    ws = analysis.open_workspace(str(root))
    return {f.path: f for f in analysis.check(ws) if f.code == "unreadable-file"}


def test_a_symlink_to_itself_gets_a_finding(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "AGENTS.md").write_text("Be brief.\n")
    os.symlink("CLAUDE.md", tmp_path / "CLAUDE.md")
    found = _link_findings(tmp_path)
    finding = found["CLAUDE.md"]
    assert finding.severity == "warning"
    assert finding.message.startswith(
        "`CLAUDE.md` is a symlink loop (`CLAUDE.md` -> `CLAUDE.md`): it never reaches a file, "
        "so the loader skips it"
    )


def test_a_two_link_loop_gets_a_finding_on_each_link(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "AGENTS.md").write_text("Be brief.\n")
    rules = tmp_path / ".claude/rules"
    rules.mkdir(parents=True)
    os.symlink("b.md", rules / "a.md")
    os.symlink("a.md", rules / "b.md")
    os.symlink("CLAUDE.md", tmp_path / "GEMINI.md")  # a root pair too: GEMINI -> CLAUDE -> GEMINI
    os.symlink("GEMINI.md", tmp_path / "CLAUDE.md")
    found = _link_findings(tmp_path)
    assert "symlink loop (`.claude/rules/a.md` -> `b.md` -> `a.md`)" in found[
        ".claude/rules/a.md"].message
    assert "symlink loop (`.claude/rules/b.md` -> `a.md` -> `b.md`)" in found[
        ".claude/rules/b.md"].message
    assert "symlink loop (`CLAUDE.md` -> `GEMINI.md` -> `CLAUDE.md`)" in found["CLAUDE.md"].message
    assert all(f.severity == "warning" for f in found.values())


def test_a_link_into_a_looping_directory_and_a_dangling_link(tmp_path: Path) -> None:
    """A loop through a directory component is one too; a link to nothing still says so."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "AGENTS.md").write_text("Be brief.\n")
    os.symlink("d", tmp_path / "d")
    os.symlink("d/CLAUDE.md", tmp_path / "CLAUDE.md")
    (tmp_path / "pkg").mkdir()
    os.symlink("missing.md", tmp_path / "pkg/AGENTS.md")
    found = _link_findings(tmp_path)
    assert "symlink loop (`CLAUDE.md` -> `d/CLAUDE.md` -> `d`)" in found["CLAUDE.md"].message
    assert found["pkg/AGENTS.md"].message.startswith(
        "`pkg/AGENTS.md` is a symlink to `missing.md`, which does not exist"
    )


def test_the_working_tree_and_ref_report_a_loop_alike(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    (root / "AGENTS.md").write_text("Be brief.\n")
    os.symlink("CLAUDE.md", root / "CLAUDE.md")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "loop")
    env = _env(root, {})
    outputs = []
    for extra in ([], ["--ref", "HEAD"]):
        proc = subprocess.run(
            [sys.executable, "-m", "rulemap", "check", str(root), "--format", "json", *extra],
            cwd=root, env=env, capture_output=True, text=True, timeout=60,
        )
        assert proc.returncode == 0, proc.stderr
        outputs.append(json.loads(proc.stdout)["diagnostics"])
    assert outputs[0] == outputs[1]
    (loop,) = outputs[0]
    assert loop["path"] == "CLAUDE.md" and loop["code"] == "unreadable-file"
    assert "is a symlink loop" in loop["message"]
