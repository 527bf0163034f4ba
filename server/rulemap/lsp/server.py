"""`rulemap serve`: the language server. Handlers only convert and delegate — to the Engine
(state.py) for the graph and diagnostics, to `rulemap.lsp.features` for editor features, to
custom.py for Rulemap's own requests (docs/protocol.md).

Why this module is long: it is the one table of every LSP method this server answers, each
handler a few lines that unpack params, call the engine or a feature and pack the result.
Split across files, the registration (pygls decorators on one server object) would happen as
a side effect of imports, and "which methods does the server answer" would have no one place
to read. Logic never lands here (tests/core/test_layers.py: no loading facts in handlers)."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import sys
import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, BinaryIO

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method

from rulemap.host.text import Encoding, printable_data
from rulemap.lsp.diagnostics import uri_for
from rulemap.lsp.folders import Folder, path_of
from rulemap.lsp.framing import is_notification, refused_after_shutdown, serve_stdio
from rulemap.lsp.preload import preload_views
from rulemap.lsp.requests import register_requests
from rulemap.lsp.state import Engine

if TYPE_CHECKING:  # the engine is imported once a folder is indexed, not at start-up
    from rulemap.host import Snapshot

log = logging.getLogger("rulemap.lsp")

VERSION = "0.1.0"


def watched_files() -> list[tuple[str, int]]:
    """(glob, kinds) the client watches for us: creations and deletions of any file (rules'
    globs and imports can match anything), and content changes of what the graph reads —
    every registered agent's own files, Markdown and the configuration (the engine's list:
    `rulemap.host.catalog.watched_globs`, read when the client connects)."""
    from rulemap.host.catalog import watched_globs

    return [
        ("**/*", types.WatchKind.Create | types.WatchKind.Delete),
        *((glob, types.WatchKind.Change) for glob in watched_globs()),
    ]


BEGUN_WAIT_S = 5.0  # the longest the watchers wait for the start caches


class _Ignored:
    """Stands in for a message that could not be read (its error was already answered)."""

    jsonrpc = "ignored"


class RulemapProtocol(LanguageServerProtocol):
    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Any:
        # UTF-16 unless the client offers UTF-8 (pygls would take the client's first choice).
        general = params.capabilities.general
        offered = (
            [getattr(e, "value", e) for e in (general.position_encodings or [])] if general else []
        )
        if general is not None:
            general.position_encodings = [
                types.PositionEncodingKind.Utf8
                if "utf-8" in offered
                else types.PositionEncodingKind.Utf16
            ]
        return (yield from super().lsp_initialize(params))

    def structure_message(self, data: Any) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            # pygls would only log it; a request must still get an answer. A request pygls
            # cannot read has params it cannot take (nested deeper than its converter can
            # recurse, which it calls an internal error): InvalidParams, never a traceback.
            if isinstance(data, dict) and "id" in data and "method" in data:
                if not isinstance(exc, JsonRpcInvalidParams):
                    why = "nested too deeply" if isinstance(exc.__cause__, RecursionError) \
                        else "not of the expected shape"
                    exc = JsonRpcInvalidParams(message=f"{data['method']}: params {why}")
                self._send_response(data["id"], None, exc.to_response_error())
                return _Ignored()
            raise

    def handle_message(self, message: Any) -> None:
        if refused_after_shutdown(self, message):  # after `shutdown`, only `exit`
            return
        if is_notification(message) and message.jsonrpc == self.VERSION and not self._shutdown:
            # pygls' own way for a notification, less its per-message Protocol checks
            contextvars.copy_context().run(self._handle_notification, message.method,
                                           message.params)
        else:
            super().handle_message(message)

    def _serialize_message(self, data: Any) -> Any:
        # A file name that is not UTF-8 reaches an answer (a hover, a link, a location) as lone
        # surrogates, which json.dumps writes as `\udcff` escapes that strict JSON readers
        # reject: every string goes out as text/names.py shows such names (`\xff`)
        return printable_data(super()._serialize_message(data))


class RulemapServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "rulemap",
            VERSION,
            text_document_sync_kind=types.TextDocumentSyncKind.Full,
            protocol_cls=RulemapProtocol,
        )
        self.engine: Engine | None = None
        self.watcher: Any = None
        self.dynamic_watch = False
        self.config_pull = False
        self.progress_support = False
        self.link_tooltips = False  # textDocument.documentLink.tooltipSupport (LSP 3.15)
        # workspace.codeLens / inlayHint refreshSupport: asked again when the agent changes
        self.lens_refresh = False
        self.inlay_refresh = False

    def report_server_error(self, error: Exception, source: Any) -> None:
        # Log, never pop up: a bad notification must not spam the user. (A failed request has
        # already been answered with the error.)
        request = getattr(source, "__name__", "") == "FeatureRequestError"
        log.log(
            logging.DEBUG if request else logging.WARNING,
            "%s: %s",
            getattr(source, "__name__", source),
            error,
        )

    # ----- Port (state.py talks to the client through these) -------------------------------

    def publish(self, uri: str, diagnostics: list[types.Diagnostic], version: int | None) -> None:
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        )

    def refresh_diagnostics(self) -> None:
        try:
            self.workspace_diagnostic_refresh(None)
        except Exception as exc:  # pragma: no cover - the connection is gone
            log.warning("workspace/diagnostic/refresh failed: %s", exc)

    def show_message(self, kind: types.MessageType, message: str) -> None:
        log.warning("%s", message)
        self.window_show_message(types.ShowMessageParams(type=kind, message=message))

    def notify(self, method: str, params: Any) -> None:
        self.protocol.notify(method, params)

    async def progress_begin(self, title: str, message: str) -> object | None:
        if not self.progress_support:
            return None
        token = f"rulemap-{uuid.uuid4()}"
        try:
            await asyncio.wait_for(self.work_done_progress.create_async(token), 2.0)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # this task is being cancelled: let it end
            return None  # the request was cancelled under it (the server is exiting)
        except Exception:
            return None
        self.work_done_progress.begin(
            token, types.WorkDoneProgressBegin(title=title, message=message)
        )
        return token

    def progress_end(self, token: object | None, message: str) -> None:
        if isinstance(token, str):
            self.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))

    async def fetch_settings(self, scope_uris: list[str]) -> list[Any] | None:
        items = [types.ConfigurationItem(scope_uri=u, section="rulemap") for u in scope_uris]
        result = await asyncio.wait_for(
            self.workspace_configuration_async(types.ConfigurationParams(items=items)), 5.0
        )
        return list(result) if result is not None else None


server = RulemapServer()


def _engine() -> Engine:
    if server.engine is None:
        raise JsonRpcException(message="the server is not initialized", code=-32002)
    return server.engine


def _features() -> Any:
    import rulemap.lsp.features as features

    return features


async def _target(uri: str) -> tuple[Folder, Snapshot, str] | None:
    """(folder, snapshot, key) of a document inside a folder, once the folder is indexed; the
    snapshot speaks in the folder's `profile` setting (hovers, lenses, hints, completion)."""
    engine = server.engine
    if engine is None:
        return None
    found = engine.locate(uri)
    if found is None:
        return None
    folder, key = found
    await engine.ready(folder)
    snap = folder.snapshot()
    if snap is None or key.startswith("/"):
        return None
    return folder, snap, key


def _encoding() -> Encoding:
    return server.engine.encoding if server.engine is not None else "utf-16"


def _get(obj: Any, path: str) -> Any:
    for part in path.split("."):
        if obj is None:
            return None
        obj = getattr(obj, part, None)
    return obj


# ----- lifecycle ------------------------------------------------------------------------------


@server.feature(types.INITIALIZE)
def initialize(ls: RulemapServer, params: types.InitializeParams) -> None:
    from rulemap.lsp.convert import encoding_of

    caps = params.capabilities
    engine = Engine(ls, asyncio.get_running_loop())
    ls.engine = engine
    engine.encoding = encoding_of(_first(_get(caps, "general.position_encodings")))
    engine.ledger.pull = _get(caps, "text_document.diagnostic") is not None
    engine.ledger.refresh_support = bool(_get(caps, "workspace.diagnostics.refresh_support"))
    ls.dynamic_watch = bool(_get(caps, "workspace.did_change_watched_files.dynamic_registration"))
    ls.config_pull = bool(_get(caps, "workspace.configuration"))
    ls.progress_support = bool(_get(caps, "window.work_done_progress"))
    ls.link_tooltips = bool(_get(caps, "text_document.document_link.tooltip_support"))
    ls.lens_refresh = bool(_get(caps, "workspace.code_lens.refresh_support"))
    ls.inlay_refresh = bool(_get(caps, "workspace.inlay_hint.refresh_support"))
    options = params.initialization_options
    if isinstance(options, dict):
        section = options.get("rulemap")
        engine.init_options = section if isinstance(section, dict) else options
    elif options is not None:
        ls.show_message(
            types.MessageType.Error,
            "Rulemap: initializationOptions must be an object; using the defaults.",
        )
    folders = list(params.workspace_folders or [])
    if not folders:
        root = params.root_uri or (uri_for(params.root_path) if params.root_path else None)
        if root:
            folders = [types.WorkspaceFolder(uri=root, name="")]
    for folder in folders:
        engine.add_folder(folder.uri, folder.name or None)
    log.info(
        "initialize: %d folder(s), %s, %s diagnostics",
        len(engine.folders),
        engine.encoding,
        "pull" if engine.ledger.pull else "push",
    )


def _first(values: Sequence[Any] | None) -> Any:
    return values[0] if values else None


@server.feature(types.INITIALIZED)
async def initialized(ls: RulemapServer, params: types.InitializedParams) -> None:
    engine = _engine()
    folders = [f for f in engine.folders.values() if not f.refused]
    await engine.load_settings(folders, ls.config_pull)
    indexing = asyncio.gather(*(engine.index(f) for f in folders))
    # an exit during indexing cancels it: nobody awaits the gathered result then
    indexing.add_done_callback(lambda f: f.cancelled() or f.exception())
    # the watchers' globs come from the agents' profiles (the engine's import, ~80 ms): after
    # the start caches' diagnostics are out, while the first walk runs in the worker (the
    # client's watchers never started before the walk did: it sets them up when asked)
    await asyncio.wait([asyncio.ensure_future(f.begun.wait()) for f in folders] or
                       [asyncio.ensure_future(asyncio.sleep(0))], timeout=BEGUN_WAIT_S)
    if ls.dynamic_watch:
        watchers = [
            types.FileSystemWatcher(glob_pattern=glob, kind=kind) for glob, kind in watched_files()
        ]
        registration = types.Registration(
            id="rulemap-watched-files",
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
        )
        try:
            ls.client_register_capability(types.RegistrationParams(registrations=[registration]))
        except Exception as exc:  # pragma: no cover
            log.warning("registering file watchers failed: %s", exc)
            ls.dynamic_watch = False
    if not ls.dynamic_watch:
        # Adding inotify watches walks the tree again: once the first walk is done (so the two
        # do not compete), in a thread of its own, not on the loop.
        await engine.ready_all()
        watching = asyncio.ensure_future(_watch(folders))
        watching.add_done_callback(lambda t: t.cancelled() or t.exception())
    await indexing
    preload_views()  # what the views import on first use, while the server waits


async def _watch(folders: list[Folder]) -> None:
    """Start the server-side watcher, then catch up with deletions made during the walk."""
    import os

    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, _start_watching, folders)
    engine = _engine()
    for folder in folders:
        snap = folder.snapshot()
        if snap is None:
            continue
        keys = list(snap.files_under(""))
        del snap  # (not held across the wait: the host would fork for it)
        gone = await loop.run_in_executor(None, _missing, folder.root, keys)
        if gone:
            engine.file_events([("deleted", os.path.join(folder.root, k)) for k in gone])


def _missing(root: str, keys: list[str]) -> list[str]:
    from rulemap.host.disk import missing

    return missing(root, keys)


def _start_watching(folders: list[Folder]) -> None:
    """Watch the folders with watchdog (any thread; events reach the loop thread-safely)."""
    engine = _engine()
    if server.watcher is None:
        from rulemap.lsp.watch import FolderWatcher

        server.watcher = FolderWatcher(engine.loop, engine.queue_fs_event)
    for folder in folders:
        server.watcher.watch(folder.root)


@server.feature(types.SHUTDOWN)
def shutdown(ls: RulemapServer, params: None) -> None:
    if ls.watcher is not None:
        ls.watcher.stop()
    if ls.engine is not None:
        ls.engine.close()


# ----- documents and files --------------------------------------------------------------------


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: RulemapServer, params: types.DidOpenTextDocumentParams) -> None:
    doc = params.text_document
    _engine().did_open(doc.uri, doc.text, doc.version)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: RulemapServer, params: types.DidChangeTextDocumentParams) -> None:
    if not params.content_changes:
        return
    # Full sync: the last change holds the whole text. (A client that sent ranges anyway has
    # had them applied by pygls to its copy.)
    last = params.content_changes[-1]
    if isinstance(last, types.TextDocumentContentChangeWholeDocument):
        text = last.text
    else:
        text = ls.workspace.get_text_document(params.text_document.uri).source
    _engine().did_change(params.text_document.uri, text, params.text_document.version)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: RulemapServer, params: types.DidCloseTextDocumentParams) -> None:
    _engine().did_close(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
def did_save(ls: RulemapServer, params: types.DidSaveTextDocumentParams) -> None:
    _engine().did_save(params.text_document.uri)


_KINDS = {
    types.FileChangeType.Created: "created",
    types.FileChangeType.Changed: "changed",
    types.FileChangeType.Deleted: "deleted",
}


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: RulemapServer, params: types.DidChangeWatchedFilesParams) -> None:
    events = []
    for change in params.changes:
        path = path_of(change.uri)
        if path is not None:
            events.append((_KINDS.get(change.type, "changed"), path))
    _engine().queue_file_events(events)  # batched with the next ones, as our watcher's are


@server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
async def did_change_workspace_folders(
    ls: RulemapServer, params: types.DidChangeWorkspaceFoldersParams
) -> None:
    engine = _engine()
    for removed in params.event.removed:
        path = path_of(removed.uri)
        if ls.watcher is not None and path:
            ls.watcher.unwatch(path)
        engine.remove_folder(removed.uri)
    added = [
        f
        for f in (engine.add_folder(a.uri, a.name) for a in params.event.added)
        if f and not f.refused
    ]
    await engine.load_settings(added, ls.config_pull)
    if not ls.dynamic_watch:
        asyncio.ensure_future(_watch(added))
    await asyncio.gather(*(engine.index(f) for f in added))
    engine.graph_changed([])


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(
    ls: RulemapServer, params: types.DidChangeConfigurationParams
) -> None:
    engine = _engine()
    settings = params.settings
    if isinstance(settings, dict) and isinstance(settings.get("rulemap"), dict):
        engine.client_settings = settings["rulemap"]
    folders = [f for f in engine.folders.values() if not f.refused]
    before = {f.root: f.settings for f in folders}
    await engine.load_settings(folders, ls.config_pull)
    for folder in folders:
        old = before[folder.root]
        if dict(old.overrides) != dict(folder.settings.overrides):
            engine.schedule_reopen(folder, 0)
        elif old != folder.settings and folder.host is not None:
            engine.graph_changed([])
    engine.graph_changed([])
    if any(before[f.root].profile != f.settings.profile for f in folders):
        _refresh_lenses_and_hints(ls)


def _refresh_lenses_and_hints(ls: RulemapServer) -> None:
    """Another agent: lenses and inlay hints speak its terms (they read the folder's `profile`
    setting on each request), so clients that can are asked for them again."""
    for supported, refresh in (
        (ls.lens_refresh, ls.workspace_code_lens_refresh_async),
        (ls.inlay_refresh, ls.workspace_inlay_hint_refresh_async),
    ):
        if supported:
            future = asyncio.ensure_future(refresh(None))
            future.add_done_callback(_ignore_failure)


def _ignore_failure(task: asyncio.Future[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.debug("refresh request failed: %s", task.exception())


# ----- diagnostics (pull) ---------------------------------------------------------------------


@server.feature(
    types.TEXT_DOCUMENT_DIAGNOSTIC,
    types.DiagnosticOptions(
        identifier="rulemap", inter_file_dependencies=True, workspace_diagnostics=True
    ),
)
async def document_diagnostic(ls: RulemapServer, params: types.DocumentDiagnosticParams) -> Any:
    return await _engine().document_report(params.text_document.uri, params.previous_result_id)


@server.feature(types.WORKSPACE_DIAGNOSTIC)
async def workspace_diagnostic(ls: RulemapServer, params: types.WorkspaceDiagnosticParams) -> Any:
    previous = {_engine().canonical(p.uri): p.value for p in params.previous_result_ids}
    return await _engine().workspace_report(
        previous, long_poll=params.partial_result_token is not None
    )


# ----- editor features ------------------------------------------------------------------------


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def hover(ls: RulemapServer, params: types.HoverParams) -> types.Hover | None:
    target = await _target(params.text_document.uri)
    if target is None:
        return None
    folder, snap, key = target
    found: types.Hover | None = _features().hover(
        snap, key, params.position, _encoding(), folder.settings.hover_source_files)
    if found is None and snap.is_markdown(key) and (snap.is_instruction(key)
                                                    or snap.is_imported(key)):
        from rulemap.lsp.reach_lens import paragraph_hover  # who sees this paragraph

        found = paragraph_hover(_engine(), folder, key, params.position.line,
                                lambda: _refresh_lenses_and_hints(ls))
    return found


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_LINK)
async def document_link(
    ls: RulemapServer, params: types.DocumentLinkParams
) -> list[types.DocumentLink]:
    target = await _target(params.text_document.uri)
    if target is None:
        return []
    return _features().document_links(  # type: ignore[no-any-return]
        target[1], target[2], _encoding(), tooltips=ls.link_tooltips
    )


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
async def definition(ls: RulemapServer, params: types.DefinitionParams) -> list[types.Location]:
    target = await _target(params.text_document.uri)
    if target is None:
        return []
    return _features().definition(target[1], target[2], params.position, _encoding())  # type: ignore[no-any-return]


@server.feature(types.TEXT_DOCUMENT_REFERENCES)
async def references(ls: RulemapServer, params: types.ReferenceParams) -> list[types.Location]:
    target = await _target(params.text_document.uri)
    if target is None:
        return []
    return _features().references(target[1], target[2], params.position, _encoding())  # type: ignore[no-any-return]


@server.feature(
    types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=["@", "/", '"', "'"])
)
async def completion(ls: RulemapServer, params: types.CompletionParams) -> types.CompletionList:
    target = await _target(params.text_document.uri)
    if target is None:
        return types.CompletionList(is_incomplete=False, items=[])
    return _features().completion(target[1], target[2], params.position, _encoding())  # type: ignore[no-any-return]


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
)
async def code_action(ls: RulemapServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    target = await _target(params.text_document.uri)
    if target is None:
        return []
    folder, snap, key = target
    diagnostics = [d for d in params.context.diagnostics if d.source in (None, "rulemap")]
    # the findings the client was given (the last ones computed; a pending edit's own check is
    # not run here): a request never runs a check on the event loop
    return _features().code_actions(  # type: ignore[no-any-return]
        snap, key, params.range, diagnostics or None, _encoding(), folder.findings(key)
    )


@server.feature(types.TEXT_DOCUMENT_CODE_LENS)
async def code_lens(ls: RulemapServer, params: types.CodeLensParams) -> list[types.CodeLens]:
    target = await _target(params.text_document.uri)
    if target is None:
        return []
    # Title-only lenses: no client command is part of the protocol (docs/protocol.md); in the
    # terms of the folder's `profile` setting, as hovers are; then who loads it, per agent
    lenses: list[types.CodeLens] = _features().code_lenses(target[1], target[2], None)
    if lenses:
        from rulemap.lsp.reach_lens import lens

        extra = lens(_engine(), target[0], target[2], lambda: _refresh_lenses_and_hints(ls))
        lenses += [extra] if extra is not None else []
    return lenses


@server.feature(types.TEXT_DOCUMENT_INLAY_HINT)
async def inlay_hint(ls: RulemapServer, params: types.InlayHintParams) -> list[types.InlayHint]:
    target = await _target(params.text_document.uri)
    if target is None:
        return []
    hints: list[types.InlayHint] = _features().inlay_hints(
        target[1], target[2], params.range, _encoding())
    if target[1].is_markdown(target[2]):  # and where each agent's budget stops reading it
        from rulemap.lsp.reach_lens import cut_hints

        hints += cut_hints(_engine(), target[0], target[2], params.range.start.line,
                           params.range.end.line, lambda: _refresh_lenses_and_hints(ls))
    return hints


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
async def document_symbol(
    ls: RulemapServer, params: types.DocumentSymbolParams
) -> list[types.DocumentSymbol]:
    target = await _target(params.text_document.uri)
    if target is None:
        return []
    return _features().document_symbols(target[1], target[2], _encoding())  # type: ignore[no-any-return]


@server.feature(types.WORKSPACE_SYMBOL)
async def workspace_symbol(
    ls: RulemapServer, params: types.WorkspaceSymbolParams
) -> list[types.WorkspaceSymbol]:
    engine = _engine()
    out: list[types.WorkspaceSymbol] = []
    for folder in list(engine.folders.values()):
        await engine.ready(folder)
        snap = folder.snapshot()
        if snap is not None:
            out.extend(_features().workspace_symbols(snap, params.query or ""))
    return out


@server.feature(
    types.WORKSPACE_WILL_RENAME_FILES,
    types.FileOperationRegistrationOptions(
        filters=[
            types.FileOperationFilter(
                scheme="file", pattern=types.FileOperationPattern(glob="**/*")
            )
        ]
    ),
)
async def will_rename_files(
    ls: RulemapServer, params: types.RenameFilesParams
) -> types.WorkspaceEdit | None:
    engine = _engine()
    by_folder: dict[str, tuple[Folder, list[tuple[str, str]]]] = {}
    for rename in params.files:
        old, new = engine.locate(rename.old_uri), engine.locate(rename.new_uri)
        if old is None or new is None or old[0] is not new[0]:
            continue
        by_folder.setdefault(old[0].root, (old[0], []))[1].append((old[1], new[1]))
    edits: list[types.WorkspaceEdit] = []
    for folder, renames in by_folder.values():
        await engine.ready(folder)
        snap = folder.snapshot()
        if snap is not None:
            edit = _features().will_rename_files(snap, renames, _encoding())
            if edit is not None:
                edits.append(edit)
    merged: types.WorkspaceEdit | None = _features().merged_edits(edits)
    return merged


# ----- Rulemap's own requests (docs/protocol.md) ----------------------------------------------


register_requests(server, lambda: _engine())


# ----- entry point ----------------------------------------------------------------------------


def run_server(tcp: str | None = None, log_level: str = "WARNING",
               streams: tuple[BinaryIO, BinaryIO] | None = None) -> int:
    """Serve on stdio (or `streams`: input, output; lsp/front.py's) or `tcp` until `exit`."""
    level = getattr(logging, str(log_level).upper(), None)
    if not isinstance(level, int):
        print(f"rulemap: unknown log level {log_level!r}", file=sys.stderr)
        return 2
    logging.basicConfig(
        stream=sys.stderr, level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    if level >= logging.WARNING:
        # pygls warns about routine protocol events (a cancel for a request already answered);
        # clients show every stderr line as an error, so keep pygls to real errors by default
        logging.getLogger("pygls").setLevel(logging.ERROR)
    # A whole-workspace check runs in a worker thread; hand the GIL back to the event loop often
    # so requests keep answering in milliseconds meanwhile. 0.5 ms, not 2: hovers and
    # completions while a check runs, p95 ×0.72–0.90 and ×0.56–0.59 in two alternating runs
    # on 2,000 rules (benchmarks/README.md), the first diagnostics no later.
    sys.setswitchinterval(0.0005)
    if tcp:
        host, _, port = tcp.rpartition(":")
        if not port.isdigit():
            print(f"rulemap: --tcp wants HOST:PORT, not {tcp!r}", file=sys.stderr)
            return 2
        server.start_tcp(host or "127.0.0.1", int(port))
        return 0
    # not pygls' start_io: its reader never recovers from a bad header (framing.py)
    if streams is not None:
        return serve_stdio(server, *streams)
    return serve_stdio(server)
