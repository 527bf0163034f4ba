"""The README's example output is the real output of `make demo`'s commands and of the tour's
commands on a real repository (vendored in tests/realworld/entries/), and the `rulemap diff
main` example of README.md and docs/diff.md.

`scripts/update_readme.py` writes the blocks between `<!-- demo:NAME -->` and `<!-- /demo -->`;
this test fails when one differs from what the command prints now (rerun the script), when
the Makefile's demo target no longer runs the command the README shows, or when the tour's
clone instructions name another repository or commit than the vendored one."""

from __future__ import annotations

import importlib.util
import re
import shlex
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    path = REPO / "scripts" / "update_readme.py"
    spec = importlib.util.spec_from_file_location("update_readme", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


update_readme = _script()


def test_every_example_has_a_block_in_the_readme():
    written = update_readme.blocks((REPO / "README.md").read_text(encoding="utf-8"))
    assert sorted(written) == update_readme.names()


# the tour's commands run on a rebuilt repository of a few thousand paths: end to end, slow
@pytest.mark.parametrize("name", [
    pytest.param(name, marks=pytest.mark.slow) if name in update_readme.TOUR else name
    for name in update_readme.names()
])
def test_the_readme_block_is_what_the_command_prints(name: str):
    written = update_readme.blocks((REPO / "README.md").read_text(encoding="utf-8"))[name]
    assert written == update_readme.block(name), (
        f"README.md's `{name}` example is stale: run `.venv/bin/python scripts/update_readme.py`"
    )


@pytest.mark.parametrize("name", sorted(update_readme.EXAMPLES))
def test_make_demo_runs_the_command_the_readme_shows(name: str):
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    demo = makefile.split("\ndemo:", 1)[1].split("\n\n", 1)[0]
    demo_dir = re.search(r"^DEMO\s*:?=\s*(\S+)", makefile, re.M)
    assert demo_dir is not None and demo_dir.group(1) == update_readme.DEMO
    commands = [  # as the shell splits them (a quoted TEXT is one argument)
        shlex.split(m.group(1).replace("$(DEMO)", update_readme.DEMO))
        for m in re.finditer(r"\$\(PY\) -m rulemap ([^;\n]+)", demo)
    ]
    assert update_readme.EXAMPLES[name] in commands, (name, commands)


def test_a_stale_block_is_found_and_refreshed():
    readme = "intro\n<!-- demo:check -->\n```\nold\n```\n<!-- /demo -->\nrest\n"
    fresh = update_readme.refreshed(readme)
    assert fresh.startswith("intro\n<!-- demo:check -->\n```\n$ rulemap check examples/demo\n")
    assert fresh.endswith("```\n<!-- /demo -->\nrest\n")
    assert update_readme.blocks(fresh)["check"] != update_readme.blocks(readme)["check"]
    assert update_readme.refreshed(fresh) == fresh


def test_the_tour_clones_the_repository_and_commit_it_shows():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    source = update_readme.tour_source()
    url, commit = source["url"], source["commit"]
    assert re.fullmatch(r"[0-9a-f]{40}", commit)
    assert f"\ngit clone {url} && cd {url.rsplit('/', 1)[1]}\n" in readme
    assert f"\ngit checkout {commit}\n" in readme
    # the tour's target is a file of that commit (FILES.txt: its `git ls-tree`)
    files = (update_readme.TOUR_ENTRY / "FILES.txt").read_text(encoding="utf-8").split("\n")
    assert update_readme.TOUR_TARGET in files


@pytest.mark.slow
def test_the_tour_runs_in_a_rebuilt_clone_of_the_repository():
    root = update_readme.tour_root()
    assert (root / ".git").is_dir() and (root / "AGENTS.md").is_file()
    vendored = update_readme.TOUR_ENTRY / "files" / "frontend" / "AGENTS.md"
    assert (root / "frontend" / "AGENTS.md").read_bytes() == vendored.read_bytes()


def test_a_transcript_names_no_path_of_the_machine_and_has_no_trailing_spaces(tmp_path: Path):
    text = update_readme.normalize(f"$ rulemap x\nread {tmp_path}/a.md  \n{tmp_path}\n", tmp_path)
    assert text == "$ rulemap x\nread a.md\n.\n"


@pytest.mark.slow
def test_the_diff_example_is_refreshed_by_the_same_script():
    stale = "x\n```text\n$ rulemap diff main\nold\n```\ny\n"
    fresh = update_readme.refreshed_diff(stale)
    assert fresh == f"x\n```text\n$ rulemap diff main\n{update_readme.diff_output()}```\ny\n"
    assert "files load something else" in update_readme.diff_output()
    # what README.md and docs/diff.md show is that output (tests/core/test_diff_cli.py runs
    # the same change through the CLI in process)
    for doc in update_readme.DIFF_DOCS:
        text = doc.read_text(encoding="utf-8")
        assert "```text\n$ rulemap diff main\n" in text, doc
        assert update_readme.refreshed_diff(text) == text, (
            f"{doc.name}'s diff example is stale: run `.venv/bin/python scripts/update_readme.py`"
        )


def test_the_tour_says_what_its_output_shows():
    """The prose between the tour's blocks makes claims of their output: when a change to
    Rulemap changes the output, this says which sentence to revisit."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    written = update_readme.blocks(readme)
    # "Claude Code never reads the nested `AGENTS.md` files"
    for nested in ("frontend", "marimo", "packages/llm-info"):
        finding = written["tour-check"].split(f"\n{nested}/AGENTS.md\n", 1)[1].split("\n")[0]
        assert "instructions-shadowed" in finding and "claude-code" in finding, nested
    assert "\nno   Claude Code:" in written["tour-why"]
    assert re.search(r"^yes  ", written["tour-why"], re.M)  # some agent does get it
    assert "claude-code" in written["tour-compare"]
    # "… a one-line `CLAUDE.md` (`@AGENTS.md`) for Claude Code"
    claude = (update_readme.TOUR_ENTRY / "files" / "CLAUDE.md").read_text(encoding="utf-8")
    assert claude.strip() == "@AGENTS.md"
