"""The fast paths of reading a log (issue #34, item 5) give what the plain computations give:
the file read in chunks gives the lines a line-by-line read gives; `loads_line` parses as
json.loads; lines read ahead and put back come back as read; a memoised path is reported
again on every line that has it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rulemap.readers.host as host
import rulemap.session.transcripts as transcripts
from rulemap.profiles.transcript import Parsed, TranscriptPaths, loads_line
from rulemap.readers.host import open_text_lines
from rulemap.session.transcripts import parse_text


def _reference(data: bytes, limit: int) -> list[str | None]:
    """A line at a time: split at b"\\n", each line decoded alone, None when over `limit`."""
    lines = data.split(b"\n")
    tail = lines.pop()
    out: list[str | None] = [None if len(raw) > limit else (raw + b"\n").decode(
        "utf-8", errors="replace") for raw in lines]
    if tail:
        out.append(None if len(tail) > limit else tail.decode("utf-8", errors="replace"))
    return out


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture],
          deadline=None)
@given(data=st.lists(st.sampled_from([b"a", b"b", b"\n", b"\n", b"\xe2\x82\xac", b"\xe2",
                                      b"\xff", b"\r", b" "]), max_size=120).map(b"".join),
       chunk=st.sampled_from([1, 2, 3, 5, 16, 256 * 1024]),
       limit=st.sampled_from([0, 1, 2, 4, 10, 1000]),
       short=st.sampled_from([0, 2, 200]))  # the lines of a chunk split together, or not
def test_the_chunked_reader_gives_the_lines_of_a_line_by_line_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: bytes, chunk: int, limit: int,
    short: int
) -> None:
    monkeypatch.setattr(host, "READ_CHUNK", chunk)
    monkeypatch.setattr(host, "SHORT_LINES", short)
    path = tmp_path / "log"
    path.write_bytes(data)
    lines = open_text_lines(str(path), limit, 1 << 30)
    assert lines is not None
    with lines:
        assert list(lines) == _reference(data, limit)


def test_the_reader_refuses_a_file_grown_past_its_limit(tmp_path: Path) -> None:
    path = tmp_path / "log"
    path.write_bytes(b"x\n" * 1000)
    lines = open_text_lines(str(path), 100, 5000)
    assert lines is not None
    path.write_bytes(b"x\n" * 4000)  # it grew after it was opened
    with lines, pytest.raises(host.ReadError, match="over the 0 MiB limit"):
        list(lines)


JSON_TEXT = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                 max_size=3),
    max_leaves=8,
).map(json.dumps)


@settings(max_examples=400, deadline=None)
@given(body=JSON_TEXT | st.text(max_size=12),
       before=st.sampled_from(["", " ", "\t", "\ufeff"]),
       after=st.sampled_from(["", "\n", "\r\n", " \n", "x\n", "}", " 1\n", "\u2028\n"]))
def test_loads_line_parses_as_json_loads(body: str, before: str, after: str) -> None:
    line = before + body + after

    def outcome(parse: object) -> object:
        try:
            return ("value", json.dumps(parse(line)))  # type: ignore[operator]
        except (ValueError, RecursionError) as exc:
            return ("error", type(exc).__name__, str(exc))

    assert outcome(loads_line) == outcome(json.loads)


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture],
          deadline=None)
@given(lines=st.lists(st.sampled_from(["{\n", "x\n", "\n", "{\"a\": 1}\n", "yy\n", None]),
                      max_size=40),
       last=st.sampled_from(["", "tail"]),
       limit=st.integers(0, 30), batch=st.sampled_from([1, 2, 3, 7, 4096]))
def test_lines_read_ahead_come_back_as_read(
    monkeypatch: pytest.MonkeyPatch, lines: list[str | None], last: str, limit: int,
    batch: int
) -> None:
    monkeypatch.setattr(transcripts, "MAX_DOCUMENT_CHARS", limit)
    monkeypatch.setattr(transcripts, "_BATCH", batch)
    given_lines = [*lines, last] if last else lines
    source = transcripts._Lines(given_lines)
    held, whole = transcripts._gather(source)
    text = "".join(line for line in given_lines if line is not None)
    if whole:
        assert held.text() == text and None not in given_lines
    source.put_back(held.pairs())
    assert list(source) == list(enumerate(given_lines, 1))


def test_a_memoised_path_is_reported_on_every_line_that_has_it() -> None:
    parsed = Parsed("steps")
    paths = TranscriptPaths("/w", None, parsed)
    assert [paths.key("/elsewhere/a.ts", n) for n in (1, 2, 3)] == [None, None, None]
    assert [paths.key("src/a.ts", n) for n in (4, 5)] == ["src/a.ts", "src/a.ts"]
    assert [paths.key("a.ts", 6, base="/w/src") for _ in (1,)] == ["src/a.ts"]
    assert [p.line for p in parsed.problems] == [1, 2, 3]


def test_a_first_line_broken_then_a_log_reads_as_json_lines() -> None:
    """The read ahead for a document (the first line is no JSON) is put back whole."""
    entry = json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "name": "Read", "input": {"file_path": "/w/src/a.ts"}}]}})
    parsed = parse_text("{oops\n" + (entry + "\n") * 3 + "[1]\n", "/w")
    assert parsed.format == "claude-code"
    assert [s.source for s in parsed.steps] == [2, 3, 4]
    assert [p.line for p in parsed.problems] == [1, 5]
