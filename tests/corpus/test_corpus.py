"""The real-world corpus: 34 public repositories' instruction setups (`../shared/corpus`).

Each entry is rebuilt in a temporary directory with the corpus's own `materialize.py` (every
path of the repository as an empty file, the instruction files and their import targets copied,
symlinks recreated as stored in git), once per test session.

- `test_entry_runs`: on every entry, within a time limit, `rulemap check --format json` and
  `rulemap explain --json` (start-up load, and one target) through the CLI entry point, then
  the explanation of a few targets (a file a scoped rule matches, a file below a nested
  instruction file, the deepest file) and the graph through one workspace, with their JSON.
- `test_expected_findings`: the exact multiset of (path, line, code) of `rulemap check
  --profiles cogitator` (the default model) per entry, as reviewed in docs/corpus.md, is pinned
  in `expected/<entry>.json` (lines 1-based).
- `test_profile_counts`: every agent profile over every entry — `rulemap check --profiles P`
  counts its own findings by code (pinned in `expected/profiles.json`, reviewed in
  docs/corpus.md), and `explain --profile P` of the start-up load and the targets runs.
  An entry with a `pending` note is expected to differ until a known core problem is fixed
  (strict xfail: once it passes, delete the note). `python tests/corpus/update_expected.py`
  rewrites the findings lists (keeping the notes) after a reviewed change.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import re
import signal
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rulemap import analysis

HERE = Path(__file__).resolve().parent
SHARED = Path(__file__).resolve().parents[2].parent / "shared"
CORPUS = SHARED / "corpus"
EXPECTED = HERE / "expected"
TIME_LIMIT = 60  # seconds per entry for everything the smoke test runs

AVAILABLE = (CORPUS / "materialize.py").is_file()
pytestmark = [
    pytest.mark.corpus,
    pytest.mark.skipif(
        not AVAILABLE,
        reason=f"the real-world corpus is not here ({CORPUS}); it lives next to the repository "
        "in ../shared/corpus",
    ),
]

ENTRIES = (
    sorted(p.name for p in CORPUS.iterdir() if (p / "FILES.txt").is_file()) if AVAILABLE else []
)
PINNED = sorted(p.stem for p in EXPECTED.glob("*.json") if p.name != "profiles.json")


def _load_materialize() -> Any:
    spec = importlib.util.spec_from_file_location("corpus_materialize", CORPUS / "materialize.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """`tree(entry)` → the entry's materialized root (built once per session)."""
    materialize = _load_materialize()
    base = tmp_path_factory.mktemp("corpus")
    built: dict[str, Path] = {}

    def build(entry: str) -> Path:
        if entry not in built:
            dest = base / entry
            with contextlib.redirect_stdout(io.StringIO()):
                assert materialize.main([str(CORPUS / entry), str(dest)]) == 0
            built[entry] = dest
        return built[entry]

    yield build


def run(*argv: str) -> tuple[int, str]:
    """`rulemap ARGV` in this process: exit code and stdout (stderr must stay empty)."""
    from rulemap.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    said = err.getvalue()
    if "--profiles" in argv:
        # an agent named on purpose that has no file here is said so (no silent success)
        said = re.sub(r"^rulemap: no instruction file of the selected agents "
                      r".*?\swith\s+--root\.\n", "", said, flags=re.S)
    assert said == "", f"rulemap {' '.join(argv)} wrote to stderr:\n{err.getvalue()}"
    return code, out.getvalue()


@contextlib.contextmanager
def time_limit(seconds: int, what: str) -> Iterator[None]:
    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"{what} took more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def targets(ws: Any) -> list[str]:
    """A file a scoped rule matches, a file below a nested instruction file, the deepest file."""
    chosen: list[str] = []
    for rule in ws.rules:
        matches = ws.is_scoped(rule.path) and ws.rule_matches(rule.path)
        if matches:
            chosen.append(matches[len(matches) // 2])
            break
    nested = sorted({p.rsplit("/", 1)[0] for p in ws.instruction_files if "/" in p})
    for directory in nested[:2]:
        below = list(ws.files.under(directory + "/"))
        if below:
            chosen.append(max(below, key=lambda f: (f.count("/"), f)))
    if len(ws.files):
        chosen.append(max(ws.files, key=lambda f: (f.count("/"), f)))
    return list(dict.fromkeys(chosen))


_CHECKED: dict[tuple[Path, str], tuple[int, list[dict[str, Any]]]] = {}


def findings(root: Path, profiles: str = "cogitator") -> tuple[int, list[dict[str, Any]]]:
    """`rulemap check ROOT --profiles P --format json`: exit code and diagnostics (once per
    session and profile list)."""
    if (root, profiles) not in _CHECKED:
        code, out = run("check", str(root), "--format", "json", "--profiles", profiles)
        _CHECKED[(root, profiles)] = code, json.loads(out)["diagnostics"]
    return _CHECKED[(root, profiles)]


def profile_counts(root: Path, profile: str) -> dict[str, int]:
    """The findings only `profile` suffers (for the default model: all of its check), by
    code."""
    _, diagnostics = findings(root, profile)
    own = [d for d in diagnostics if d.get("profile", "cogitator") == profile]
    return dict(sorted(Counter(d["code"] for d in own).items()))


def all_profiles() -> list[str]:
    from rulemap.profiles import PROFILES

    return list(PROFILES)


PROFILE_PINS = EXPECTED / "profiles.json"


# ----------------------------------------------------------------------------- tests


def test_corpus_is_complete() -> None:
    assert len(ENTRIES) >= 34
    assert len(PINNED) >= 12
    assert set(PINNED) <= set(ENTRIES), set(PINNED) - set(ENTRIES)


@pytest.mark.parametrize("entry", ENTRIES)
def test_entry_runs(entry: str, tree: Any) -> None:
    from rulemap.graph_export import build_graph

    root = tree(entry)
    start = time.monotonic()
    with time_limit(TIME_LIMIT, f"check/explain/graph of {entry}"):
        code, diagnostics = findings(root)
        assert code in (0, 1)
        for d in diagnostics:
            assert set(d) <= {"path", "range", "severity", "code", "message", "profile"}
            assert d["severity"] in {"error", "warning", "information", "hint"}
            assert not d["path"].startswith("/"), d
            assert (root / d["path"]).exists() or (root / d["path"]).is_symlink(), d
        assert (code == 1) == any(d["severity"] == "error" for d in diagnostics)

        code, out = run("explain", "--root", str(root), "--json")
        assert code == 0
        startup = json.loads(out)
        assert startup["target"] is None and startup["cwd"] == "."
        first = targets(analysis.open_workspace(str(root)))
        code, out = run("explain", str(root / first[0]), "--root", str(root), "--json")
        assert code == 0 and json.loads(out)["target"] == first[0]
        # the other targets through the same workspace (the CLI would walk the tree again)
        ws = analysis.open_workspace(str(root), home=os.path.expanduser("~"))
        for target in first:
            # the agent the CLI answered for (the lead agent: Gemini CLI in a repository of
            # GEMINI.md files alone, host/selection.py)
            explanation = analysis.explain(ws, target, profile=startup["profile"]).to_json()
            assert explanation["target"] == target
            # (an agent without a size limit says maxChars 0)
            assert explanation["totalChars"] <= explanation["maxChars"] or (
                explanation["budget"]["kind"] == "none")
            assert {f["reason"] for f in explanation["files"]} <= {
                "project",
                "import",
                "rule",
                "nested",
                "scoped",
                "user",
                "requested",
            }
            # the start-up load is the head of every target's load (unless the budget cut it)
            assert [f["path"] for f in explanation["files"]][: len(startup["files"])] == [
                f["path"] for f in startup["files"]
            ] or explanation["leftOut"]
        json.dumps(build_graph(ws))
    assert time.monotonic() - start < TIME_LIMIT


def _expectation(entry: str) -> Any:
    data = json.loads((EXPECTED / f"{entry}.json").read_text(encoding="utf-8"))
    marks = []
    if data.get("pending"):
        marks.append(pytest.mark.xfail(strict=True, reason=data["pending"]))
    return pytest.param(entry, data, id=entry, marks=marks)


@pytest.mark.parametrize(("entry", "expected"), [_expectation(e) for e in PINNED])
def test_expected_findings(entry: str, expected: dict[str, Any], tree: Any) -> None:
    code, diagnostics = findings(tree(entry))
    got = Counter((d["path"], d["range"]["start"]["line"] + 1, d["code"]) for d in diagnostics)
    want = Counter((f["path"], f["line"], f["code"]) for f in expected["findings"])
    missing = sorted((want - got).elements())
    extra = sorted((got - want).elements())
    assert not missing and not extra, (
        f"{entry}: findings differ from expected/{entry}.json (review them, see docs/corpus.md)\n"
        f"  missing: {missing}\n  extra:   {extra}"
    )
    assert code == expected["exit_code"]
    severities = Counter(
        (d["path"], d["range"]["start"]["line"] + 1, d["code"], d["severity"]) for d in diagnostics
    )
    assert severities == Counter(
        (f["path"], f["line"], f["code"], f["severity"]) for f in expected["findings"]
    ), f"{entry}: severities differ"


def _pinned_profiles() -> dict[str, dict[str, dict[str, int]]]:
    if not PROFILE_PINS.is_file():
        return {}
    data: dict[str, dict[str, dict[str, int]]] = json.loads(
        PROFILE_PINS.read_text(encoding="utf-8")
    )["counts"]
    return data


@pytest.mark.parametrize("entry", ENTRIES)
def test_profile_counts(entry: str, tree: Any) -> None:
    """Every profile over the entry: its own findings by code are the reviewed ones, and its
    explanations of the start-up load and of the targets run."""

    root = tree(entry)
    pinned = _pinned_profiles().get(entry)
    assert pinned is not None, (
        f"{entry} has no counts in expected/profiles.json; run "
        f"`python tests/corpus/update_expected.py --profiles` and review them (docs/corpus.md)"
    )
    got = {}
    with time_limit(TIME_LIMIT, f"every profile over {entry}"):
        for profile in all_profiles():
            got[profile] = profile_counts(root, profile)
        ws = analysis.open_workspace(str(root))
        chosen = targets(ws)
        for profile in all_profiles():
            for target in [None, *chosen]:
                data = analysis.explain(ws, target, profile=profile).to_json()
                assert data["profile"] == profile and data["target"] == target
    assert got == pinned, f"{entry}: per-profile finding counts differ (docs/corpus.md)"


@pytest.mark.parametrize("entry", ENTRIES)
def test_safe_fixes_introduce_no_finding(
    entry: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Apply every safe fix of every selected agent to a fresh copy of the entry and check
    again: no (path, code) is reported more often than before (tests/fix_property.py)."""
    from tests.cli_runner import in_process_cli
    from tests.fix_property import introduced_by_fixes

    materialize = _load_materialize()
    dest = tmp_path / entry
    with contextlib.redirect_stdout(io.StringIO()):
        assert materialize.main([str(CORPUS / entry), str(dest)]) == 0
    run_cli = in_process_cli(monkeypatch, capsys, tmp_path)
    with time_limit(TIME_LIMIT, f"check --fix of {entry}"):
        assert introduced_by_fixes(run_cli, dest) == []
