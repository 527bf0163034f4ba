"""The toy agent (tests/toy_agent/__init__.py), defined only in tests, end to end through the
engine and the CLI: registered by one line, detected, watched, explained, checked, compared,
diffed and replayed — in its own unit (bytes), naming its own findings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.toy_agent.conftest import FILES, TARGET, commit, git, write

from rulemap.analysis import new_workspace, select_profiles
from rulemap.checks import run_checks
from rulemap.checks.registry import CHECKS
from rulemap.profiles import PROFILES, select
from rulemap.readers import MemoryReader

REPO = Path(__file__).resolve().parents[2]
TOY_CUT = ("toy: src/TOY.txt is cut at 64 bytes (maxBytes) when working in `src/`: 33 of "
           "its bytes are read")
TOY_LEFT_OUT = ("toy: src/api/TOY.txt is left out: maxBytes (64 bytes) is used up before it "
                "when working in `src/api/`")


# ----- registered, watched ------------------------------------------------------------------


def test_one_registry_line_makes_it_an_agent(toy) -> None:
    from rulemap.host.catalog import agent_names, watched_globs

    assert PROFILES["toy"] is toy
    assert "toy" in agent_names()
    # watched: its own non-Markdown file name, beside Markdown and the configuration
    globs = watched_globs()
    assert "**/TOY.txt" in globs and "**/*.md" in globs
    # the registry lists it among the agents of the code it declares
    agents = CHECKS["budget-overflow"].agents
    assert agents != "every agent" and "toy" in agents
    assert CHECKS["budget-overflow"].concerns("toy")


def test_not_an_agent_without_its_line(workspace: Path) -> None:
    """Nothing in the engine knows the toy agent: a plain `rulemap` has no such profile."""
    env = {k: v for k, v in os.environ.items() if k not in ("RULEMAP_CONFIG", "COLUMNS")}
    env["XDG_CONFIG_HOME"] = str(workspace / ".no-user-config")
    env["PYTHONPATH"] = str(REPO / "server")
    done = subprocess.run([sys.executable, "-m", "rulemap", "explain", TARGET, "--profile", "toy"],
                          cwd=workspace, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "unknown profile `toy`" in done.stderr


# ----- detected, checked ----------------------------------------------------------------------


def test_detected_where_its_file_exists(toy, workspace: Path, cli, tmp_path: Path) -> None:
    code, out, err = cli(["compare", TARGET, "--json"], workspace)
    assert code == 0, err
    names = [c["profile"] for c in json.loads(out)["columns"]]
    assert names[0] == "cogitator" and "toy" in names
    # no TOY.txt: not selected
    bare = write(tmp_path / "bare", {"AGENTS.md": "Project.\n", TARGET: "x\n"})
    (bare / ".git").mkdir()
    code, out, err = cli(["compare", TARGET, "--json"], bare)
    assert code == 0, err
    assert "toy" not in [c["profile"] for c in json.loads(out)["columns"]]


def test_check_names_its_findings(toy, workspace: Path, cli) -> None:
    code, out, err = cli(["check", "--format", "json"], workspace)
    assert code == 0, err  # warnings only
    toys = [d for d in json.loads(out)["diagnostics"] if d.get("profile") == "toy"]
    assert [(d["path"], d["code"], d["severity"], d["message"]) for d in toys] == [
        ("src/TOY.txt", "budget-overflow", "warning", TOY_CUT),
        ("src/api/TOY.txt", "budget-overflow", "warning", TOY_LEFT_OUT),
    ]
    assert toys[0]["range"] == {"start": {"line": 0, "character": 0},
                                "end": {"line": 0, "character": 40}}
    code, out, err = cli(["check"], workspace)
    assert code == 0, err
    flat = " ".join(out.split())  # a long message may wrap
    assert "src/TOY.txt 1:1 warning budget-overflow " + TOY_CUT in flat
    assert "src/api/TOY.txt 1:1 warning budget-overflow " + TOY_LEFT_OUT in flat
    # --profiles without it: none of its findings
    code, out, err = cli(["check", "--format", "json", "--profiles", "cogitator"], workspace)
    assert code == 0, err
    assert not [d for d in json.loads(out)["diagnostics"] if d.get("profile") == "toy"]
    # its option, from rulemap.toml: a budget that fits everything cuts nothing
    write(workspace, {"rulemap.toml": "[profiles.toy]\nmaxBytes = 200\n"})
    code, out, err = cli(["check", "--format", "json"], workspace)
    assert code == 0, err
    assert not [d for d in json.loads(out)["diagnostics"] if d.get("profile") == "toy"]


def test_its_findings_satisfy_the_check_registry(toy) -> None:
    ws = new_workspace(MemoryReader("/w", FILES))
    assert "toy" in [p.name for p in select(ws)]
    select_profiles(ws)
    found = [f for f in run_checks(ws) if f.profile == "toy"]
    assert len(found) == 2
    for f in found:
        check = CHECKS[f.code]
        assert f.severity in check.severities
        assert check.concerns("toy")
        assert not f.fixes and check.fix == "none"
        assert f.message.startswith("toy: ")


# ----- explained ------------------------------------------------------------------------------


def test_explain_json_in_bytes(toy, workspace: Path, cli) -> None:
    code, out, err = cli(["explain", TARGET, "--profile", "toy", "--json"], workspace)
    assert code == 0, err
    data = json.loads(out)
    assert data["profile"] == "toy" and data["target"] == TARGET
    assert data["budget"] == {"kind": "shared", "unit": "bytes", "limit": 64}
    assert [(f["path"], f["bytes"], f["cut"]) for f in data["files"]] == [
        ("TOY.txt", 31, False), ("src/TOY.txt", 33, True)]
    assert data["leftOut"] == ["src/api/TOY.txt"]


def test_explain_table_in_bytes(toy, workspace: Path, cli) -> None:
    code, out, err = cli(["explain", TARGET, "--profile", "toy"], workspace)
    assert code == 0, err
    assert out.startswith(f"toy: loaded for {TARGET} from cwd .")
    assert "bytes" in out.splitlines()[2] and "chars" not in out
    assert "64 of 64 bytes\n" in out
    assert "[toy: 64 bytes read. Cut: src/TOY.txt. Left out: src/api/TOY.txt.]" in out


# ----- compared -------------------------------------------------------------------------------


def test_compare_with_the_default_model(toy, workspace: Path, cli) -> None:
    code, out, err = cli(["compare", TARGET, "--profiles", "cogitator,toy", "--json"], workspace)
    assert code == 0, err
    data = json.loads(out)
    assert [c["profile"] for c in data["columns"]] == ["cogitator", "toy"]
    cogitator, toy_column = data["columns"]
    assert cogitator["summary"] == "1 file, 9 of 32,000 chars"
    assert cogitator["overBudget"] is False
    assert toy_column["title"] == "Toy agent"
    assert toy_column["summary"] == "2 files, 64 of 64 bytes, cut: src/TOY.txt, 1 left out"
    assert toy_column["overBudget"] is True
    assert toy_column["explanation"]["budget"]["unit"] == "bytes"
    code, out, err = cli(["compare", TARGET, "--profiles", "cogitator,toy"], workspace)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[1].split() == ["cogitator", "toy"]
    assert lines[2].split() == ["#", "chars", "bytes"]
    assert "toy: 2 files, 64 of 64 bytes, cut: src/TOY.txt, 1 left out" in out


# ----- diffed ---------------------------------------------------------------------------------


def _repo(tmp_path: Path) -> Path:
    """main: FILES; `feature`: src/TOY.txt shortened to 7 bytes, so nothing is cut or left
    out any more."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    commit(repo, dict(FILES))
    git(repo, "checkout", "-q", "-b", "feature")
    commit(repo, {"src/TOY.txt": "short.\n"})
    return repo


def test_diff_between_commits(toy, tmp_path: Path, cli) -> None:
    repo = _repo(tmp_path)
    code, out, err = cli(["diff", "main", "feature", "--profiles", "toy", "--json",
                          "--fail-on-change"], repo)
    assert code == 1, err
    data = json.loads(out)
    assert data["profiles"] == ["toy"] and data["changed"] is True
    groups = {(c["kind"], c["path"]): g["files"] for g in data["groups"] for c in g["changes"]}
    assert all(g["profiles"] == ["toy"] for g in data["groups"])
    assert groups == {
        ("uncut", "src/TOY.txt"): ["src/TOY.txt", "src/api/TOY.txt", TARGET],
        ("restored", "src/api/TOY.txt"): ["src/api/TOY.txt", TARGET],
    }
    assert data["findings"]["new"] == []
    assert [(f["profile"], f["code"], f["path"], f["message"])
            for f in data["findings"]["fixed"]] == [
        ("toy", "budget-overflow", "src/TOY.txt", TOY_CUT),
        ("toy", "budget-overflow", "src/api/TOY.txt", TOY_LEFT_OUT),
    ]
    # detected on its own in both commits: the default selection names it
    code, out, err = cli(["diff", "main", "feature"], repo)
    assert code == 0, err
    assert out.splitlines()[0].startswith("rulemap diff main → feature (") and "toy" in \
        out.splitlines()[0]
    assert "toy: src/TOY.txt, src/api/TOY.txt, src/api/users.ts\n  + now get src/TOY.txt whole" \
        in out
    assert "fixed: src/TOY.txt:1: warning budget-overflow toy: src/TOY.txt is cut" in out


def test_check_at_a_commit(toy, tmp_path: Path, cli) -> None:
    repo = _repo(tmp_path)
    code, out, err = cli(["check", "--ref", "main", "--format", "json"], repo)
    assert code == 0, err
    assert [d["path"] for d in json.loads(out)["diagnostics"] if d.get("profile") == "toy"] == [
        "src/TOY.txt", "src/api/TOY.txt"]
    code, out, err = cli(["check", "--ref", "feature", "--format", "json"], repo)
    assert code == 0, err
    assert not [d for d in json.loads(out)["diagnostics"] if d.get("profile") == "toy"]


# ----- replayed -------------------------------------------------------------------------------


def test_session_json_by_its_step_model(toy, workspace: Path, cli) -> None:
    code, out, err = cli(["session", f"read:{TARGET}", "--profile", "toy", "--json"], workspace)
    assert code == 0, err
    data = json.loads(out)
    assert data["profile"] == "toy" and data["hasStepModel"] is True and data["note"] is None
    assert data["budget"] == {"kind": "shared", "unit": "bytes", "limit": 64}
    steps = data["steps"]
    assert [[(f["path"], f["bytes"]) for f in s["joined"]] for s in steps] == [
        [("TOY.txt", 31)], [("src/TOY.txt", 33)]]
    assert [(s["used"], s["left"], s["cut"], s["leftOut"]) for s in steps] == [
        (31, 33, [], []), (64, 0, ["src/TOY.txt"], ["src/api/TOY.txt"])]
    assert steps[1]["notice"] == "[toy: 64 bytes read. Cut: src/TOY.txt. Left out: " \
                                 "src/api/TOY.txt.]"
    assert data["firstCutStep"] == 1


def test_session_notice_in_its_unit(toy, workspace: Path, cli) -> None:
    """The run's notice (`SessionReplay.notice`) names the budget in the agent's unit."""
    code, out, err = cli(["session", f"read:{TARGET}", "--profile", "toy", "--json"], workspace)
    assert code == 0, err
    notice = json.loads(out)["notice"]
    assert notice is not None and "src/TOY.txt" in notice and "src/api/TOY.txt" in notice
    assert "64 bytes" in notice and "characters" not in notice, notice


def test_session_table_and_text(toy, workspace: Path, cli) -> None:
    code, out, err = cli(["session", f"read:{TARGET}", "--profile", "toy"], workspace)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].strip() == "toy: a run of 1 step from cwd ."
    assert lines[1].split() == ["step", "joins", "reason", "bytes", "used", "left"]
    flat = " ".join(out.split())  # the lines under the table wrap at 80 columns
    assert "budget: 64 bytes shared by the whole run; used 64, 0 left" in flat
    assert ("first cut: step 1 (read src/api/users.ts) cuts src/TOY.txt and leaves out "
            "src/api/TOY.txt") in flat
    code, out, err = cli(["session", f"read:{TARGET}", "--profile", "toy", "--text"], workspace)
    assert code == 0, err
    assert out == (
        "==> step 0: start-up <==\nroot toy rules: keep it short.\n\n"
        "==> step 1: read src/api/users.ts <==\nsrc toy rules: tabs, not spaces, \n\n"
        "[toy: 64 bytes read. Cut: src/TOY.txt. Left out: src/api/TOY.txt.]\n"
    )
