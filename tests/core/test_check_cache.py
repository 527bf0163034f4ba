"""`rulemap check`'s result cache (server/rulemap/host/cache/, cli/check_cache.py,
readers/check_store.py, readers/recording.py): a warm run prints exactly what a cold one
prints, a change anywhere the check looked is a miss, and a damaged, foreign or unwritable
cache is a cold run, never an error.

Most runs are in-process (`lookup`, then `main` on a miss, as `rulemap.cli.main.entry` does),
with $RULEMAP_CACHE_DIR in the test's directory; the import checks and the concurrent writers
run `rulemap` in fresh interpreters. Files the tests create are "racy" (changed within 2 s of
the run): they are re-read and their directories re-listed, so the tests that must see the
signatures alone decide set `RACY_NS` to 0.
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.core.test_startup_imports import ENGINE, GIT, OTHER_COMMANDS, RICH, SERVER, loaded

from rulemap.cli.check_cache import lookup, uncached
from rulemap.cli.main import main
from rulemap.host.cache.check_results import FORMAT
from rulemap.readers import cache_entries, check_store

REPO = Path(__file__).resolve().parents[2]
CASES = REPO / "tests" / "conformance" / "cases"
REALWORLD = REPO / "tests" / "realworld"


@dataclass
class Run:
    code: int
    out: str
    err: str
    hit: bool
    resumed: bool = False  # from the last whole check's snapshot (test_check_resume.py)


Check = Callable[..., Run]


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv("RULEMAP_CACHE_DIR", str(cache))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("RULEMAP_NO_CACHE", "RULEMAP_CONFIG", "COLUMNS", "RULEMAP_GIT_LIST"):
        monkeypatch.delenv(name, raising=False)
    return cache


@pytest.fixture
def check(cache_dir: Path, monkeypatch: pytest.MonkeyPatch,
          capsys: pytest.CaptureFixture[str]) -> Check:
    """`rulemap check ARGS` in-process, as `entry` runs it: (code, stdout, stderr, hit)."""

    def run(*args: str, cwd: Path | None = None) -> Run:
        if cwd is not None:
            monkeypatch.chdir(cwd)
        capsys.readouterr()
        argv = ["check", *args]
        cache = None
        try:
            cache = lookup(argv)
            replayed = cache.replayed if cache is not None else None
            code = main(argv, cache=cache) if replayed is None else replayed
        finally:
            gc.enable()  # main() turns the collector off for one-shot commands
        out, err = capsys.readouterr()
        return Run(code, out, err, replayed is not None, bool(cache and cache.resumed))

    return run


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "AGENTS.md").write_text("# Project\n\nSee @docs/style.md and @docs/gone.md\n")
    (root / "OTHER.md").write_text("# Other\n\nSee @docs/elsewhere.md\n")
    (root / "CLAUDE.md").symlink_to("AGENTS.md")
    (root / "docs").mkdir()
    (root / "docs" / "style.md").write_text("Use tabs.\n")
    (root / ".claude" / "rules").mkdir(parents=True)
    (root / ".claude" / "rules" / "api.md").write_text(
        "---\npaths: [\"src/api/**\"]\n---\nValidate input.\n"
    )
    (root / "src").mkdir()
    (root / "src" / "main.ts").write_text("export {}\n")
    return root


def entries(cache_dir: Path) -> list[Path]:
    return sorted(cache_dir.glob("check-*.json")) if cache_dir.is_dir() else []


def read_entry(entry: Path) -> tuple[dict[str, object], bytes]:
    """An entry's header (its first line, JSON) and the report that follows it (its seal,
    the last line, left off)."""
    data = entry.read_bytes()
    head, _, report = data[: data.rindex(b"\nrulemap-seal ")].partition(b"\n")
    return json.loads(head), report


def write_entry(entry: Path, header: dict[str, object], report: bytes) -> None:
    """An entry as the cache writes one, sealed: what it says is believed."""
    entry.write_bytes(cache_entries.seal(json.dumps(header).encode() + b"\n" + report))


def primed(check: Check, *args: str, cwd: Path | None = None) -> Run:
    """A cold run that stores its entry, then the warm run that replays it."""
    cold = check(*args, cwd=cwd)
    assert not cold.hit and cold.err == ""
    warm = check(*args, cwd=cwd)
    assert warm.hit, "the second run of an unchanged tree is a hit"
    assert (warm.code, warm.out, warm.err) == (cold.code, cold.out, "")
    return cold


def assert_cold_equals(check: Check, *args: str, cwd: Path | None = None) -> Run:
    """The next run is a miss with the output of a run without the cache; the one after it
    hits again."""
    again = check(*args, cwd=cwd)
    assert not again.hit, "a change the check could see must be a miss"
    fresh = check(*args, "--no-cache", cwd=cwd)
    assert (again.code, again.out, again.err) == (fresh.code, fresh.out, fresh.err)
    assert check(*args, cwd=cwd).hit
    return again


# --- identical output, warm and cold ---------------------------------------------------------

NOTHING_FOUND = "rulemap: no instruction file of the selected agents"

# every 8th case that checks: one whose configuration is an error (exit 2) stores no entry,
# so it has no warm run to compare (which cases are sampled shifts as cases are added)
SAMPLED_CASES = sorted(
    p.name for p in CASES.iterdir() if (p / "workspace").is_dir()
    and "exit_code = 2" not in (p / "case.toml").read_text(encoding="utf-8"))[::8]


@pytest.mark.parametrize("case", SAMPLED_CASES)
def test_warm_prints_what_cold_prints_on_conformance_workspaces(case: str, check: Check) -> None:
    workspace = str(CASES / case / "workspace")
    for args in ([workspace], [workspace, "--format", "json"]):
        first = check(*args)
        if first.err.startswith(NOTHING_FOUND):
            # no file of the selected agents (CONTEXT.md alone): no entry is stored, so the
            # message is said again by every run, never replayed
            again = check(*args)
            assert not first.hit and not again.hit
            assert (again.code, again.out, again.err) == (first.code, first.out, first.err)
            continue
        assert not first.hit and first.err == ""
        warm = check(*args)
        assert warm.hit, "the second run of an unchanged tree is a hit"
        assert (warm.code, warm.out, warm.err) == (first.code, first.out, "")
        fresh = check(*args, "--no-cache")
        assert (fresh.code, fresh.out, fresh.err) == (first.code, first.out, first.err)


def _realworld(name: str, dest: Path) -> Path:
    sys.path.insert(0, str(REALWORLD))
    try:
        from materialize import materialize  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(REALWORLD))
    materialize(REALWORLD / "entries" / name, dest)
    return dest


@pytest.mark.slow  # real repositories, end to end
@pytest.mark.parametrize("name", ["astral-sh__ruff", "payloadcms__payload"])
def test_warm_prints_what_cold_prints_on_real_world_trees(
    name: str, check: Check, tmp_path: Path
) -> None:
    root = _realworld(name, tmp_path / name)
    for args in ([str(root)], [str(root), "--format", "sarif"]):
        cold = primed(check, *args)
        fresh = check(*args, "--no-cache")
        assert (fresh.code, fresh.out, fresh.err) == (cold.code, cold.out, cold.err)


def test_a_warm_hit_through_the_real_entry_point(tree: Path, cache_dir: Path) -> None:
    """`python -m rulemap check` twice: the same bytes and exit code; the entry was not
    rewritten by the second (a hit writes nothing)."""
    env = _subprocess_env(cache_dir)
    command = [sys.executable, "-m", "rulemap", "check", str(tree)]
    cold = subprocess.run(command, env=env, capture_output=True, timeout=120, check=False)
    [entry] = entries(cache_dir)
    written = entry.stat().st_ino
    warm = subprocess.run(command, env=env, capture_output=True, timeout=120, check=False)
    assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, b"")
    assert cold.returncode == 1 and b"broken-import" in cold.stdout
    assert entry.stat().st_ino == written


# --- a hit imports no engine -------------------------------------------------------------------

PROBE = """\
import os, sys
from rulemap.cli.check_cache import lookup
from rulemap.cli.main import main
cache = lookup(sys.argv[1:])
code = main(sys.argv[1:], cache=cache) if cache.replayed is None else cache.replayed
sys.stdout.flush()
with open(os.environ["PROBE_OUT"], "w", encoding="utf-8") as out:
    out.write("\\n".join([str(code), str(cache.replayed is not None), *sorted(sys.modules)]))
"""


def _subprocess_env(cache_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("RULEMAP_CONFIG", "COLUMNS", "RULEMAP_NO_CACHE", "RULEMAP_GIT_LIST")}
    env["XDG_CONFIG_HOME"] = str(cache_dir.parent / "config")
    env["RULEMAP_CACHE_DIR"] = str(cache_dir)
    env["PYTHONPATH"] = str(REPO / "server")
    return env


def _probe(args: list[str], cache_dir: Path) -> tuple[int, bool, set[str]]:
    out = cache_dir.parent / "probe.txt"
    env = _subprocess_env(cache_dir)
    env["PROBE_OUT"] = str(out)
    done = subprocess.run([sys.executable, "-c", PROBE, *args], env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert out.exists(), done.stderr
    code, hit, *modules = out.read_text(encoding="utf-8").split("\n")
    return int(code), hit == "True", set(modules)


def test_a_warm_hit_imports_no_engine_and_less_than_a_cold_check(
    tree: Path, cache_dir: Path
) -> None:
    code, hit, cold = _probe(["check", str(tree)], cache_dir)
    assert (code, hit) == (1, False) and "rulemap.checks" in cold
    code, hit, warm = _probe(["check", str(tree)], cache_dir)
    assert (code, hit) == (1, True)
    # the host's cache package (and the host package, whose names load when asked) is all of
    # the host a hit imports: none of its modules that compose the engine
    light = {"rulemap.host", *loaded(warm, ("rulemap.host.cache",))}
    assert loaded(warm - light, ENGINE + SERVER + RICH + OTHER_COMMANDS + GIT) == []
    assert loaded(warm, ("rulemap.cli.commands", "rulemap.cli.formats", "rulemap.readers.local",
                         "rulemap.readers.recording", "rulemap.globs", "hashlib")) == []
    assert warm < cold
    # what a hit does import of Rulemap: the parser's module, the CLI's side of the cache, the
    # host's cache (where, which key, its entry) and its store, the guard of stderr
    assert sorted(m for m in warm if m.startswith("rulemap")) == [
        "rulemap", "rulemap.cli", "rulemap.cli.check_cache", "rulemap.cli.check_flags",
        "rulemap.cli.flags", "rulemap.cli.main", "rulemap.cli.terminal", "rulemap.cli.usage",
        "rulemap.host",
        "rulemap.host.cache", "rulemap.host.cache.check_results", "rulemap.host.cache.directory",
        "rulemap.readers", "rulemap.readers.base", "rulemap.readers.cache_entries",
        "rulemap.readers.check_store",
    ]


# --- what makes a miss -------------------------------------------------------------------------

@pytest.fixture(params=["racy", "by-signature"])
def racy(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways a change is seen: a racy file re-read, or a signature that changed (RACY_NS
    0: a signature that did not change is trusted)."""
    if request.param == "by-signature":
        monkeypatch.setattr(check_store, "RACY_NS", 0)
    return str(request.param)


def test_an_edit_that_keeps_size_and_mtime_is_seen(tree: Path, check: Check, racy: str) -> None:
    primed(check, str(tree))
    style = tree / "docs" / "style.md"
    agents = tree / "AGENTS.md"
    before = agents.stat()
    text = agents.read_text()
    agents.write_text(text.replace("@docs/gone.md", "@docs/huh.md!"))  # same length
    os.utime(agents, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert agents.stat().st_size == before.st_size
    run = assert_cold_equals(check, str(tree))
    assert "docs/huh.md" in run.out and style.exists()


def test_a_created_file_a_rule_matches_is_seen(tree: Path, check: Check, racy: str) -> None:
    cold = primed(check, str(tree))
    assert "unmatched-glob" in cold.out
    (tree / "src" / "api").mkdir()
    (tree / "src" / "api" / "users.ts").write_text("export {}\n")
    assert "unmatched-glob" not in assert_cold_equals(check, str(tree)).out


def test_a_created_file_in_a_listed_directory_is_seen(tree: Path, check: Check,
                                                      racy: str) -> None:
    primed(check, str(tree))
    (tree / "docs" / "gone.md").write_text("Back.\n")
    assert "docs/gone.md" not in assert_cold_equals(check, str(tree)).out


@pytest.mark.parametrize("made", [".git", ".claude/CLAUDE.md"])
def test_a_probe_the_listing_answers_is_not_stored_and_its_answer_changing_is_seen(
    tree: Path, check: Check, cache_dir: Path, racy: str, made: str
) -> None:
    """Codex asks for `.git` and Claude Code for `.claude/CLAUDE.md` in every directory; where
    the walk listed the directory and saw no such name, the entry notes no probe (its
    signature stands for it: a tree 400 levels deep wrote 68 MB of them). Made later, the
    next run is a miss all the same."""
    package = tree / "src" / "pkg"
    package.mkdir()
    (package / "AGENTS.md").write_text("# Package\n")
    args = (str(tree), "--profiles", "codex,claude-code")
    primed(check, *args)
    [entry] = entries(cache_dir)
    record = read_entry(entry)[0]["record"]
    assert isinstance(record, dict)
    paths = check_store.decode_paths(record["paths"])
    probed = {paths[at] for at, _ in record["exists"]}
    assert not {p for p in probed if p.startswith(str(package))}
    (package / made).parent.mkdir(exist_ok=True)
    (package / made).mkdir() if made == ".git" else (package / made).write_text("# Mine\n")
    assert_cold_equals(check, *args)


def test_the_path_table_gives_back_every_path() -> None:
    """Entries write each path as its parent's row and its last name."""
    table = check_store.PathTable()
    paths = ["/a/b/c", "/a/b", "/a/x y/ü", "relative/p", "/", "/a/b/c", "/z", "//w"]
    rows = [table.index(p) for p in paths]
    assert rows[0] == rows[5] and len(set(rows)) == len(set(paths))
    decoded = check_store.decode_paths(json.loads(json.dumps(table.rows)))
    assert [decoded[r] for r in rows] == paths
    with pytest.raises(ValueError):
        check_store.decode_paths([[3, "x"]])


def test_a_deleted_file_is_seen(tree: Path, check: Check, racy: str) -> None:
    primed(check, str(tree))
    (tree / "docs" / "style.md").unlink()
    assert "docs/style.md" in assert_cold_equals(check, str(tree)).out


def test_a_changed_gitignore_is_seen(tree: Path, check: Check, racy: str) -> None:
    (tree / "src" / "api").mkdir()
    (tree / "src" / "api" / "users.ts").write_text("export {}\n")
    (tree / ".gitignore").write_text("dist/\n")
    assert "unmatched-glob" not in primed(check, str(tree)).out
    (tree / ".gitignore").write_text("src/\n")  # same size
    assert_cold_equals(check, str(tree))


def test_a_changed_configuration_is_seen(tree: Path, check: Check, racy: str) -> None:
    assert primed(check, str(tree)).code == 1
    (tree / "rulemap.toml").write_text('[severity]\nbroken-import = "warning"\n')
    assert assert_cold_equals(check, str(tree)).code == 0
    (tree / "rulemap.toml").write_text('[severity]\nbroken-import = "error"\n\n')
    assert assert_cold_equals(check, str(tree)).code == 1


def test_a_changed_user_configuration_is_seen(
    tree: Path, check: Check, tmp_path: Path, racy: str
) -> None:
    outside = tmp_path / "shared"
    outside.mkdir()
    (outside / "team.md").write_text("Team rules.\n")
    (tree / "docs" / "style.md").write_text(f"@{outside}/team.md\n")
    cold = primed(check, str(tree))
    assert "outside" in cold.out  # not granted: an import outside the workspace
    config = tmp_path / "config" / "rulemap" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'allowImportsFrom = ["{outside}"]\n')
    assert assert_cold_equals(check, str(tree)).out != cold.out
    (outside / "team.md").write_text("Team rules, changed.\n")  # read through the grant
    assert_cold_equals(check, str(tree))


def test_a_retargeted_symlink_is_seen(tree: Path, check: Check, racy: str) -> None:
    primed(check, str(tree))
    (tree / "CLAUDE.md").unlink()
    (tree / "CLAUDE.md").symlink_to("OTHER.md")
    assert "docs/elsewhere.md" in assert_cold_equals(check, str(tree)).out


def test_a_dangling_link_whose_target_appears_is_seen(tree: Path, check: Check,
                                                      racy: str) -> None:
    (tree / "notes").mkdir()
    (tree / "docs" / "guide.md").symlink_to("../notes/guide.md")
    (tree / "AGENTS.md").write_text("# Project\n\nSee @docs/guide.md\n")
    cold = primed(check, str(tree))
    (tree / "notes" / "guide.md").write_text("Guide.\n")
    assert assert_cold_equals(check, str(tree)).out != cold.out


def test_the_arguments_are_part_of_the_key(tree: Path, check: Check) -> None:
    text = primed(check, str(tree))
    as_json = primed(check, str(tree), "--format", "json")
    claude = primed(check, str(tree), "--profiles", "claude-code")
    assert len({text.out, as_json.out, claude.out}) == 3
    assert check(str(tree)).hit and check(str(tree), "--format", "json").hit
    # from the root itself, without ROOT: another key, the root found from the directory
    assert not check(cwd=tree).hit
    warm = check(cwd=tree)
    assert warm.hit and (warm.code, warm.out) == (text.code, text.out)


def test_the_root_found_from_the_directory_is_checked_again(tree: Path, check: Check) -> None:
    (tree / "src" / "AGENTS.md").write_text("@../docs/style.md\n")
    primed(check, cwd=tree / "src")
    (tree / "src" / ".git").mkdir()  # src/ is now a repository of its own: its root
    assert_cold_equals(check, cwd=tree / "src")


def test_the_environment_a_check_reads_is_part_of_the_key(
    tree: Path, check: Check, monkeypatch: pytest.MonkeyPatch
) -> None:
    primed(check, str(tree))
    monkeypatch.setenv("COLUMNS", "60")
    assert not check(str(tree)).hit
    assert check(str(tree)).hit


# --- when the cache is not used ------------------------------------------------------------------

def poison(cache_dir: Path) -> None:
    """Make the one entry print POISON: a run that prints it read the cache."""
    [entry] = entries(cache_dir)
    header, _ = read_entry(entry)
    write_entry(entry, {**header, "stdout_bytes": 7}, b"POISON\n")


def test_no_cache_neither_reads_nor_writes(tree: Path, check: Check, cache_dir: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    cold = check(str(tree), "--no-cache")
    assert not cold.hit and entries(cache_dir) == [] and not cache_dir.exists()
    primed(check, str(tree))
    poison(cache_dir)
    assert check(str(tree)).out == "POISON\n"  # the poisoned entry is what a hit prints
    before = entries(cache_dir)[0].read_bytes()
    for args in (["--no-cache"], ["--no-c"]):
        run = check(str(tree), *args)
        assert (run.code, run.out, run.hit) == (cold.code, cold.out, False)
    monkeypatch.setenv("RULEMAP_NO_CACHE", "1")
    run = check(str(tree))
    assert (run.out, run.hit) == (cold.out, False)
    assert entries(cache_dir)[0].read_bytes() == before


@pytest.mark.parametrize("args", [
    ["check", "--fix"], ["check", "--diff"], ["check", "--ref", "HEAD"], ["check", "--ref=x"],
    ["check", "--statistics"], ["check", "--stat"], ["check", "--no-cache"], ["check", "-h"],
    ["explain"], ["serve"], [],
])
def test_commands_the_cache_does_not_serve(args: list[str]) -> None:
    assert uncached(args, {})


def test_the_cache_serves_a_plain_check() -> None:
    assert not uncached(["check", "--format", "json", "--home", "/h", "--profiles", "a"], {})
    assert uncached(["check"], {"RULEMAP_NO_CACHE": "1"})
    assert not uncached(["check"], {"RULEMAP_NO_CACHE": "0"})
    assert uncached(["check"], {"RULEMAP_GIT_LIST": "1"})


def test_fix_neither_reads_nor_writes(tree: Path, check: Check, cache_dir: Path) -> None:
    assert check(str(tree), "--diff").code in (0, 1)
    assert check(str(tree), "--statistics").code == 1
    assert entries(cache_dir) == []


def test_a_run_that_writes_to_stderr_is_not_stored(tree: Path, check: Check,
                                                   cache_dir: Path) -> None:
    (tree / "rulemap.toml").write_text("maxChars = 'big'\n")
    run = check(str(tree))
    assert run.code == 2 and run.err
    assert entries(cache_dir) == []


# --- a damaged cache is a cold run ---------------------------------------------------------------

def _damage(kind: str, entry: Path) -> None:
    data = entry.read_bytes()
    if kind == "corrupt":
        entry.write_bytes(b"\x00\xffnot json" + data[:100])
    elif kind == "truncated":
        entry.write_bytes(data[: len(data) // 2])
    elif kind == "empty":
        entry.write_bytes(b"")
    elif kind == "report-cut":  # the header whole, the report a byte short
        entry.write_bytes(data[:-1])
    elif kind == "report-longer":
        entry.write_bytes(data + b"more")
    elif kind == "no-header-end":
        entry.write_bytes(data.replace(b"\n", b" ", 1))
    elif kind == "foreign-version":
        entry.write_bytes(data.replace(b"rulemap-check-cache/4", b"rulemap-check-cache/0"))
    elif kind == "foreign-key":
        header, report = read_entry(entry)
        header["key"]["version"] = "0.0.0"  # type: ignore[index]
        write_entry(entry, header, report)
    elif kind == "wrong-types":
        header, report = read_entry(entry)
        header["record"]["dirs"] = [[1, 2]]  # type: ignore[index]
        write_entry(entry, header, report)
    elif kind == "not-an-object":
        entry.write_text("[1, 2, 3]")
    elif kind == "a-directory":
        entry.unlink()
        entry.mkdir()
    elif kind == "a-fifo":
        entry.unlink()
        os.mkfifo(entry)


@pytest.mark.parametrize("kind", [
    "corrupt", "truncated", "empty", "report-cut", "report-longer", "no-header-end",
    "foreign-version", "foreign-key", "wrong-types", "not-an-object", "a-directory", "a-fifo",
])
def test_a_damaged_entry_is_a_cold_run(kind: str, tree: Path, check: Check,
                                       cache_dir: Path) -> None:
    cold = primed(check, str(tree))
    [entry] = entries(cache_dir)
    _damage(kind, entry)
    run = check(str(tree))
    assert (run.code, run.out, run.err, run.hit) == (cold.code, cold.out, "", False)
    if kind not in ("a-directory", "a-fifo"):
        assert check(str(tree)).hit  # rewritten by the cold run


def test_an_unwritable_cache_directory_is_a_cold_run(
    tree: Path, check: Check, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("RULEMAP_CACHE_DIR", str(blocker / "cache"))  # below a regular file
    first, second = check(str(tree)), check(str(tree))
    assert first.err == second.err == "" and first.out == second.out and first.code == 1
    assert not second.hit


def test_a_cache_directory_inside_the_workspace_is_refused(
    tree: Path, check: Check, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    primed(check, str(tree))
    poison(cache_dir)
    inside = tree / ".cache" / "rulemap"
    shutil.copytree(cache_dir, inside)  # as if the repository shipped an entry
    monkeypatch.setenv("RULEMAP_CACHE_DIR", str(inside))
    run = check(str(tree))
    assert run.out != "POISON\n" and not run.hit
    assert [p.read_bytes() for p in entries(inside)] == [p.read_bytes()
                                                         for p in entries(cache_dir)]
    # nothing new written there either
    fresh = tree / "fresh-cache"
    monkeypatch.setenv("RULEMAP_CACHE_DIR", str(fresh))
    assert not check(str(tree)).hit and entries(fresh) == []


def test_two_concurrent_writers_leave_a_valid_entry(tree: Path, cache_dir: Path) -> None:
    env = _subprocess_env(cache_dir)
    command = [sys.executable, "-m", "rulemap", "check", str(tree)]
    runs = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for _ in range(4)]
    outputs = [run.communicate(timeout=120) for run in runs]
    assert all(err == b"" for _, err in outputs) and len({out for out, _ in outputs}) == 1
    [entry] = entries(cache_dir)
    assert read_entry(entry)[0]["format"] == FORMAT
    assert not [p for p in cache_dir.iterdir() if p.name.endswith(".tmp")]
    warm = subprocess.run(command, env=env, capture_output=True, timeout=120, check=False)
    assert (warm.stdout, warm.stderr) == (outputs[0][0], b"")
    assert [p.stat().st_ino for p in entries(cache_dir)] == [entry.stat().st_ino]  # a hit


def test_the_store_keeps_the_newest_entries(tmp_path: Path) -> None:
    for number in range(cache_entries.KEEP_ENTRIES + 6):
        assert cache_entries.write_entry(str(tmp_path), f"check-{number:03}.json", b"{}")
        os.utime(tmp_path / f"check-{number:03}.json", ns=(number * 10**9, number * 10**9))
    cache_entries.prune(str(tmp_path))
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert len(kept) == cache_entries.KEEP_ENTRIES and kept[0] == "check-006.json"
    stale = tmp_path / ".check-x.json.1.ab.tmp"
    stale.write_text("partial")
    os.utime(stale, ns=(0, 0))
    cache_entries.prune(str(tmp_path))
    assert not stale.exists()


def test_the_cache_directory_follows_xdg() -> None:
    from rulemap.host.cache.directory import cache_dir as where

    assert where({"RULEMAP_CACHE_DIR": "/c", "XDG_CACHE_HOME": "/x"}) == "/c"
    assert where({"XDG_CACHE_HOME": "/x"}) == "/x/rulemap"
    home = os.path.expanduser("~")
    assert where({"XDG_CACHE_HOME": "relative"}) == os.path.join(home, ".cache", "rulemap")
    assert where({}) == os.path.join(home, ".cache", "rulemap")


def test_a_report_that_cannot_be_spooled_is_printed_and_not_stored(
    tree: Path, check: Check, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The report is kept for the entry in an unnamed temporary file; when there is none to
    be had (a full or read-only temporary directory), the run prints as always and stores
    nothing, so the next run is cold too."""
    import tempfile

    cold = check(str(tree), "--no-cache")

    def no_room(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patched:
        patched.setattr(tempfile, "TemporaryFile", no_room)
        run = check(str(tree))
    assert (run.code, run.out, run.err, run.hit) == (cold.code, cold.out, "", False)
    assert entries(cache_dir) == []
    primed(check, str(tree))
    assert len(entries(cache_dir)) == 1
