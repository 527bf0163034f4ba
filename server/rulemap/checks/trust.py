"""`untrusted-config`: a repository's configuration sets a key only the user may set.

`allowImportsFrom` widens what Rulemap reads beyond the workspace, so a repository cannot grant
it to itself (its value is ignored, see rulemap.config); the finding sits on the key, in
`rulemap.toml` or `pyproject.toml`, and says how the user can grant it instead.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from rulemap.model import Finding, Span

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

# How the user grants access outside the workspace (docs/security.md).
HOW_TO_GRANT = (
    "`allowImportsFrom` in your user configuration file (`~/.config/rulemap/config.toml`, "
    "or the file $RULEMAP_CONFIG names), `--allow-imports-from DIR` on the command line, or "
    "`rulemap.allowImportsFrom` in your editor's user settings"
)
MAX_VALUE_CHARS = 120


def check(ws: Workspace) -> list[Finding]:
    out: list[Finding] = []
    for item in ws.config.ignored:
        if not item.file:
            continue
        where = item.file + (" [tool.rulemap]" if item.file == "pyproject.toml" else "")
        out.append(
            Finding(
                item.file,
                Span.at(item.line, item.start, item.end),
                "warning",
                "untrusted-config",
                f"`{item.key}` in {where} is ignored: a repository cannot grant itself access "
                f"outside the workspace. To let imports read {_show(item.value)}, grant it "
                f"yourself: {HOW_TO_GRANT}",
            )
        )
    return out


def _show(value: object) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    if len(text) > MAX_VALUE_CHARS:
        text = text[: MAX_VALUE_CHARS - 1] + "…"
    return f"`{text}`"
