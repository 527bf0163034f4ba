"""The agents table of a source-file hover: every selected agent's load in one small table,
from the profiles' cached explanations (toy agents: tests/lsp/toy_profile.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from feature_api import hover
from feature_helpers import P, hover_text, ws_of
from tests.lsp.toy_profile import ToyProfile, register_toys

from rulemap.profiles import PROFILES, register_profile

FILES = {
    "TOY.md": "root toy 12\n",
    "src/TOY.md": "src toy 12b\n",
    "src/api/TOY.md": "api\n",
    "TOKENS.md": "tok\n",
    "src/TOKENS.md": "t" * 19 + "\n",
    "AGENTS.md": "Project.\n",
    "src/api/users.ts": "x\n",
}


@pytest.fixture
def toys() -> Iterator[list[ToyProfile]]:
    before = dict(PROFILES)
    made = register_toys()
    yield made
    PROFILES.clear()
    PROFILES.update(before)


def table_of(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("|")]


def test_every_selected_agent_in_one_table(toys):
    ws = ws_of(FILES, profiles=["toy", "toy-tokens", "cogitator"])
    text = hover_text(hover(ws, "src/api/users.ts", P(0, 0)))
    assert table_of(text) == [
        "| agent | files | size | cut / left out |",
        "|---|--:|--:|---|",
        "| toy | 2 | 20 / 20 bytes | cut `src/TOY.md` · 1 left out |",
        "| toy-tokens | 2 | 4 tokens | cut `src/TOKENS.md` |",
        "| **cogitator** | 1 | 9 / 32,000 chars | — |",
    ]
    # the detailed load above it is still the hover's own agent
    assert "· cogitator ·" in text


def test_no_table_for_a_single_agent(toys):
    ws = ws_of(FILES, profiles=["cogitator"])
    assert table_of(hover_text(hover(ws, "src/api/users.ts", P(0, 0)))) == []
    # but one agent other than the detailed one is worth a row
    ws = ws_of(FILES, profiles=["toy"])
    assert len(table_of(hover_text(hover(ws, "src/api/users.ts", P(0, 0))))) == 3


def test_repeated_hover_recomputes_nothing(toys):
    ws = ws_of(FILES, profiles=["toy", "toy-tokens", "cogitator"])
    hover(ws, "src/api/users.ts", P(0, 0))
    assert [t.computed for t in toys] == [1, 1]
    hover(ws, "src/api/users.ts", P(0, 0))
    assert [t.computed for t in toys] == [1, 1]
    ws.update(changed=["src/TOY.md"])  # saved as it was: nothing to compute again
    hover(ws, "src/api/users.ts", P(0, 0))
    assert [t.computed for t in toys] == [1, 1]
    ws.reader.files[ws.abs("src/TOY.md")] += b" edited"
    ws.update(changed=["src/TOY.md"])
    hover(ws, "src/api/users.ts", P(0, 0))
    assert [t.computed for t in toys] == [2, 1]


def test_the_table_stays_small(toys):
    many = [ToyProfile(f"toy{i}", "bytes", 1000) for i in range(10)]
    for toy in many:
        register_profile(toy)
    ws = ws_of(FILES, profiles=["cogitator", *(t.name for t in many)])
    rows = table_of(hover_text(hover(ws, "src/api/users.ts", P(0, 0))))
    assert len(rows) == 2 + 8 + 1 and rows[-1].startswith("| … 3 more")


def test_pipes_in_paths_do_not_break_the_table(toys):
    files = {"a|b/TOY.md": "x" * 30, "a|b/x.ts": ""}
    ws = ws_of(files, profiles=["toy", "cogitator"])
    rows = table_of(hover_text(hover(ws, "a|b/x.ts", P(0, 0))))
    assert rows[2] == "| toy | 1 | 20 / 20 bytes | cut `a\\|b/TOY.md` |"


def test_a_failing_agent_costs_the_table_not_the_hover(toys, monkeypatch):
    from rulemap.lsp.features import _util

    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise RuntimeError("bug")

    monkeypatch.setattr(_util, "RAISE", False)
    monkeypatch.setattr(toys[0], "explain", broken)
    ws = ws_of(FILES, profiles=["toy", "cogitator"])
    text = hover_text(hover(ws, "src/api/users.ts", P(0, 0)))
    assert "AGENTS.md" in text and table_of(text) == []
