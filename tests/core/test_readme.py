"""The README's example output is the real output of `make demo`'s commands.

`scripts/update_readme.py` writes the blocks between `<!-- demo:NAME -->` and `<!-- /demo -->`;
this test fails when one differs from what the command prints now (rerun the script), or when
the Makefile's demo target no longer runs the command the README shows."""

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
    assert sorted(written) == sorted(update_readme.EXAMPLES)


@pytest.mark.parametrize("name", sorted(update_readme.EXAMPLES))
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
