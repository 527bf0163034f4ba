"""The one writer (`readers/safe_write.py`) and `check --fix`/`--diff` through it: no byte a
user wrote is ever lost, nothing is written outside the workspace or through a symlink, a file
keeps its mode, owner and hard links, a read-only file is not written, and every `--diff`
applies with a real `git apply` (docs/security.md names these tests)."""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulemap import fixes
from rulemap.readers import safe_write
from rulemap.readers.safe_write import Changed, WriteRefused

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
FIXABLE = "# root\n\nSee @docs/a.md, then\n"  # `@docs/a.md,`: a suspicious import --fix fixes
FIXED = "# root\n\nSee @docs/a.md then\n"


def _workspace(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "ws"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())
    (root / ".git").mkdir(exist_ok=True)
    return root


def _cli(root: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, XDG_CONFIG_HOME=str(root.parent / "no-config"), COLUMNS="100")
    env.pop("RULEMAP_CONFIG", None)
    return subprocess.run([sys.executable, "-m", "rulemap", *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=timeout)


# ----- where it may write ------------------------------------------------------------------


def test_the_writer_never_leaves_the_workspace(tmp_path):
    root = tmp_path / "ws"
    (root / "docs").mkdir(parents=True)
    outside = tmp_path / "outside.md"
    outside.write_text("secret\n")
    (root / "link.md").symlink_to(outside)
    (root / "out").symlink_to(tmp_path)
    (root / "a.md").write_text("a\n")
    os.mkfifo(root / "fifo.md")
    for key in ("../outside.md", "/etc/passwd", "link.md", "out/outside.md", "fifo.md",
                "docs", "docs/../a.md", "", "..", "a.md\0x"):
        with pytest.raises(WriteRefused):
            safe_write.read_for_edit(str(root), key)
    assert outside.read_text() == "secret\n"
    os.chmod(root / "a.md", 0o640)
    snapshot = safe_write.read_for_edit(str(root), "a.md")
    safe_write.replace(str(root), snapshot, b"b\n")
    assert (root / "a.md").read_text() == "b\n"
    assert (root / "a.md").stat().st_mode & 0o777 == 0o640
    # no temporary file is left behind
    assert sorted(p.name for p in root.iterdir()) == ["a.md", "docs", "fifo.md", "link.md", "out"]


def test_a_symlink_swapped_in_after_the_read_is_not_written_through(tmp_path):
    root = _workspace(tmp_path, {"a.md": "a\n"})
    outside = tmp_path / "outside.md"
    outside.write_text("secret\n")
    snapshot = safe_write.read_for_edit(str(root), "a.md")
    (root / "a.md").unlink()
    (root / "a.md").symlink_to(outside)
    with pytest.raises(WriteRefused, match="symlink"):
        safe_write.replace(str(root), snapshot, b"a\n")
    assert outside.read_text() == "secret\n" and (root / "a.md").is_symlink()


# ----- nothing lost ------------------------------------------------------------------------


def test_an_edit_after_the_read_is_never_overwritten(tmp_path):
    root = _workspace(tmp_path, {"a.md": "old\n"})
    snapshot = safe_write.read_for_edit(str(root), "a.md")
    (root / "a.md").write_text("the user's edit\n")
    with pytest.raises(Changed, match="a.md changed since it was read; nothing was written"):
        safe_write.replace(str(root), snapshot, b"fixed\n")
    assert (root / "a.md").read_text() == "the user's edit\n"
    # an editor's save by rename (a new inode, the same bytes as read) is no change: written
    snapshot = safe_write.read_for_edit(str(root), "a.md")
    (root / "a.md.tmp").write_text("the user's edit\n")
    os.replace(root / "a.md.tmp", root / "a.md")
    safe_write.replace(str(root), snapshot, b"fixed\n")
    assert (root / "a.md").read_text() == "fixed\n"


_RACER = """
import os, sys, time
directory, target, how = sys.argv[1], sys.argv[2], sys.argv[3]
data = bytes.fromhex(sys.argv[4])
print("ready", flush=True)
deadline = time.monotonic() + 20
while time.monotonic() < deadline:
    if any(name.endswith(".rulemap") for name in os.listdir(directory)):
        if how == "rename":
            aside = os.path.join(directory, ".editor-save")
            with open(aside, "wb") as out:
                out.write(data)
            os.replace(aside, target)
        else:
            with open(target, "r+b") as out:
                out.truncate(0)
                out.write(data)
        print("fired", flush=True)
        break
"""


@contextlib.contextmanager
def _racer(directory: Path, target: Path, data: bytes, how: str) -> Iterator[list[bool]]:
    """A writer in its own process (no shared interpreter lock to wait for) that polls the
    directory for the fix's temporary file and saves `data` to `target` the moment it appears
    — when an editor's save hurts most. `how`: "in-place" (truncate and write, as VS Code
    saves) or "rename" (as vim and atomic savers do)."""
    process = subprocess.Popen(
        [sys.executable, "-c", _RACER, str(directory), str(target), how, data.hex()],
        stdout=subprocess.PIPE)
    assert process.stdout is not None
    assert process.stdout.readline() == b"ready\n"
    fired: list[bool] = []
    try:
        yield fired
    finally:
        try:
            out, _ = process.communicate(timeout=1)
        except subprocess.TimeoutExpired:
            process.kill()
            out, _ = process.communicate()
        if b"fired" in out:
            fired.append(True)


def test_a_file_an_editor_holds_open_is_not_swapped_out(tmp_path):
    """An editor that opened the file before the swap and saves into it after (truncate and
    write on its descriptor) must not write into an unlinked file: the fix gives way."""
    root = _workspace(tmp_path, {"a.md": "old\n"})
    snapshot = safe_write.read_for_edit(str(root), "a.md")
    with open(root / "a.md", "r+b") as editor:  # opened before the fix, saved after it
        if sys.platform.startswith("linux"):
            with pytest.raises(Changed, match="open in another program"):
                safe_write.replace(str(root), snapshot, b"fixed\n")
        else:  # no leases: the comparison is the only guard (docs/security.md)
            with contextlib.suppress(Changed):
                safe_write.replace(str(root), snapshot, b"fixed\n")
        editor.truncate(0)
        editor.write(b"the user's save\n")
    if sys.platform.startswith("linux"):
        assert (root / "a.md").read_bytes() == b"the user's save\n"
    assert not [p for p in root.iterdir() if p.name.endswith(".rulemap")]


@pytest.mark.parametrize("how", ["in-place", "rename"])
def test_a_save_racing_the_write_is_kept(tmp_path, how):
    """A concurrent save that lands while the fix is being written (after every check before
    it) is kept: the fix is swapped back out and reported."""
    root = _workspace(tmp_path, {"a.md": "old\n" * 2000})
    kept = fired_rounds = 0
    for attempt in range(12):
        mine = f"the user's save {attempt}\n".encode()
        (root / "a.md").write_text("old\n" * 2000)
        snapshot = safe_write.read_for_edit(str(root), "a.md")
        with _racer(root, root / "a.md", mine, how) as fired:
            try:
                safe_write.replace(str(root), snapshot, b"fixed\n" * 4000)
            except Changed:
                kept += 1
        if not fired:
            continue  # the save missed the temporary file's lifetime: no race this round
        fired_rounds += 1
        # whatever the interleaving, the user's bytes are what the file holds once both ran
        # (the fix wins only when it landed entirely before the save, which then overwrote it)
        assert (root / "a.md").read_bytes() == mine
    assert not [p for p in root.iterdir() if p.name.endswith((".rulemap", ".editor-save"))]
    assert fired_rounds >= 3 and kept > 0  # the race was real: saves landed inside the write


def test_check_fix_with_an_editor_saving_at_the_same_moment(tmp_path):
    """The whole command, in its own process, against an editor's save driven by the
    appearance of the fix's temporary file: the user's text survives every time."""
    root = _workspace(tmp_path, {"AGENTS.md": FIXABLE, "docs/a.md": "a\n"})
    raced = 0
    for attempt in range(6):
        mine = f"# mine {attempt}\n".encode()
        (root / "AGENTS.md").write_text(FIXABLE)
        with _racer(root, root / "AGENTS.md", mine, "in-place") as fired:
            done = _cli(root, "check", "--fix")
        assert "Traceback" not in done.stderr
        if fired:  # the save landed while the fix was being written
            raced += 1
            assert (root / "AGENTS.md").read_bytes() == mine, done.stderr
            if raced == 3:
                break
    assert raced >= 2, "the save never raced the write"


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    original=st.binary(max_size=300),
    fixed=st.binary(max_size=300),
    concurrent=st.one_of(st.none(), st.binary(max_size=300)),
    when=st.sampled_from(["before-replace", "hard-linked"]),
)
def test_no_byte_the_user_wrote_is_ever_lost(tmp_path_factory, original, fixed, concurrent, when):
    """For random files and random concurrent writes: the file ends with the user's write when
    there was one, else with the fix; never with a mix, never with the stale original."""
    root = tmp_path_factory.mktemp("prop")
    (root / "a.md").write_bytes(original)
    if when == "hard-linked":
        os.link(root / "a.md", root / "b.md")
    snapshot = safe_write.read_for_edit(str(root), "a.md")
    if concurrent is not None:
        (root / "a.md").write_bytes(concurrent)
    try:
        safe_write.replace(str(root), snapshot, fixed)
        changed = False
    except Changed:
        changed = True
    expected = fixed if concurrent is None or concurrent == original else concurrent
    assert (root / "a.md").read_bytes() == expected
    assert changed == (concurrent is not None and concurrent != original)
    if when == "hard-linked":
        assert (root / "b.md").read_bytes() == expected


# ----- the file stays the same file ---------------------------------------------------------


def test_hard_links_mode_and_inode_are_kept(tmp_path):
    root = _workspace(tmp_path, {"docs/a.md": "a\n", "AGENTS.md": FIXABLE})
    os.link(root / "AGENTS.md", root / "other-name.md")
    os.chmod(root / "AGENTS.md", 0o604)
    inode = (root / "AGENTS.md").stat().st_ino
    done = _cli(root, "check", "--fix")
    assert done.returncode == 0, done.stderr
    assert (root / "AGENTS.md").read_text() == FIXED
    assert (root / "other-name.md").read_text() == FIXED  # the other name sees the fix
    assert (root / "AGENTS.md").stat().st_ino == inode
    assert stat.S_IMODE((root / "AGENTS.md").stat().st_mode) == 0o604


def test_a_read_only_file_is_not_written_and_the_rest_is(tmp_path):
    root = _workspace(tmp_path, {"docs/a.md": "a\n", "AGENTS.md": FIXABLE,
                                 "pkg/AGENTS.md": "See @../docs/a.md, ok\n"})
    os.chmod(root / "AGENTS.md", 0o444)
    inode = (root / "AGENTS.md").stat().st_ino
    done = _cli(root, "check", "--fix")
    assert done.returncode == 1  # a refusal is never a silent success
    assert "rulemap: not fixed: AGENTS.md is read-only (mode 444)" in done.stderr
    assert "chmod u+w" in done.stderr
    assert (root / "AGENTS.md").read_text() == FIXABLE
    assert (root / "AGENTS.md").stat().st_ino == inode
    assert stat.S_IMODE((root / "AGENTS.md").stat().st_mode) == 0o444
    assert (root / "pkg/AGENTS.md").read_text() == "See @../docs/a.md ok\n"
    assert "Fixed 1 finding in 1 file" in done.stdout
    # the summary no longer offers --fix for what --fix refused
    assert "fixable with `rulemap check --fix`" not in done.stdout


@pytest.mark.skipif(not IS_ROOT, reason="giving a file to another user needs root")
def test_another_users_file_keeps_its_owner(tmp_path):
    root = _workspace(tmp_path, {"docs/a.md": "a\n", "AGENTS.md": FIXABLE})
    os.chown(root / "AGENTS.md", 4321, 4321)
    done = _cli(root, "check", "--fix")
    assert done.returncode == 0, done.stderr
    info = (root / "AGENTS.md").stat()
    assert (info.st_uid, info.st_gid) == (4321, 4321)
    assert (root / "AGENTS.md").read_text() == FIXED


def _as_nobody(base: Path) -> str:
    """In a forked child running as `nobody` (this interpreter, its modules already loaded):
    try to fix `theirs.md` and `shared.md` in `base`; what happened, one line each."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        os.close(read)
        lines = []
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            try:
                safe_write.read_for_edit(str(base), "theirs.md")
                lines.append("theirs written?")
            except WriteRefused as exc:
                lines.append(f"refused: {exc}")
            snapshot = safe_write.read_for_edit(str(base), "shared.md")
            safe_write.replace(str(base), snapshot, b"fixed\n")
            lines.append("written")
        except BaseException as exc:  # reported to the parent, which fails the test
            lines.append(f"error: {exc!r}")
        os.write(write, "\n".join(lines).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as answer:
        said = answer.read().decode()
    os.waitpid(pid, 0)
    return said


@pytest.mark.skipif(not IS_ROOT, reason="running as another user needs root")
def test_a_file_the_user_cannot_write_is_refused_and_a_shared_one_keeps_its_owner():
    base = Path(tempfile.mkdtemp(prefix="rulemap-owner-", dir="/tmp"))
    try:
        os.chmod(base, 0o777)
        (base / "theirs.md").write_text("theirs\n")  # root's, 0644: nobody may not write it
        (base / "shared.md").write_text("shared\n")  # root's, group nogroup, 0664
        os.chmod(base / "theirs.md", 0o644)
        os.chown(base / "shared.md", 0, 65534)
        os.chmod(base / "shared.md", 0o664)
        said = _as_nobody(base)
        assert "refused: theirs.md is not writable by you" in said, said
        assert "written" in said.splitlines(), said
        assert (base / "theirs.md").read_text() == "theirs\n"
        info = (base / "shared.md").stat()
        # nobody may not give a new file to root: it was written in place, owner kept
        assert (info.st_uid, info.st_gid) == (0, 65534)
        assert (base / "shared.md").read_text() == "fixed\n"
    finally:
        shutil.rmtree(base)


# ----- --diff -------------------------------------------------------------------------------


def _git_apply(directory: Path, patch: str) -> None:
    (directory / "fix.patch").write_bytes(patch.encode())
    subprocess.run(["git", "apply", "--unsafe-paths", "fix.patch"], cwd=directory, check=True,
                   capture_output=True)
    (directory / "fix.patch").unlink()


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_check_diff_applies_with_git_for_every_line_ending(tmp_path, newline):
    text = newline.join(["# root", "", "See @docs/a.md, then", "end"]) + newline
    root = _workspace(tmp_path, {"AGENTS.md": text, "docs/a.md": "a\n"})
    done = subprocess.run(
        [sys.executable, "-m", "rulemap", "check", "--diff"], cwd=root, capture_output=True,
        timeout=60, env=dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "none")))
    assert done.stdout.startswith(b"--- a/AGENTS.md"), done.stderr
    (root / "fix.patch").write_bytes(done.stdout)
    applied = subprocess.run(["git", "apply", "--unsafe-paths", "fix.patch"], cwd=root,
                             capture_output=True)
    assert applied.returncode == 0, applied.stderr
    assert (root / "AGENTS.md").read_bytes() == text.replace("a.md,", "a.md").encode()


_LINE = st.text(alphabet=st.sampled_from("ab @,.😀\t\ufeff"), max_size=8)
_ENDING = st.sampled_from(["\n", "\r\n", "\r", ""])


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    old=st.lists(st.tuples(_LINE, _ENDING), max_size=8),
    new=st.lists(st.tuples(_LINE, _ENDING), max_size=8),
)
def test_every_diff_applies_with_git(tmp_path_factory, old, new):
    """Random texts in every line-ending style (mixed, lone CR, none at the end): the diff
    turns the old file into the new one under a real `git apply`."""
    before = "".join(a + b for a, b in old)
    after = "".join(a + b for a, b in new)
    patch = fixes.unified_diff("f.md", before, after)
    if not patch:
        assert before == after
        return
    directory = tmp_path_factory.mktemp("apply")
    (directory / "f.md").write_bytes(before.encode())
    _git_apply(directory, patch)
    assert (directory / "f.md").read_bytes() == after.encode()


def test_random_concurrent_saves_during_check_fix_never_lose_a_byte(tmp_path):
    """Many rounds of `check --fix` racing saves at random moments (0–30 ms in): each round
    ends with the save's bytes or, when the save came first and the fix then applied to it,
    with the save's bytes fixed — never with the original's fix over a lost save."""
    root = _workspace(tmp_path, {"AGENTS.md": FIXABLE, "docs/a.md": "a\n"})
    rng = random.Random(7)
    for attempt in range(4):
        (root / "AGENTS.md").write_text(FIXABLE)
        mine = f"# mine {attempt}\n\nSee @docs/a.md, too\n"
        delay = rng.uniform(0, 0.03)
        process = subprocess.Popen([sys.executable, "-m", "rulemap", "check", "--fix"],
                                   cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   env=dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "n")))
        time.sleep(delay)
        (root / "AGENTS.md").write_text(mine)
        _, err = process.communicate(timeout=60)
        final = (root / "AGENTS.md").read_text()
        assert final in (mine, mine.replace("a.md,", "a.md")), err
