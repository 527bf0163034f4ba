// Rulemap for VS Code: wires the language client, views, decorations, status bar and commands.

import * as vscode from 'vscode';
import { ActiveInstructions } from './activeInstructions';
import { RulemapClient } from './client';
import { interpreterChangeNeedsRestart } from './launch';
import { affectsRuleMatches, RuleDecorationProvider } from './decorations';
import { chooseProfile, migrateLegacyPick, ProfileChoice, ProfilePickItem, workspaceSettings } from './profileChoice';
import { GraphChangedParams } from './protocol';
import { PythonInterpreter } from './python';
import { RulemapStatusBar } from './statusBar';
import { CompareAgentsProvider, CompareNode } from './views/compareAgents';
import { EffectiveInstructionsProvider, EffectiveNode } from './views/effectiveInstructions';
import { InstructionFilesProvider } from './views/instructionFiles';
import { WhoSeesThisProvider, WhoState } from './views/whoSeesThis';
import { UnseenKind, UnseenLinesController } from './unseenLines';
import { OpenFile, runWhyNotSeen, TargetItem, textToAsk, WHY_SCHEME, WhyDocuments } from './whyNotSeen';
import { answerWhy, InstructionMap, MAP_TITLE, MAP_VIEW_TYPE } from './instructionMap';
import { SessionProvider } from './views/session';
import { fetchInstructionsText, instructionsUri, InstructionsDocumentProvider, SCHEME } from './virtualDocument';

let rulemapClient: RulemapClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = vscode.window.createOutputChannel('Rulemap', { log: true });
  context.subscriptions.push(log);
  log.info(`Rulemap ${context.extension.packageJSON.version as string} activating (workspace trusted: ${vscode.workspace.isTrusted})`);

  const python = new PythonInterpreter(log);
  const client = new RulemapClient(context, log, python);
  rulemapClient = client;
  context.subscriptions.push(python); // the client is stopped in deactivate()

  // The agent profile the views explain for: one choice with the server's, the workspace value
  // of rulemap.profile (the picker writes it); none → the user-level rulemap.profile, then
  // rulemap.toml. A pick an older version kept in workspaceState moves there once.
  const choice = new ProfileChoice(workspaceSettings());
  context.subscriptions.push(choice);
  void migrateLegacyPick(context.workspaceState, workspaceSettings()).then(
    () => choice.settingChanged(),
    (e: unknown) => log.warn(`Could not move the remembered agent profile into rulemap.profile: ${String(e)}`),
  );
  const profile = () => choice.picked;

  // Active file → effective instructions (shared by the view and the status bar)
  const isStillOpen = (uri: vscode.Uri) =>
    vscode.window.tabGroups.all.some((g) =>
      g.tabs.some((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === uri.toString()),
    );
  const active = new ActiveInstructions(client, profile, 80, isStillOpen);
  context.subscriptions.push(active);
  const setActiveContext = () =>
    void vscode.commands.executeCommand('setContext', 'rulemap.activeFile', active.uri !== undefined);
  active.onDidChange(setActiveContext);
  setActiveContext();

  // Views
  const effective = new EffectiveInstructionsProvider(active);
  // (no collapse-all icon: with its description, the title must read fully at the default width)
  const effectiveView = vscode.window.createTreeView('rulemap.effectiveInstructions', { treeDataProvider: effective });
  effective.attach(effectiveView);
  const files = new InstructionFilesProvider(client);
  const filesView = vscode.window.createTreeView('rulemap.instructionFiles', { treeDataProvider: files });
  files.attach(filesView);
  // the profile the other views show, for the compare view's marker
  const shownProfile = () => active.result?.profile ?? choice.picked ?? choice.profiles?.active;
  const compare = new CompareAgentsProvider(client, () => active.uri, shownProfile);
  const compareView = vscode.window.createTreeView('rulemap.compareAgents', {
    treeDataProvider: compare,
    showCollapseAll: true,
  });
  compare.attach(compareView);
  const session = new SessionProvider(client, (uri) => vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(uri))?.uri.fsPath);
  const sessionView = vscode.window.createTreeView('rulemap.session', { treeDataProvider: session, showCollapseAll: true });
  session.attach(sessionView);
  context.subscriptions.push(effective, effectiveView, files, filesView, compare, compareView, session, sessionView);
  // the file changed: compare again; a new result for the same file may name another profile
  let comparedUri: string | undefined;
  let markedProfile: string | undefined;
  active.onDidChange(() => {
    const uri = active.uri?.toString();
    if (uri !== comparedUri) {
      comparedUri = uri;
      compare.scheduleRefresh();
    } else if (shownProfile() !== markedProfile) {
      compare.redraw();
    }
    markedProfile = shownProfile();
  });

  // Who Sees This: for the active instruction file, which agents load it, for which files
  const openDocument = (uri: vscode.Uri) => vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  let whoState: WhoState | undefined;
  const who = new WhoSeesThisProvider(client, {
    target: () => active.uri,
    version: (uri) => openDocument(uri)?.version,
    isDirty: (uri) => openDocument(uri)?.isDirty ?? false,
    progress: (task) => vscode.window.withProgress({ location: { viewId: 'rulemap.whoSeesThis' } }, task),
    setState: (state) => {
      if (state === whoState) return;
      whoState = state;
      void vscode.commands.executeCommand('setContext', 'rulemap.whoSeesThis.state', state);
    },
  });
  const whoView = vscode.window.createTreeView('rulemap.whoSeesThis', { treeDataProvider: who, showCollapseAll: true });
  who.attach(whoView);
  context.subscriptions.push(who, whoView);
  let whoUri: string | undefined;
  active.onDidChange(() => {
    const uri = active.uri?.toString();
    if (uri !== whoUri) {
      whoUri = uri;
      who.scheduleRefresh();
    }
  });

  // Lines some selected agent never sees: gutter and overview-ruler marks with a hover
  const markType = (kind: UnseenKind, color: string) =>
    vscode.window.createTextEditorDecorationType({
      gutterIconPath: vscode.Uri.joinPath(context.extensionUri, 'media', `unseen-${kind}.svg`),
      gutterIconSize: 'contain',
      overviewRulerColor: color,
      overviewRulerLane: vscode.OverviewRulerLane.Left,
      isWholeLine: true,
      rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
    });
  const unseen = new UnseenLinesController(
    client,
    {
      visibleEditors: () => vscode.window.visibleTextEditors,
      enabled: () => vscode.workspace.getConfiguration('rulemap').get<boolean>('unseenLines.enabled', true) !== false,
    },
    {
      never: markType('never', 'rgba(229, 83, 75, 0.85)'),
      cut: markType('cut', 'rgba(224, 145, 26, 0.85)'),
      stripped: markType('stripped', 'rgba(121, 134, 203, 0.85)'),
    },
  );
  context.subscriptions.push(
    unseen,
    vscode.window.onDidChangeVisibleTextEditors(() => unseen.schedule(50)),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.contentChanges.length && vscode.window.visibleTextEditors.some((ed) => ed.document === e.document)) unseen.schedule();
    }),
    vscode.workspace.onDidSaveTextDocument((doc) => {
      unseen.schedule(100);
      if (active.uri && doc.uri.toString() === active.uri.toString()) who.scheduleRefresh();
    }),
  );

  // Explorer decorations
  const decorations = new RuleDecorationProvider(client);
  context.subscriptions.push(decorations, vscode.window.registerFileDecorationProvider(decorations));

  // Status bar
  const status = new RulemapStatusBar();
  context.subscriptions.push(status);
  const updateStatus = () => {
    const hasFile = active.uri !== undefined;
    status.update(active.result, client.state, hasFile);
    status.updateProfile(active.result, client.state, hasFile, choice.picked, (n) => choice.info(n), choice.profiles);
  };
  active.onDidChange(updateStatus);
  client.onDidChangeState(updateStatus);
  choice.onDidChange(updateStatus);
  updateStatus();

  // Virtual documents
  const docs = new InstructionsDocumentProvider(client, profile);
  context.subscriptions.push(docs, vscode.workspace.registerTextDocumentContentProvider(SCHEME, docs));

  // Refreshing
  let filesTimer: ReturnType<typeof setTimeout> | undefined;
  const refreshAll = (e?: GraphChangedParams) => {
    if (affectsRuleMatches(e)) decorations.clear();
    active.scheduleRefresh();
    compare.scheduleRefresh();
    docs.refreshOpen();
    who.graphChanged();
    unseen.graphChanged();
    if (filesTimer) clearTimeout(filesTimer);
    filesTimer = setTimeout(() => void files.refresh(), 150);
    // the selection and its lead are known once the folder is indexed: ask again until then
    if (client.state === 'running' && !choice.profiles?.selection) {
      void choice.load(client, active.uri?.toString()).then(() => updateStatus());
    }
  };
  context.subscriptions.push({ dispose: () => filesTimer && clearTimeout(filesTimer) });
  client.onGraphChanged((e) => refreshAll(e));
  client.onDidChangeState((s) => {
    if (s !== 'starting') refreshAll();
    if (s === 'running') {
      // titles for the status tooltip; a remembered pick the server no longer knows is dropped
      void choice.load(client, active.uri?.toString()).then(({ dropped }) => {
        if (dropped) log.warn(`The agent profile "${dropped}" picked for this workspace is unknown to the server; using the default.`);
        updateStatus();
      });
    }
  });
  // A new pick: the views explain for it (badges and the instruction list do not depend on it).
  choice.onDidChange((name) => {
    log.info(`Agent profile: ${name ?? 'the workspace default'}`);
    active.scheduleRefresh();
    compare.redraw();
    compare.scheduleRefresh();
    docs.refreshOpen();
    void session.replayFor(name);
  });
  context.subscriptions.push(
    vscode.window.onDidChangeActiveTextEditor((e) => active.setEditorUri(e?.document.uri)),
    // closing the file's last tab while a non-text editor is active
    vscode.window.tabGroups.onDidChangeTabs(() => {
      if (!vscode.window.activeTextEditor) active.setEditorUri(undefined);
    }),
  );
  active.setEditorUri(vscode.window.activeTextEditor?.document.uri);

  // Restart when what decides the server command changes
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('rulemap.unseenLines')) unseen.schedule(0);
      if (e.affectsConfiguration('rulemap.server.command')) {
        // (after the running client has forwarded the change: stopping it first races with that)
        setTimeout(() => void client.restart('rulemap.server.command changed'), 250);
      } else if (e.affectsConfiguration('rulemap.allowImportsFrom')) {
        // the server takes it from initializationOptions only (docs/security.md)
        setTimeout(() => void client.restart('rulemap.allowImportsFrom changed'), 250);
      } else if (e.affectsConfiguration('rulemap')) {
        // rulemap.profile is the pick: edited by hand, the views follow it as after a pick
        if (e.affectsConfiguration('rulemap.profile')) choice.settingChanged();
        // The server re-pulls its configuration and sends graphChanged; refresh anyway (an
        // older server may not).
        setTimeout(() => refreshAll(), 300);
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => void client.restart('the workspace is now trusted')),
    python.onDidChange(async () => {
      const interpreter = vscode.workspace.isTrusted
        ? await python.interpreter(vscode.workspace.workspaceFolders?.[0]?.uri)
        : undefined;
      if (interpreterChangeNeedsRestart(client.current, interpreter, vscode.workspace.isTrusted)) {
        void client.restart(`the Python interpreter changed (${interpreter ?? 'none'})`);
      }
    }),
  );

  // Commands
  const targetUri = (arg?: unknown): vscode.Uri | undefined => {
    if (arg instanceof vscode.Uri) return arg;
    const node = arg as EffectiveNode | undefined;
    if (node && node.kind === 'file') return vscode.Uri.parse(node.file.uri);
    return active.uri ?? vscode.window.activeTextEditor?.document.uri;
  };
  context.subscriptions.push(
    vscode.commands.registerCommand('rulemap.restartServer', () => client.restart('requested')),
    vscode.commands.registerCommand('rulemap.showOutput', () => log.show()),
    vscode.commands.registerCommand('rulemap.installServer', () => client.installIntoVenv()),
    vscode.commands.registerCommand('rulemap.refresh', () => {
      refreshAll();
      who.invalidate();
    }),
    vscode.commands.registerCommand('rulemap.showEffectiveInstructions', async (arg?: unknown) => {
      const target = targetUri(arg);
      if (!target || target.scheme !== 'file') {
        void vscode.window.showInformationMessage('Rulemap: open a file to see the instructions an agent loads for it.');
        return;
      }
      const doc = await vscode.workspace.openTextDocument(instructionsUri(target));
      await vscode.window.showTextDocument(doc, { preview: false, viewColumn: vscode.ViewColumn.Beside });
    }),
    vscode.commands.registerCommand('rulemap.copyEffectiveInstructions', async (arg?: unknown) => {
      const target = targetUri(arg);
      if (!target || target.scheme !== 'file') {
        void vscode.window.showInformationMessage('Rulemap: open a file to copy the instructions an agent loads for it.');
        return;
      }
      const r = await fetchInstructionsText(client, target, profile());
      if (!r.ok) {
        void vscode.window.showWarningMessage(r.text);
        return;
      }
      await vscode.env.clipboard.writeText(r.text);
      void vscode.window.showInformationMessage(
        `Rulemap: copied the effective instructions for ${r.path ?? target.fsPath} (${r.text.length} characters).`,
      );
    }),
    vscode.commands.registerCommand('rulemap.openImportedFile', async (node?: EffectiveNode) => {
      if (node && node.kind === 'file') {
        await vscode.commands.executeCommand('vscode.open', vscode.Uri.parse(node.file.uri));
      }
    }),
    vscode.commands.registerCommand('rulemap.replaySession', async (arg?: unknown) => {
      let transcript = arg instanceof vscode.Uri ? arg : undefined;
      if (!transcript) {
        const picked = await vscode.window.showOpenDialog({
          title: 'Replay an agent session',
          openLabel: 'Replay',
          canSelectMany: false,
          defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
          filters: { 'Session transcripts': ['jsonl', 'json'], 'All files': ['*'] },
        });
        transcript = picked?.[0];
      }
      if (!transcript) return;
      if (!client.isReady) {
        void vscode.window.showWarningMessage('Rulemap: the language server is not running (see "Rulemap: Show Output").');
        return;
      }
      // the session ran in the transcript's workspace folder, else the first one
      const folder = vscode.workspace.getWorkspaceFolder(transcript) ?? vscode.workspace.workspaceFolders?.[0];
      if (!folder) {
        void vscode.window.showWarningMessage('Rulemap: open the folder the session ran in, then replay it.');
        return;
      }
      await vscode.commands.executeCommand('rulemap.session.focus');
      const picked = profile();
      const r = await vscode.window.withProgress(
        { location: { viewId: 'rulemap.session' }, title: 'Replaying the session' },
        () => session.replay({ uri: folder.uri.toString(), transcript: transcript.fsPath, ...(picked ? { profile: picked } : {}) }),
      );
      if (r && 'error' in r) {
        void vscode.window.showWarningMessage(`Rulemap: could not replay ${transcript.fsPath}: ${r.error}`);
      } else if (r === undefined) {
        void vscode.window.showWarningMessage('Rulemap: the server did not replay the session (an older server? see "Rulemap: Show Output").');
      }
    }),
    vscode.commands.registerCommand('rulemap.chooseProfile', async (arg?: unknown) => {
      // from a Compare Agents row: use that agent without asking
      const node = arg as CompareNode | undefined;
      try {
        if (node && typeof node === 'object' && node.kind === 'agent') {
          await choice.pick(node.column.profile);
          return;
        }
        await chooseProfile(
          client,
          choice,
          {
            showQuickPick: (items, options) => vscode.window.showQuickPick<ProfilePickItem>(items, options),
            showWarningMessage: (m) => void vscode.window.showWarningMessage(m),
          },
          active.uri?.toString(),
        );
      } catch (e) {
        // the pick is the workspace setting rulemap.profile: no workspace open, no place for it
        void vscode.window.showWarningMessage(`Rulemap: could not set rulemap.profile for this workspace: ${String(e)}`);
      }
    }),
  );

  // Why doesn't an agent see this? (the selection of an instruction file)
  const whyDocs = new WhyDocuments();
  context.subscriptions.push(whyDocs, vscode.workspace.registerTextDocumentContentProvider(WHY_SCHEME, whyDocs));
  const openFiles = (except: vscode.Uri): OpenFile[] =>
    vscode.window.tabGroups.all
      .flatMap((g) => g.tabs.map((t) => (t.input instanceof vscode.TabInputText ? t.input.uri : undefined)))
      .filter((u): u is vscode.Uri => !!u && u.scheme === 'file' && u.toString() !== except.toString() && !!vscode.workspace.getWorkspaceFolder(u))
      .map((u) => ({ uri: u.toString(), relative: vscode.workspace.asRelativePath(u, false) }));
  context.subscriptions.push(
    vscode.commands.registerCommand('rulemap.whyNotSeen', async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor || editor.document.uri.scheme !== 'file') {
        void vscode.window.showInformationMessage('Rulemap: open an instruction file and select the text to ask who sees it.');
        return;
      }
      const selected = choice.profiles?.selected;
      const agentTitle = selected?.length === 1 ? choice.info(selected[0])?.title : undefined;
      const r = await runWhyNotSeen(
        client,
        {
          pickTarget: (items, title) =>
            vscode.window.showQuickPick<TargetItem>(items, { title, placeHolder: 'The file the agent works on', matchOnDescription: true }),
          chooseFile: async () =>
            (
              await vscode.window.showOpenDialog({
                title: 'The file the agent works on',
                openLabel: 'Ask for This File',
                canSelectMany: false,
                defaultUri: vscode.workspace.getWorkspaceFolder(editor.document.uri)?.uri,
              })
            )?.[0],
          progress: (title, task) => vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title }, task),
          showInformationMessage: (m, ...a) => vscode.window.showInformationMessage(m, ...a),
          showWarningMessage: (m, ...a) => vscode.window.showWarningMessage(m, ...a),
          showDetails: async (markdown) => {
            const doc = await vscode.workspace.openTextDocument(whyDocs.add(markdown));
            await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
          },
        },
        {
          uri: editor.document.uri.toString(),
          text: textToAsk(editor.document, editor.selection),
          openFiles: openFiles(editor.document.uri),
          agentTitle,
        },
      );
      if (r) log.info(`Why doesn't an agent see this: ${r.shown}`);
    }),
  );

  // The Instruction Map: the server's repository map page in a webview
  const mapIcon = vscode.Uri.joinPath(context.extensionUri, 'media', 'rulemap.svg');
  const map = new InstructionMap(
    client,
    () => {
      const panel = vscode.window.createWebviewPanel(MAP_VIEW_TYPE, MAP_TITLE, vscode.ViewColumn.Active, {
        enableScripts: true,
        retainContextWhenHidden: true,
        localResourceRoots: [],
      });
      panel.iconPath = mapIcon;
      // a page may ask to open a workspace file: {command: 'open', path | uri, line?}, or
      // where a sentence reaches each agent: {command: 'why', text} (answered with rulemap/why)
      panel.webview.onDidReceiveMessage((m: { command?: string; path?: string; uri?: string; line?: number; text?: unknown }) => {
        if (m?.command === 'why') {
          void answerWhy(client, map.target, m.text).then((reply) => reply && panel.webview.postMessage(reply));
          return;
        }
        if (m?.command !== 'open') return;
        const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
        const target = typeof m.uri === 'string' ? vscode.Uri.parse(m.uri) : folder && typeof m.path === 'string' ? vscode.Uri.joinPath(folder, m.path) : undefined;
        if (!target || target.scheme !== 'file' || !vscode.workspace.getWorkspaceFolder(target)) return;
        const line = typeof m.line === 'number' && m.line > 0 ? m.line - 1 : undefined;
        void vscode.commands.executeCommand('vscode.open', target, {
          viewColumn: vscode.ViewColumn.Beside,
          ...(line !== undefined ? { selection: new vscode.Range(line, 0, line, 0) } : {}),
        });
      });
      return panel;
    },
    (task) => vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Rulemap: drawing the instruction map' }, task),
  );
  context.subscriptions.push(map);
  choice.onDidChange((name) => map.follow(name));
  const mapUri = () => (active.uri ?? vscode.workspace.workspaceFolders?.[0]?.uri)?.toString();
  context.subscriptions.push(
    vscode.commands.registerCommand('rulemap.openMap', () => map.open(mapUri())),
    vscode.commands.registerCommand('rulemap.refreshMap', () => (map.current ? map.refresh() : map.open(mapUri()))),
  );

  void client.start();
}

export async function deactivate(): Promise<void> {
  await rulemapClient?.dispose();
  rulemapClient = undefined;
}
