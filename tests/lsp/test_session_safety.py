"""`rulemap/session` over stdio: a transcript is read only where the user allows, its content
is never echoed, and absurd params — nested 900 deep, huge, of the wrong type — get
InvalidParams (-32602) with a clear message, never an internal error with a traceback.
HOME is a temporary directory, never the real one."""

from __future__ import annotations

import asyncio
import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient
from tests.lsp.conftest import plain, session, write

MARKER = "S3CRET-MARKER-5be21d"
INVALID_PARAMS = -32602
CUSTOM = ["rulemap/session", "rulemap/effectiveInstructions", "rulemap/compare",
          "rulemap/profiles", "rulemap/graph", "rulemap/instructionFiles",
          "rulemap/rulesForFile"]
# a log an agent could write, pointing at the secret, and /etc/passwd's `a:b:c` lines
SECRET_LOG = json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [
    {"type": "tool_use", "name": "Read", "input": {"file_path": f"/{MARKER}/id_rsa"}}]}}) \
    + f"\n{{{MARKER}\n"
PASSWD = "".join(f"{n}:x:{i}:{i}:{MARKER}:/home/{n}:/bin/sh\n"
                 for i, n in enumerate(["root", "daemon", "alice"]))


def layout(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A workspace (whose rulemap.toml tries to grant everything), a home of its own, a
    secret outside both, and the environment that makes HOME that home."""
    root, home = tmp_path / "repo", tmp_path / "home"
    write(root, {"AGENTS.md": "# Project\n", "src/a.ts": "a\n",
                 "rulemap.toml": 'allowImportsFrom = ["/", "~"]\n'})
    (root / ".git").mkdir()
    write(tmp_path, {"secret/run.jsonl": SECRET_LOG, "secret/passwd": PASSWD,
                     "granted/run.jsonl": SECRET_LOG})
    write(home, {".claude/projects/-repo/s.jsonl": SECRET_LOG})
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "RULEMAP_CONFIG": ""}
    return root, env


async def refused(lsp: LanguageClient, params: dict[str, Any]) -> str:
    with pytest.raises(JsonRpcException) as caught:
        await lsp.protocol.send_request_async("rulemap/session", params)
    assert caught.value.code == INVALID_PARAMS
    return str(caught.value.message)


async def test_a_transcript_outside_the_workspace_is_refused(tmp_path: Path) -> None:
    root, env = layout(tmp_path)
    (root / "run.jsonl").symlink_to(tmp_path / "secret/run.jsonl")  # shipped by the repository
    (root / "logs").symlink_to(tmp_path / "secret", target_is_directory=True)
    folder = root.as_uri()
    # the workspace's own settings try to grant too: ignored, only the user grants
    async with session(root, "vscode", env=env, configuration={"allowImportsFrom": ["/"]},
                       init_options={"allowImportsFrom": [str(tmp_path / "granted")]}) as lsp:
        for transcript in ("run.jsonl", str(root / "run.jsonl"), "logs/passwd",
                           str(tmp_path / "secret/run.jsonl"), "../secret/passwd",
                           str(tmp_path / "secret/missing.jsonl"), "/etc/passwd"):
            message = await refused(lsp, {"uri": folder, "transcript": transcript})
            assert MARKER not in message and "Traceback" not in message
            # names the path as the client sent it, and how to allow such a path
            assert f"transcript {transcript}: not read: it is outside the workspace" in message
            assert "allowImportsFrom" in message
        # a missing file outside reads as any other outside path: no oracle of what exists
        # where the user granted, and in Claude Code's log directory, it is read
        for transcript in (str(tmp_path / "granted/run.jsonl"),
                           str(tmp_path / "home/.claude/projects/-repo/s.jsonl")):
            result = plain(await lsp.protocol.send_request_async(
                "rulemap/session", {"uri": folder, "transcript": transcript}))
            assert [p["line"] for p in result["problems"]] == [1, 2]
            assert MARKER not in json.dumps(result)


async def test_content_inside_the_workspace_is_never_echoed(tmp_path: Path) -> None:
    root, env = layout(tmp_path)
    write(root, {"etc/passwd": PASSWD, "run.jsonl": SECRET_LOG,
                 "many.jsonl": f"{{{MARKER}\n" * 1000})
    async with session(root, "vscode", env=env) as lsp:
        for transcript, lines in (("etc/passwd", [1, 2, 3]), ("run.jsonl", [1, 2])):
            result = plain(await lsp.protocol.send_request_async(
                "rulemap/session", {"uri": root.as_uri(), "transcript": transcript}))
            assert [p["line"] for p in result["problems"]] == lines
            assert MARKER not in json.dumps(result)
        many = plain(await lsp.protocol.send_request_async(
            "rulemap/session", {"uri": root.as_uri(), "transcript": "many.jsonl"}))
        assert len(many["problems"]) == 101
        assert many["problems"][-1]["message"].startswith("and 900 more problems like these")


# ----- absurd params ---------------------------------------------------------------------------

_ids = itertools.count(10_000)


async def raw_request(lsp: LanguageClient, method: str, params: str) -> dict[str, Any]:
    """Send a request whose params are raw JSON text (the client's own converter cannot even
    serialise params 900 deep) and return the error it gets: {"code", "message", "data"};
    `{"parse": True}` when the server could not parse the message at all (its error answers
    id null)."""
    msg_id = next(_ids)
    body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": None})
    body = body.replace('"params": null', f'"params": {params}').encode()
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[Any] = loop.create_future()
    unparsed: asyncio.Future[Any] = loop.create_future()
    lsp.protocol._request_futures[msg_id] = answer
    lsp.protocol._request_futures[None] = unparsed  # type: ignore[index]
    lsp.protocol.writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    done, _ = await asyncio.wait([answer, unparsed], timeout=30,
                                 return_when=asyncio.FIRST_COMPLETED)
    lsp.protocol._request_futures.pop(msg_id, None)
    lsp.protocol._request_futures.pop(None, None)  # type: ignore[call-overload]
    assert done, f"no answer to {method}"
    if unparsed in done:
        return {"parse": True}
    try:
        result = answer.result()
    except JsonRpcException as exc:
        return {"code": exc.code, "message": exc.message, "data": exc.data}
    pytest.fail(f"{method} answered {result!r} to absurd params")


def nested(depth: int) -> str:
    return '{"a": ' * depth + '"x"' + "}" * depth


def assert_invalid_params(error: dict[str, Any], method: str) -> None:
    assert error.get("code") == INVALID_PARAMS, error
    assert str(error["message"]).startswith(f"{method}: "), error
    for word in ("Traceback", "RecursionError", 'File "'):
        assert word not in str(error["message"]) + str(error.get("data")), error


async def test_params_nested_900_deep_get_invalid_params(tmp_path: Path) -> None:
    root, env = layout(tmp_path)
    uri = json.dumps(root.as_uri())
    async with session(root, "vscode", env=env) as lsp:
        for method in CUSTOM:
            for params in (f'{{"uri": {uri}, "steps": [{nested(900)}]}}',
                           f'{{"uri": {uri}, "profile": {nested(900)}}}',
                           f'{{"uri": {uri}, "unknown": {nested(900)}}}',
                           f'{{"uri": {uri}, "profiles": [{nested(900)}]}}'):
                error = await raw_request(lsp, method, params)
                assert_invalid_params(error, method)
        message = (await raw_request(
            lsp, "rulemap/session", f'{{"uri": {uri}, "steps": [{nested(900)}]}}'))["message"]
        assert message == "rulemap/session: the params are nested more than 32 levels deep"


async def test_every_depth_gets_invalid_params_until_the_message_is_no_json(
    tmp_path: Path,
) -> None:
    """Deeper still, pygls' own conversion of the params fails (it calls that an internal
    error), and deeper again the message cannot be parsed at all (a parse error, id null:
    the framing's answer). Every depth the server can parse gets InvalidParams."""
    root, env = layout(tmp_path)
    uri = json.dumps(root.as_uri())
    async with session(root, "vscode", env=env) as lsp:
        answered = 0
        for depth in range(900, 1400, 3):
            error = await raw_request(lsp, "rulemap/session",
                                      f'{{"uri": {uri}, "steps": [{nested(depth)}]}}')
            if error.get("parse"):
                break
            assert_invalid_params(error, "rulemap/session")
            answered += 1
        assert answered > 10
        # and the server still answers
        result = plain(await lsp.protocol.send_request_async(
            "rulemap/session", {"uri": root.as_uri(), "steps": []}))
        assert result["steps"][0]["kind"] == "start-up"


async def test_huge_and_mistyped_params_get_invalid_params(tmp_path: Path) -> None:
    root, env = layout(tmp_path)
    uri = json.dumps(root.as_uri())
    huge_steps = "[" + ",".join(["1"] * 50_001) + "]"
    huge = "[" + ",".join(["0"] * 1_000_001) + "]"
    async with session(root, "vscode", env=env) as lsp:
        cases = {
            f'{{"uri": {uri}, "steps": {huge_steps}}}': "`steps` holds 50001 entries",
            f'{{"uri": {uri}, "other": {huge}}}': "more than 1000000 values",
            f'{{"uri": {uri}, "steps": "read:a"}}': "`steps` must be a list",
            f'{{"uri": {uri}, "transcript": 5}}': "`transcript` must be a string",
            f'{{"uri": {uri}, "transcript": ""}}': "`transcript` must be a file path",
            f'{{"uri": {uri}, "transcript": "a\\u0000b"}}': "`transcript` must be a file path",
            f'{{"uri": {uri}, "profile": ["cogitator"]}}': "`profile` must be a string",
            f'{{"uri": {uri}, "cwd": {{"a": 1}}}}': "`cwd` must be a string",
            '{"uri": 5}': "`uri` (a string) is required",
            "[1, 2]": "params must be an object",
        }
        for params, expected in cases.items():
            error = await raw_request(lsp, "rulemap/session", params)
            assert_invalid_params(error, "rulemap/session")
            assert expected in error["message"], (params[:80], error)
        for method in CUSTOM:
            assert_invalid_params(await raw_request(lsp, method, f'{{"x": {huge}}}'), method)
            assert_invalid_params(await raw_request(lsp, method, "[1]"), method)
