"""Every setting the VS Code extension contributes reaches the server in the `rulemap`
section it reads (`workspace/configuration`): each, at its default, must parse without a
message — else every user sees an error notification on start (the client-only
`rulemap.unseenLines.enabled` did, in the end-to-end run's screenshots)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rulemap.lsp.settings import parse_settings

PACKAGE = Path(__file__).resolve().parents[2] / "client-vscode" / "package.json"


def _section() -> dict[str, Any]:
    """The `rulemap` section as VS Code builds it from the contributed defaults: dotted
    names nested into objects."""
    properties = json.loads(PACKAGE.read_text(encoding="utf-8"))["contributes"]["configuration"]
    if isinstance(properties, list):
        merged: dict[str, Any] = {}
        for part in properties:
            merged.update(part["properties"])
        properties = merged
    else:
        properties = properties["properties"]
    section: dict[str, Any] = {}
    for name, schema in properties.items():
        parts = name.split(".")
        assert parts[0] == "rulemap", name
        node = section
        for part in parts[1:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = schema.get("default")
    return section


def test_every_contributed_setting_at_its_default_parses_without_a_message() -> None:
    section = _section()
    assert "unseenLines" in section and "server" in section  # the client's own are in it
    settings, errors = parse_settings(section, "workspace settings")
    assert errors == []
    assert settings.hover_source_files == section["hover"]["sourceFiles"]
