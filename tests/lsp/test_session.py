"""`rulemap/session` (docs/protocol.md): a run replayed for a workspace folder — exactly the
object `rulemap session --json` prints, from a transcript file the server reads or from
steps given in the request."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException
from tests.lsp.conftest import plain, server_env, session, write

FILES = {
    "AGENTS.md": "# Project\n",
    ".claude/rules/api.md": '---\npaths:\n  - "src/api/**/*.ts"\n---\nAPI rules.\n',
    "src/api/users.ts": "export const users = 1;\n",
    "pkg/AGENTS.md": "Package.\n",
    "pkg/x.py": "",
}


def cli_session(root: Path, *args: str) -> dict:  # type: ignore[type-arg]
    out = subprocess.run(
        [sys.executable, "-m", "rulemap", "session", "--root", str(root), "--json", *args],
        cwd=root, env=server_env(), capture_output=True, text=True, check=True,
    )
    data = json.loads(out.stdout)
    assert data.pop("selection")  # the CLI's selection (`rulemap/profiles` says it to a client)
    assert data.pop("platform") == "linux"  # the CLI's platform (tests/conftest.py: Linux)
    return data  # type: ignore[no-any-return]


async def test_session_request_is_the_cli_json(tmp_path: Path) -> None:
    write(tmp_path, FILES)
    log = tmp_path / "run.jsonl"
    log.write_text(
        json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "name": "Read",
             "input": {"file_path": str(tmp_path / "src/api/users.ts")}}]}}) + "\n"
        + "not json\n"
        + json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "name": "Edit", "input": {"file_path": "pkg/x.py"}}]}}) + "\n"
    )
    async with session(tmp_path, "vscode") as lsp:
        folder = tmp_path.as_uri()
        from_log = plain(await lsp.protocol.send_request_async(
            "rulemap/session", {"uri": folder, "transcript": str(log)}))
        assert from_log == cli_session(tmp_path, "--file", str(log))
        assert from_log["problems"] == [{"line": 2, "message": from_log["problems"][0]["message"]}]
        assert [[f["path"] for f in s["joined"]] for s in from_log["steps"]] == [
            ["AGENTS.md"], [".claude/rules/api.md"], ["pkg/AGENTS.md"]]

        steps = [{"kind": "read", "paths": ["pkg/x.py"]}]
        from_steps = plain(await lsp.protocol.send_request_async(
            "rulemap/session", {"uri": (tmp_path / "src/api/users.ts").as_uri(),
                                "steps": steps, "profile": "mastra"}))
        assert from_steps == cli_session(tmp_path, "read:pkg/x.py", "--profile", "mastra")
        assert from_steps["steps"][1]["joined"][0]["step"] == 1

        codex = plain(await lsp.protocol.send_request_async(
            "rulemap/session", {"uri": folder, "steps": steps, "profile": "codex"}))
        assert codex["hasStepModel"] is False and "no per-step model" in codex["note"]

        for bad in ({"uri": folder, "transcript": str(tmp_path / "missing.jsonl")},
                    {"uri": folder, "steps": "read:a"},
                    {"uri": folder, "profile": "nobody"}):
            with pytest.raises(JsonRpcException):
                await lsp.protocol.send_request_async("rulemap/session", bad)
        outside = await lsp.protocol.send_request_async(
            "rulemap/session", {"uri": "file:///elsewhere", "steps": steps})
        assert outside is None
