"""The project's own real-world test data: public repositories' instruction setups, pinned.

`entries/<owner>__<name>/` holds one repository at one commit in the shape of the external
corpus (`FILES.txt`, `SYMLINKS.txt`, `SOURCE.txt`, `files/`); `materialize.py` rebuilds it in a
temporary directory (every path an empty file, the instruction files byte-identical, symlinks as
git stores them), once per session. Unlike `tests/corpus`, this module runs in `make test`.

For every entry, through the CLI entry point: `rulemap check --format json --profiles <all>`
and `rulemap explain --json --profile P` (the start-up load) for every profile, both with
`--platform linux`, so a pin is the same on a Mac, on Windows and on Linux CI. The multiset of
(profile, path, line, code, severity) of the findings, the exit code and each profile's
start-up load (path, reason) must equal `expected/<entry>.json`; every finding is judged in
docs/corpus.md ("Repositories in the project's own test data"). Where `check` says an agent
never reads a file where it lies, `explain`, `reach` and `why` must say the same
(`test_views_agree_with_check`). Every entry also keeps the
fix property: `check --fix` for every agent introduces no finding (tests/fix_property.py).
`python tests/realworld/update_expected.py` rewrites the pins after a reviewed change.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from materialize import materialize, symlinks

HERE = Path(__file__).resolve().parent
ENTRIES_DIR = HERE / "entries"
EXPECTED = HERE / "expected"
PROFILES = ("cogitator", "claude-code", "codex", "gemini", "copilot", "cursor", "mastra")
# the platform every pin assumes (`--platform`): Linux, whose file systems tell letter case
# apart, so that `agents.md` is never `AGENTS.md` whatever machine runs the tests
PLATFORM = "linux"
ENTRIES = sorted(p.name for p in ENTRIES_DIR.iterdir() if (p / "FILES.txt").is_file())


def run(*argv: str) -> tuple[int, str]:
    """`rulemap ARGV` in this process: exit code and stdout (stderr must stay empty)."""
    from rulemap.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    assert err.getvalue() == "", f"rulemap {' '.join(argv)} wrote to stderr:\n{err.getvalue()}"
    return code, out.getvalue()


def observe(root: Path) -> dict[str, Any]:
    """What Rulemap says about the tree at `root`, in the shape of `expected/<entry>.json`."""
    code, out = run("check", str(root), "--format", "json", "--profiles", ",".join(PROFILES),
                    "--platform", PLATFORM)
    diagnostics = json.loads(out)["diagnostics"]
    findings = []
    for d in diagnostics:
        assert set(d) <= {"path", "range", "severity", "code", "message", "profile"}, d
        assert d["severity"] in {"error", "warning", "information", "hint"}, d
        assert not d["path"].startswith("/"), d
        assert (root / d["path"]).exists() or (root / d["path"]).is_symlink(), d
        findings.append(
            {
                "profile": d.get("profile", "cogitator"),
                "path": d["path"],
                "line": d["range"]["start"]["line"] + 1,
                "code": d["code"],
                "severity": d["severity"],
            }
        )
    assert (code == 1) == any(f["severity"] == "error" for f in findings)
    findings.sort(key=lambda f: (f["profile"], f["path"], f["line"], f["code"], f["severity"]))
    startup = {}
    for profile in PROFILES:
        rc, out = run("explain", "--root", str(root), "--json", "--profile", profile,
                      "--platform", PLATFORM)
        assert rc == 0, (profile, out)
        data = json.loads(out)
        assert data["profile"] == profile and data["target"] is None and data["cwd"] == "."
        startup[profile] = [[f["path"], f["reason"]] for f in data["files"]]
    return {"exit_code": code, "findings": findings, "startup": startup}


def key(finding: dict[str, Any]) -> tuple[str, str, int, str, str]:
    return (
        finding["profile"],
        finding["path"],
        finding["line"],
        finding["code"],
        finding["severity"],
    )


@pytest.fixture(scope="session")
def trees(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], Path]]:
    """`trees(entry)` → the entry's materialized tree (built once a session)."""
    base = tmp_path_factory.mktemp("realworld")
    built: set[str] = set()

    def get(entry: str) -> Path:
        dest = base / entry
        if entry not in built:
            materialize(ENTRIES_DIR / entry, dest)
            built.add(entry)
        return dest

    yield get


@pytest.fixture(scope="session")
def observed(trees: Callable[[str], Path]) -> Iterator[Callable[[str], Any]]:
    """`observed(entry)` → `observe` of the entry's materialized tree (once a session)."""
    cache: dict[str, Any] = {}

    def get(entry: str) -> Any:
        if entry not in cache:
            cache[entry] = observe(trees(entry))
        return cache[entry]

    yield get


# ----------------------------------------------------------------------------- tests


def test_profiles_are_every_agent() -> None:
    """A new agent profile needs its findings over this data reviewed (docs/corpus.md)."""
    from rulemap.profiles import PROFILES as REGISTERED

    assert set(PROFILES) == set(REGISTERED)


def test_entries_are_pinned_and_described() -> None:
    assert len(ENTRIES) >= 10
    pinned = sorted(p.stem for p in EXPECTED.glob("*.json"))
    assert pinned == ENTRIES, "run tests/realworld/update_expected.py and review the findings"
    machine = re.compile(r"/work\b|/tmp/|/root/|\.\./shared")
    for entry in ENTRIES:
        source = (ENTRIES_DIR / entry / "SOURCE.txt").read_text(encoding="utf-8")
        owner, name = entry.split("__", 1)
        assert f"url: https://github.com/{owner}/{name}\n" in source, entry
        assert re.search(r"^commit: [0-9a-f]{40}$", source, re.M), entry
        assert re.search(r"^license: \S", source, re.M), entry
        assert not machine.search(source), entry
        # every copied file is a path of the tree (a real file, not a symlink)
        listed = set((ENTRIES_DIR / entry / "FILES.txt").read_text(encoding="utf-8").split("\n"))
        files = ENTRIES_DIR / entry / "files"
        copied = {p.relative_to(files).as_posix() for p in files.rglob("*") if p.is_file()}
        links = {path for path, _ in symlinks(ENTRIES_DIR / entry)}
        assert copied and copied <= listed - links, (entry, sorted(copied - listed))


@pytest.mark.parametrize("entry", ENTRIES)
def test_entry(entry: str, observed: Callable[[str], Any]) -> None:
    got = observed(entry)
    want = json.loads((EXPECTED / f"{entry}.json").read_text(encoding="utf-8"))
    wanted, found = Counter(map(key, want["findings"])), Counter(map(key, got["findings"]))
    missing = sorted((wanted - found).elements())
    extra = sorted((found - wanted).elements())
    assert not missing and not extra, (
        f"{entry}: findings differ from expected/{entry}.json (judge them in docs/corpus.md, "
        f"then run tests/realworld/update_expected.py)\n  missing: {missing}\n  extra:   {extra}"
    )
    assert got["exit_code"] == want["exit_code"]
    assert got["startup"] == want["startup"], f"{entry}: a profile's start-up load changed"


# The findings that say an agent never reads a file where it is (its place, its name's letter
# case, the names in force, a rule no glob reaches, a file another one hides)
NEVER_AT_STARTUP = frozenset({"misplaced-file", "name-case", "unread-context-file",
                              "unreachable-rule", "instructions-shadowed"})
PROSE = re.compile(r"[A-Za-z][A-Za-z0-9 ,.'()-]{24,}")


def first_prose_line(path: Path) -> str | None:
    """A sentence of the file to ask `why` about: its first line of plain prose, cut short."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    found = next((m.group(0) for line in lines if (m := PROSE.match(line.strip()))), None)
    return found[:60].rsplit(" ", 1)[0].strip() if found else None


@pytest.mark.parametrize("entry", ENTRIES)
def test_views_agree_with_check(
    entry: str, trees: Callable[[str], Path], observed: Callable[[str], Any]
) -> None:
    """Where `check` says an agent never reads a file where it lies (a warning of
    NEVER_AT_STARTUP), the other views say the same for that agent: the file is not in its
    start-up load (`explain`), `reach` gives it no start-up way, and `why` of a sentence
    written there says the agent does not see it there at start-up. A shared finding
    (letter case) holds for every agent."""
    root, got = trees(entry), observed(entry)
    asked = 0
    for finding in got["findings"]:
        if finding["code"] not in NEVER_AT_STARTUP or finding["severity"] != "warning":
            continue
        path = finding["path"]
        agents = PROFILES if finding["code"] == "name-case" else (finding["profile"],)
        sentence = first_prose_line(root / path)
        for profile in agents:
            asked += 1
            assert path not in [p for p, _ in got["startup"][profile]], (entry, finding)
            rc, out = run("reach", str(root / path), "--root", str(root), "--json",
                          "--profiles", profile, "--platform", PLATFORM)
            assert rc == 0, (entry, finding, out)
            (answer,) = json.loads(out)["agents"]
            assert not [w for w in answer["ways"] or [] if w["startUp"]], (entry, finding)
            if sentence is None:
                continue
            rc, out = run("why", sentence, "--root", str(root), "--json", "--profiles",
                          profile, "--platform", PLATFORM)
            assert rc in (0, 1), (entry, finding, out)
            for verdict in json.loads(out)["agents"]:
                assert not (verdict["path"] == path and verdict["seen"]), (
                    entry, finding, sentence, verdict)
    if entry in AGREEMENT_ENTRIES:  # the entries added for these findings ask something
        assert asked, entry


@pytest.mark.parametrize("entry", ENTRIES)
def test_why_finds_every_agents_start_up_text(
    entry: str, trees: Callable[[str], Path], observed: Callable[[str], Any]
) -> None:
    """`why` searches every agent's files (GEMINI.md, `.mdc` rules, Copilot's instructions,
    imports in each agent's syntax): a sentence of each file an agent loads at start-up by
    its name or place, asked for that agent alone, is found and seen at start-up."""
    root, got = trees(entry), observed(entry)
    asked: dict[str, str] = {}  # path → the sentence asked
    for profile in PROFILES:
        for path, reason in got["startup"][profile]:
            if reason not in ("project", "rule") or path.startswith("/"):
                continue
            sentence = asked.get(path) or first_prose_line(root / path)
            if sentence is None:
                continue
            asked[path] = sentence
            rc, out = run("why", sentence, "--root", str(root), "--json", "--profiles",
                          profile, "--platform", PLATFORM)
            assert rc == 0, (entry, profile, path, sentence, out)
            (verdict,) = json.loads(out)["agents"]
            assert verdict["seen"], (entry, profile, path, sentence, verdict)


# Entries pinned for a finding of NEVER_AT_STARTUP (issue #39): each must exercise the test
AGREEMENT_ENTRIES = frozenset({"AustinWise__SepCsvSourceGenerator",
                               "Alfresco__alfresco-helm-charts", "KoalaFacts__Purity",
                               "0xhenrique__gugalanna", "21cmfast__21cmFAST"})


@pytest.mark.parametrize("entry", ENTRIES)
def test_safe_fixes_introduce_no_finding(
    entry: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Apply every safe fix of every agent to a fresh copy of the entry and check again: no
    (path, code) is reported more often than before (tests/fix_property.py)."""
    from tests.cli_runner import in_process_cli
    from tests.fix_property import introduced_by_fixes

    dest = tmp_path / entry
    materialize(ENTRIES_DIR / entry, dest)
    run_cli = in_process_cli(monkeypatch, capsys, tmp_path)
    assert introduced_by_fixes(run_cli, dest, ",".join(PROFILES)) == []


def test_materialize_refuses_escapes(tmp_path: Path) -> None:
    entry = tmp_path / "entry"
    (entry / "files").mkdir(parents=True)
    for bad in ("../outside", "/etc/passwd", "a/../../b", "a//b"):
        (entry / "FILES.txt").write_text(f"ok.md\n{bad}\n", encoding="utf-8")
        with pytest.raises(ValueError):
            materialize(entry, tmp_path / "dest" / str(len(bad)))
    # nothing is written through a symlink: `link/x` below `link -> ..` is refused
    (entry / "FILES.txt").write_text("link\nlink/x\n", encoding="utf-8")
    (entry / "SYMLINKS.txt").write_text("link -> ..\n", encoding="utf-8")
    (entry / "files" / "link").mkdir()
    (entry / "files" / "link" / "x").write_text("x", encoding="utf-8")
    with pytest.raises(ValueError):
        materialize(entry, tmp_path / "dest2")
    assert not (tmp_path / "x").exists()
