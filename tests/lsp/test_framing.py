"""Malformed framing and the LSP lifecycle: the pure reader (rulemap.lsp.framing), then the real
server process fed raw bytes."""

from __future__ import annotations

import asyncio
import json
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.lsp.conftest import server_env, write

from rulemap.lsp.framing import (
    INVALID_REQUEST,
    MAX_BODY,
    MAX_HEADER,
    PARSE_ERROR,
    Error,
    Event,
    FrameReader,
    Message,
    pump,
)

# ----- the reader --------------------------------------------------------------------------------


def body(msg_id: int = 1, method: str = "x") -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method}).encode()


def frame(data: bytes, length: int | None = None) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % (len(data) if length is None else length) + data


def nonblank(data: bytes) -> int:
    return len(data.translate(None, b" \t\r\n"))


def read(*chunks: bytes) -> list[Event]:
    reader = FrameReader()
    return [event for chunk in chunks for event in reader.feed(chunk)]


def ids(events: list[Event]) -> list[Any]:
    """Messages by id, errors as (code, id)."""
    return [e.payload.get("id") if isinstance(e, Message) else (e.code, e.id) for e in events]


def test_well_formed_messages() -> None:
    stream = (
        frame(body(1))
        + b"\r\n"  # a stray blank line between messages
        + b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n"
        + frame(body(2))
        + b"content-length: %d\r\nContent-Type: x\r\n\r\n" % len(body(3))
        + body(3)
        + b"Content-Length: %d\n\n" % len(body(4))  # bare LFs
        + body(4)
    )
    assert ids(read(stream)) == [1, 2, 3, 4]


def test_a_body_mentioning_content_length_is_read_whole() -> None:
    text = json.dumps(
        {"jsonrpc": "2.0", "method": "m", "params": {"text": "Content-Length: 3\r\n\r\nabc"}}
    ).encode()
    events = read(frame(text) + frame(body(2)))
    assert isinstance(events[0], Message) and events[0].payload["params"]["text"].endswith("abc")
    assert ids(events[1:]) == [2]


@pytest.mark.parametrize(
    "value",
    [
        b"abc",
        b"-5",
        b"",
        b"1.5",
        b"0x10",
        b"12 34",
        b"99999999999999999999",
        b"%d" % (MAX_BODY + 1),
    ],
)
def test_bad_content_length_is_answered_and_skipped(value: bytes) -> None:
    reader = FrameReader()
    events = reader.feed(b"Content-Length: " + value + b"\r\n\r\n" + body(1) + frame(body(2)))
    assert ids(events) == [(PARSE_ERROR, None), 2]
    assert isinstance(events[0], Error) and "Content-Length" in events[0].message
    assert reader.skipped == nonblank(body(1))  # the announced body, up to the next header


def test_conflicting_content_lengths() -> None:
    stream = b"Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!" + frame(body(2))
    assert ids(read(stream)) == [(PARSE_ERROR, None), 2]


def test_missing_content_length() -> None:
    stream = b"Content-Type: nonsense\r\n\r\n" + body(1) + frame(body(2))
    assert ids(read(stream)) == [(PARSE_ERROR, None), 2]


def test_huge_content_length_is_not_buffered() -> None:
    reader = FrameReader()
    assert ids(reader.feed(b"Content-Length: %d\r\n\r\n" % (10 * MAX_BODY))) == [
        (PARSE_ERROR, None)
    ]
    for _ in range(64):
        assert reader.feed(b"x" * 65536) == []
        assert len(reader._buf) < 64  # only a tail that may start the next header
    assert ids(reader.feed(frame(body(2)))) == [2]


def test_too_small_content_length_resynchronises() -> None:
    # the cut body is a ParseError, the rest of it noise before the next header
    reader = FrameReader()
    events = reader.feed(frame(body(1), 10) + frame(body(2)) + frame(body(3)))
    assert ids(events) == [(PARSE_ERROR, None), 2, 3]
    assert reader.skipped == nonblank(body(1)[10:])


def test_too_large_content_length_gives_back_what_it_swallowed() -> None:
    stream = frame(body(1), len(body(1)) + 30) + frame(body(2)) + frame(body(3))
    assert ids(read(stream)) == [1, 2, 3]


def test_noise_between_messages() -> None:
    stream = (
        b"garbage without a line end}"
        + frame(body(1))
        + b"noise}Content-Length: %d\r\n\r\n" % len(body(2))  # glued to the header
        + body(2)
        + b"\xff\xfe\x00 binary\r\n\r\n\r\n"
        + b"x" * (3 * MAX_HEADER)  # no header is that long
        + b"Name: value\r\n" * 200  # nor has that many lines
        + frame(body(3))
    )
    assert ids(read(stream)) == [1, 2, 3]


def test_a_header_split_across_feeds() -> None:
    reader = FrameReader()
    assert reader.feed(b"Content-Len") == []
    assert reader.feed(b"gth: %d\r" % len(body(1))) == []
    assert reader.feed(b"\n\r") == []
    assert reader.feed(b"\n" + body(1)[:5]) == []
    assert ids(reader.feed(body(1)[5:])) == [1]


@pytest.mark.parametrize(
    "data", [b"{not json", b"", b"\xff\xfe{}", b"[" * 100_000 + b"]" * 100_000, b"1" * 5000]
)
def test_a_body_that_is_not_json_is_a_parse_error(data: bytes) -> None:
    assert ids(read(frame(data) + frame(body(2)))) == [(PARSE_ERROR, None), 2]


@pytest.mark.parametrize(
    ("payload", "answer_id"),
    [
        ([1, 2, 3], None),
        ([], None),
        ("a string", None),
        ({}, None),
        ({"id": 5, "method": "x"}, 5),  # no "jsonrpc"
        ({"jsonrpc": "1.0", "id": "a", "method": "x"}, "a"),
        ({"jsonrpc": "2.0", "id": 5, "method": 7}, 5),
        ({"jsonrpc": "2.0", "id": 1.5, "method": "x"}, None),
        ({"jsonrpc": "2.0", "id": True, "method": "x"}, None),
        ({"jsonrpc": "2.0", "id": None, "method": "x"}, None),
        ({"jsonrpc": "2.0", "id": 5, "method": "x", "params": 3}, 5),
        ({"jsonrpc": "2.0", "id": 5}, 5),  # neither a request nor a response
    ],
)
def test_json_that_is_not_json_rpc_is_an_invalid_request(payload: Any, answer_id: Any) -> None:
    events = read(frame(json.dumps(payload).encode()))
    assert events == [Error(INVALID_REQUEST, events[0].message, answer_id)]  # type: ignore[union-attr]
    assert events[0].response()["id"] == answer_id  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "payload",
    [
        {"jsonrpc": "2.0", "method": "exit"},
        {"jsonrpc": "2.0", "method": "exit", "params": None},
        {"jsonrpc": "2.0", "id": "s", "method": "x", "params": []},
        {"jsonrpc": "2.0", "id": 3, "result": None},
        {"jsonrpc": "2.0", "id": 3, "error": {"code": 1, "message": "no"}},
    ],
)
def test_json_rpc_messages_pass(payload: dict[str, Any]) -> None:
    assert read(frame(json.dumps(payload).encode())) == [Message(payload)]


HOSTILE = (
    frame(body(1))
    + b"Content-Length: abc\r\n\r\n"
    + body(2)
    + frame(body(3), 10)
    + frame(body(4))
    + b"Content-Type: x\r\n\r\n{}"
    + frame(b"{nope")
    + frame(b"[1]")
    + b"\r\n"
    + b"noise}"
    + frame(body(5), len(body(5)) + 25)
    + frame(body(6))
    + b"Content-Length: %d\r\n\r\n" % (MAX_BODY * 2)
    + b"x" * 300
    + b"\r\n\r\n"
    + b"content-length: %d\nContent-Type: y\n\n" % len(body(7))
    + body(7)
)
EXPECTED = [
    1,
    (PARSE_ERROR, None),
    (PARSE_ERROR, None),
    4,
    (PARSE_ERROR, None),
    (PARSE_ERROR, None),
    (INVALID_REQUEST, None),
    5,
    6,
    (PARSE_ERROR, None),
    7,
]


def splits(data: bytes) -> Iterator[list[bytes]]:
    for i in range(len(data) + 1):
        yield [data[:i], data[i:]]
    yield [data[i : i + 1] for i in range(len(data))]
    yield [data[i : i + 7] for i in range(0, len(data), 7)]


def test_hostile_stream() -> None:
    assert ids(read(HOSTILE)) == EXPECTED


def test_every_split_reads_the_same() -> None:
    whole = FrameReader()
    expected = whole.feed(HOSTILE)
    for chunks in splits(HOSTILE):
        reader = FrameReader()
        events = [event for chunk in chunks for event in reader.feed(chunk)]
        assert events == expected, [len(c) for c in chunks[:2]]
        assert reader.skipped == whole.skipped


def test_max_header_is_respected_at_any_split() -> None:
    stream = b"X-Long: " + b"v" * MAX_HEADER + b"\r\n" + frame(body(1))
    for chunks in splits(stream):
        assert ids(read(*chunks)) == [1]


# ----- the loop: what runs between two messages --------------------------------------------------


class _Protocol:
    """Enough of pygls' protocol for `pump`: a message named `async…` starts a task, as a
    coroutine handler does; any other is handled where it is read, as a plain one is."""

    def __init__(self) -> None:
        self.started: list[str] = []

    def structure_message(self, payload: dict[str, Any]) -> dict[str, Any]:
        return payload

    def handle_message(self, message: dict[str, Any]) -> None:
        name = message["method"]
        if name.startswith("async"):
            async def handler() -> None:
                self.started.append(name)

            asyncio.ensure_future(handler())
        else:
            self.started.append(name)


def _pumped(*messages: bytes, ticker: bool = False) -> tuple[list[str], int]:
    """What `pump` started, in order, for `messages` read at once; and how many turns of the
    loop another task got meanwhile."""
    protocol = _Protocol()
    turns = 0

    async def main() -> None:
        nonlocal turns
        chunks = [b"".join(messages), b""]

        async def read() -> bytes:
            return chunks.pop(0)

        async def tick() -> None:
            nonlocal turns
            while True:
                turns += 1
                await asyncio.sleep(0)

        ticking = asyncio.ensure_future(tick()) if ticker else None
        await asyncio.sleep(0)
        counted = turns
        await pump(read, protocol)  # type: ignore[arg-type]
        turns -= counted
        for _ in range(3):
            await asyncio.sleep(0)
        if ticking is not None:
            ticking.cancel()

    asyncio.run(main())
    return protocol.started, turns


def test_a_coroutine_notification_starts_before_the_message_after_it() -> None:
    started, _ = _pumped(notification("async-folders"), notification("didOpen"),
                         notification("async-b"), request(1, "hover"))
    assert started == ["async-folders", "didOpen", "async-b", "hover"]


def test_a_burst_of_notifications_is_read_without_a_turn_of_the_loop_each() -> None:
    """3,000 watched-file notifications took 3,000 × 2 turns of the loop, each behind
    whatever else ran there, before the hover after them was read (lsp/framing.py)."""
    burst = [notification("workspace/didChangeWatchedFiles") for _ in range(200)]
    started, turns = _pumped(*burst, request(1, "hover"), ticker=True)
    assert started[-1] == "hover" and len(started) == 201
    assert turns <= 10, f"{turns} turns of the loop for 200 notifications"


# ----- the real server, fed raw bytes ------------------------------------------------------------

TIMEOUT = 30.0


def message(payload: dict[str, Any]) -> bytes:
    return frame(json.dumps(payload).encode())


def request(msg_id: int, method: str, params: Any = None) -> bytes:
    payload: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
    if params is not None:
        payload["params"] = params
    return message(payload)


def notification(method: str, params: Any = None) -> bytes:
    return message({"jsonrpc": "2.0", "method": method, "params": params or {}})


def initialize(root: Path, msg_id: int = 1) -> bytes:
    return request(
        msg_id, "initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}
    )


class Server:
    """`rulemap serve --stdio` with a thread reading its framed output (so no read can hang)."""

    def __init__(self, root: Path) -> None:
        write(root, {"AGENTS.md": "Hi.\n"})
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "rulemap", "serve", "--stdio"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=server_env(),
        )
        self.messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        buffer = b""
        while chunk := self.proc.stdout.read1(65536):  # type: ignore[attr-defined]
            buffer += chunk
            while True:
                head, sep, rest = buffer.partition(b"\r\n\r\n")
                if not sep:
                    break
                length = int(head.split(b"Content-Length:")[1].split(b"\r\n")[0])
                if len(rest) < length:
                    break
                self.messages.put(json.loads(rest[:length]))
                buffer = rest[length:]
        self.messages.put(None)

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def next(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        msg = self.messages.get(timeout=timeout)
        if msg is None:
            raise EOFError("the server closed its output")
        return msg

    def response(self, msg_id: Any) -> dict[str, Any]:
        """The next response with this id (server requests and notifications are skipped)."""
        while True:
            msg = self.next()
            if "method" not in msg and msg.get("id") == msg_id:
                return msg

    def responses(self, count: int) -> list[dict[str, Any]]:
        """The next `count` responses, in order (server requests and notifications skipped)."""
        out: list[dict[str, Any]] = []
        while len(out) < count:
            msg = self.next()
            if "method" not in msg:
                out.append(msg)
        return out

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=TIMEOUT)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    running = Server(tmp_path)
    try:
        yield running
    finally:
        running.close()


@pytest.mark.parametrize(
    "header",
    [
        b"Content-Length: abc\r\n\r\n",
        b"Content-Length: -20\r\n\r\n",
        b"Content-Length: 99999999999999\r\n\r\n",
        b"Content-Type: application/vscode-jsonrpc\r\n\r\n",
    ],
    ids=["not-a-number", "negative", "huge", "missing"],
)
def test_bad_header_then_initialize(server: Server, tmp_path: Path, header: bytes) -> None:
    lost = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {}})
    server.send(header + lost.encode() + initialize(tmp_path))
    (error,) = server.responses(1)
    assert error["id"] is None and error["error"]["code"] == PARSE_ERROR
    assert server.response(1)["result"]["serverInfo"]["name"] == "rulemap"


def test_too_small_content_length_then_request(server: Server, tmp_path: Path) -> None:
    server.send(initialize(tmp_path))
    assert "result" in server.response(1)
    server.send(notification("initialized"))
    cut = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "rulemap/profiles", "params": {}})
    server.send(frame(cut.encode(), 9))
    server.send(request(3, "rulemap/profiles", {}))
    assert server.response(None)["error"]["code"] == PARSE_ERROR
    assert server.response(3)["result"]["active"]


def test_bodies_that_are_not_messages(server: Server, tmp_path: Path) -> None:
    server.send(frame(b"{this is not json"))
    assert server.response(None)["error"]["code"] == PARSE_ERROR
    server.send(frame(b"[1, 2, 3]"))
    assert server.response(None)["error"]["code"] == INVALID_REQUEST
    server.send(message({"jsonrpc": "1.0", "id": 9, "method": "initialize"}))
    assert server.response(9)["error"]["code"] == INVALID_REQUEST
    server.send(initialize(tmp_path))
    assert "result" in server.response(1)


def test_a_request_written_in_pieces(server: Server, tmp_path: Path) -> None:
    # pauses long enough for the server to read each piece on its own: inside the header name,
    # between CR and LF, inside the body
    data = initialize(tmp_path)
    cuts = [0, 7, data.index(b"\r") + 1, data.index(b"\n\r\n") + 2, len(data) - 5, len(data)]
    for start, end in zip(cuts, cuts[1:], strict=False):
        server.send(data[start:end])
        time.sleep(0.2)
    assert "result" in server.response(1)


def test_requests_after_shutdown_are_invalid(server: Server, tmp_path: Path) -> None:
    server.send(initialize(tmp_path) + notification("initialized"))
    assert "result" in server.response(1)
    server.send(request(2, "shutdown"))
    assert server.response(2) == {"jsonrpc": "2.0", "id": 2, "result": None}
    server.send(notification("textDocument/didOpen", {"textDocument": 1}))  # dropped
    server.send(request(3, "rulemap/profiles", {}) + request(4, "shutdown"))
    # the very next responses: nothing answered the notification
    for answer, msg_id in zip(server.responses(2), (3, 4), strict=True):
        assert answer["id"] == msg_id and answer["error"]["code"] == INVALID_REQUEST
    server.send(notification("exit"))
    assert server.proc.wait(timeout=TIMEOUT) == 0


def test_pipelined_request_shutdown_exit(server: Server, tmp_path: Path) -> None:
    # one write: the request is answered before `shutdown` is, then the process exits with 0
    server.send(initialize(tmp_path) + notification("initialized"))
    assert "result" in server.response(1)
    server.send(request(2, "rulemap/profiles", {}) + request(3, "shutdown") + notification("exit"))
    answers = server.responses(2)
    assert [a["id"] for a in answers] == [2, 3] and answers[0]["result"]["active"]
    assert server.proc.wait(timeout=TIMEOUT) == 0


def test_exit_after_shutdown_is_0(server: Server, tmp_path: Path) -> None:
    server.send(initialize(tmp_path) + request(2, "shutdown") + notification("exit"))
    assert server.response(2)["result"] is None
    assert server.proc.wait(timeout=TIMEOUT) == 0


def test_exit_without_shutdown_is_1(server: Server, tmp_path: Path) -> None:
    server.send(initialize(tmp_path))
    assert "result" in server.response(1)
    server.send(notification("exit"))
    assert server.proc.wait(timeout=TIMEOUT) == 1


def test_exit_before_anything_is_1(server: Server) -> None:
    server.send(notification("exit"))
    assert server.proc.wait(timeout=TIMEOUT) == 1
