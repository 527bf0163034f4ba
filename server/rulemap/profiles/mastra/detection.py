"""Whether a repository uses Mastra: a `package.json` that depends on `@mastra/core`, the
package `AgentsMDInjector` is imported from (`import { AgentsMDInjector } from
'@mastra/core/processors'`, the specification's usage). Mastra is a library: files named
`CONTEXT.md` alone do not show it is used (tldraw's do not: issue #39).

Cost: only files named `package.json` are read (through the workspace's reader, so a result
cache knows them), and only those holding the text `@mastra/core` are parsed.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Final

from rulemap.readers.base import ReadError

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

PACKAGE: Final = "@mastra/core"
MANIFEST: Final = "package.json"
# the tables of a package.json that name what it installs
DEPENDENCY_TABLES: Final = (
    "dependencies", "devDependencies", "peerDependencies", "optionalDependencies",
)


def manifests(ws: Workspace) -> tuple[str, ...]:
    """Every `package.json` of the workspace, the shallowest first."""
    return tuple(sorted((key for key in ws.files.with_suffix(".json")
                         if key.rsplit("/", 1)[-1] == MANIFEST),
                        key=lambda key: (key.count("/"), key)))


def mastra_manifest(ws: Workspace) -> str | None:
    """The shallowest `package.json` of the workspace that depends on `@mastra/core` (None:
    none does)."""
    return next((key for key in manifests(ws) if depends_on_mastra(ws, key)), None)


def depends_on_mastra(ws: Workspace, key: str) -> bool:
    """Whether the package.json `key` names `@mastra/core` in one of its dependency tables
    (an unreadable or malformed file names nothing)."""
    try:
        data = ws.reader.read_bytes(ws.abs(key))
    except ReadError:
        return False
    if PACKAGE.encode() not in data:
        return False
    try:
        manifest = json.loads(data)
    except (ValueError, RecursionError):
        return False
    if not isinstance(manifest, dict):
        return False
    return any(isinstance(table, dict) and PACKAGE in table
               for table in (manifest.get(name) for name in DEPENDENCY_TABLES))
