"""Every agent's page names the release it models and sources every fact: a `## Release
modelled` section with a date, and a `## Facts and sources` table whose rows each cite a public
source (an https URL) and name the tests that pin the fact — tests that exist. A page with no
such table, a row without a source, or a test named that is gone fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rulemap.profiles import PROFILES

REPO = Path(__file__).resolve().parents[2]
PAGES = REPO / "docs" / "profiles"
MIN_ROWS = 8
_TEST_REF = re.compile(r"`(tests/[\w/.-]+\.py)::(\w+)`")


def _page(name: str) -> str:
    return (PAGES / f"{name}.md").read_text(encoding="utf-8")


def _section(text: str, heading: str) -> str:
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, f"no `## {heading}` section"
    return match.group(1)


def _rows(section: str) -> list[list[str]]:
    lines = [line for line in section.splitlines() if line.startswith("|")]
    assert len(lines) >= 2 and re.match(r"^\|\s*fact\s*\|\s*source\s*\|\s*test\s*\|", lines[0]), (
        "the table's header must be `| fact | source | test |`")
    return [[cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]] for line in lines[2:]]


# the tool agents are pinned to at least MIN_ROWS facts; every registered agent needs a page
AGENTS = sorted(name for name in PROFILES if (PAGES / f"{name}.md").exists())


def test_every_registered_agent_has_a_page() -> None:
    assert sorted(PROFILES) == AGENTS


@pytest.mark.parametrize("name", AGENTS)
def test_the_page_names_the_release_it_models(name: str) -> None:
    release = _section(_page(name), "Release modelled")
    assert re.search(r"\*\*[^*]+\*\*", release), "name the release in bold"
    assert re.search(r"\b20\d\d-\d\d-\d\d\b", release), "give the release's date (YYYY-MM-DD)"


@pytest.mark.parametrize("name", AGENTS)
def test_every_fact_cites_a_public_source_and_its_tests(name: str) -> None:
    rows = _rows(_section(_page(name), "Facts and sources"))
    assert len(rows) >= MIN_ROWS, f"{len(rows)} facts; at least {MIN_ROWS}"
    for fact, source, tests in rows:
        assert "https://" in source, f"no public source for: {fact}"
        assert not re.search(r"\.\./shared|/work/|/tmp/|agent reference", source + fact), (
            f"a source outside the repository's readers' reach: {fact}")
        refs = _TEST_REF.findall(tests)
        assert refs, f"no test pins: {fact}"
        for path, function in refs:
            file = REPO / path
            assert file.is_file(), f"{path} (for: {fact}) does not exist"
            assert re.search(rf"^(async )?def {function}\b", file.read_text(encoding="utf-8"),
                             re.M), f"{path}::{function} (for: {fact}) does not exist"
