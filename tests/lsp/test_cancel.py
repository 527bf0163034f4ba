"""Long requests are cancellable for real: a `$/cancelRequest` ends them with RequestCancelled
(-32800) soon after it arrives, instead of a result computed to the end.

`rulemap/compare` runs on the event loop one agent at a time: the end-to-end test starts the
server with slow toy agents (tests/lsp/toy_profile.py `slow_toys`: half a second per
explanation), so that a compare over six of them takes three seconds uncancelled. The
requests that run in the worker thread (`rulemap/graph`, `rulemap/instructionFiles`) are
held to it with `folders.in_worker` / `host.analysis_host.replay_and_run` directly.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from tests.lsp.conftest import change_doc, open_doc, plain, serve_module, session, write

SLOW = [f"slow-{n}" for n in range(1, 7)]
REQUEST_CANCELLED = -32800


@pytest.fixture(autouse=True)
def slow_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """conftest.session, but starting `rulemap serve` with the slow toy agents registered."""
    serve_module(monkeypatch, "tests.lsp.toy_server", "--slow")


async def test_a_cancelled_compare_answers_request_cancelled(tmp_path: Path) -> None:
    write(tmp_path, {"TOY.md": "root toy\n", "src/a.ts": "export const a = 1;\n"})
    async with session(tmp_path, "vscode") as lsp:
        uri = (tmp_path / "src/a.ts").as_uri()
        # indexed (the default agent is not a slow one)
        await lsp.protocol.send_request_async("rulemap/effectiveInstructions", {"uri": uri})
        started = time.monotonic()
        pending = asyncio.ensure_future(lsp.protocol.send_request_async(
            "rulemap/compare", {"uri": uri, "profiles": SLOW}, msg_id="long-compare"
        ))
        await asyncio.sleep(0.3)  # the first slow agent is being explained
        lsp.cancel_request(types.CancelParams(id="long-compare"))
        with pytest.raises(JsonRpcException) as raised:
            await asyncio.wait_for(pending, 30)
        elapsed = time.monotonic() - started
        assert raised.value.code == REQUEST_CANCELLED
        # stopped within an agent or two of the cancel, not after all six (3 s)
        assert elapsed < 2.5, f"the cancelled compare ran {elapsed:.1f} s"

        # the server still answers, and a compare left alone completes
        done = plain(await lsp.protocol.send_request_async(
            "rulemap/compare", {"uri": uri, "profiles": SLOW[:2]}
        ))
        assert [c["profile"] for c in done["columns"]] == SLOW[:2]


async def test_a_compare_during_an_edit_answers_for_one_state_the_edited_one(
    tmp_path: Path,
) -> None:
    """A compare pauses between two agents holding no snapshot (one held across a change
    would make the host fork its whole workspace on the keystroke); an edit during a pause
    starts it again from the new state: every column is of one state, the edited one."""
    write(tmp_path, {"TOY.md": "root toy\n", "src/a.ts": "export const a = 1;\n"})
    async with session(tmp_path, "vscode") as lsp:
        uri = (tmp_path / "src/a.ts").as_uri()
        await lsp.protocol.send_request_async("rulemap/effectiveInstructions", {"uri": uri})
        toy = open_doc(lsp, tmp_path / "TOY.md")
        pending = asyncio.ensure_future(lsp.protocol.send_request_async(
            "rulemap/compare", {"uri": uri, "profiles": SLOW[:3]}
        ))
        await asyncio.sleep(0.7)  # the second slow agent is being explained
        edited = "toy, edited\n"  # (under the toy budget of 20: counted whole)
        change_doc(lsp, toy, edited, 2)
        done = plain(await asyncio.wait_for(pending, 30))
        assert [c["profile"] for c in done["columns"]] == SLOW[:3]
        sizes = {
            c["profile"]: [f["chars"] for f in c["explanation"]["files"] if f["path"] == "TOY.md"]
            for c in done["columns"]
        }
        assert sizes == {name: [len(edited)] for name in SLOW[:3]}, sizes


@pytest.mark.parametrize("method, params", [
    ("rulemap/effectiveInstructions", {"profile": "slow-1"}),
    ("rulemap/session", {"profile": "slow-1", "steps": [{"kind": "read", "paths": ["src/a.ts"]}]}),
])
async def test_an_explanation_or_a_replay_in_the_worker_is_cancellable(
    tmp_path: Path, method: str, params: dict[str, Any]
) -> None:
    """Both run in the worker thread (off the event loop): a cancel that arrives while the
    slow agent explains (half a second) ends the request with RequestCancelled at once;
    on the event loop the answer came after the explanation, cancel or not."""
    write(tmp_path, {"TOY.md": "root toy\n", "src/a.ts": "export const a = 1;\n"})
    async with session(tmp_path, "vscode") as lsp:
        uri = (tmp_path / "src/a.ts").as_uri()
        await lsp.protocol.send_request_async("rulemap/effectiveInstructions", {"uri": uri})
        pending = asyncio.ensure_future(lsp.protocol.send_request_async(
            method, {"uri": uri, **params}, msg_id="long-one"
        ))
        await asyncio.sleep(0.1)
        lsp.cancel_request(types.CancelParams(id="long-one"))
        with pytest.raises(JsonRpcException) as raised:
            await asyncio.wait_for(pending, 30)
        assert raised.value.code == REQUEST_CANCELLED
        # left alone, the same request answers
        done = plain(await lsp.protocol.send_request_async(method, {"uri": uri, **params}))
        assert done["profile"] == "slow-1"


# ----- the worker's side: a cancelled request's job ---------------------------------------


def test_a_cancelled_worker_job_replays_and_skips_its_function() -> None:
    """The replica always replays the log it was handed (it is its only way to the loop's
    state), but the function of a request cancelled meanwhile does not run."""
    from rulemap.analysis import new_workspace
    from rulemap.host import Cancelled, CancelToken
    from rulemap.host.analysis_host import replay_and_run
    from rulemap.readers import MemoryReader, OverlayReader

    replica = new_workspace(OverlayReader(MemoryReader("/w", {"AGENTS.md": "old\n"})))
    ran: list[str] = []
    token = CancelToken()
    token.cancel()
    log = [({"AGENTS.md"}, set(), set(), {"AGENTS.md": "new\n"})]
    with pytest.raises(Cancelled):
        replay_and_run(replica, log, lambda snap: ran.append(snap.document("AGENTS.md").text),
                       (), token)
    assert ran == []
    assert replica.document("AGENTS.md").text == "new\n"  # replayed all the same
    assert replay_and_run(replica, [], lambda snap: snap.document("AGENTS.md").text, (),
                          CancelToken()) == "new\n"


async def test_a_cancelled_request_stops_its_worker_job() -> None:
    """`rulemap/graph` and `rulemap/instructionFiles` run in the worker thread: cancelling the
    request sets their token, and the job stops at its next check instead of running on."""
    from concurrent.futures import ThreadPoolExecutor

    from rulemap.analysis import new_workspace
    from rulemap.host import AnalysisHost, Cancelled, CancelToken
    from rulemap.lsp.folders import in_worker
    from rulemap.readers import MemoryReader, OverlayReader

    def workspace() -> Any:
        return new_workspace(OverlayReader(MemoryReader("/w", {"AGENTS.md": "x\n"})))

    host = AnalysisHost(workspace(), replicated=True)
    host.attach_replica(workspace())
    steps: list[int] = []
    stopped: list[bool] = []

    def long_job(snap: Any, cancel: CancelToken) -> str:
        for step in range(200):
            try:
                cancel.check()
            except Cancelled:
                stopped.append(True)
                raise
            steps.append(step)
            time.sleep(0.01)
        return "ran to the end"

    token = CancelToken()
    loop = asyncio.get_running_loop()
    with ThreadPoolExecutor(max_workers=1) as executor:
        task = asyncio.ensure_future(
            in_worker(loop, executor, host.worker_job(long_job, (token,), token), token)
        )
        await asyncio.sleep(0.1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert token.cancelled and stopped == [True]
    assert len(steps) < 100  # stopped soon after the cancel, not after 200 steps
