"""Rulemap's LSP extensions (docs/protocol.md): the results as plain JSON-ready dicts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rulemap.lsp.diagnostics import uri_for

if TYPE_CHECKING:
    from rulemap.lsp.folders import Folder
    from rulemap.lsp.state import Engine
    from rulemap.workspace import Workspace


class InvalidParams(ValueError):
    pass


def params_dict(params: Any) -> dict[str, Any]:
    """pygls hands custom-method params over as named tuples (or None); make them a dict."""
    if params is None:
        return {}
    if isinstance(params, Mapping):
        return dict(params)
    as_dict = getattr(params, "_asdict", None)
    if callable(as_dict):
        return dict(as_dict())
    if isinstance(params, list | tuple):
        raise InvalidParams("params must be an object")
    raise InvalidParams(f"params must be an object, not {type(params).__name__}")


def _uri_param(params: dict[str, Any]) -> str:
    uri = params.get("uri")
    if not isinstance(uri, str):
        raise InvalidParams("`uri` (a string) is required")
    return uri


def _file_uri(ws: Workspace, path: str) -> str:
    return uri_for(ws.abs(path))


async def effective_instructions(engine: Engine, raw: Any) -> dict[str, Any] | None:
    from rulemap.profiles import UnknownProfile

    params = params_dict(raw)
    uri = _uri_param(params)
    profile = params.get("profile")
    if profile is not None and not isinstance(profile, str):
        raise InvalidParams("`profile` must be a string")
    found = engine.locate(uri)
    if found is None:
        return None
    folder, key = found
    ws = await engine.ready(folder)
    if ws is None or key.startswith("/") or not key:
        return None
    try:
        explanation = ws.explain(key, profile=profile or folder.settings.profile)
    except UnknownProfile as exc:
        raise InvalidParams(str(exc)) from None
    result: dict[str, Any] = explanation.to_json()
    for entry, loaded in zip(result["files"], explanation.files, strict=True):
        entry["uri"] = _file_uri(ws, loaded.path)
        if loaded.imported_by is not None and loaded.import_line is not None:
            entry["line"] = loaded.import_line
    for entry, skipped in zip(result["skipped"], explanation.skipped, strict=True):
        entry["uri"] = _file_uri(ws, skipped.path)
    result["uri"] = engine.canonical(uri)
    if params.get("includeText"):
        result["text"] = explanation.render()
    return result


async def rules_for_file(engine: Engine, raw: Any) -> dict[str, Any]:
    params = params_dict(raw)
    uri = _uri_param(params)
    found = engine.locate(uri)
    if found is None:
        return {"rules": []}
    folder, key = found
    ws = await engine.ready(folder)
    if ws is None or key.startswith("/"):
        return {"rules": []}
    rules = []
    for rule, matched_by in ws.rules_for_file(key):
        doc = ws.document(rule)
        rules.append(
            {
                "path": rule,
                "uri": _file_uri(ws, rule),
                "globs": [g.pattern for g in doc.globs or []],
                "matchedBy": matched_by,
            }
        )
    return {"rules": rules}


def _instruction_files(ws: Workspace, engine: Engine, folder: Folder) -> list[dict[str, Any]]:
    out = []
    for path in ws.all_documents():
        is_rule = ws.is_rule(path)
        scoped = is_rule and ws.is_scoped(path)
        problems = {"error": 0, "warning": 0, "information": 0, "hint": 0}
        for finding in folder.findings(path):
            problems[finding.severity] += 1
        out.append(
            {
                "path": path,
                "uri": _file_uri(ws, path),
                "kind": "rule" if is_rule else "instruction",
                "scoped": scoped,
                "problems": problems,
                "matches": len(ws.rule_matches(path)) if scoped else None,
                "chars": ws.document(path).chars,
            }
        )
    return out


async def instruction_files(engine: Engine, raw: Any) -> dict[str, Any]:
    params_dict(raw)
    files: list[dict[str, Any]] = []
    for folder in list(engine.folders.values()):
        ws = await engine.ready(folder)
        if ws is None:
            continue
        engine.flush(folder)
        # Parsing every document of a big tree the first time takes a while: the worker does it.
        files.extend(await engine.on_replica(folder, _instruction_files, engine, folder))
    return {"files": files}


async def graph(engine: Engine, raw: Any) -> dict[str, Any]:
    from rulemap.graph_export import build_graph

    params_dict(raw)
    roots = []
    for folder in list(engine.folders.values()):
        ws = await engine.ready(folder)
        if ws is not None:
            roots.append(await engine.on_replica(folder, build_graph))
    return {"roots": roots}


async def profiles(engine: Engine, raw: Any) -> dict[str, Any]:
    from rulemap.profiles import PROFILES

    params_dict(raw)
    active = "cogitator"
    for folder in engine.folders.values():
        if folder.settings.profile:
            active = folder.settings.profile
            break
        if folder.ws is not None:
            active = folder.ws.config.profile
            break
    return {
        "profiles": [
            {"name": p.name, "title": p.title, "description": p.description}
            for p in PROFILES.values()
        ],
        "active": active,
    }
