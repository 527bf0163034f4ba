"""`rulemap.unseen`: the lines of an instruction file an agent never brings to its model
(stripped HTML comments, lines past a budget cut), and who gets one paragraph — the same
counts as `rulemap reach PATH:LINE` (docs/reach.md)."""

from __future__ import annotations

import pytest

from rulemap.analysis import open_workspace
from rulemap.profiles import get_profile
from rulemap.reach import Glimpse, overview, reach
from rulemap.readers import MemoryReader
from rulemap.unseen import agent_unseen, paragraph, sight
from rulemap.workspace import Workspace

RULE_LINES = 60
# The rule loads after the nested AGENTS.md files, which differ in size per directory: the
# budget (maxChars 2,000) stops reading it at a different line for src/web than for src/api.
FILES = {
    "rulemap.toml": "maxChars = 2000\n",
    "AGENTS.md": "# Root\n\n" + "Root guidance, one line of it.\n" * 15,
    "src/web/AGENTS.md": "# Web\n\n" + "Web guidance, one line of it...\n" * 25,
    ".claude/rules/big.md": '---\npaths: ["src/**"]\n---\n'
    + "".join(f"Rule line {i:03}, long enough to count.\n" for i in range(RULE_LINES)),
    "CLAUDE.md": "# Claude\n\n<!-- a note for people,\nnot for the model -->\nKeep it short.\n",
    "src/api/a.ts": "", "src/api/b.ts": "", "src/web/c.ts": "", "src/web/d.ts": "",
    "src/web/e.ts": "",
}


def _ws(files: dict[str, str] = FILES) -> Workspace:
    return open_workspace("/w", MemoryReader("/w", files))


def test_each_line_is_seen_by_as_many_files_as_reach_says() -> None:
    """For every line of a rule cut at two different lines, the count of files that get it
    is `rulemap reach PATH:LINE`'s — the overview's cut lines are the loads' own."""
    ws = _ws()
    profile = get_profile("cogitator")
    glimpses = overview(ws, profile, "")
    assert glimpses is not None
    glimpse = glimpses[".claude/rules/big.md"]
    assert len(glimpse.cuts) == 2, glimpse  # two different cut lines
    lines = len(ws.document(".claude/rules/big.md").lines)
    for line in range(lines):
        [agent] = reach(ws, ".claude/rules/big.md", line, [profile], "").agents
        got = sight(glimpse, set(), line, line)
        assert got.whole == agent.seen, line
        assert got.files == agent.files


def test_cut_ranges_count_the_files_that_miss_each_stretch() -> None:
    ws = _ws()
    profile = get_profile("cogitator")
    glimpses = overview(ws, profile, "")
    assert glimpses is not None
    unseen = agent_unseen(ws, profile, ".claude/rules/big.md",
                          glimpses[".claude/rules/big.md"], "")
    first, second = unseen.ranges
    assert (first.kind, second.kind) == ("cut", "cut")
    assert first.end == second.start - 1
    assert second.end == len(ws.document(".claude/rules/big.md").lines) - 1
    # src/web (its three sources and its AGENTS.md) stop first; then src/api as well
    assert (first.files, second.files) == (4, 6)
    assert "stops reading `.claude/rules/big.md` at line" in first.why
    assert "4 of 6 files" in first.why and "every file" in second.why
    assert "maxChars (2,000 chars)" in first.why


def test_an_html_comment_is_unseen_by_the_agents_that_strip_it() -> None:
    ws = _ws()
    claude = get_profile("claude-code")
    glimpses = overview(ws, claude, "")
    assert glimpses is not None
    glimpse = glimpses["CLAUDE.md"]
    assert glimpse.strips is True
    [stripped] = agent_unseen(ws, claude, "CLAUDE.md", glimpse, "").ranges
    assert (stripped.start, stripped.end, stripped.kind) == (2, 3, "stripped")
    assert stripped.files == len(ws.files)
    assert "HTML comment" in stripped.why and "Claude Code" in stripped.why
    assert sight(glimpse, {2, 3}, 2, 3).stripped
    assert not sight(glimpse, {2, 3}, 4, 4).stripped


def test_an_agent_that_keeps_comments_marks_none() -> None:
    files = {"AGENTS.md": "# A\n\n<!-- kept by Codex -->\nBody.\n", "x.ts": ""}
    ws = _ws(files)
    codex = get_profile("codex")
    glimpses = overview(ws, codex, "")
    assert glimpses is not None
    assert glimpses["AGENTS.md"].strips is False
    assert agent_unseen(ws, codex, "AGENTS.md", glimpses["AGENTS.md"], "").ranges == ()


def test_a_file_no_load_includes_says_why_and_marks_no_line() -> None:
    ws = _ws()
    codex = get_profile("codex")
    unseen = agent_unseen(ws, codex, "CLAUDE.md", Glimpse(), "")
    assert unseen.never == "OpenAI Codex CLI does not read it" and unseen.ranges == ()


@pytest.mark.parametrize("name", ["gemini", "copilot", "cursor", "mastra"])
def test_an_agent_asked_without_its_glimpse_is_asked_by_the_files_place(name: str) -> None:
    """`agent_unseen` with no glimpse (a plug-in profile without load groups) counts by the
    file's place and one example load."""
    files = {"AGENTS.md": "# A\n\nBody.\n", "GEMINI.md": "# G\n", "x.ts": ""}
    ws = _ws(files)
    profile = get_profile(name)
    unseen = agent_unseen(ws, profile, "AGENTS.md", None, "")
    assert unseen.by_place
    status = profile.load_status(ws, "AGENTS.md")
    assert unseen.files == (status.files if status.loads else 0)
    assert (unseen.never is None) == status.loads


@pytest.mark.parametrize(("line", "bounds"), [
    (0, (0, 0)),  # a heading is its own paragraph
    (1, None),  # a blank line is none
    (2, (2, 3)), (3, (2, 3)),  # a paragraph's lines
    (5, (5, 6)), (6, (5, 6)),  # a list item with its continuation line
    (7, (7, 7)),  # the next item
    (8, (8, 8)),  # a numbered item
])
def test_a_paragraph_is_its_block_or_list_item(line: int, bounds: tuple[int, int] | None) -> None:
    lines = ["# Title", "", "First line", "second line.", "", "- item one",
             "  goes on", "- item two", "1. numbered", ""]
    assert paragraph(lines, line) == bounds


def test_an_html_comment_is_a_block_of_its_own() -> None:
    lines = ["<!-- a note", "for people -->", "Text right after it.", "more text"]
    assert paragraph(lines, 0, {0, 1}) == (0, 1)
    assert paragraph(lines, 3, {0, 1}) == (2, 3)
