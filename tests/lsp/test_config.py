"""Configuration: initializationOptions, workspace/configuration per folder, rulemap.toml,
invalid values, position encodings."""

from __future__ import annotations

import copy
from pathlib import Path

from lsprotocol import types
from tests.lsp.conftest import (
    open_doc,
    pulled,
    pulled_where,
    pushed,
    session,
    vscode_capabilities,
    wait_for,
    write,
)

BROKEN = "See @docs/missing.md\n"


def messages(lsp: object) -> str:
    return "\n".join(m.message for m in lsp.messages)  # type: ignore[attr-defined]


async def test_invalid_initialization_options_fall_back(tmp_path: Path) -> None:
    write(tmp_path, {"AGENTS.md": BROKEN})
    options = {
        "hover": {"sourceFiles": "sometimes"},
        "diagnostics": {"debounceMs": -5},
        "maxChars": "lots",
        "severty": {},
        "severity": {"broken-import": "warning"},
    }
    async with session(tmp_path, "neovim", init_options=options) as lsp:
        diags = await pushed(
            lsp, (tmp_path / "AGENTS.md").as_uri(), lambda c: c == ["broken-import"]
        )
        # the valid key still applies
        assert diags[0].severity == types.DiagnosticSeverity.Warning
        text = await wait_for(
            lambda: messages(lsp).count("Rulemap:") >= 4 and messages(lsp), what="messages"
        )
        assert "hover.sourceFiles" in text and "debounceMs" in text and "maxChars" in text
        assert "did you mean `severity`" in text


async def test_invalid_rulemap_toml_then_fixed(tmp_path: Path) -> None:
    write(tmp_path, {"AGENTS.md": BROKEN, "rulemap.toml": 'maxChars = "x"\n'})
    async with session(tmp_path, "vscode") as lsp:
        uri = open_doc(lsp, tmp_path / "AGENTS.md")
        diags = await pulled(lsp, uri, lambda c: c == ["broken-import"])
        assert diags[0].severity == types.DiagnosticSeverity.Error  # defaults
        text = await wait_for(
            lambda: "rulemap.toml" in messages(lsp) and messages(lsp), what="message"
        )
        assert "maxChars" in text
        assert any(m.type == types.MessageType.Error for m in lsp.messages)
        write(tmp_path, {"rulemap.toml": '[severity]\nbroken-import = "information"\n'})
        lsp.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[
                    types.FileEvent(
                        uri=(tmp_path / "rulemap.toml").as_uri(), type=types.FileChangeType.Changed
                    )
                ]
            )
        )

        await pulled_where(
            lsp, uri, lambda d: [x.severity for x in d] == [types.DiagnosticSeverity.Information]
        )


async def test_workspace_configuration_per_folder_and_change(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    write(one, {"AGENTS.md": BROKEN})
    write(two, {"AGENTS.md": BROKEN})
    async with session([one, two], "vscode") as lsp:
        lsp.set_configuration(
            {"severity": {"broken-import": "hint"}}, section="rulemap", scope_uri=two.as_uri()
        )
        # settings are pulled at start-up; the test sets them just after, so announce it
        lsp.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        uri_one = open_doc(lsp, one / "AGENTS.md")
        uri_two = open_doc(lsp, two / "AGENTS.md")

        async def severity(uri: str, wanted: types.DiagnosticSeverity) -> None:
            await pulled_where(lsp, uri, lambda d: [x.severity for x in d] == [wanted])

        await severity(uri_two, types.DiagnosticSeverity.Hint)
        await severity(uri_one, types.DiagnosticSeverity.Error)
        lsp.set_configuration(
            {"severity": {"broken-import": "warning"}}, section="rulemap", scope_uri=one.as_uri()
        )
        lsp.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        await severity(uri_one, types.DiagnosticSeverity.Warning)
        await severity(uri_two, types.DiagnosticSeverity.Hint)


async def test_position_encoding_negotiation(tmp_path: Path) -> None:
    write(tmp_path, {"AGENTS.md": "héllo 𝄞 @docs/missing.md\n"})
    # default: UTF-16
    async with session(tmp_path, "vscode") as lsp:
        assert lsp.init_result.capabilities.position_encoding in (None, "utf-16")  # type: ignore[attr-defined]
        uri = open_doc(lsp, tmp_path / "AGENTS.md")
        diags = await pulled(lsp, uri, lambda c: c == ["broken-import"])
        assert diags[0].range.start.character == 9  # h é l l o ␠ 𝄞(2) ␠
    caps = copy.deepcopy(vscode_capabilities())
    caps.general = types.GeneralClientCapabilities(
        position_encodings=[types.PositionEncodingKind.Utf16, types.PositionEncodingKind.Utf8]
    )
    async with session(tmp_path, "vscode", capabilities=caps) as lsp:
        assert lsp.init_result.capabilities.position_encoding == "utf-8"  # type: ignore[attr-defined]
        uri = open_doc(lsp, tmp_path / "AGENTS.md")
        diags = await pulled(lsp, uri, lambda c: c == ["broken-import"])
        assert diags[0].range.start.character == 12  # é is 2 bytes, 𝄞 is 4


async def test_neovim_settings_by_notification_and_unsaved_rulemap_toml(tmp_path: Path) -> None:
    write(tmp_path, {"AGENTS.md": BROKEN, "rulemap.toml": "maxChars = 32000\n"})
    async with session(tmp_path, "neovim") as lsp:
        uri = (tmp_path / "AGENTS.md").as_uri()
        await pushed(lsp, uri, lambda c: c == ["broken-import"])
        # Neovim 0.7 has no workspace/configuration: settings come with the notification.
        lsp.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(
                settings={"rulemap": {"severity": {"broken-import": "warning"}}}
            )
        )
        await wait_for(
            lambda: (
                [d.severity for d in lsp.diagnostics[uri]] == [types.DiagnosticSeverity.Warning]
            ),
            what="the new severity",
        )
        # An unsaved rulemap.toml counts too (it is what the user sees) ...
        toml = open_doc(
            lsp,
            tmp_path / "rulemap.toml",
            text='[severity]\nbroken-import = "off"\n',
            language="toml",
        )
        # ... but settings still override it: drop the override to see the file's effect.
        lsp.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"rulemap": {}})
        )
        await wait_for(
            lambda: uri in lsp.diagnostics and not lsp.diagnostics[uri],
            what="broken-import switched off by the unsaved rulemap.toml",
        )
        assert (tmp_path / "rulemap.toml").read_text() == "maxChars = 32000\n"
        del toml
