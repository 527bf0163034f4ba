"""Side by side (`rulemap compare`, `rulemap.compare`): one column per agent, over the Profile
interface, with toy agents that load something predictable (tests/lsp/toy_profile.py)."""

from __future__ import annotations

import gc
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from core_helpers import make_ws
from tests.lsp.toy_profile import ToyProfile, register_toys

from rulemap import analysis
from rulemap import profiles as registry
from rulemap.cli.compare_table import comparison_table, fair_widths, shorten_middle
from rulemap.compare import Comparison, compare, size_of, summarize
from rulemap.model import Budget, Explanation, LoadedFile
from rulemap.profiles import PROFILES, UnknownProfile

# TOY.md files: 12 bytes at the root, 12 in src/ (so the 20-byte budget cuts it to 8), then
# src/api/TOY.md is left out. TOKENS.md: 4 characters (1 token) and 20 (5 tokens, cut to 3).
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


@pytest.fixture(autouse=True)
def _gc_back_on() -> Iterator[None]:
    # `main` disables the cyclic collector for one-shot commands (the process then exits)
    yield
    gc.enable()


def toy_ws(**config: object):  # type: ignore[no-untyped-def]
    return make_ws(FILES, **{"profiles": ["toy", "toy-tokens", "cogitator"], **config})


# ----- core ---------------------------------------------------------------------------------


def test_columns_follow_the_selected_profiles_in_order(toys):
    ws = toy_ws()
    result = compare(ws, "src/api/users.ts")
    assert [c.profile for c in result.columns] == ["toy", "toy-tokens", "cogitator"]
    assert [c.title for c in result.columns] == ["Toy agent", "Toy tokens agent",
                                                 PROFILES["cogitator"].title]
    assert (result.target, result.cwd) == ("src/api/users.ts", ".")
    for col in result.columns:
        # each column is exactly what `explain` says for that agent
        assert col.explanation.to_json() == analysis.explain(ws,
            "src/api/users.ts", profile=col.profile).to_json()


def test_summary_in_bytes_for_a_byte_budget(toys):
    toy = compare(toy_ws(), "src/api/users.ts", profiles=["toy"]).columns[0]
    assert [f.path for f in toy.explanation.files] == ["TOY.md", "src/TOY.md"]
    assert toy.explanation.left_out == ["src/api/TOY.md"]
    assert toy.summary == "2 files, 20 of 20 bytes, cut: src/TOY.md, 1 left out"
    assert toy.over_budget is True


def test_summary_in_tokens_for_a_per_file_token_budget(toys):
    col = compare(toy_ws(), "src/api/users.ts", profiles=["toy-tokens"]).columns[0]
    # 1 token + 3 tokens (the second file truncated at the per-file limit)
    assert col.summary == "2 files, 4 tokens, cut: src/TOKENS.md"
    assert col.over_budget is True


def test_nothing_over_budget_and_nothing_loaded(toys):
    ws = make_ws({"TOY.md": "tiny\n", "x.ts": ""}, profiles=["toy", "toy-tokens"])
    toy, tokens = compare(ws, "x.ts").columns
    assert toy.summary == "1 file, 5 of 20 bytes" and toy.over_budget is False
    assert tokens.summary == "nothing loaded" and tokens.over_budget is False


def test_profile_names_objects_unknown_and_repeated(toys):
    ws = toy_ws()
    outside = ToyProfile("unregistered", "bytes", 100)
    result = compare(ws, "src/api/users.ts", profiles=["toy", outside, "toy"])
    assert [c.profile for c in result.columns] == ["toy", "unregistered"]
    assert result.columns[1].summary == "3 files, 28 of 100 bytes"
    with pytest.raises(UnknownProfile):
        compare(ws, "x.ts", profiles=["nope"])


def test_start_up_and_cwd(toys):
    result = compare(toy_ws(), None, "src", ["toy"])
    assert (result.target, result.cwd) == (None, "src")
    assert [f.path for f in result.columns[0].explanation.files] == ["TOY.md", "src/TOY.md"]


def test_json_shape(toys):
    ws = toy_ws()
    result = compare(ws, "src/api/users.ts")
    data = result.to_json()
    assert list(data) == ["target", "cwd", "columns"]
    assert data["target"] == "src/api/users.ts" and data["cwd"] == "."
    first = data["columns"][0]
    assert first == {
        "profile": "toy",
        "title": "Toy agent",
        "summary": "2 files, 20 of 20 bytes, cut: src/TOY.md, 1 left out",
        "overBudget": True,
        "explanation": result.columns[0].explanation.to_json(),
    }
    json.dumps(data)  # plain data all the way down


def test_explanation_over_budget():
    def explanation(files: list[LoadedFile], left_out: list[str]) -> Explanation:
        return Explanation("x", "/w", ".", None, 10, files, left_out, [], None)

    whole = LoadedFile("a.md", "project", None, 0, 3)
    assert explanation([whole], []).over_budget is False
    assert explanation([], []).over_budget is False
    assert explanation([whole], ["b.md"]).over_budget is True
    assert explanation([LoadedFile("a.md", "project", None, 0, 3, cut=True)], []).over_budget
    truncated = LoadedFile("a.md", "project", None, 0, 3, truncated=True)
    assert explanation([truncated], []).over_budget is True


def test_sizes_fall_back_to_the_agents_estimate():
    counted = LoadedFile("a.md", "project", None, 0, 40, tokens=7, bytes=44)
    bare = LoadedFile("a.md", "project", None, 0, 40, text="é" * 40)
    assert (size_of(counted, "tokens"), size_of(counted, "bytes")) == (7, 44)
    assert (size_of(bare, "tokens"), size_of(bare, "bytes"), size_of(bare, "chars")) == (
        10, 80, 40)
    e = Explanation("x", "/w", ".", None, 0, [bare], [], [], None,
                    budget=Budget("per-file", "tokens", 1000))
    assert summarize(e) == "1 file, 10 tokens"


def test_cogitator_column_counts_chars():
    ws = make_ws({"AGENTS.md": "a" * 80, "CLAUDE.md": "b" * 80, "x.ts": ""}, maxChars=100)
    col = compare(ws, "x.ts", profiles=["cogitator"]).columns[0]
    assert col.summary == "2 files, 100 of 100 chars, cut: CLAUDE.md"
    assert col.over_budget


def test_every_registered_profile_gives_a_column():
    ws = make_ws(FILES)
    result = compare(ws, "src/api/users.ts", profiles=list(PROFILES))
    assert [c.profile for c in result.columns] == list(PROFILES)
    assert all(c.summary for c in result.columns)


# ----- the table ----------------------------------------------------------------------------


def test_shorten_middle_keeps_the_file_name():
    path = "packages/frontend/components/AGENTS.md"
    assert shorten_middle(path, 10) == "AGENTS.md"  # no room for `…/`: the name alone
    assert shorten_middle(path, 11) == "…/AGENTS.md"
    assert shorten_middle(path, 20) == "packages/…/AGENTS.md"  # cut at a directory boundary
    for width in range(12, len(path)):
        short = shorten_middle(path, width)
        assert short.endswith("/AGENTS.md") and len(short) <= width
        assert short.startswith("p") and "…" in short
    assert shorten_middle(path, 200) == path
    # a name longer than the room loses its own middle (issue 36: no line over the width)
    assert shorten_middle(path, 5) == "AG…md"
    assert shorten_middle("a-very-long-file-name.md", 8) == "a-ve….md"
    assert shorten_middle("a-very-long-file-name.md", 16) == "a-very…e-name.md"  # extension kept


def test_fair_widths():
    assert fair_widths([5, 6, 40], 60, floor=1) == [5, 6, 40]
    assert fair_widths([5, 60, 60], 65, floor=1) == [5, 30, 30]
    assert fair_widths([2, 40], 60) == [6, 40]  # never narrower than the floor
    assert all(w >= 6 for w in fair_widths([50] * 12, 40))


def _table_text(result: Comparison, width: int = 80) -> str:
    import io

    from rich.console import Console

    out = io.StringIO()
    Console(file=out, width=width, highlight=False).print(comparison_table(result, width))
    return out.getvalue()


def test_table_fits_80_columns_with_long_paths_and_many_agents(toys):
    deep = "packages/frontend/components/buttons/primary"
    # toy: 12 + 3 bytes, then packages/frontend/TOY.md is cut at 5 and the deepest left out
    files = {**FILES, "packages/TOY.md": "pk\n", "packages/frontend/TOY.md": "fe toy file\n",
             f"{deep}/TOY.md": "deep\n", f"{deep}/AGENTS.md": "nested\n", f"{deep}/b.tsx": ""}
    extra = [ToyProfile(f"toy{i}", "bytes", 1000) for i in range(5)]
    for toy in extra:
        registry.register_profile(toy)
    for names in (["toy", "toy-tokens", "cogitator", "toy0"],
                  ["toy", "toy-tokens", "cogitator", *(t.name for t in extra)]):
        ws = make_ws(files, profiles=names)
        text = _table_text(compare(ws, f"{deep}/b.tsx"))
        assert max(len(line) for line in text.splitlines()) <= 80, text
        assert "cut" in text and "left out" in text, text
        # shortened in the middle, the file name whole
        assert "…/TOY.md" in text, text
        # each agent heads a column (a name wider than a tight column folds onto two lines)
        assert all(name[:6] in text for name in names)
    ws = make_ws(files, profiles=["toy", "cogitator"])
    assert "packages/…/AGENTS.md" in _table_text(compare(ws, f"{deep}/b.tsx"), 50)


def test_table_rows_are_each_agents_order(toys):
    text = _table_text(compare(toy_ws(), "src/api/users.ts", profiles=["toy", "toy-tokens"]))
    lines = text.splitlines()
    row1 = next(line for line in lines if line.lstrip().startswith("1 "))
    row2 = next(line for line in lines if line.lstrip().startswith("2 "))
    row3 = next(line for line in lines if line.lstrip().startswith("3 "))
    assert row1.index("TOY.md 12") < row1.index("TOKENS.md 1")
    assert "src/TOY.md 8 cut" in row2 and "src/TOKENS.md 3 cut" in row2
    assert "src/api/TOY.md" in row3 and "left out" in row3
    header = "\n".join(lines[:3])
    assert "bytes" in header and "tokens" in header


# ----- the command --------------------------------------------------------------------------


def make_repo(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (tmp_path / ".git").mkdir(exist_ok=True)
    return tmp_path


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = make_repo(tmp_path / "repo", {**FILES,
                                         "rulemap.toml": 'profiles = ["toy", "cogitator"]\n'})
    monkeypatch.chdir(root)
    monkeypatch.delenv("RULEMAP_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-user-config"))
    monkeypatch.setenv("COLUMNS", "80")
    return root


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from rulemap.cli.main import main

    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_compare_json_defaults_to_the_selected_profiles(toys, repo, capsys):
    code, out, _ = run(["compare", "src/api/users.ts", "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert [c["profile"] for c in data["columns"]] == ["toy", "cogitator"]
    toy = data["columns"][0]
    assert toy["summary"] == "2 files, 20 of 20 bytes, cut: src/TOY.md, 1 left out"
    assert toy["overBudget"] is True
    assert [f["path"] for f in toy["explanation"]["files"]] == ["TOY.md", "src/TOY.md"]
    assert toy["explanation"]["leftOut"] == ["src/api/TOY.md"]
    assert data["columns"][1]["overBudget"] is False


def test_compare_table_and_summary_lines(toys, repo, capsys):
    code, out, _ = run(["compare", "src/api/users.ts", "--profiles", "toy-tokens,toy"], capsys)
    assert code == 0
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "toy-tokens: 2 files, 4 tokens, cut: src/TOKENS.md" in out
    assert "toy: 2 files, 20 of 20 bytes, cut: src/TOY.md, 1 left out" in out
    assert out.index("toy-tokens:") < out.index("toy:")
    assert "left out" in out


def test_compare_relative_target_and_cwd(toys, repo, capsys, monkeypatch):
    monkeypatch.chdir(repo / "src")
    code, out, _ = run(["compare", "api/users.ts", "--cwd", ".", "--profiles", "toy", "--json"],
                       capsys)
    data = json.loads(out)
    assert code == 0 and data["target"] == "src/api/users.ts" and data["cwd"] == "src"


def test_compare_home_reads_user_level_files(toys, repo, capsys, tmp_path):
    home = tmp_path / "home"
    (home / ".toy").mkdir(parents=True)
    (home / ".toy" / "TOY.md").write_text("me\n")
    code, out, _ = run(["compare", "src/api/users.ts", "--profiles", "toy", "--json"], capsys)
    assert [f["reason"] for f in json.loads(out)["columns"][0]["explanation"]["files"]] == [
        "project", "project"]
    code, out, _ = run(["compare", "src/api/users.ts", "--profiles", "toy", "--json",
                        "--home", str(home)], capsys)
    files = json.loads(out)["columns"][0]["explanation"]["files"]
    assert code == 0
    assert (files[0]["path"], files[0]["reason"]) == (str(home / ".toy" / "TOY.md"), "user")


def test_usage_errors_exit_2(toys, repo, capsys, tmp_path):
    code, _, err = run(["compare", "src/api/users.ts", "--profiles", "toy,nope"], capsys)
    assert code == 2 and "nope" in err
    assert all(name in err for name in PROFILES)  # the list to choose from
    code, _, err = run(["compare", "src/api/users.ts", "--profiles", "toy,,cogitator"], capsys)
    assert code == 2
    outside = tmp_path / "elsewhere.ts"
    outside.write_text("")
    code, _, err = run(["compare", str(outside)], capsys)
    assert code == 2 and "outside the workspace root" in err
    code, _, err = run(["compare", "src/x.ts", "--home", str(tmp_path / "missing")], capsys)
    assert code == 2 and "--home" in err
    assert "Traceback" not in err


def test_check_profiles_and_home(toys, repo, capsys, tmp_path):
    code, _, err = run(["check", "--profiles", "toy,nope"], capsys)
    assert code == 2 and "unknown profile `nope`" in err and "cogitator" in err
    code, out, _ = run(["check", "--profiles", "toy", "--format", "json"], capsys)
    assert code == 0 and json.loads(out)["diagnostics"] == []
    code, _, err = run(["check", "--home", str(tmp_path / "missing")], capsys)
    assert code == 2 and "--home" in err
    for command in (["explain", "src/api/users.ts"], ["graph"], ["check"]):
        code, _, _ = run([*command, "--home", str(tmp_path)], capsys)
        assert code == 0, command


def test_explain_accepts_every_registered_profile(toys, repo, capsys):
    for name in PROFILES:
        code, out, err = run(["explain", "src/api/users.ts", "--profile", name, "--json"],
                             capsys)
        assert code == 0, (name, err)
        assert json.loads(out)["profile"] == name


def test_help_teaches_and_lists_the_registry(toys, capsys):
    from rulemap.cli.main import main

    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    text = capsys.readouterr().out
    assert "examples:" in text and "rulemap compare src/" in text and "--profiles" in text
    assert all(name in text for name in PROFILES)  # toy agents included
    with pytest.raises(SystemExit):
        main(["explain", "--help"])
    explain_help = " ".join(capsys.readouterr().out.split())
    assert all(name in explain_help for name in PROFILES)
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "rulemap compare" in capsys.readouterr().out


def test_compare_subprocess_with_real_profiles(tmp_path):
    """The installed command, without toys: every registered agent gets a line."""
    import subprocess
    import sys

    root = make_repo(tmp_path, {"AGENTS.md": "Hello.\n", "src/a.ts": ""})
    env = {k: v for k, v in os.environ.items() if k != "RULEMAP_CONFIG"}
    env["XDG_CONFIG_HOME"] = str(tmp_path / ".no-user-config")
    env["COLUMNS"] = "80"
    names = ",".join(PROFILES)
    done = subprocess.run(
        [sys.executable, "-m", "rulemap", "compare", "src/a.ts", "--profiles", names],
        cwd=root, env=env, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert max(len(line) for line in done.stdout.splitlines()) <= 80
    for name in PROFILES:
        assert f"\n{name}: " in done.stdout
