"""Rulemap's LSP extensions (docs/protocol.md): the results as plain JSON-ready dicts.

The long ones are cancellable (`$/cancelRequest`): `rulemap/compare` yields to the event loop
between two agents (a cancel read meanwhile ends the request there), and the requests that run
in the worker thread (`rulemap/graph`, `rulemap/instructionFiles`) hand it a CancelToken that
their task sets when it is cancelled.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from rulemap.host import CancelToken
from rulemap.host.aliasing import read_as_field
from rulemap.lsp.diagnostics import uri_for
from rulemap.lsp.folders import path_of

if TYPE_CHECKING:
    from rulemap.host import AnalysisHost, Snapshot
    from rulemap.host.sessions import Parsed, Problem, ToolStep, TranscriptFile
    from rulemap.lsp.folders import Folder
    from rulemap.lsp.state import Engine
    from rulemap.model import Explanation


T = TypeVar("T")


class InvalidParams(ValueError):
    pass


# between two steps of a long request, the loop runs this long: enough for a `$/cancelRequest`
# the reader thread has read to be handed over and handled (a few hops of callbacks)
STEP_PAUSE_S = 0.001
# a compare whose folder changed during a pause starts again from the new state this often;
# then it runs through without a pause (no change can come between its steps)
MAX_COMPARE_RESTARTS = 3


# Absurd params are the client's error (InvalidParams), refused before any handler walks
# them: no request of ours reads deeper than 4 levels (`rulemap/session`'s steps[i].paths[j]),
# and the values are bounded so that a walk over them (ours, or a conversion) stays short.
MAX_PARAMS_DEPTH = 32
MAX_PARAMS_VALUES = 1_000_000


def params_dict(params: Any) -> dict[str, Any]:
    """pygls hands custom-method params over as named tuples (or None); make them a dict.
    Params nested deeper than MAX_PARAMS_DEPTH or holding more than MAX_PARAMS_VALUES values
    are InvalidParams, whatever key holds them."""
    if params is None:
        return {}
    if isinstance(params, Mapping):
        out = dict(params)
    elif callable(as_dict := getattr(params, "_asdict", None)):
        out = dict(as_dict())
    elif isinstance(params, list | tuple):
        raise InvalidParams("params must be an object")
    else:
        raise InvalidParams(f"params must be an object, not {type(params).__name__}")
    _check_shape(out)
    return out


def _check_shape(params: dict[str, Any]) -> None:
    """Walks the params without recursion (the nesting is what is being checked)."""
    stack: list[tuple[Any, int]] = [(params, 1)]
    count = 0
    while stack:
        value, depth = stack.pop()
        count += 1
        if count > MAX_PARAMS_VALUES:
            raise InvalidParams(f"the params hold more than {MAX_PARAMS_VALUES} values")
        if isinstance(value, Mapping):
            children: Any = value.values()
        elif isinstance(value, list | tuple):  # a named tuple (pygls' object) iterates values
            children = value
        else:
            continue
        if depth >= MAX_PARAMS_DEPTH and children:
            raise InvalidParams(f"the params are nested more than {MAX_PARAMS_DEPTH} levels "
                                "deep")
        stack.extend((child, depth + 1) for child in children)


def uri_param(params: dict[str, Any]) -> str:
    uri = params.get("uri")
    if not isinstance(uri, str):
        raise InvalidParams("`uri` (a string) is required")
    return uri


async def folder_of(engine: Engine, uri: str) -> tuple[Folder, AnalysisHost] | None:
    """The indexed folder a request's `uri` names — the folder itself, or a file in it — and
    its host (None: no such folder, or it could not be indexed)."""
    path = path_of(uri)
    folder = engine.folders.get(path.rstrip("/")) if path else None
    if folder is None:
        found = engine.locate(uri)
        if found is None:
            return None
        folder = found[0]
    await engine.ready(folder)
    host = folder.host
    return (folder, host) if host is not None else None


def profiles_param(params: dict[str, Any]) -> list[str] | None:
    """The `profiles` param: a list of known agent names (None: absent)."""
    from rulemap.host.catalog import agent_names

    names = params.get("profiles")
    if names is None:
        return None
    if not isinstance(names, list | tuple) or not all(isinstance(n, str) for n in names):
        raise InvalidParams("`profiles` must be a list of profile names")
    unknown = [n for n in names if n not in agent_names()]
    if unknown:
        raise InvalidParams(f"unknown profile `{unknown[0]}`; available: "
                            f"{', '.join(agent_names())}")
    return list(names)


def _file_uri(snap: Snapshot, path: str) -> str:
    return uri_for(snap.abs(path))


def explanation_json(snap: Snapshot, explanation: Explanation) -> dict[str, Any]:
    """`Explanation.to_json()` with what a client needs to open each file: `uri` on every
    entry of `files` and `skipped`, `line` (the `@import`'s) on imported files, `overBudget`,
    and `leftOutUris` parallel to `leftOut` (which stays a list of paths)."""
    result: dict[str, Any] = explanation.to_json()
    for entry, loaded in zip(result["files"], explanation.files, strict=True):
        entry["uri"] = _file_uri(snap, loaded.path)
        if loaded.imported_by is not None and loaded.import_line is not None:
            entry["line"] = loaded.import_line
    for entry, skipped in zip(result["skipped"], explanation.skipped, strict=True):
        entry["uri"] = _file_uri(snap, skipped.path)
    result["leftOutUris"] = [_file_uri(snap, path) for path in explanation.left_out]
    result["overBudget"] = explanation.over_budget
    result.update(read_as_field(snap, explanation))  # `readAs`, as `explain --json` has it
    return result


async def located(engine: Engine, uri: str) -> tuple[Folder, AnalysisHost, str] | None:
    """The folder, its host and the key of a file inside it (None: not such a file)."""
    found = engine.locate(uri)
    if found is None:
        return None
    folder, key = found
    await engine.ready(folder)
    host = folder.host
    if host is None or key.startswith("/") or not key:
        return None
    return folder, host, key


async def effective_instructions(engine: Engine, raw: Any) -> dict[str, Any] | None:
    from rulemap.host.catalog import UnknownProfile

    params = params_dict(raw)
    uri = uri_param(params)
    profile = params.get("profile")
    if profile is not None and not isinstance(profile, str):
        raise InvalidParams("`profile` must be a string")
    found = await located(engine, uri)
    if found is None:
        return None
    folder, _, key = found
    # a cold explanation of a big tree takes a while: in the worker, off the event loop (a
    # cancelled request is not started there)
    cancel = CancelToken()
    try:
        result = await engine.on_replica(
            folder, _explained, key, profile or folder.agent(),
            bool(params.get("includeText")), cancel=cancel,
        )
    except UnknownProfile as exc:
        raise InvalidParams(str(exc)) from None
    result["uri"] = engine.canonical(uri)
    return result


def _explained(snap: Snapshot, key: str, profile: str | None, include_text: bool) -> dict[str, Any]:
    """Runs in the worker: `rulemap/effectiveInstructions`' answer for `key`."""
    from rulemap.host.explaining import explain

    explanation = explain(snap, key, profile=profile)
    result = explanation_json(snap, explanation)
    if include_text:
        result["text"] = explanation.render()
    return result


async def compare(engine: Engine, raw: Any) -> dict[str, Any] | None:
    """`rulemap/compare`: every selected agent's load for one file (or the `profiles` named),
    each as `rulemap/effectiveInstructions` answers it. One agent at a time (cancellable)."""
    from rulemap.host.catalog import agent_names

    params = params_dict(raw)
    uri = uri_param(params)
    names = params.get("profiles")
    if names is not None:
        if not isinstance(names, list | tuple) or not all(isinstance(n, str) for n in names):
            raise InvalidParams("`profiles` must be a list of profile names")
        known = agent_names()
        unknown = [n for n in names if n not in known]
        if unknown:
            raise InvalidParams(
                f"unknown profile `{unknown[0]}`; available: {', '.join(known)}"
            )
    found = await located(engine, uri)
    if found is None:
        return None
    folder, _, key = found
    answer = await _compared(folder, key, list(names) if names is not None else None)
    return None if answer is None else {"uri": engine.canonical(uri), **answer}


async def _compared(folder: Folder, key: str, names: list[str] | None) -> dict[str, Any] | None:
    """The comparison of every agent in `names` (None: the selected ones), one agent at a time
    with a pause between two, in which a `$/cancelRequest` read meanwhile cancels the request.
    No snapshot is held across a pause — a change then would make the host fork its workspace
    for it —: each step takes a new one, of the same state while the folder's generation
    stays; a change during a pause starts the comparison again from the new state (at most
    MAX_COMPARE_RESTARTS times; then it runs through without pausing)."""
    for attempt in range(MAX_COMPARE_RESTARTS + 1):
        host, snap = folder.host, folder.snapshot()
        if host is None or snap is None:
            return None
        generation = host.generation
        agents = list(dict.fromkeys(snap.selected_agents() if names is None else names))
        pause = attempt < MAX_COMPARE_RESTARTS
        answer: dict[str, Any] = {"target": None, "cwd": None, "columns": []}
        for i, name in enumerate(agents):
            if i and pause:
                del snap
                await asyncio.sleep(STEP_PAUSE_S)
                if folder.host is not host or host.generation != generation:
                    break  # changed meanwhile: again, from the new state
                snap = host.snapshot(folder.agent())
            one = snap.compare(key, [name])
            answer["target"], answer["cwd"] = one.target, one.cwd
            answer["columns"] += [
                {
                    "profile": c.profile,
                    "title": c.title,
                    "summary": c.summary,
                    "overBudget": c.over_budget,
                    "explanation": explanation_json(snap, c.explanation),
                }
                for c in one.columns
            ]
        else:
            if not agents:  # no agent: the target and cwd alone
                none = snap.compare(key, [])
                answer["target"], answer["cwd"] = none.target, none.cwd
            return answer
    return None  # (not reached: the last attempt runs through)


async def rules_for_file(engine: Engine, raw: Any) -> dict[str, Any]:
    params = params_dict(raw)
    uri = uri_param(params)
    found = engine.locate(uri)
    if found is None:
        return {"rules": []}
    folder, key = found
    await engine.ready(folder)
    snap = folder.snapshot()
    if snap is None or key.startswith("/"):
        return {"rules": []}
    rules = []
    for rule, matched_by in snap.rules_for_file(key):
        doc = snap.document(rule)
        rules.append(
            {
                "path": rule,
                "uri": _file_uri(snap, rule),
                "globs": [g.pattern for g in doc.globs or []],
                "matchedBy": matched_by,
            }
        )
    return {"rules": rules}


def _instruction_files(
    snap: Snapshot, engine: Engine, folder: Folder, cancel: CancelToken
) -> list[dict[str, Any]]:
    from rulemap.host.listing import agent_documents, rule_matches

    out = []
    agent = folder.agent()
    for path in agent_documents(snap):
        cancel.check()  # parsing each document may take a while: stop once cancelled
        is_rule = snap.is_rule(path)
        scoped = snap.is_scoped(path)
        problems = {"error": 0, "warning": 0, "information": 0, "hint": 0}
        for finding in folder.findings(path):
            problems[finding.severity] += 1
        out.append(
            {
                "path": path,
                "uri": _file_uri(snap, path),
                "kind": "rule" if is_rule else "instruction",
                "scoped": scoped,
                "problems": problems,
                "matches": len(rule_matches(snap, path, agent)) if scoped else None,
                "chars": snap.document(path).chars,
            }
        )
    return out


async def instruction_files(engine: Engine, raw: Any) -> dict[str, Any]:
    params_dict(raw)
    files: list[dict[str, Any]] = []
    for folder in list(engine.folders.values()):
        await engine.ready(folder)
        if folder.host is None:
            continue
        engine.flush(folder)
        # Parsing every document of a big tree the first time takes a while: the worker does it.
        cancel = CancelToken()
        files.extend(await engine.on_replica(
            folder, _instruction_files, engine, folder, cancel, cancel=cancel
        ))
    return {"files": files}


async def graph(engine: Engine, raw: Any) -> dict[str, Any]:
    from rulemap.host.graphs import graph as graph_of

    params_dict(raw)
    roots = []
    for folder in list(engine.folders.values()):
        await engine.ready(folder)
        if folder.host is not None:
            roots.append(await engine.on_replica(folder, graph_of,
                                                 cancel=CancelToken()))
    return {"roots": roots}


async def profiles(engine: Engine, raw: Any) -> dict[str, Any]:
    from rulemap.host.catalog import agents
    from rulemap.host.listing import default_agent_of

    params = params_dict(raw)
    uri = params.get("uri")
    if uri is not None and not isinstance(uri, str):
        raise InvalidParams("`uri` must be a string")
    # the folder of `uri` when given, else the first folder
    located = engine.locate(uri) if uri else None
    folders = [located[0]] if located else list(engine.folders.values())
    active = default_agent_of(None)
    selected: list[str] | None = None
    said: dict[str, Any] = {}  # the selection with reasons, and the lead, once indexed
    # answered at once (no wait for indexing: clients ask this at start-up); before the folder
    # is indexed `selected` is just `active`, and the graphChanged sent after indexing tells
    # clients to ask again
    for folder in folders:
        snap = folder.snapshot()
        if snap is None and not folder.settings.profile:
            continue
        active = folder.agent() or default_agent_of(snap)
        if snap is not None:
            from rulemap.host.selection import selection_said

            selected, said = list(snap.selected_agents()), selection_said(snap)
        break
    return {
        "profiles": [
            {"name": p.name, "title": p.title, "description": p.description}
            for p in agents()
        ],
        "active": active,
        "selected": selected if selected is not None else [active],
        **said,
    }


async def session(engine: Engine, raw: Any) -> dict[str, Any] | None:
    """`rulemap/session`: a run replayed step by step for the folder holding `uri` — exactly
    what `rulemap session --json` prints. The transcript file is read here (the edge), a line
    at a time, the core parses the lines."""
    import asyncio

    from rulemap.host.catalog import UnknownProfile
    from rulemap.host.sessions import MAX_PATHS, parse_steps

    params = params_dict(raw)
    uri = uri_param(params)
    transcript, steps = params.get("transcript"), params.get("steps")
    profile, cwd = params.get("profile"), params.get("cwd")
    for name, value in (("transcript", transcript), ("profile", profile), ("cwd", cwd)):
        if value is not None and not isinstance(value, str):
            raise InvalidParams(f"`{name}` must be a string")
    if transcript is not None and (not transcript or "\0" in transcript):
        raise InvalidParams("`transcript` must be a file path")
    if steps is not None and not isinstance(steps, list | tuple):
        raise InvalidParams('`steps` must be a list of {"kind": "read" | "edit", "paths": [...]}')
    if steps is not None and len(steps) > MAX_PATHS:
        # each step has a path, and a run keeps at most MAX_PATHS of them
        raise InvalidParams(f"`steps` holds {len(steps)} entries; at most {MAX_PATHS}")
    indexed = await folder_of(engine, uri)
    if indexed is None:
        return None
    folder, host = indexed
    snap = host.snapshot()
    found: list[ToolStep] = []
    problems: list[Problem] = []
    if steps is not None:
        parsed = parse_steps([plain_value(s) for s in steps], snap.root)
        found.extend(parsed.steps)
        problems.extend(parsed.problems)
    allowed = _allowed_transcript(snap, transcript) if transcript is not None else None
    del snap  # not held across the waits below: a change meanwhile would fork the host for it
    if allowed is not None:
        # a long log takes seconds to read: in a thread, so the server answers meanwhile
        parsed = await asyncio.to_thread(_read_transcript, allowed, transcript or "")
        found.extend(parsed.steps)
        problems.extend(parsed.problems)
    where_cwd = None
    if cwd:
        where_cwd = cwd.strip("/")
        if where_cwd.startswith("/") or ".." in where_cwd.split("/"):
            raise InvalidParams("`cwd` must be a directory relative to the workspace folder")
    # a long run replays in the worker, step by step: a cancelled request stops at the next step
    cancel = CancelToken()
    try:
        return await engine.on_replica(
            folder, _replayed, found, profile or folder.agent(),
            where_cwd or None, problems, cancel, cancel=cancel,
        )
    except UnknownProfile as exc:
        raise InvalidParams(str(exc)) from None


def _replayed(
    snap: Snapshot, steps: list[ToolStep], profile: str | None, cwd: str | None,
    problems: list[Problem], cancel: CancelToken,
) -> dict[str, Any]:
    """Runs in the worker: the run replayed, its steps checked against `cancel`."""
    from rulemap.host.sessions import replay

    return replay(snap, steps, profile, cwd, problems, cancel.check).to_json()


def _allowed_transcript(snap: Snapshot, transcript: str) -> TranscriptFile:
    """The transcript file `transcript` (absolute, or relative to the folder), if it may be
    read: only from the workspace folder, `~/.claude/projects` or a directory the user granted
    (`transcript_places`), judged by the real path — a symlink in the folder leading out is
    refused — and before the file is even looked at, so that the answer tells nothing of files
    elsewhere (`host/sessions.py` decides, as for `rulemap session --file`). Messages name
    `transcript` (the client's own words), never what the file holds."""
    from rulemap.host.sessions import TranscriptRefused, agent_log_places, allowed_transcript

    where = transcript if transcript.startswith("/") else f"{snap.root}/{transcript}"
    try:
        return allowed_transcript(snap, where, named_by_user=False)
    except TranscriptRefused:
        raise InvalidParams(
            f"transcript {transcript}: not read: it is outside the workspace folder (symbolic "
            "links are followed to where they lead). The server reads transcripts inside the "
            f"folder, under {', '.join(agent_log_places())}, or under a directory you allow "
            "with `allowImportsFrom` in your user configuration "
            "(~/.config/rulemap/config.toml) or your editor's user settings"
        ) from None


def _read_transcript(allowed: TranscriptFile, transcript: str) -> Parsed:
    """The steps of an allowed transcript file, read a line at a time (in a thread)."""
    from rulemap.host.disk import ReadError

    try:
        parsed = allowed.read()
    except ReadError as exc:  # its messages say why (size, kind, permission), never content
        raise InvalidParams(f"transcript {transcript}: {exc}") from None
    if parsed is None:
        raise InvalidParams(f"transcript {transcript}: no such file")
    return parsed


def plain_value(value: Any, depth: int = 0) -> Any:
    """pygls' named tuples (nested params) as plain dicts and lists. Deeper than
    MAX_PARAMS_DEPTH is InvalidParams (params_dict refuses such params first; this guard
    keeps the recursion bounded for any other caller)."""
    if depth > MAX_PARAMS_DEPTH:
        raise InvalidParams(f"the params are nested more than {MAX_PARAMS_DEPTH} levels deep")
    as_dict = getattr(value, "_asdict", None)
    if callable(as_dict):
        return {k: plain_value(v, depth + 1) for k, v in as_dict().items()}
    if isinstance(value, Mapping):
        return {k: plain_value(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain_value(v, depth + 1) for v in value]
    return value
