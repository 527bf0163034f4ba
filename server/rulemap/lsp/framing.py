"""Reading LSP messages off stdin when the bytes cannot be trusted (docs/lsp.md, "Framing errors
and lifecycle").

`FrameReader` is pure: bytes in, `Message`s and `Error`s out, whatever the chunking. A header
block it cannot use (Content-Length missing, not a number, negative, over `MAX_BODY`) is answered
with a ParseError; anything that is not a header block (the rest of a body cut short by a too
small Content-Length, noise) is skipped up to the next `Content-Length:`, so the stream always
resynchronises. A body that is not JSON gets a ParseError, JSON that is not a JSON-RPC message an
InvalidRequest (both with id null unless the message's own id could be read).

`serve_stdio` replaces pygls' stdio loop (which never recovers from a bad header) with one over
this reader, and returns the process's exit code: pygls' `exit` handler raises SystemExit(0)
after `shutdown`, SystemExit(1) otherwise.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, BinaryIO

from pygls.io_ import StdoutWriter
from pygls.protocol import JsonRPCProtocol
from pygls.protocol.json_rpc import RPCNotification, RPCRequest
from pygls.server import JsonRPCServer

log = logging.getLogger("rulemap.lsp")

MAX_BODY = 64 * 1024 * 1024  # a larger Content-Length is refused, its body skipped
MAX_HEADER = 1024  # a header block is a few dozen bytes; longer ones are noise
CHUNK = 65536
PARSE_ERROR = -32700
INVALID_REQUEST = -32600

_TCHAR = rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]"  # RFC 9110 token characters
# complete header lines (`Name: value`, CRLF or a bare LF)
_LINES = re.compile(rb"(?:" + _TCHAR + rb"+:[^\r\n]*\r?\n)*")
# what can still become a header line or the blank line ending the block
_PARTIAL = re.compile(_TCHAR + rb"*|" + _TCHAR + rb"+:[^\r\n]*\r?|\r")
_BLANK = re.compile(rb"\r?\n")
_SYNC = re.compile(rb"content-length:", re.IGNORECASE)
_KEEP = len(b"content-length:") - 1  # a tail that may be the start of the next header


@dataclass(frozen=True)
class Message:
    """A JSON-RPC request, notification or response, as decoded JSON."""

    payload: dict[str, Any]


@dataclass(frozen=True)
class Error:
    """Something unreadable, to be answered with a JSON-RPC error response."""

    code: int
    message: str
    id: int | str | None = None

    def response(self) -> dict[str, Any]:
        return {
            "jsonrpc": "2.0",
            "id": self.id,
            "error": {"code": self.code, "message": self.message},
        }


Event = Message | Error


class FrameReader:
    """Splits a byte stream into LSP messages; `feed` any chunks, in order."""

    def __init__(self, max_body: int = MAX_BODY, max_header: int = MAX_HEADER) -> None:
        self.max_body = max_body
        self.max_header = max_header
        self.skipped = 0  # non-blank bytes thrown away to resynchronise (for the log)
        self._buf = bytearray()
        self._length: int | None = None  # the body's length, once its header block is read

    def feed(self, data: bytes) -> list[Event]:
        buf = self._buf
        buf += data
        out: list[Event] = []
        pos = 0
        while pos < len(buf):
            if self._length is not None:
                end = pos + self._length
                if len(buf) < end:
                    break
                self._length = None
                event, used = decode(bytes(buf[pos:end]))
                out.append(event)
                pos += used
                continue
            limit = min(len(buf), pos + self.max_header)
            lines = _LINES.match(buf, pos, limit)
            lines_end = lines.end() if lines is not None else pos  # (it always matches)
            blank = _BLANK.match(buf, lines_end, limit)
            if blank is not None:
                if lines_end == pos:
                    pos = blank.end()  # a stray blank line between messages
                else:
                    pos = self._header_block(pos, lines_end, blank.end(), out)
            elif len(buf) - pos <= self.max_header and _PARTIAL.fullmatch(buf, lines_end):
                break  # the header block is still arriving
            else:
                pos = self._skip(pos, len(buf))
        del buf[:pos]
        return out

    def _header_block(self, start: int, lines_end: int, end: int, out: list[Event]) -> int:
        """Read the header lines in [start, lines_end); the block ends at `end`."""
        values = []
        for line in bytes(self._buf[start:lines_end]).splitlines():
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                values.append(value.strip(b" \t"))
        if not values:
            # `}Content-Length: 5` (what is left of a cut body glued to the next header) reads
            # as one header named `}Content-Length`: resume at the real one
            sync = _SYNC.search(self._buf, start + 1, lines_end)
            if sync is not None:
                return self._skip(start, lines_end)
            out.append(Error(PARSE_ERROR, "Parse error: a header block without Content-Length"))
            return end
        length, problem = content_length(values, self.max_body)
        if problem is not None:
            out.append(Error(PARSE_ERROR, f"Parse error: {problem}"))
        else:
            self._length = length
        return end

    def _skip(self, pos: int, end: int) -> int:
        """Skip what is not a message: up to the next `Content-Length:` after `pos`, or (none
        yet) to all but a tail that may begin one."""
        sync = _SYNC.search(self._buf, pos + 1, end)
        new = sync.start() if sync is not None else max(pos + 1, len(self._buf) - _KEEP)
        self.skipped += len(bytes(self._buf[pos:new]).translate(None, b" \t\r\n"))
        return new


def content_length(values: list[bytes], max_body: int = MAX_BODY) -> tuple[int, str | None]:
    """The body length the Content-Length header values announce, or why there is none."""
    if len(set(values)) > 1:
        return 0, "conflicting Content-Length headers"
    text = values[0]
    if not text.isdigit():
        if text.startswith(b"-") and text[1:].isdigit():
            return 0, "negative Content-Length"
        return 0, f"Content-Length is not a number: {text[:40].decode('latin-1')!r}"
    if len(text) > 12 or int(text) > max_body:
        return 0, f"Content-Length over the {max_body} byte limit"
    return int(text), None


def decode(body: bytes) -> tuple[Event, int]:
    """The event for a body, and how much of it was used: all of it, unless it is not JSON but
    holds a `Content-Length:` (a length announced too large swallowed the next messages): then
    the event is for what precedes it, and reading resumes there."""
    try:
        return check(json.loads(body)), len(body)
    except (ValueError, RecursionError):
        pass
    error = Error(PARSE_ERROR, "Parse error: the body is not JSON")
    sync = _SYNC.search(body)
    if sync is None:
        return error, len(body)
    # what precedes the swallowed header may be the whole message
    head = body[: sync.start()]
    return (decode(head)[0] if head.strip() else error), sync.start()


def _is_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def check(value: Any) -> Event:
    """A JSON value as a JSON-RPC 2.0 message (LSP has no batches), or the InvalidRequest."""
    if not isinstance(value, dict):
        return Error(INVALID_REQUEST, "Invalid request: a message must be a JSON object")
    msg_id = value.get("id")
    known = msg_id if _is_id(msg_id) else None
    if value.get("jsonrpc") != "2.0":
        return Error(INVALID_REQUEST, 'Invalid request: "jsonrpc" must be "2.0"', known)
    if "method" in value:
        if not isinstance(value["method"], str):
            return Error(INVALID_REQUEST, 'Invalid request: "method" must be a string', known)
        if "id" in value and known is None:
            return Error(INVALID_REQUEST, 'Invalid request: "id" must be an integer or a string')
        if not isinstance(value.get("params"), dict | list | None):
            problem = 'Invalid request: "params" must be an object or an array'
            return Error(INVALID_REQUEST, problem, known)
        return Message(value)
    if "id" in value and ("result" in value or "error" in value):
        return Message(value)
    return Error(
        INVALID_REQUEST, "Invalid request: neither a request, a notification nor a response", known
    )


# ----- the stdio loop ----------------------------------------------------------------------------


async def pump(read: Callable[[], Awaitable[bytes]], protocol: JsonRPCProtocol) -> None:
    """Hand every message read to the protocol until the input ends. The next read starts only
    once the messages of the previous one are handled, so none is pending at `exit`."""
    reader = FrameReader()
    while data := await read():
        skipped = reader.skipped
        for event in reader.feed(data):
            if isinstance(event, Error):
                log.warning("%s", event.message)
                protocol._send_data(event.response())
            else:
                request = "id" in event.payload  # (or a response)
                tasks = 0 if request else len(asyncio.all_tasks())
                _dispatch(protocol, event.payload)
                # a notification handled where it was read (most are) leaves nothing to let
                # run: reading on at once keeps a burst of 3,000 from taking 3,000 turns of
                # the loop, each behind whatever else runs there, before the request after it
                if request or len(asyncio.all_tasks()) > tasks:
                    await _settle()
        if reader.skipped > skipped:
            log.warning("skipped %d bytes that are not a message", reader.skipped - skipped)


async def _settle() -> None:
    """After a request or a notification whose handler is a coroutine, as pygls' loop (which
    awaited each read in a thread) did between any two messages: let the handler run and a
    request's answer be written (a task step, then its done-callback), so a request that needs
    no I/O is answered before the next message, say `shutdown` and `exit`, is handled, and a
    coroutine notification starts before the message after it."""
    for _ in range(2):
        await asyncio.sleep(0)


def _dispatch(protocol: JsonRPCProtocol, payload: dict[str, Any]) -> None:
    try:
        protocol.handle_message(protocol.structure_message(payload))
    except Exception as exc:  # a notification or response pygls cannot read: log, go on
        log.warning("could not handle %s: %s", payload.get("method", "a response"), exc)


def serve_stdio(
    server: JsonRPCServer, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None
) -> int:
    """Serve until `exit` (its code) or the end of the input (0)."""
    source = stdin or sys.stdin.buffer
    read: Callable[[int], bytes] = getattr(source, "read1", source.read)
    server.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))

    async def main() -> None:
        loop = asyncio.get_running_loop()
        await pump(lambda: loop.run_in_executor(server.thread_pool, read, CHUNK), server.protocol)

    try:
        asyncio.run(main())
    except SystemExit as exc:  # pygls' `exit` handler
        return exc.code if isinstance(exc.code, int) else 1
    except BrokenPipeError:
        log.error("the client closed the connection")
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()  # type: ignore[no-untyped-call]
    return 0


_NOTIFICATION_CLASSES: dict[type, bool] = {}


def is_notification(message: Any) -> bool:
    """Whether pygls would take `message` for a notification: not an `RPCRequest`, an
    `RPCNotification`. Known by its class, asked once per class: pygls asks each message four
    runtime `Protocol` checks, which on Python 3.11 cost half of reading a burst of 3,000
    watched-file notifications (`_get_protocol_attrs`, 0.45 of 1.19 s profiled)."""
    kind = type(message)
    known = _NOTIFICATION_CLASSES.get(kind)
    if known is None:
        known = not isinstance(message, RPCRequest) and isinstance(message, RPCNotification)
        _NOTIFICATION_CLASSES[kind] = known
    return known


def refused_after_shutdown(protocol: JsonRPCProtocol, message: Any) -> bool:
    """After `shutdown` only `exit` is served (LSP): a request is answered with InvalidRequest
    (pygls would leave it unanswered), anything else is dropped."""
    method = getattr(message, "method", None)
    if not protocol._shutdown or method == "exit":
        return False
    msg_id = getattr(message, "id", None)
    if isinstance(method, str) and _is_id(msg_id):
        error = Error(INVALID_REQUEST, f"Invalid request: {method} after shutdown", msg_id)
        protocol._send_data(error.response())
    else:
        log.debug("dropped a message after shutdown: %s", method)
    return True
