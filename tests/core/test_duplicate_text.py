"""duplicate-text (a paragraph one agent's load brings twice) and drifted-copy (copies of one
file for different agents that no longer say the same), issue "Instructions that drift",
item 3."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rulemap.analysis import check, new_workspace
from rulemap.checks import drifted_copy, duplicate_text
from rulemap.checks.paragraphs import split
from rulemap.config import Config
from rulemap.model import Finding
from rulemap.profiles import get_profile, validate_options
from rulemap.readers import MemoryReader
from rulemap.workspace import Workspace

PNPM = "Use pnpm for every package operation; never run npm install or yarn in this repository."
TESTS = "Run the unit tests with `pnpm test` and the linters with `pnpm lint` before a commit."
MIGRATIONS = "Database migrations live in db/migrations and are applied by `pnpm migrate` in CI."
assert min(len(PNPM), len(TESTS), len(MIGRATIONS)) >= duplicate_text.MIN_CHARS


def make(files: Mapping[str, str], agents: tuple[str, ...],
         symlinks: Mapping[str, str] | None = None, **options: Any) -> Workspace:
    return new_workspace(
        MemoryReader("/w", files, symlinks), Config(cwd="."),
        profiles=tuple(get_profile(a) for a in agents),
        profile_options=validate_options(options, "test"),
    )


def codes(ws: Workspace, code: str) -> list[Finding]:
    return [f for f in check(ws) if f.code == code]


def doc(*paragraphs: str, title: str = "# Project") -> str:
    return "\n\n".join((title, *paragraphs)) + "\n"


# ----- paragraphs --------------------------------------------------------------------------


def test_paragraphs_are_blank_line_blocks_and_a_fence_keeps_its_blank_lines() -> None:
    text = ("# Title\n\nfirst paragraph of some words\nstill the first\n\n"
            "```sh\nmake\n\nmake test\n```\n")
    found = split(text)
    assert [(p.first, p.last) for p in found] == [(2, 3), (5, 9)]
    assert found[0].norm == "first paragraph of some words still the first"


def test_headings_markers_and_short_lines_are_no_paragraphs() -> None:
    assert split("# A heading that is long enough to count\n\n-\n\nshort\n") == ()
    # a `# comment` inside a code block is code, not a heading
    assert len(split("```sh\n# install every dependency of the workspace\n```\n")) == 1


# ----- duplicate-text ----------------------------------------------------------------------


def test_a_paragraph_in_two_files_of_one_load_is_reported_at_the_second() -> None:
    ws = make({"AGENTS.md": doc(PNPM, TESTS), "CLAUDE.md": doc(PNPM, "Something else entirely "
                                                                   "that only Claude reads.")},
              ("cogitator",))
    found = codes(ws, "duplicate-text")
    assert [(f.path, f.span.start.line) for f in found] == [("CLAUDE.md", 2)]
    message = found[0].message
    assert "`AGENTS.md` (line 3)" in message
    assert f"{len(PNPM)} characters again, for every file" in message
    assert found[0].related[0].path == "AGENTS.md"
    assert found[0].severity == "information"


def test_the_same_paragraph_twice_in_one_file_is_reported() -> None:
    ws = make({"AGENTS.md": doc(PNPM, TESTS, PNPM)}, ("cogitator",))
    found = codes(ws, "duplicate-text")
    assert [f.span.start.line for f in found] == [6]
    assert "earlier in this file (line 3)" in found[0].message


def test_short_repeats_are_not_reported() -> None:
    short = "Run `pnpm test` first."
    assert len(short) < duplicate_text.MIN_CHARS
    ws = make({"AGENTS.md": doc(short, TESTS), "CLAUDE.md": doc(short, MIGRATIONS)},
              ("cogitator",))
    assert codes(ws, "duplicate-text") == []


def test_consecutive_repeated_paragraphs_are_one_finding() -> None:
    ws = make({"AGENTS.md": doc(PNPM, TESTS, MIGRATIONS),
               "CLAUDE.md": doc(PNPM, TESTS, "Claude-only: keep answers short and concrete.")},
              ("cogitator",))
    found = codes(ws, "duplicate-text")
    assert len(found) == 1
    assert "these 2 paragraphs" in found[0].message
    assert (found[0].span.start.line, found[0].span.end.line) == (2, 4)
    assert f"{len(PNPM) + len(TESTS)} characters again" in found[0].message


def test_a_whole_file_loaded_twice_is_loaded_twice_not_duplicate_text() -> None:
    # Copilot reads both and compares neither: `loaded-twice` says so, not once per paragraph
    text = doc(PNPM, TESTS, MIGRATIONS)
    ws = make({"AGENTS.md": text, ".github/copilot-instructions.md": text}, ("copilot",))
    assert codes(ws, "loaded-twice")
    assert codes(ws, "duplicate-text") == []


def test_a_symlink_is_not_a_second_copy() -> None:
    text = doc(PNPM, TESTS, MIGRATIONS)
    ws = make({"AGENTS.md": text}, ("cogitator", "claude-code"),
              symlinks={"CLAUDE.md": "AGENTS.md"})
    assert codes(ws, "duplicate-text") == []


def test_a_nested_copy_names_the_files_that_pay_it_and_each_agent() -> None:
    files = {"AGENTS.md": doc(PNPM, TESTS),
             "pkg/AGENTS.md": doc(PNPM, "This package holds the web client only.", title="# Pkg"),
             "pkg/a.ts": "", "pkg/b.ts": "", "src/c.ts": ""}
    ws = make(files, ("cogitator", "codex"))
    found = codes(ws, "duplicate-text")
    assert [f.path for f in found] == ["pkg/AGENTS.md"]
    message = found[0].message
    # the cogitator model loads pkg/AGENTS.md for the files of pkg/ (three with itself);
    # Codex reads one file per directory from the launch directory down: not this one
    assert "for 3 files" in message
    assert "Cogitator" in message and "Codex" not in message


def test_bytes_for_an_agent_counting_bytes() -> None:
    accented = "Écrivez les messages de commit en français, à l'impératif, sans point final, merci."
    assert len(accented.encode()) > len(accented) >= duplicate_text.MIN_CHARS
    # Codex reads the AGENTS.md of each directory from the project root (.git) down to the
    # launch directory: launched in sub/, both
    ws = new_workspace(MemoryReader("/w", {"AGENTS.md": doc(accented, TESTS),
                                           "sub/AGENTS.md": doc(accented, MIGRATIONS),
                                           ".git/HEAD": "ref: refs/heads/main\n"}),
                       Config(cwd="sub"), profiles=(get_profile("codex"),),
                       profile_options=validate_options({}, "test"))
    found = codes(ws, "duplicate-text")
    assert len(found) == 1
    assert f"{len(accented.encode())} bytes again" in found[0].message


def test_past_the_document_limit_only_the_start_up_load_is_asked(monkeypatch: Any) -> None:
    files = {"AGENTS.md": doc(PNPM, TESTS), "pkg/AGENTS.md": doc(PNPM, title="# Pkg"),
             "CLAUDE.md": doc(TESTS, title="# Claude")}
    monkeypatch.setattr(duplicate_text, "MAX_GROUPED_DOCUMENTS", 1)
    found = codes(make(files, ("cogitator",)), "duplicate-text")
    # pkg/AGENTS.md loads only for the files of pkg/: not asked; CLAUDE.md is a start-up file
    assert [f.path for f in found] == ["CLAUDE.md"]


# ----- duplicate-text across imports (issue #39, item 5) -----------------------------------


def test_an_imported_file_repeating_its_importer_is_reported_for_the_agent_that_imports() -> None:
    # Claude Code follows `@docs/handbook.md`; Codex reads neither file
    files = {"CLAUDE.md": doc(PNPM, TESTS, "@docs/handbook.md"),
             "docs/handbook.md": doc(PNPM, TESTS, MIGRATIONS, title="# Handbook")}
    found = codes(make(files, ("claude-code", "codex")), "duplicate-text")
    assert [(f.path, f.span.start.line, f.span.end.line) for f in found] == [
        ("docs/handbook.md", 2, 4)]
    (finding,) = found
    assert finding.profile == "claude-code"
    assert "these 2 paragraphs are already loaded in `CLAUDE.md` (line 3)" in finding.message
    assert "which imports this file" in finding.message
    assert f"Claude Code ({len(PNPM) + len(TESTS)} characters again" in finding.message
    assert "Codex" not in finding.message
    assert finding.related[0].path == "CLAUDE.md"


def test_two_files_one_claude_md_imports_share_a_paragraph() -> None:
    files = {"CLAUDE.md": "# Claude\n\n@AGENTS.md\n@docs/ci.md\n",
             "AGENTS.md": doc(TESTS, PNPM), "docs/ci.md": doc(MIGRATIONS, PNPM, title="# CI")}
    found = codes(make(files, ("claude-code", "codex")), "duplicate-text")
    assert [(f.path, f.span.start.line) for f in found] == [("docs/ci.md", 4)]
    message = found[0].message
    assert "already loaded in `AGENTS.md` (line 5), `CLAUDE.md` imports both files" in message
    # Codex reads AGENTS.md alone (no imports): it pays once, and is not named
    assert "Claude Code (" in message and "Codex" not in message


def test_the_copy_another_agent_loads_alone_is_the_one_kept() -> None:
    # Claude Code brings docs/ci.md first, then AGENTS.md; Codex reads AGENTS.md alone: the
    # copy to drop is docs/ci.md's, though Claude Code loads it first
    files = {"CLAUDE.md": "# Claude\n\n@docs/ci.md\n@AGENTS.md\n",
             "AGENTS.md": doc(TESTS, PNPM), "docs/ci.md": doc(MIGRATIONS, PNPM, title="# CI")}
    found = codes(make(files, ("claude-code", "codex")), "duplicate-text")
    assert [(f.path, f.span.start.line) for f in found] == [("docs/ci.md", 4)]
    message = found[0].message
    assert "loaded again in `AGENTS.md` (line 5)" in message
    assert "keep the copy in `AGENTS.md`, which OpenAI Codex CLI loads without this file" in message
    assert found[0].related[0].path == "AGENTS.md"
    # without Codex nothing needs AGENTS.md's copy alone: the repeat in load order is reported
    alone = codes(make(files, ("claude-code",)), "duplicate-text")
    assert [f.path for f in alone] == ["AGENTS.md"]
    assert "already loaded in `docs/ci.md`" in alone[0].message


def test_imports_of_a_nested_file_count_for_the_files_that_load_it() -> None:
    # pkg/CLAUDE.md loads, with its imports, only for the four files of pkg/ (itself included)
    files = {"CLAUDE.md": doc(MIGRATIONS, title="# Root"),
             "pkg/CLAUDE.md": "# Pkg\n\n@a.md\n@b.md\n",
             "pkg/a.md": doc(PNPM, title="# A"), "pkg/b.md": doc(TESTS, PNPM, title="# B"),
             "pkg/x.ts": "", "src/y.ts": ""}
    found = codes(make(files, ("claude-code",)), "duplicate-text")
    assert [(f.path, f.span.start.line) for f in found] == [("pkg/b.md", 4)]
    assert "`pkg/CLAUDE.md` imports both files" in found[0].message
    assert f"{len(PNPM)} characters again, for 4 files" in found[0].message


def test_gemini_imports_count_in_its_own_load() -> None:
    files = {"GEMINI.md": doc(PNPM, "@./docs/style.md"),
             "docs/style.md": doc(TESTS, PNPM, title="# Style")}
    found = codes(make(files, ("gemini",)), "duplicate-text")
    assert [(f.path, f.span.start.line) for f in found] == [("docs/style.md", 4)]
    assert found[0].profile == "gemini"
    assert "which imports this file" in found[0].message


# ----- drifted-copy ------------------------------------------------------------------------

EDITED = TESTS.replace("`pnpm test`", "`pnpm test:unit`")


def test_an_edited_paragraph_in_a_copy_for_another_agent_is_reported_in_both() -> None:
    ws = make({"AGENTS.md": doc(PNPM, TESTS, MIGRATIONS),
               "CLAUDE.md": doc(PNPM, EDITED, MIGRATIONS)}, ("cogitator", "claude-code"))
    found = codes(ws, "drifted-copy")
    assert sorted((f.path, f.span.start.line) for f in found) == [("AGENTS.md", 4),
                                                                  ("CLAUDE.md", 4)]
    in_agents = next(f for f in found if f.path == "AGENTS.md")
    assert "`CLAUDE.md` (read by Claude Code" in in_agents.message
    assert "`pnpm test:unit`" in in_agents.message and "where this one says" in in_agents.message
    assert in_agents.related[0].path == "CLAUDE.md"


def test_a_paragraph_only_one_copy_has_is_reported_where_it_is() -> None:
    extra = "Claude: prefer small commits, one concern each, with a test for every fix."
    ws = make({"AGENTS.md": doc(PNPM, TESTS, MIGRATIONS),
               "CLAUDE.md": doc(PNPM, TESTS, MIGRATIONS, extra)}, ("cogitator", "claude-code"))
    found = codes(ws, "drifted-copy")
    assert [(f.path, f.span.start.line) for f in found] == [("CLAUDE.md", 8)]
    assert "it lacks this paragraph" in found[0].message


def test_identical_symlinked_imported_or_unlike_files_are_not_drifted() -> None:
    agents = ("cogitator", "claude-code")
    same = doc(PNPM, TESTS, MIGRATIONS)
    assert codes(make({"AGENTS.md": same, "CLAUDE.md": same}, agents), "drifted-copy") == []
    assert codes(make({"AGENTS.md": same}, agents, symlinks={"CLAUDE.md": "AGENTS.md"}),
                 "drifted-copy") == []
    imported = doc(PNPM, EDITED, MIGRATIONS, "@AGENTS.md")
    assert codes(make({"AGENTS.md": same, "CLAUDE.md": imported}, agents), "drifted-copy") == []
    other = doc(PNPM, "Claude: keep every answer under ten lines unless asked for more.",
                "Claude: never touch the generated files under gen/ by hand at all.")
    assert codes(make({"AGENTS.md": same, "CLAUDE.md": other}, agents), "drifted-copy") == []


def test_copies_for_different_directories_are_not_paired() -> None:
    # pkg/CLAUDE.md speaks for pkg/, AGENTS.md for the root: not copies of one another
    ws = make({"AGENTS.md": doc(PNPM, TESTS, MIGRATIONS),
               "pkg/CLAUDE.md": doc(PNPM, EDITED, MIGRATIONS)}, ("cogitator", "claude-code"))
    assert codes(ws, "drifted-copy") == []
    assert drifted_copy.scope(".github/copilot-instructions.md") == ""
    assert drifted_copy.scope("pkg/.cursor/rules/style.mdc") == "pkg"
    assert drifted_copy.scope("pkg/CLAUDE.md") == "pkg"


def test_files_read_by_the_same_agents_are_not_copies_for_other_agents() -> None:
    ws = make({".claude/rules/a.md": doc(PNPM, TESTS, MIGRATIONS),
               ".claude/rules/b.md": doc(PNPM, EDITED, MIGRATIONS)}, ("claude-code",))
    assert codes(ws, "drifted-copy") == []


# ----- everywhere a check's findings go ----------------------------------------------------


def test_rulemap_diff_shows_a_new_duplicate_and_a_new_drift() -> None:
    from rulemap.diff import diff_workspaces

    base = {"AGENTS.md": doc(PNPM, TESTS, MIGRATIONS)}
    head = {**base, "CLAUDE.md": doc(PNPM, EDITED, MIGRATIONS)}
    d = diff_workspaces(make(base, ("cogitator",)), make(head, ("cogitator",)),
                        profiles=["cogitator"])
    assert sorted((f.code, f.path) for f in d.new_findings) == [
        ("drifted-copy", "AGENTS.md"), ("drifted-copy", "CLAUDE.md"),
        ("duplicate-text", "CLAUDE.md"), ("duplicate-text", "CLAUDE.md")]


def test_the_cli_reports_both(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json

    from tests.core.test_cli import run

    (tmp_path / "AGENTS.md").write_text(doc(PNPM, TESTS, MIGRATIONS))
    (tmp_path / "CLAUDE.md").write_text(doc(PNPM, EDITED, MIGRATIONS))
    result = run(["check", str(tmp_path), "--format", "json"], tmp_path)
    found = [(f["code"], f["path"], f["range"]["start"]["line"])
             for f in json.loads(result.stdout)["diagnostics"]
             if f["code"] in ("duplicate-text", "drifted-copy")]
    assert ("drifted-copy", "CLAUDE.md", 4) in found
    assert ("duplicate-text", "CLAUDE.md", 2) in found
    text = run(["check", str(tmp_path)], tmp_path).stdout
    assert "duplicate-text" in text and "drifted-copy" in text


def test_load_groups_are_asked_only_for_a_repeat_beyond_the_start_up_load(
        monkeypatch: Any) -> None:
    from rulemap.profiles.cogitator import CogitatorProfile

    asked: list[str] = []
    real = CogitatorProfile.load_groups

    def counting(self: CogitatorProfile, ws: Workspace, cwd: str) -> Any:
        asked.append(cwd)
        return real(self, ws, cwd)

    monkeypatch.setattr(CogitatorProfile, "load_groups", counting)
    at_start = {"AGENTS.md": doc(PNPM, TESTS), "CLAUDE.md": doc(PNPM, MIGRATIONS)}
    assert len(codes(make(at_start, ("cogitator",)), "duplicate-text")) == 1
    assert asked == []  # both copies load at start-up: that load alone, for every file
    nested = {"AGENTS.md": doc(PNPM, TESTS), "pkg/AGENTS.md": doc(PNPM, title="# Pkg")}
    assert len(codes(make(nested, ("cogitator",)), "duplicate-text")) == 1
    assert asked == ["."]


def _split_as_written(text: str) -> list[tuple[str, int, int, str]]:
    """Paragraphs as first split (before the loop and `_add` were made cheaper): the oracle."""
    from rulemap.checks.paragraphs import _BARE, _FENCE, MIN_COMPARED

    out: list[tuple[str, int, int, str]] = []
    lines = text.split("\n")

    def add(first: int, last: int) -> None:
        while last > first and not lines[last].strip():
            last -= 1
        body = lines[first:last + 1]
        raw = "\n".join(body)
        norm = " ".join(raw.split())
        if len(norm) >= MIN_COMPARED and (
                _FENCE.match(body[0]) or not all(_BARE.match(line) for line in body)):
            out.append((norm, first, last, raw))

    start: int | None = None
    fence: str | None = None
    for number, line in enumerate(lines):
        head = line[:4].lstrip(" ")
        opened = _FENCE.match(line) if head[:1] in ("`", "~") else None
        if fence is not None:
            if opened is not None and opened.group(1)[0] == fence[0] \
                    and len(opened.group(1)) >= len(fence) and not line.strip(" `~"):
                fence = None
            continue
        if opened is not None:
            fence = opened.group(1)
            if start is None:
                start = number
            continue
        if not line.strip():
            if start is not None:
                add(start, number - 1)
                start = None
        elif start is None:
            start = number
    if start is not None:
        add(start, len(lines) - 1)
    return out


_PARTS = ["```", "```sh", "~~~", "````", "   ```", "    ```", "``` x `y`", "", " ", "\t",
          "# A heading that is long enough", "- item", "---", "Run the tests before each commit.",
          "A line that is long enough to count.", "`code` in prose ```", "x ~~~ y", "short"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PARTS), max_size=16))
def test_paragraphs_split_as_first_written(parts: list[str]) -> None:
    text = "\n".join(parts)
    if "```" not in text and "~~~" not in text:
        text += "\n```"  # the fenced path: the other is one regular expression
    assert [(q.norm, q.first, q.last, q.raw) for q in split(text)] == _split_as_written(text)


def test_a_crlf_file_below_a_stripped_comment_is_reported_at_its_own_lines() -> None:
    para = "Always run the full test suite before you open a pull request, and fix what fails."
    text = "\r\n".join(["<!-- a note", "over two lines -->", "# Title", "", para, "",
                        "More text that is here.", "", para, ""])
    found = codes(make({"AGENTS.md": text}, ("cogitator",)), "duplicate-text")
    assert found and all(f.span.start.line == 8 for f in found)
    assert all("(line 5)" in f.message for f in found)
