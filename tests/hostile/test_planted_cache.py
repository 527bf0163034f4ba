"""A planted or damaged cache entry is never believed (docs/security.md, "The result cache
trusts only the user's own entries"): the result cache sits in a directory only the user can
write (else it is not used, with one warning), each entry is the user's own regular file, and
a digest over the whole entry is checked before it is used. Any doubt is a cold run: the same
output as `--no-cache`, never the entry's.

The forger here knows the format: it takes a real entry, puts its own report in it and seals
it again with the (public) digest, as another user could."""

from __future__ import annotations

import json
import os
import pickle
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FORGED = "All checks passed: no findings.\x1b]0;FORGED-REPORT\x07\n"
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
_SEAL = b"\nrulemap-seal "


def rulemap(root: Path, cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("RULEMAP_NO_CACHE", "RULEMAP_CONFIG", "COLUMNS", "RULEMAP_GIT_LIST")}
    env.update(RULEMAP_CACHE_DIR=str(cache), PYTHONPATH=str(REPO / "server"),
               XDG_CONFIG_HOME=str(root.parent / "config"))
    return subprocess.run([sys.executable, "-m", "rulemap", "check", str(root), *args],
                          capture_output=True, text=True, timeout=120, env=env, cwd=root)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "AGENTS.md").write_text("# Project\n\nSee @docs/gone.md\n")
    return root


def entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("check-*.json"))


def forge(entry: Path, report: str = FORGED) -> bytes:
    """The entry with `report` in place of its own, sealed as the cache seals one (where the
    cache has no seal, as before there was one, just the header and the report)."""
    data = entry.read_bytes()
    sealed = _SEAL in data
    if sealed:
        data = data[: data.rindex(_SEAL)]
    head, _, _ = data.partition(b"\n")
    header = json.loads(head)
    header["stdout_bytes"] = len(report.encode())
    header["code"] = 0
    body = json.dumps(header).encode() + b"\n" + report.encode()
    if not sealed:  # a cache that seals nothing believes the body as it is
        return body
    from rulemap.readers.cache_entries import seal

    return seal(body)


def primed(tree: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    """A cold run, then a warm one that replays its entry."""
    cold = rulemap(tree, cache)
    assert cold.returncode == 1 and "broken-import" in cold.stdout, cold.stderr
    assert rulemap(tree, cache).stdout == cold.stdout
    return cold


def test_the_cache_directory_is_created_private(tree: Path, tmp_path: Path) -> None:
    cache = tmp_path / "new" / "cache"
    primed(tree, cache)
    assert cache.stat().st_mode & 0o777 == 0o700
    assert all(p.stat().st_mode & 0o777 == 0o600 for p in entries(cache))


def test_a_forged_entry_in_a_shared_directory_is_not_believed(tree: Path,
                                                              tmp_path: Path) -> None:
    """A directory like /tmp (mode 1777): another user's entry there is not printed; the
    cache is not used there at all, and the user is told once why and what to do."""
    own = tmp_path / "own"
    cold = primed(tree, own)
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    [entry] = entries(own)
    (shared / entry.name).write_bytes(forge(entry))
    if IS_ROOT:  # as another user's file would be
        os.chown(shared / entry.name, 65534, 65534)
    run = rulemap(tree, shared)
    assert (run.returncode, run.stdout) == (cold.returncode, cold.stdout)
    assert "FORGED-REPORT" not in run.stdout + run.stderr
    [warning] = run.stderr.splitlines()
    assert warning.startswith("rulemap: warning: the result cache is not used: ")
    assert str(shared) in warning and "mode 1777" in warning and "RULEMAP_CACHE_DIR" in warning
    assert [p.name for p in shared.iterdir()] == [entry.name]  # nothing written there either


@pytest.mark.parametrize("mode", [0o777, 0o775, 0o757])
def test_a_directory_others_can_write_is_not_used(tree: Path, tmp_path: Path,
                                                  mode: int) -> None:
    cache = tmp_path / "cache"
    cold = primed(tree, cache)
    [entry] = entries(cache)
    entry.write_bytes(forge(entry))
    cache.chmod(mode)
    run = rulemap(tree, cache)
    assert (run.returncode, run.stdout) == (cold.returncode, cold.stdout)
    assert "chmod go-w" in run.stderr and run.stderr.count("\n") == 1
    cache.chmod(0o700)
    assert rulemap(tree, cache).stdout == FORGED  # the same entry, the user's alone: used


@pytest.mark.skipif(not IS_ROOT, reason="giving a file to another user needs root (CI is)")
def test_another_users_directory_or_entry_is_not_believed(tree: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cold = primed(tree, cache)
    [entry] = entries(cache)
    entry.write_bytes(forge(entry))
    os.chown(entry, 65534, 65534)  # a private directory, another user's entry
    run = rulemap(tree, cache)
    assert (run.stdout, run.stderr) == (cold.stdout, "")
    entry.write_bytes(forge(entry))
    os.chown(entry, 0, 0)
    os.chown(cache, 65534, 65534)  # another user's directory
    run = rulemap(tree, cache)
    assert run.stdout == cold.stdout and "belongs to another user" in run.stderr


@pytest.mark.parametrize("mode", [0o664, 0o646])
def test_an_entry_others_can_write_is_not_believed(tree: Path, tmp_path: Path,
                                                   mode: int) -> None:
    cache = tmp_path / "cache"
    cold = primed(tree, cache)
    [entry] = entries(cache)
    entry.write_bytes(forge(entry))
    entry.chmod(mode)
    run = rulemap(tree, cache)
    assert (run.returncode, run.stdout, run.stderr) == (cold.returncode, cold.stdout, "")


def test_a_symlinked_entry_is_not_followed(tree: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cold = primed(tree, cache)
    [entry] = entries(cache)
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_bytes(forge(entry))
    elsewhere.chmod(0o600)
    entry.unlink()
    entry.symlink_to(elsewhere)
    run = rulemap(tree, cache)
    assert (run.stdout, run.stderr) == (cold.stdout, "")


def test_every_flipped_byte_is_a_cold_run(tree: Path, tmp_path: Path) -> None:
    """A byte of the user's own entry changed — in the header, the report or the seal — is
    never printed as the result."""
    cache = tmp_path / "cache"
    cold = primed(tree, cache)
    [entry] = entries(cache)
    good = entry.read_bytes()
    report_at = good.index(b"\n") + 1
    chance = random.Random(34)
    places = [report_at, report_at + 5, len(good) - 2, len(good) - 40, 0, 7,
              *chance.sample(range(len(good)), 12)]
    for at in places:
        flipped = bytearray(good)
        flipped[at] ^= 0x20 if chr(flipped[at]).isalpha() else 0x01
        entry.write_bytes(bytes(flipped))
        entry.chmod(0o600)
        run = rulemap(tree, cache)
        assert (run.returncode, run.stdout, run.stderr) == (cold.returncode, cold.stdout, ""), at
    assert rulemap(tree, cache).stdout == cold.stdout  # rewritten by the cold run: a hit


def test_a_planted_snapshot_is_never_unpickled(tree: Path, tmp_path: Path) -> None:
    """A snapshot is unpickled, and pickle runs code: one whose seal does not match (its
    payload replaced, as a forger in a group-writable past would) is never loaded."""
    cache = tmp_path / "cache"
    primed(tree, cache)
    # a check of a key checked before leaves a snapshot, from a child process
    (tree / "AGENTS.md").write_text("# Project\n\nSee @docs/gone.md\n\nEdited.\n")
    rulemap(tree, cache)
    (tree / "AGENTS.md").write_text("# Project\n\nSee @docs/gone.md\n\nEdited again.\n")
    for _ in range(400):
        snaps = sorted(cache.glob("check-*.snapshot"))
        if snaps:
            break
        subprocess.run(["sleep", "0.05"], check=True)
    [snap] = snaps
    marker = tmp_path / "pwned"

    class Payload:
        def __reduce__(self) -> tuple[object, tuple[str, str]]:
            return (shutil.copy, (str(snap), str(marker)))

    data = snap.read_bytes()
    if _SEAL in data:
        data = data[: data.rindex(_SEAL)]
    at = data.index(b"\n") + 1
    length = int.from_bytes(data[at:at + 8], "big")
    planted = data[: at + 8 + length] + pickle.dumps(Payload())
    snap.write_bytes(planted)
    snap.chmod(0o600)
    run = rulemap(tree, cache)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert not marker.exists(), "the planted snapshot was unpickled"


def test_the_store_believes_only_private_sealed_entries(tmp_path: Path) -> None:
    """The one reader behind `rulemap check`'s entries and the language server's start
    entries (lsp/start_cache.py): what it returns is what the user's own process wrote."""
    from rulemap.readers import cache_entries

    store = tmp_path / "store"
    assert cache_entries.write_entry(str(store), "check-a.json", [b"head\n", b"body"])
    assert cache_entries.read_entry(str(store), "check-a.json") == b"head\nbody"
    entry = store / "check-a.json"
    good = entry.read_bytes()
    for at in range(len(good)):
        entry.write_bytes(good[:at] + bytes([good[at] ^ 1]) + good[at + 1:])
        assert cache_entries.read_entry(str(store), "check-a.json") is None, at
    entry.write_bytes(good[:-1])
    assert cache_entries.read_entry(str(store), "check-a.json") is None  # cut short
    entry.write_bytes(good + b"x")
    assert cache_entries.read_entry(str(store), "check-a.json") is None  # lengthened
    entry.write_bytes(good)
    store.chmod(0o1777)
    assert cache_entries.read_entry(str(store), "check-a.json") is None
    assert not cache_entries.write_entry(str(store), "check-b.json", b"x")
    assert cache_entries.open_private(str(store), "check-a.json") is None
    store.chmod(0o700)
    with cache_entries.open_private(str(store), "check-a.json") as stream:  # type: ignore[union-attr]
        assert stream.read(9) == b"head\nbody"
