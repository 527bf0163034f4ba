"""The feature providers called the way the tests hold a workspace: each wrapper opens the
workspace's `AnalysisHost` snapshot (in the agent the call names) and passes it on, so that
the tests keep asking `hover(ws, …)` while the providers take the engine's edge API.

Code actions are given the findings of a whole-workspace check unless the test passes the
published ones (the server always passes what the client was shown)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lsprotocol import types

from rulemap import analysis
from rulemap.host import AnalysisHost, Snapshot
from rulemap.lsp import features
from rulemap.lsp.features import SHOW_REFERENCES
from rulemap.lsp.settings import SourceFiles
from rulemap.model import Finding
from rulemap.text.positions import Encoding
from rulemap.workspace import Workspace


def snap(ws: Workspace, profile: str | None = None) -> Snapshot:
    return AnalysisHost(ws).snapshot(profile)


def hover(ws: Workspace, key: str, pos: types.Position, encoding: Encoding = "utf-16",
          settings: Mapping[str, Any] | SourceFiles | None = None) -> types.Hover | None:
    """`settings`: the `rulemap` section's `profile` (the snapshot's agent), or where a source
    file's hover shows (`hover.sourceFiles`, as the server passes it)."""
    if isinstance(settings, str):
        return features.hover(snap(ws), key, pos, encoding, settings)
    profile = (settings or {}).get("profile")
    return features.hover(snap(ws, profile), key, pos, encoding)


def completion(ws: Workspace, key: str, pos: types.Position, encoding: Encoding = "utf-16",
               profile: str | None = None) -> types.CompletionList:
    return features.completion(snap(ws, profile), key, pos, encoding)


def code_lenses(ws: Workspace, key: str, command: str | None = SHOW_REFERENCES,
                profile: str | None = None) -> list[types.CodeLens]:
    return features.code_lenses(snap(ws, profile), key, command)


def inlay_hints(ws: Workspace, key: str, range_: types.Range | None = None,
                encoding: Encoding = "utf-16", profile: str | None = None
                ) -> list[types.InlayHint]:
    return features.inlay_hints(snap(ws, profile), key, range_, encoding)


def code_actions(ws: Workspace, key: str, range_: types.Range,
                 diagnostics: list[types.Diagnostic] | None = None,
                 encoding: Encoding = "utf-16",
                 published: Sequence[Finding] | None = None) -> list[types.CodeAction]:
    found = analysis.check(ws) if published is None else published
    return features.code_actions(snap(ws), key, range_, diagnostics, encoding, found)


def document_links(ws: Workspace, key: str, encoding: Encoding = "utf-16",
                   tooltips: bool = True) -> list[types.DocumentLink]:
    return features.document_links(snap(ws), key, encoding, tooltips)


def definition(ws: Workspace, key: str, pos: types.Position,
               encoding: Encoding = "utf-16") -> list[types.Location]:
    return features.definition(snap(ws), key, pos, encoding)


def references(ws: Workspace, key: str, pos: types.Position, encoding: Encoding = "utf-16",
               limit: int = 200) -> list[types.Location]:
    return features.references(snap(ws), key, pos, encoding, limit)


def document_symbols(ws: Workspace, key: str,
                     encoding: Encoding = "utf-16") -> list[types.DocumentSymbol]:
    return features.document_symbols(snap(ws), key, encoding)


def workspace_symbols(ws: Workspace, query: str = "") -> list[types.WorkspaceSymbol]:
    return features.workspace_symbols(snap(ws), query)


def will_rename_files(ws: Workspace, renames: Sequence[tuple[str, str]],
                      encoding: Encoding = "utf-16") -> types.WorkspaceEdit | None:
    return features.will_rename_files(snap(ws), renames, encoding)


__all__ = [
    "code_actions", "code_lenses", "completion", "definition", "document_links",
    "document_symbols", "hover", "inlay_hints", "references", "will_rename_files",
    "workspace_symbols",
]
