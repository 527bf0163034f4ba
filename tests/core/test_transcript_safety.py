"""`rulemap session --file`: a transcript never leaks and never takes unbounded memory.

- A message about a transcript names the line (or entry) and the kind of problem, never what
  the line holds: the file may be whatever a repository's symlink points at.
- A symlink the repository ships that leads out of the workspace is not read at all.
- A transcript is read a line at a time: a 200 MB file of mostly invalid lines runs in a few
  dozen MB, with the first problems listed and one line saying how many more there were.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rulemap.readers.host import open_text_lines
from rulemap.session.transcripts import (
    MAX_LINE_BYTES,
    MAX_PATHS,
    MAX_PROBLEMS,
    parse_stream,
    parse_text,
)

MARKER = "S3CRET-MARKER-7f3a9c"  # stands for what a credentials file holds
ROOT = "/w"


def run(root: Path, *args: str, limit: int | None = None) -> subprocess.CompletedProcess[str]:
    """The CLI in a subprocess, with no user configuration and a home of its own (no grant of
    the test machine's user widens anything); `limit`: its address space, in bytes."""
    env = {k: v for k, v in os.environ.items() if k not in ("RULEMAP_CONFIG", "COLUMNS")}
    env["XDG_CONFIG_HOME"] = str(root.parent / "no-user-config")
    env["HOME"] = str(root.parent / "home")

    def cap() -> None:
        import resource

        assert limit is not None
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return subprocess.run(
        [sys.executable, "-m", "rulemap", "session", "--root", str(root), *args],
        cwd=root, env=env, capture_output=True, text=True, timeout=300,
        preexec_fn=cap if limit is not None else None,
    )


def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "AGENTS.md").write_text("# Project\n")
    (root / "src/a.ts").write_text("a\n")
    return root


# /etc/passwd's shape: `a:b:c` tokens, which read as steps KIND:PATH
PASSWD = "".join(f"{name}:x:{uid}:{uid}:{MARKER} {name}:/home/{name}:/bin/sh\n"
                 for uid, name in enumerate(["root", "daemon", "alice", "bob"]))


def test_a_repository_symlink_to_a_secret_is_not_read(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    secret = tmp_path / "credentials"  # outside the workspace
    secret.write_text(PASSWD)
    (root / "run.jsonl").symlink_to(secret)
    for args in (["--file", "run.jsonl"], ["--file", str(root / "run.jsonl"), "--json"],
                 ["--file", "run.jsonl", "--text"]):
        out = run(root, *args)
        assert out.returncode == 2, out.stderr
        assert "symbolic link leading out" in out.stderr and "Traceback" not in out.stderr
        assert MARKER not in out.stdout + out.stderr
        assert str(secret) not in out.stderr  # nor where the repository pointed it


def test_a_file_the_user_names_outside_is_read_but_never_echoed(tmp_path: Path) -> None:
    """The user's own path outside the workspace is theirs to read; what it holds still
    appears in no message, on stderr or in --json's `problems`."""
    root = workspace(tmp_path)
    secret = tmp_path / "passwd"
    secret.write_text(PASSWD)
    out = run(root, "--file", str(secret), "--json")
    assert out.returncode == 0, out.stderr
    assert MARKER not in out.stdout + out.stderr
    problems = json.loads(out.stdout)["problems"]
    assert [p["line"] for p in problems] == [1, 1, 2, 2, 3, 3, 4, 4]
    assert all("not a step KIND:PATH" in p["message"] for p in problems)


# one shape of each input, the marker where the old messages quoted it
LEAKY_INPUTS = {
    "passwd": PASSWD,
    "tokens": f"read:src/a.ts read:/etc/{MARKER} edit:../{MARKER}.py\n"
              f"edit:{MARKER}\x00x read: {MARKER}:{MARKER}\n",
    "claude-code": "\n".join(json.dumps(e) for e in [
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "name": "Read", "input": {"file_path": f"/etc/{MARKER}"}},
            {"type": "tool_use", "name": "Edit", "input": {"file_path": f"../{MARKER}"}},
            {"type": "tool_use", "name": "Write", "input": {"file_path": f" \x00{MARKER}"}},
            {"type": "tool_use", "name": "Read", "input": {"file_path": MARKER * 1000}},
        ]}},
        {MARKER: MARKER}, [MARKER], MARKER,
    ]) + f"\n{{{MARKER}\n\"{MARKER}\n",
    "steps": json.dumps([{"kind": MARKER, "paths": ["src/a.ts"]},
                         {"kind": "read", "paths": [f"/{MARKER}", 5]},
                         {"kind": "read", "paths": [f"/{MARKER}", ""]}, MARKER]),
    "steps-object": json.dumps({"steps": [{"kind": "edit", "paths": f"../../{MARKER}"}]},
                               indent=2),
    "mastra": json.dumps([
        {"role": "assistant", "toolInvocations": [
            {"state": "result", "toolName": MARKER, "args": {"path": f"/{MARKER}/x"}}]},
        MARKER]),
    "broken-json": f'[{{"kind": "read", "paths": ["{MARKER}"]}}, {MARKER}]',
    "unknown": f"{MARKER} words\n{MARKER}\n",
}


@pytest.mark.parametrize("name", LEAKY_INPUTS)
def test_no_problem_quotes_the_transcript(name: str) -> None:
    parsed = parse_text(LEAKY_INPUTS[name], ROOT)
    assert parsed.problems, "each input holds something not understood"
    for problem in parsed.problems:
        assert MARKER not in problem.message, problem
        assert problem.message


@pytest.mark.parametrize("name", ["passwd", "claude-code", "steps", "mastra"])
def test_no_output_of_the_cli_quotes_a_transcript_inside_the_workspace(
    tmp_path: Path, name: str
) -> None:
    root = workspace(tmp_path)
    (root / "run.txt").write_text(LEAKY_INPUTS[name])
    for mode in ("--json", "--text", None):
        out = run(root, "--file", "run.txt", *([mode] if mode else []))
        assert out.returncode == 0, out.stderr
        assert MARKER not in out.stdout + out.stderr
        assert "run.txt:" in out.stderr  # the problems are still reported, by line


def test_command_line_steps_are_the_users_own_words() -> None:
    """Steps typed on the command line may be quoted back (they are not a file's content)."""
    from rulemap.session.transcripts import parse_tokens

    parsed = parse_tokens(["look:src/a.ts", "read:/elsewhere/b.ts"], ROOT)
    assert "'look:src/a.ts'" in parsed.problems[0].message
    assert "`/elsewhere/b.ts` is outside" in parsed.problems[1].message


# ----------------------------------------------------------------------------- bounds


def test_problems_are_capped_with_a_count_of_the_rest() -> None:
    parsed = parse_text("{oops\n" * 1000, ROOT)
    assert len(parsed.problems) == MAX_PROBLEMS + 1
    assert [p.line for p in parsed.problems[:MAX_PROBLEMS]] == list(range(1, MAX_PROBLEMS + 1))
    assert parsed.problems[-1].line is None
    assert parsed.problems[-1].message.startswith(
        f"and {1000 - MAX_PROBLEMS} more problems like these")


def test_steps_are_capped_with_a_count_of_the_rest() -> None:
    data = [{"kind": "read", "paths": ["src/a.ts"]}] * (MAX_PATHS + 7)
    parsed = parse_text(json.dumps(data), ROOT)
    assert len(parsed.steps) == MAX_PATHS
    assert parsed.problems[-1].message.startswith("and 7 more steps, not replayed")


def test_a_line_over_the_limit_is_skipped_unread(tmp_path: Path) -> None:
    """The reader hands over None for a line longer than MAX_LINE_BYTES, never holding it; the
    lines around it still count."""
    read = json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "name": "Read", "input": {"file_path": "/w/src/a.ts"}}]}})
    path = tmp_path / "log.jsonl"
    with path.open("w") as f:
        f.write(read + "\n")
        f.write('{"type": "user", "x": "' + "y" * (MAX_LINE_BYTES + 10) + '"}\n')
        f.write(read.replace("a.ts", "b.ts") + "\n")
    lines = open_text_lines(str(path), MAX_LINE_BYTES, 64 * MAX_LINE_BYTES)
    assert lines is not None
    with lines:
        assert [len(x) if x is not None else None for x in lines] == [
            len(read) + 1, None, len(read) + 1]
    lines = open_text_lines(str(path), MAX_LINE_BYTES, 64 * MAX_LINE_BYTES)
    assert lines is not None
    with lines:
        parsed = parse_stream(lines, ROOT)
    assert [s.paths for s in parsed.steps] == [("src/a.ts",), ("src/b.ts",)]
    assert [(p.line, p.message) for p in parsed.problems] == [
        (2, "a line longer than 8 MiB: skipped")]


def test_a_fifo_is_refused_without_hanging(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    os.mkfifo(root / "run.jsonl")
    out = run(root, "--file", "run.jsonl")
    assert out.returncode == 2 and "not a regular file" in out.stderr


def _write_200_mb(path: Path, line: bytes) -> int:
    count = 200 * 1024 * 1024 // len(line)
    with path.open("wb") as f:
        batch = line * 4096
        for _ in range(count // 4096):
            f.write(batch)
        f.write(line * (count % 4096))
    return count


# measured: a usual run takes ~27 MiB of address space, these 200 MB runs ~30 MiB; reading
# such a file whole (as before) needs well over its 200 MB, so this limit tells them apart
LIMIT = 160 * 1024 * 1024


@pytest.mark.slow  # 200 MB through the CLI
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is Linux's")
@pytest.mark.parametrize("shape", ["json-lines", "passwd"])
def test_a_200_mb_transcript_of_invalid_lines_runs_in_bounded_memory(
    tmp_path: Path, shape: str
) -> None:
    """Eight invalid lines to one record, so that the file is read to its end (a file of
    nothing but junk is given up at line 1,000: tests/hostile/test_hostile_logs.py)."""
    root = workspace(tmp_path)
    if shape == "json-lines":  # a log whose lines are broken but for a user turn in nine
        bad = b'{"type": "assistant", ' + b"x" * 1000 + b"\n"
        record = b'{"type": "user"}\n'
    else:  # /etc/passwd-like, one `a:b:c` token a line, and a step in nine
        bad = b"root:x:0:0:" + MARKER.encode() + b"y" * 1000 + b":/root:/bin/sh\n"
        record = b"read:src/a.ts\n"
    blocks = _write_200_mb(root / "big.log", bad * 8 + record)
    out = run(root, "--file", "big.log", "--json", limit=LIMIT)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "MemoryError" not in out.stderr and "Traceback" not in out.stderr
    assert MARKER not in out.stdout + out.stderr
    problems = json.loads(out.stdout)["problems"]
    # json-lines: first a note that it is too long for a document, then every bad line
    total = blocks * 8 + (shape == "json-lines")
    assert len(problems) == MAX_PROBLEMS + 1
    assert problems[-1] == {"line": None, "message": f"and {total - MAX_PROBLEMS} more "
                            f"problems like these, not listed (only the first {MAX_PROBLEMS} "
                            "are)"}
    assert len(out.stderr.splitlines()) == MAX_PROBLEMS + 1
    steps = json.loads(out.stdout)["steps"]
    assert len(steps) == (1 if shape == "json-lines" else blocks + 1)


def test_both_edges_ask_the_host_where_a_transcript_may_be_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`session --file` and the server's `rulemap/session` read a transcript through one host
    question (`host/sessions.read_transcript`): a link in the workspace leading out is refused
    for both; a file the user names outside the workspace is read for the command line only
    (a client's request reads from the workspace, the agents' log directories and the user's
    grants)."""
    from rulemap.host import AnalysisHost
    from rulemap.host.sessions import TranscriptRefused, read_transcript

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    root = workspace(tmp_path)
    outside = tmp_path / "elsewhere" / "run.json"
    outside.parent.mkdir()
    outside.write_text(json.dumps([{"kind": "read", "paths": ["src/a.ts"]}]))
    (root / "link.json").symlink_to(outside)
    (root / "run.json").write_text(json.dumps([{"kind": "edit", "paths": ["src/a.ts"]}]))
    snap = AnalysisHost.open(str(root)).snapshot()
    for named_by_user in (True, False):
        with pytest.raises(TranscriptRefused):
            read_transcript(snap, str(root / "link.json"), named_by_user)
        inside = read_transcript(snap, str(root / "run.json"), named_by_user)
        assert inside is not None and [s.kind for s in inside.steps] == ["edit"]
        assert read_transcript(snap, str(root / "gone.json"), named_by_user) is None
    named = read_transcript(snap, str(outside), named_by_user=True)
    assert named is not None and [s.kind for s in named.steps] == ["read"]
    with pytest.raises(TranscriptRefused):
        read_transcript(snap, str(outside), named_by_user=False)
