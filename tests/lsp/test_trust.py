"""Trust in the language server (docs/security.md): a folder cannot let imports read outside
it — neither its `rulemap.toml` nor its settings (`workspace/configuration`,
`workspace/didChangeConfiguration`, which may carry `.vscode/settings.json` and the like). The
user can: `allowImportsFrom` in initializationOptions (how the user's editor starts the
server) or in the user's configuration file. HOME is a temporary directory, never the real one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types
from tests.lsp.conftest import codes, plain, pushed, session, wait_for, write

SECRET = "PRIVATE-KEY-not-a-real-one"


def hostile(
    tmp_path: Path, toml: str = 'allowImportsFrom = ["~"]\n'
) -> tuple[Path, dict[str, str]]:
    home, root = tmp_path / "home", tmp_path / "repo"
    write(home, {".ssh/id_rsa": SECRET + "\n"})
    files = {"AGENTS.md": "# Project\n@~/.ssh/id_rsa\n"}
    if toml:
        files["rulemap.toml"] = toml
    write(root, files)
    # RULEMAP_CONFIG empty = unset; the user configuration file would be home/.config/...
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "RULEMAP_CONFIG": ""}
    return root, env


async def explained_text(lsp: Any, root: Path) -> str:
    result = await lsp.protocol.send_request_async(
        "rulemap/effectiveInstructions",
        {"uri": (root / "src" / "x.ts").as_uri(), "includeText": True},
    )
    return str(plain(result))


def messages(lsp: Any) -> str:
    return "\n".join(m.message for m in lsp.messages)


async def test_rulemap_toml_cannot_grant_and_is_reported_on_the_key(tmp_path: Path) -> None:
    root, env = hostile(tmp_path, 'maxChars = 32000\nallowImportsFrom = ["~"]\n')
    async with session(root, "neovim", env=env) as lsp:
        agents = await pushed(
            lsp, (root / "AGENTS.md").as_uri(), lambda c: c == ["import-outside-workspace"]
        )
        assert agents[0].range.start.line == 1
        toml = await pushed(
            lsp, (root / "rulemap.toml").as_uri(), lambda c: c == ["untrusted-config"]
        )
        assert toml[0].severity == types.DiagnosticSeverity.Warning
        assert toml[0].range == types.Range(
            start=types.Position(line=1, character=0), end=types.Position(line=1, character=16)
        )
        assert "ignored" in toml[0].message and "initializationOptions" not in toml[0].message
        assert SECRET not in await explained_text(lsp, root)


async def test_workspace_settings_cannot_grant(tmp_path: Path) -> None:
    root, env = hostile(tmp_path, toml="")
    async with session(
        root, "vscode", env=env, configuration={"allowImportsFrom": ["~"]}
    ) as lsp:
        # the folder's workspace/configuration answer asks for `~`: ignored, with a message
        lsp.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        text = await wait_for(
            lambda: "allowImportsFrom" in messages(lsp) and messages(lsp), what="message"
        )
        assert "workspace/configuration is ignored" in text
        assert SECRET not in await explained_text(lsp, root)
        report = await lsp.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(
                text_document=types.TextDocumentIdentifier(uri=(root / "AGENTS.md").as_uri())
            )
        )
        assert codes(report.items) == ["import-outside-workspace"]  # type: ignore[union-attr]


async def test_did_change_configuration_cannot_grant(tmp_path: Path) -> None:
    root, env = hostile(tmp_path, toml="")
    async with session(root, "neovim", env=env) as lsp:
        uri = (root / "AGENTS.md").as_uri()
        await pushed(lsp, uri, lambda c: c == ["import-outside-workspace"])
        lsp.graph_changes.clear()
        lsp.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(
                settings={"rulemap": {"allowImportsFrom": ["~"], "maxChars": 20000}}
            )
        )
        await wait_for(
            lambda: "didChangeConfiguration is ignored" in messages(lsp), what="message"
        )
        await wait_for(lambda: lsp.graph_changes, what="graphChanged")
        assert SECRET not in await explained_text(lsp, root)
        assert codes(lsp.diagnostics[uri]) == ["import-outside-workspace"]


async def test_initialization_options_grant(tmp_path: Path) -> None:
    # the user's editor configuration; the repository's own setting is still reported
    root, env = hostile(tmp_path)
    async with session(
        root, "neovim", env=env, init_options={"allowImportsFrom": ["~/.ssh"]}
    ) as lsp:
        await pushed(lsp, (root / "rulemap.toml").as_uri(), lambda c: c == ["untrusted-config"])
        assert SECRET in await explained_text(lsp, root)
        assert not lsp.diagnostics.get((root / "AGENTS.md").as_uri())
        assert "allowImportsFrom" not in messages(lsp)


async def test_same_value_in_both_places_is_no_news(tmp_path: Path) -> None:
    # clients that send one settings object as initializationOptions and as the answers
    root, env = hostile(tmp_path, toml="")
    grant = {"allowImportsFrom": ["~/.ssh"]}
    async with session(root, "vscode", env=env, init_options=grant, configuration=grant) as lsp:
        assert SECRET in await explained_text(lsp, root)
        lsp.graph_changes.clear()
        lsp.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        await wait_for(lambda: lsp.graph_changes, what="graphChanged")
        assert "allowImportsFrom" not in messages(lsp)


async def test_user_configuration_file_grants(tmp_path: Path) -> None:
    root, env = hostile(tmp_path)
    write(tmp_path / "home", {".config/rulemap/config.toml": 'allowImportsFrom = ["~/.ssh"]\n'})
    async with session(root, "neovim", env=env) as lsp:
        await pushed(lsp, (root / "rulemap.toml").as_uri(), lambda c: c == ["untrusted-config"])
        assert SECRET in await explained_text(lsp, root)


async def test_invalid_user_configuration_file_is_reported(tmp_path: Path) -> None:
    root, env = hostile(tmp_path, toml="")
    bad = tmp_path / "bad.toml"
    bad.write_text('allowImportsFrom = "~"\n')
    async with session(root, "neovim", env={**env, "RULEMAP_CONFIG": str(bad)}) as lsp:
        text = await wait_for(lambda: str(bad) in messages(lsp) and messages(lsp), what="message")
        assert "user configuration error" in text
        agents = (root / "AGENTS.md").as_uri()
        await pushed(lsp, agents, lambda c: c == ["import-outside-workspace"])
        assert SECRET not in await explained_text(lsp, root)


# ----- the settings split, without a server -----------------------------------------------------


def test_folder_settings_take_the_grant_from_initialization_options_only() -> None:
    from rulemap.lsp.settings import folder_settings

    init = {"allowImportsFrom": ["~/notes"], "maxChars": 100}
    raw, settings, errors = folder_settings(
        init, {"allowImportsFrom": ["/"]}, {"allowImportsFrom": ["~"], "maxChars": 5}
    )
    assert settings.allow_imports_from == ("~/notes",)
    assert "allowImportsFrom" not in settings.overrides and settings.overrides == {"maxChars": 5}
    assert raw["allowImportsFrom"] == ["~/notes"]
    assert len(errors) == 2
    assert "workspace/didChangeConfiguration is ignored" in errors[0]
    assert "workspace/configuration is ignored" in errors[1]
    # no grant at all from the folder's answer alone
    _, settings, errors = folder_settings({}, {}, {"allowImportsFrom": ["~"]})
    assert settings.allow_imports_from == () and len(errors) == 1
    # the same value as initializationOptions, an empty list or null: no message
    _, settings, errors = folder_settings(init, {"allowImportsFrom": None}, dict(init))
    assert settings.allow_imports_from == ("~/notes",) and errors == []
    assert folder_settings({}, {}, {"allowImportsFrom": []})[2] == []


def test_invalid_grant_in_initialization_options_is_reported() -> None:
    from rulemap.lsp.settings import folder_settings

    _, settings, errors = folder_settings({"allowImportsFrom": ["relative"]}, {}, None)
    assert settings.allow_imports_from == ()
    assert len(errors) == 1 and "absolute" in errors[0] and "ignoring it" in errors[0]
