"""An incremental `rulemap check` (server/rulemap/host/cache/resume_snapshot.py): a check whose
entry no longer holds resumes from the snapshot of the last whole check when only some documents'
bytes changed, and prints what a check from scratch prints; anything else (a file created or
deleted, a `.gitignore` or configuration edited, a snapshot damaged, foreign or writable by
others, too many changes) is a whole check, never an error.

Runs are in-process, as `rulemap.cli.main.entry` runs them (`lookup`, then `main`), with
$RULEMAP_CACHE_DIR in the test's directory (the fixtures of test_check_cache.py)."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.core.test_check_cache import (  # noqa: F401
    CASES,
    Check,
    Run,
    _realworld,
    _subprocess_env,
    cache_dir,
    check,
    tree,
)

from rulemap.cli.check_cache import lookup
from rulemap.config import CONFIG_FILES
from rulemap.documents import parse_document
from rulemap.host.cache import pickled_workspace as carried
from rulemap.host.cache import resume_snapshot as check_resume
from rulemap.host.cache.check_results import CheckCache
from rulemap.model import ImportRef, ImportStatus
from rulemap.profiles import PROFILES
from rulemap.profiles.cogitator.settings import SYNTAX
from rulemap.readers import cache_entries, check_store


def snapshots(store: Path) -> list[Path]:
    return sorted(store.glob("check-*.snapshot")) if store.is_dir() else []


def with_snapshot(run_check: Check, root: Path, *args: str) -> bool:
    """A whole check, then one after an edit of a file it read (a repeated check: it leaves a
    snapshot); False when there is none (the check stopped at a configuration error, or read
    no file it could)."""
    first = run_check(str(root), *args)
    assert not first.hit
    if first.err:
        return False
    read = _read_files(root, _newest(Path(os.environ["RULEMAP_CACHE_DIR"]), ".json"))
    if not read:
        return False
    touch = read[0]
    touch.write_text(touch.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    second = run_check(str(root), *args)
    assert not second.hit and not second.resumed and second.err == ""
    return True


def assert_as_from_scratch(run_check: Check, *args: str, resumed: bool) -> Run:
    run = run_check(*args)
    assert run.resumed is resumed and not run.hit
    fresh = run_check(*args, "--no-cache")
    assert (run.code, run.out, run.err) == (fresh.code, fresh.out, fresh.err)
    assert run_check(*args).hit, "a resumed check leaves an entry the next check replays"
    return run


# Text that gives every check something to say: a broken import, a missing path and script,
# a link to nowhere, a paragraph written twice, a frontmatter glob that matches nothing.
EDIT = (
    "\n\nSee @docs/nowhere.md and `src/gone/file.ts`, run `npm run no-such-script` and "
    "`make no-such-target`; [the guide](docs/missing-guide.md).\n\n"
    "Always run the whole test suite before you push a change to the main branch.\n"
)


def _newest(store: Path, suffix: str) -> Path:
    return max(store.glob(f"check-*{suffix}"), key=lambda p: p.stat().st_mtime_ns)


def _record(path: Path) -> dict[str, Any]:
    data = path.read_bytes()
    if path.suffix == ".json":
        return json.loads(data.partition(b"\n")[0])["record"]  # type: ignore[no-any-return]
    at = len(check_resume.FORMAT)
    length = int.from_bytes(data[at:at + 8], "big")
    return json.loads(data[at + 8:at + 8 + length])["record"]  # type: ignore[no-any-return]


def _read_files(root: Path, entry: Path) -> list[Path]:
    """The files in `root` the check of `entry` read, but for the ones whose change reshapes
    the workspace."""
    record = _record(entry)
    paths = check_store.decode_paths(record["paths"])
    real = os.path.realpath(root)
    found = [Path(paths[at]) for at, _, result in record["files"] if not result.startswith("!")]
    return sorted(p for p in found if str(p).startswith((real + "/", str(root) + "/"))
                  and p.name not in (".gitignore", *CONFIG_FILES)
                  and not carried.reshapes([str(p)])  # an agent's settings file
                  and not p.is_symlink())


def _resumes_as_from_scratch_after_editing_each_read_file(
    root: Path, run_check: Check, store: Path, *args: str
) -> int:
    if not with_snapshot(run_check, root, *args):
        return 0
    edited = 0
    for path in _read_files(root, _newest(store, cache_entries.SNAPSHOT_SUFFIX))[:40]:
        path.write_text(path.read_text(encoding="utf-8", errors="replace") + EDIT,
                        encoding="utf-8")
        assert_as_from_scratch(run_check, str(root), *args, resumed=True)
        edited += 1
    return edited


SAMPLED_CASES = sorted(p.name for p in CASES.iterdir() if (p / "workspace").is_dir())[3::9]


@pytest.mark.parametrize("case", SAMPLED_CASES)
def test_a_resumed_check_prints_what_a_whole_check_prints_conformance(
    case: str, check: Check, cache_dir: Path, tmp_path: Path  # noqa: F811
) -> None:
    """Each file the check read, edited in turn (the changes add up: each resumed check is
    told of every file edited since the snapshot), in text and JSON."""
    root = tmp_path / "ws"
    shutil.copytree(CASES / case / "workspace", root, symlinks=True)
    (root / ".git").mkdir(exist_ok=True)
    for args in ((), ("--format", "json")):  # a case may read no file it can (too large)
        _resumes_as_from_scratch_after_editing_each_read_file(root, check, cache_dir, *args)


@pytest.mark.slow  # real repositories, end to end
@pytest.mark.parametrize("name", ["astral-sh__ruff", "payloadcms__payload"])
def test_a_resumed_check_prints_what_a_whole_check_prints_real_world(
    name: str, check: Check, cache_dir: Path, tmp_path: Path  # noqa: F811
) -> None:
    root = _realworld(name, tmp_path / name)
    assert _resumes_as_from_scratch_after_editing_each_read_file(
        root, check, cache_dir, "--format", "sarif"
    ) >= 2


def test_a_manifest_edit_resumes_and_is_seen(
    tree: Path, check: Check, cache_dir: Path  # noqa: F811
) -> None:
    """stale-command reads package.json: a script added there clears the finding."""
    (tree / "package.json").write_text('{"scripts": {"test": "vitest"}}\n')
    agents = tree / "AGENTS.md"
    agents.write_text(agents.read_text() + "\nRun `npm run lint` first.\n")
    with_snapshot(check, tree)
    before = check(str(tree))
    (tree / "package.json").write_text('{"scripts": {"test": "vitest", "lint": "eslint"}}\n')
    run = assert_as_from_scratch(check, str(tree), resumed=True)
    assert "npm run lint" in before.out and "npm run lint" not in run.out


def test_a_package_json_edit_resumes_unless_it_changes_the_detected_agents(
    tree: Path, check: Check, cache_dir: Path  # noqa: F811
) -> None:
    """Mastra is detected from a package.json's dependencies: an edit that leaves the
    detected agents as they were resumes; one that adds `@mastra/core` is a whole check,
    which selects Mastra as a check from scratch does."""
    manifest = tree / "package.json"
    manifest.write_text('{"scripts": {"test": "vitest"}}\n')
    with_snapshot(check, tree)
    manifest.write_text('{"scripts": {"test": "vitest"}, "dependencies": {"zod": "3"}}\n')
    assert_as_from_scratch(check, str(tree), resumed=True)
    manifest.write_text('{"scripts": {"test": "vitest"}, "dependencies": {"@mastra/core": "1"}}\n')
    run = assert_as_from_scratch(check, str(tree), resumed=False)
    assert "mastra (package.json: @mastra/core)" in " ".join(run.out.split())


def test_a_gemini_settings_edit_is_a_whole_check_that_sees_the_new_names(
    tree: Path, check: Check, cache_dir: Path  # noqa: F811
) -> None:
    """Gemini's `.gemini/settings.json` decides which files it reads (its `context.fileName`):
    an edit of it re-opens the workspace, so the check after it is a whole one, and says
    what a check from scratch says (its error, then nothing once fixed)."""
    settings = tree / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"context": {"fileName": ["AGENTS.md"]}}\n')
    with_snapshot(check, tree)
    settings.write_text('{"context": {"fileName": ["AGENTS.md",]}}\n')
    run = assert_as_from_scratch(check, str(tree), resumed=False)
    assert "invalid-agent-settings" in run.out
    settings.write_text('{"context": {"fileName": "AGENTS.md"}}\n')
    run = assert_as_from_scratch(check, str(tree), resumed=False)
    assert "invalid-agent-settings" not in run.out


def test_a_file_saved_by_a_rename_resumes(
    tree: Path, check: Check, cache_dir: Path  # noqa: F811
) -> None:
    """Editors that write a new file and rename it over the old one change the directory's
    mtime: its entries, listed again, are the same, so the check still resumes."""
    with_snapshot(check, tree)
    style = tree / "docs" / "style.md"
    temporary = tree / "docs" / ".style.md.swp"
    temporary.write_text("Use spaces. See @docs/absent.md\n")
    os.replace(temporary, style)
    run = assert_as_from_scratch(check, str(tree), resumed=True)
    assert "absent.md" in run.out


@pytest.mark.parametrize("change", ["create", "delete", "gitignore", "configuration"])
def test_what_reshapes_the_workspace_is_a_whole_check(
    change: str, tree: Path, check: Check, cache_dir: Path  # noqa: F811
) -> None:
    with_snapshot(check, tree)
    if change == "create":
        (tree / "src" / "api").mkdir()
        (tree / "src" / "api" / "new.ts").write_text("export {}\n")
    elif change == "delete":
        (tree / "docs" / "style.md").unlink()
    elif change == "gitignore":
        (tree / ".gitignore").write_text("OTHER.md\n")
    else:
        (tree / "rulemap.toml").write_text('[severity]\nbroken-import = "warning"\n')
    assert_as_from_scratch(check, str(tree), resumed=False)


def test_the_first_check_of_a_key_leaves_no_snapshot(
    tree: Path, check: Check, cache_dir: Path  # noqa: F811
) -> None:
    """A one-off check (CI, a fresh clone) pays nothing for snapshots; a repeated one leaves
    one, and the checks that resume from it do not rewrite it."""
    check(str(tree))
    assert snapshots(cache_dir) == []
    (tree / "docs" / "style.md").write_text("Use spaces.\n")
    check(str(tree))
    [snap] = snapshots(cache_dir)
    written = snap.stat().st_mtime_ns, snap.stat().st_ino
    (tree / "docs" / "style.md").write_text("Use both.\n")
    assert check(str(tree)).resumed
    assert (snap.stat().st_mtime_ns, snap.stat().st_ino) == written


def test_more_changes_than_the_limit_is_a_whole_check(
    tree: Path, check: Check, cache_dir: Path, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    monkeypatch.setattr(check_resume, "MAX_CHANGED", 1)
    with_snapshot(check, tree)
    (tree / "docs" / "style.md").write_text("Use tabs.\n\nSee @nowhere.md\n")
    (tree / "AGENTS.md").write_text("# Project\n\nSee @docs/style.md\n")
    assert_as_from_scratch(check, str(tree), resumed=False)


@pytest.mark.parametrize("damage", ["truncated", "garbage", "foreign-key", "group-writable",
                                    "not-a-workspace"])
def test_a_snapshot_in_doubt_is_a_whole_check(
    damage: str, tree: Path, check: Check, cache_dir: Path  # noqa: F811
) -> None:
    """Never an error: the check runs from scratch (and leaves a new snapshot). A snapshot
    another user could have written is not unpickled at all."""
    with_snapshot(check, tree)
    [snap] = snapshots(cache_dir)
    data = snap.read_bytes()
    if damage == "truncated":
        snap.write_bytes(data[: len(data) - 200])
    elif damage == "garbage":
        snap.write_bytes(data[: len(data) // 2] + b"\x80\x05garbage" + data[len(data) // 2:])
    elif damage == "foreign-key":
        snap.write_bytes(data.replace(b'"argv"', b'"argx"', 1))
    elif damage == "group-writable":
        snap.chmod(0o664)
    else:  # a valid pickle of something else, under a valid header
        at = len(check_resume.FORMAT)
        length = int.from_bytes(data[at:at + 8], "big")
        snap.write_bytes(data[: at + 8 + length] + pickle.dumps({"not": "a workspace"}))
    (tree / "docs" / "style.md").write_text("Use tabs.\n\nSee @nowhere.md\n")
    run = assert_as_from_scratch(check, str(tree), resumed=False)
    assert run.err == ""


def test_a_group_writable_snapshot_is_never_unpickled(
    tree: Path, check: Check, cache_dir: Path, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    with_snapshot(check, tree)
    [snap] = snapshots(cache_dir)
    snap.chmod(0o666)
    loaded: list[object] = []
    monkeypatch.setattr(carried.pickle, "load", lambda *a, **k: loaded.append(a))
    monkeypatch.setattr(carried.pickle, "Unpickler", lambda *a, **k: loaded.append(a))
    (tree / "docs" / "style.md").write_text("Use spaces.\n")
    assert not check(str(tree)).resumed
    assert loaded == []


def test_a_resumed_workspace_holds_the_registry_profiles(
    tree: Path, check: Check, cache_dir: Path  # noqa: F811
) -> None:
    """Profiles are pickled by name: checks compare them by identity."""
    with_snapshot(check, tree)
    cache = lookup(["check", str(tree)])  # an unchanged tree: a hit, nothing to resume
    assert cache is not None and cache.replayed is not None
    (tree / "docs" / "style.md").write_text("Use spaces.\n")
    cache = CheckCache(cache.directory, cache.key)
    found = check_resume.find(cache)
    assert found is not None
    assert [Path(p).name for p in found.changes.files] == ["style.md"]
    resumed = check_resume.resume(found)
    assert resumed is not None
    ws = resumed[0]
    assert ws.selected_profiles and all(
        p is PROFILES[p.name] for p in ws.selected_profiles  # type: ignore[attr-defined]
    )


def test_the_store_keeps_a_few_snapshots(tmp_path: Path) -> None:
    for i in range(cache_entries.KEEP_SNAPSHOTS + 3):
        cache_entries.write_entry(str(tmp_path), f"check-{i:04d}.snapshot", b"x")
        os.utime(tmp_path / f"check-{i:04d}.snapshot", ns=(i * 10**9, i * 10**9))
    cache_entries.prune(str(tmp_path))
    kept = sorted(p.name for p in tmp_path.glob("*.snapshot"))
    assert kept == [f"check-{i:04d}.snapshot" for i in range(3, cache_entries.KEEP_SNAPSHOTS + 3)]


def test_the_entry_point_leaves_the_snapshot_from_a_child_process(
    tree: Path, cache_dir: Path  # noqa: F811
) -> None:
    """`python -m rulemap check`: the repeated check exits with its report while a child
    writes the snapshot; the check after the next edit resumes from it (the snapshot is not
    written again) and prints what a check from scratch prints."""
    env = _subprocess_env(cache_dir)
    command = [sys.executable, "-m", "rulemap", "check", str(tree)]

    def run(*extra: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([*command, *extra], env=env, capture_output=True, timeout=120,
                              check=False)

    run()
    style = tree / "docs" / "style.md"
    style.write_text("Use spaces.\n")
    second = run()
    assert second.stderr == b""
    deadline = time.monotonic() + 60
    while not snapshots(cache_dir) and time.monotonic() < deadline:
        time.sleep(0.02)
    [snap] = snapshots(cache_dir)
    written = snap.stat().st_ino
    style.write_text("Use spaces. See @docs/absent.md\n")
    third = run()
    fresh = run("--no-cache")
    assert (third.returncode, third.stdout, third.stderr) == (
        fresh.returncode, fresh.stdout, fresh.stderr)
    assert b"absent.md" in third.stdout
    time.sleep(0.2)  # a whole check's child would have replaced it by now
    assert snap.stat().st_ino == written


@settings(max_examples=150, deadline=None)
@given(text=st.text(alphabet=st.sampled_from("ab @/.-`#\n\r\t-[]:*"), max_size=200),
       is_rule=st.booleans())
def test_a_document_comes_back_from_a_snapshot_as_it_was(text: str, is_rule: bool) -> None:
    """Documents, their positions and imports are pickled in forms of their own (the lines
    left out, positions as calls): each comes back equal, every field."""
    doc = parse_document("docs/a.md", "---\npaths: [src/**]\n---\n" + text if is_rule else text,
                         is_rule, syntax=SYNTAX)
    back = pickle.loads(pickle.dumps(doc, protocol=5))
    assert back == doc and back.lines == doc.lines and back.imports == doc.imports
    assert [type(i) for i in back.imports] == [ImportRef] * len(doc.imports)


def test_a_directory_changed_after_the_check_listed_it_leaves_no_snapshot(
    tree: Path, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    """The snapshot's listing hashes are taken when it is written, after the report: a
    directory whose entries changed since the walk listed it makes them worthless (the next
    check would take the new entries for the ones the workspace holds)."""
    from rulemap.readers.recording import Recording
    from rulemap.readers.recording_reader import recorded_by

    monkeypatch.setattr(check_store, "RACY_NS", 0)  # trusted by signature, as in a real run
    recording = Recording()
    reader = recorded_by(recording)(str(tree))
    list(reader.list_files())
    listings = check_store.listings_now(recording.all_dirs())
    assert listings is not None and set(listings) == set(recording.all_dirs())
    assert str(tree) in listings and not recording.dirs  # kept by key below the root
    assert listings[str(tree / "docs")] == check_store._listing_now(str(tree / "docs"))
    (tree / "docs" / "new.md").write_text("new\n")
    os.utime(tree / "docs", ns=(time.time_ns() + 10**9, time.time_ns() + 10**9))
    assert check_store.listings_now(recording.all_dirs()) is None


def test_the_classes_pickled_by_their_fields_come_back_equal() -> None:
    """`pickled_by_fields` rebuilds an instance by calling its class with every field: each
    field, defaults included, comes back."""
    from rulemap.model import Finding, Fix, Frontmatter, Hint, Related, Resolved, Span
    from rulemap.model import Suppressions as Supp
    from rulemap.profiles.claude_code.imports import Target, Token

    span = Span.at(2, 1, 5)
    values = [
        Finding("a.md", span, "warning", "broken-import", "m", [Related("b.md", span, "r")],
                [Fix("t", "replace", "a.md", span, "x")], ["unnecessary"], "codex",
                Hint("near-glob", ("src/**",))),
        Resolved(ImportStatus.MISSING, "x.md", None),
        Frontmatter(True, {"paths": ["a"]}, "e", span, span, 3, {"paths": span}, {"paths": [span]}),
        Supp({"*"}, {3: {"broken-import"}}),
        Token(ImportRef("a\\ b", "a b", span, 4), "a b", "#x"),
        Target("ok", "a.md", False, "/w/a.md", "/w/a.md"),
    ]
    for value in values:
        back = pickle.loads(pickle.dumps(value, protocol=5))
        assert back == value and type(back) is type(value)


def test_without_user_ids_no_snapshot_is_read(
    tree: Path, check: Check, cache_dir: Path, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    """Where the owner of a file cannot be compared with the user's (Windows), nothing is
    unpickled: every check after an edit is a whole one."""
    with_snapshot(check, tree)
    monkeypatch.setattr(cache_entries, "_GETUID", None)
    (tree / "docs" / "style.md").write_text("Use spaces.\n")
    assert_as_from_scratch(check, str(tree), resumed=False)


def test_directories_trusted_by_signature_are_packed_and_still_asked(
    tree: Path, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    """A record's directories whose answer is a plain signature are packed (six int64 each,
    not a JSON list each: a third of a warm hit on 21,000 directories); each is asked again
    all the same — an entry created in one is a change — and a damaged packing is no
    answer (the caller's miss)."""
    from rulemap.readers.recording import Recording
    from rulemap.readers.recording_reader import recorded_by

    monkeypatch.setattr(check_store, "RACY_NS", 0)  # trusted by signature, as in a real run
    recording = Recording()
    reader = recorded_by(recording)(str(tree))
    list(reader.list_files())
    recording.listings = check_store.listings_now(recording.all_dirs())
    record = json.loads(json.dumps(recording.to_json(with_listings=True)))
    assert record["dirs"] == [] and record["packed_dirs"]
    packed = check_store._unpacked(record["packed_dirs"])
    assert len(packed[0]) == len(recording.all_dirs())
    start = recording.start_ns
    assert check_store.still_valid(record, start)
    changes = check_store.changes_since(record, start)
    assert changes is not None and not changes.files and not changes.same_dirs
    # the snapshot's listing hashes: end to end, each back by its directory's path
    assert "listings" not in record
    paths = check_store.decode_paths(record["paths"])
    assert dict(check_store._listings(record, paths)) == recording.listings
    # a file saved by a rename: its directory's signature moved, its entries did not
    style = tree / "docs" / "style.md"
    (tree / "docs" / ".style.swp").write_text("Use spaces.\n")
    os.replace(tree / "docs" / ".style.swp", style)
    os.utime(tree / "docs", ns=(time.time_ns() + 10**9, time.time_ns() + 10**9))
    changes = check_store.changes_since(record, start)
    assert changes is not None and list(changes.same_dirs) == [str(tree / "docs")]
    assert not changes.files  # (the walk read no file: only listed them)
    (tree / "docs" / "new.md").write_text("new\n")
    os.utime(tree / "docs", ns=(time.time_ns() + 10**9, time.time_ns() + 10**9))
    assert not check_store.still_valid(record, start)
    assert check_store.changes_since(record, start) is None
    for damaged in ("AAAA", "not base64!", 7):
        with pytest.raises((ValueError, TypeError)):
            check_store.still_valid({**record, "packed_dirs": damaged}, start)
