"""The reverse questions asked of the host (`rulemap.host.reaching`): the CLI's `reach` and
`why`, the reverse requests, the lens and the paragraph hover ask these, over a snapshot, with
the agents named or the selected ones and the cwd given or the configuration's."""

from __future__ import annotations

from rulemap.analysis import new_workspace, select_profiles
from rulemap.config import Config
from rulemap.host import AnalysisHost
from rulemap.host.reaching import (
    agent_overview,
    names_a_file,
    paragraph_at,
    reach,
    sight,
    unseen_lines,
    why,
)
from rulemap.reach import reach as engine_reach
from rulemap.readers import MemoryReader
from rulemap.why import why as engine_why

FILES = {
    "AGENTS.md": "# Project\n\nUse pnpm.\nAnd tabs.\n\n<!-- for people -->\n\nSee @docs/a.md\n",
    "CLAUDE.md": "@AGENTS.md\n",
    "docs/a.md": "Four spaces.\n",
    "src/app.ts": "",
}


def _opened() -> AnalysisHost:
    return AnalysisHost(new_workspace(MemoryReader("/w", FILES), Config(cwd="src")))


def test_the_defaults_are_the_selected_agents_and_the_configured_cwd() -> None:
    host = _opened()
    snap = host.snapshot()
    ws = new_workspace(MemoryReader("/w", FILES), Config(cwd="src"))
    selected = select_profiles(ws)
    assert reach(snap, "AGENTS.md", 2) == engine_reach(ws, "AGENTS.md", 2, selected, "src")
    assert reach(snap, "AGENTS.md", None, ["codex"], ".").cwd == "."
    assert why(snap, "Use pnpm.", None) == engine_why(ws, "Use pnpm.", None, selected, "src")
    assert [a.profile for a in why(snap, "Use pnpm.", None, ["gemini"]).agents] == ["gemini"]


def test_unseen_lines_only_for_a_file_some_agent_reads_or_imports() -> None:
    snap = _opened().snapshot()
    assert unseen_lines(snap, "src/app.ts") is None
    agents = unseen_lines(snap, "AGENTS.md", ["cogitator"])
    assert agents is not None and [a.profile for a in agents] == ["cogitator"]
    assert unseen_lines(snap, "docs/a.md") is not None  # imported


def test_a_paragraph_and_who_sees_it() -> None:
    snap = _opened().snapshot()
    assert paragraph_at(snap, "AGENTS.md", 1) is None  # a blank line
    para = paragraph_at(snap, "AGENTS.md", 3)
    assert para is not None and (para.start, para.end) == (2, 3)
    assert 5 in para.comments
    overview = agent_overview(snap, "cogitator")
    assert overview.glimpses is not None
    seen = sight(overview.glimpses["AGENTS.md"], para)
    assert seen.files == seen.whole > 0 and not seen.stripped
    assert agent_overview(snap, "no-such-agent").glimpses is None


def test_names_a_file_is_no_directory_and_nothing_missing() -> None:
    snap = _opened().snapshot()
    assert names_a_file(snap, "AGENTS.md")
    assert not names_a_file(snap, "docs")
    assert not names_a_file(snap, "missing.md")
