"""Repositories written for one agent show that agent first (issue 36): in a real repository
whose instruction files are Gemini CLI's, Copilot's or Cursor's alone — where the default
model reads nothing — `rulemap explain` answers for that agent (and says so on stderr), the
agents line names it with the file that selected it, and `rulemap map` opens on it.

The entries (`../shared/corpus`, see docs/corpus.md):
- google-gemini/gemini-cli: eight `GEMINI.md` files, nothing else;
- jfjordanfarr/Copilot-Improvement-Experiments: `.github/copilot-instructions.md` and seven
  `.github/instructions/*.instructions.md`, nothing else;
- xsynaptic/spectralcodex: four `.cursor/rules/*.mdc` rules beside a `.claude/` directory.
  The corpus has no repository with Cursor's files alone, so this test removes `.claude/`
  after materializing it: what is left is exactly what its authors wrote for Cursor.

Without the corpus this test fails (it is run by `make test-corpus` only, which says where
the corpus belongs); it never skips.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
CORPUS = SHARED / "corpus"

pytestmark = pytest.mark.corpus

# entry → (the agent it is written for, why it is selected, a target that agent loads for,
#          the paths materialized then removed: files written for another agent)
CASES: dict[str, tuple[str, str, str, tuple[str, ...]]] = {
    "google-gemini__gemini-cli": ("gemini", "GEMINI.md", "packages/core/GEMINI.md", ()),
    "jfjordanfarr__Copilot-Improvement-Experiments": (
        "copilot", ".github/copilot-instructions.md", ".github/copilot-instructions.md", ()),
    "xsynaptic__spectralcodex": (
        "cursor", ".cursor/rules/astro.mdc", "packages/react-map-component/src/canvas/canvas.tsx",
        (".claude",)),
}


def materialized(entry: str, dest: Path) -> Path:
    """The entry's tree rebuilt under `dest` by the corpus's own `materialize.py`."""
    script = CORPUS / "materialize.py"
    assert script.is_file(), (
        f"the real-world corpus is not here ({CORPUS}): it lives beside the repository, in "
        "../shared/corpus (make test-corpus)")
    spec = importlib.util.spec_from_file_location("corpus_materialize_first", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    root = dest / entry
    with contextlib.redirect_stdout(io.StringIO()):
        assert module.main([str(CORPUS / entry), str(root)]) == 0
    (root / ".git").mkdir(exist_ok=True)
    return root


def run(*argv: str) -> tuple[int, str, str]:
    """`rulemap ARGV` in this process, at 80 columns: exit code, stdout, stderr."""
    from rulemap.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("COLUMNS", "80")
        patch.delenv("RULEMAP_CONFIG", raising=False)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def page_data(page: Path) -> dict[str, Any]:
    """The data a map page embeds (what its script opens on)."""
    text = page.read_text(encoding="utf-8")
    start = text.index('id="rulemap-data">') + len('id="rulemap-data">')
    return json.loads(text[start:text.index("</script>", start)])  # type: ignore[no-any-return]


@pytest.mark.parametrize("entry", sorted(CASES))
def test_a_repository_written_for_one_agent_shows_it_first(
    entry: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent, why, target, removed = CASES[entry]
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-user-config"))
    root = materialized(entry, tmp_path)
    for path in removed:
        shutil.rmtree(root / path)

    # explain answers for the repository's own agent, and says why
    code, out, err = run("explain", str(root / target), "--root", str(root), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["profile"] == agent
    assert data["answeredFor"]["name"] == agent and data["answeredFor"]["why"] == why
    assert "cogitator, the default model, reads no instruction file here" in (
        data["answeredFor"]["note"])
    assert data["files"], f"{agent} loads nothing for {target}"
    assert {"name": agent, "why": why} in [
        {"name": a["name"], "why": a["why"]} for a in data["selection"]]

    # the table is the agent's; the agents line and the note on stderr name it and its file
    code, out, err = run("explain", str(root / target), "--root", str(root))
    assert code == 0 and out.startswith(f"{agent}: loaded for {target}")
    flat = " ".join(err.split())
    assert f"agents: cogitator (the default model), {agent} ({why})" in flat
    assert f"answering for {agent} ({why}); pick cogitator" in flat
    assert all(len(line) <= 80 for line in err.splitlines())

    # check's summary names it too
    code, out, _ = run("check", str(root), "--no-cache")
    assert f"agents: cogitator (the default model), {agent} ({why})" in " ".join(out.split())

    # the map opens on it
    page = tmp_path / "map.html"
    code, _, err = run("map", "--html", str(page), "--root", str(root))
    assert code == 0
    mapped = page_data(page)
    assert mapped["lead"]["name"] == agent and mapped["lead"]["why"] == why
    assert agent in [a["name"] for a in mapped["agents"]]
    assert f"answering for {agent}" in " ".join(err.split())
