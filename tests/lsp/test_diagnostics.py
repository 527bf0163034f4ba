"""Diagnostics end to end: push (Neovim 0.7) and pull (VS Code), edits, files on disk."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from tests.lsp.conftest import change_doc, codes, open_doc, pulled, pushed, session, wait_for, write

BROKEN = "# Rules\n\nSee @docs/guide.md for more.\n"


async def test_push_every_document_with_full_details(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "AGENTS.md": BROKEN,
            "CLAUDE.md": "@a.md\n",
            "a.md": "@b.md\n",
            "b.md": "@a.md\n",
            ".claude/rules/api.md": '---\npaths:\n  - "nowhere/**/*.ts"\n---\nUse REST.\n',
            "src/x.ts": "x\n",
        },
    )
    async with session(tmp_path, "neovim") as lsp:
        agents = (tmp_path / "AGENTS.md").as_uri()
        # Nothing is open: every instruction file and rule is linted anyway.
        # (claude-code, detected by CLAUDE.md, adds instructions-shadowed on AGENTS.md)
        diags = await pushed(lsp, agents, lambda c: "broken-import" in c)
        broken = next(d for d in diags if d.code == "broken-import")
        assert broken.range == types.Range(
            start=types.Position(line=2, character=4), end=types.Position(line=2, character=18)
        )
        assert broken.source == "rulemap"
        assert broken.severity == types.DiagnosticSeverity.Error
        assert broken.code_description is not None
        assert broken.code_description.href.endswith("#broken-import")
        assert any(f["kind"] == "create" for f in broken.data["fixes"])
        rule = await pushed(
            lsp, (tmp_path / ".claude/rules/api.md").as_uri(), lambda c: "unmatched-glob" in c
        )
        assert rule[0].range.start.line == 2
        cycle = await pushed(lsp, (tmp_path / "b.md").as_uri(), lambda c: "import-cycle" in c)
        related = cycle[0].related_information or []
        assert {Path(r.location.uri[len("file://") :]).name for r in related} == {"a.md", "b.md"}


async def test_push_unsaved_edit_clears_and_brings_back(tmp_path: Path) -> None:
    write(tmp_path, {"AGENTS.md": BROKEN, "docs/guide2.md": "Guide.\n"})
    async with session(tmp_path, "neovim") as lsp:
        uri = open_doc(lsp, tmp_path / "AGENTS.md")
        await pushed(lsp, uri, lambda c: "broken-import" in c)
        change_doc(lsp, uri, BROKEN.replace("guide.md", "guide2.md"), 2)
        await pushed(lsp, uri, lambda c: c == [])
        change_doc(lsp, uri, BROKEN, 3)
        await pushed(lsp, uri, lambda c: c == ["broken-import"])
        # the disk never changed
        assert (tmp_path / "AGENTS.md").read_text() == BROKEN


async def test_pull_result_ids_and_unchanged(tmp_path: Path) -> None:
    write(tmp_path, {"AGENTS.md": BROKEN, "CLAUDE.md": "@nope/missing.md\n"})
    async with session(tmp_path, "vscode") as lsp:
        uri = open_doc(lsp, tmp_path / "AGENTS.md")
        # claude-code (detected by CLAUDE.md) adds instructions-shadowed from the whole check:
        # once it is there, the whole check has run and every file has its report
        await pulled(lsp, uri, lambda c: c == ["broken-import", "instructions-shadowed"])
        first = await lsp.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        assert isinstance(first, types.RelatedFullDocumentDiagnosticReport) and first.result_id
        again = await lsp.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                previous_result_id=first.result_id,
            )
        )
        assert isinstance(again, types.RelatedUnchangedDocumentDiagnosticReport)
        assert again.result_id == first.result_id
        # No pushes in pull mode.
        assert lsp.diagnostics == {}
        # workspace/diagnostic covers files that are not open.
        report = await lsp.workspace_diagnostic_async(
            types.WorkspaceDiagnosticParams(previous_result_ids=[])
        )
        by_uri = {item.uri: item for item in report.items}
        claude = by_uri[(tmp_path / "CLAUDE.md").as_uri()]
        assert isinstance(claude, types.WorkspaceFullDocumentDiagnosticReport)
        assert codes(claude.items) == ["broken-import"]
        previous = [
            types.PreviousResultId(uri=i.uri, value=i.result_id)
            for i in report.items
            if i.result_id
        ]
        report2 = await lsp.workspace_diagnostic_async(
            types.WorkspaceDiagnosticParams(previous_result_ids=previous)
        )
        assert all(
            isinstance(i, types.WorkspaceUnchangedDocumentDiagnosticReport) for i in report2.items
        )


async def test_pull_unsaved_edit_and_refresh(tmp_path: Path) -> None:
    write(
        tmp_path, {"AGENTS.md": BROKEN, "docs/guide2.md": "Guide.\n", "CLAUDE.md": "@docs/new.md\n"}
    )
    async with session(tmp_path, "vscode") as lsp:
        uri = open_doc(lsp, tmp_path / "AGENTS.md")
        # (a pull is never stale: claude-code's instructions-shadowed, from the whole check, is
        # in the first answer already)
        await pulled(lsp, uri, lambda c: "broken-import" in c)
        change_doc(lsp, uri, BROKEN.replace("guide.md", "guide2.md"), 2)
        # VS Code pulls right after didChange: the answer already reflects the edit.
        report = await lsp.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
        # (claude-code's instructions-shadowed, from the whole check, may be there: an edit
        # keeps every agent's findings)
        assert "broken-import" not in codes(report.items)
        # A file another (closed) document imports appears: the server asks for a refresh.
        before = lsp.diagnostic_refresh_count
        write(tmp_path, {"docs/new.md": "New.\n"})
        lsp.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[
                    types.FileEvent(
                        uri=(tmp_path / "docs/new.md").as_uri(), type=types.FileChangeType.Created
                    )
                ]
            )
        )
        await wait_for(
            lambda: lsp.diagnostic_refresh_count > before, what="workspace/diagnostic/refresh"
        )
        await pulled(lsp, (tmp_path / "CLAUDE.md").as_uri(), lambda c: c == [])


async def test_vscode_created_file_fixes_import(tmp_path: Path) -> None:
    write(tmp_path, {"AGENTS.md": BROKEN})
    async with session(tmp_path, "vscode") as lsp:
        uri = open_doc(lsp, tmp_path / "AGENTS.md")
        await pulled(lsp, uri, lambda c: c == ["broken-import"])
        write(tmp_path, {"docs/guide.md": "The guide.\n"})
        lsp.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[
                    types.FileEvent(
                        uri=(tmp_path / "docs/guide.md").as_uri(), type=types.FileChangeType.Created
                    )
                ]
            )
        )
        await pulled(lsp, uri, lambda c: c == [])
        # an editor's atomic save (deleted + created in one batch) keeps the file
        guide = (tmp_path / "docs/guide.md").as_uri()
        lsp.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[
                    types.FileEvent(uri=guide, type=types.FileChangeType.Deleted),
                    types.FileEvent(uri=guide, type=types.FileChangeType.Created),
                ]
            )
        )
        await asyncio.sleep(0.5)
        await pulled(lsp, uri, lambda c: c == [])
        # ... and deleting it breaks the import again
        (tmp_path / "docs/guide.md").unlink()
        lsp.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[
                    types.FileEvent(
                        uri=(tmp_path / "docs/guide.md").as_uri(), type=types.FileChangeType.Deleted
                    )
                ]
            )
        )
        await pulled(lsp, uri, lambda c: c == ["broken-import"])


async def test_neovim_created_file_fixes_import_via_server_watcher(tmp_path: Path) -> None:
    # only the default model: claude-code (detected by CLAUDE.md) would add its own finding
    write(tmp_path, {"AGENTS.md": BROKEN, "CLAUDE.md": "@docs/guide.md\n",
                     "rulemap.toml": 'profiles = ["cogitator"]\n'})
    async with session(tmp_path, "neovim") as lsp:
        agents = (tmp_path / "AGENTS.md").as_uri()
        claude = (tmp_path / "CLAUDE.md").as_uri()
        await pushed(lsp, agents, lambda c: c == ["broken-import"])
        await pushed(lsp, claude, lambda c: c == ["broken-import"])
        await asyncio.sleep(0.3)  # let the observer settle
        write(tmp_path, {"docs/guide.md": "The guide.\n"})  # no notification: the server watches
        await pushed(lsp, agents, lambda c: c == [])
        await pushed(lsp, claude, lambda c: c == [])
        (tmp_path / "docs/guide.md").rename(tmp_path / "docs/renamed.md")
        await pushed(lsp, agents, lambda c: c == ["broken-import"])


async def test_watchers_registered_only_with_dynamic_registration(tmp_path: Path) -> None:
    write(tmp_path, {"AGENTS.md": "Hello.\n"})
    async with session(tmp_path, "vscode") as lsp:
        regs = await wait_for(lambda: lsp.registrations, what="client/registerCapability")  # type: ignore[attr-defined]
        watched = [r for r in regs if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES]
        assert len(watched) == 1
        globs = {w["globPattern"] for w in watched[0].register_options["watchers"]}
        assert {"**/*", "**/*.md", "**/.claude/**", "**/rulemap.toml", "**/pyproject.toml"} <= globs
    async with session(tmp_path, "neovim") as lsp:
        await asyncio.sleep(0.5)
        assert lsp.registrations == []  # type: ignore[attr-defined]


async def test_deleted_document_diagnostics_are_cleared(tmp_path: Path) -> None:
    write(tmp_path, {"AGENTS.md": "Hi.\n", "pkg/AGENTS.md": "@missing/x.md\n"})
    async with session(tmp_path, "neovim") as lsp:
        uri = (tmp_path / "pkg/AGENTS.md").as_uri()
        await pushed(lsp, uri, lambda c: c == ["broken-import"])
        await asyncio.sleep(0.3)
        (tmp_path / "pkg/AGENTS.md").unlink()
        await pushed(lsp, uri, lambda c: c == [])


async def test_suppression_and_tags(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "AGENTS.md": (
                "@shared.md\n@shared.md\n"
                "<!-- rulemap-disable-next-line broken-import -->\n@gone.md\n"
            ),
            "shared.md": "Shared.\n",
        },
    )
    async with session(tmp_path, "neovim") as lsp:
        diags = await pushed(
            lsp, (tmp_path / "AGENTS.md").as_uri(), lambda c: "duplicate-load" in c
        )
        assert "broken-import" not in codes(diags)
        dup = next(d for d in diags if d.code == "duplicate-load")
        assert list(dup.tags or []) == [types.DiagnosticTag.Unnecessary]


async def test_another_agents_rule_file_is_rechecked_on_edit(tmp_path: Path) -> None:
    """A Cursor `.mdc` rule is no `.md` and no cogitator instruction file: the cursor profile
    says it reads it, so an unsaved edit reaches the check and its diagnostics follow."""
    never = "---\nalwaysApply: false\n---\nUse tabs.\n"
    write(tmp_path, {".cursor/rules/style.mdc": never, "src/x.ts": "x\n"})
    async with session(tmp_path, "neovim") as lsp:
        uri = open_doc(lsp, tmp_path / ".cursor/rules/style.mdc")
        await pushed(lsp, uri, lambda c: "unreachable-rule" in c)
        change_doc(lsp, uri, never.replace("alwaysApply: false", "alwaysApply: true"), 2)
        await pushed(lsp, uri, lambda c: "unreachable-rule" not in c)


async def test_an_edit_never_drops_another_agents_findings(tmp_path: Path) -> None:
    """While AGENTS.md is edited, every publish keeps claude-code's `instructions-shadowed`
    (a graph-wide finding of an agent, from the last whole check) beside the fresh
    per-document ones — it used to vanish until the next whole check. Edits are spaced past the
    debounce, so each one's per-document check runs at once and its publish is the first seen
    (the whole check follows only after the debounce)."""
    write(tmp_path, {"AGENTS.md": BROKEN, "CLAUDE.md": "@nope/missing.md\n"})
    async with session(tmp_path, "neovim",
                       init_options={"diagnostics": {"debounceMs": 400}}) as lsp:
        # nothing open: the folder is checked whole as it opens (no debounce)
        uri = (tmp_path / "AGENTS.md").as_uri()
        await pushed(lsp, uri, lambda c: "instructions-shadowed" in c and "broken-import" in c)
        open_doc(lsp, tmp_path / "AGENTS.md")
        for version in range(2, 10):
            # each edit changes the per-document findings: the broken import comes and goes
            broken = version % 2 == 1
            text = BROKEN if broken else BROKEN.replace("@docs/guide.md", "docs/guide.md")
            change_doc(lsp, uri, text + f"\nEdit {version}.\n", version)
            seen = await pushed(lsp, uri, lambda c, b=broken: ("broken-import" in c) == b)
            assert "instructions-shadowed" in codes(seen), (version, codes(seen))
            await asyncio.sleep(0.5)  # past the debounce: the next edit is checked at once
