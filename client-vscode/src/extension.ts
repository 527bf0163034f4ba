// Rulemap for VS Code: wires the language client, views, decorations, status bar and commands.

import * as vscode from 'vscode';
import { ActiveInstructions } from './activeInstructions';
import { RulemapClient } from './client';
import { configuredProfile } from './config';
import { interpreterChangeNeedsRestart } from './launch';
import { affectsRuleMatches, RuleDecorationProvider } from './decorations';
import { PythonInterpreter } from './python';
import { RulemapStatusBar } from './statusBar';
import { EffectiveInstructionsProvider, EffectiveNode } from './views/effectiveInstructions';
import { InstructionFilesProvider } from './views/instructionFiles';
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

  const profile = () => configuredProfile(vscode.workspace.workspaceFolders?.[0]?.uri);

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
  const effectiveView = vscode.window.createTreeView('rulemap.effectiveInstructions', {
    treeDataProvider: effective,
    showCollapseAll: true,
  });
  effective.attach(effectiveView);
  const files = new InstructionFilesProvider(client);
  const filesView = vscode.window.createTreeView('rulemap.instructionFiles', { treeDataProvider: files });
  files.attach(filesView);
  context.subscriptions.push(effective, effectiveView, files, filesView);

  // Explorer decorations
  const decorations = new RuleDecorationProvider(client);
  context.subscriptions.push(decorations, vscode.window.registerFileDecorationProvider(decorations));

  // Status bar
  const status = new RulemapStatusBar();
  context.subscriptions.push(status);
  const updateStatus = () => status.update(active.result, client.state, active.uri !== undefined);
  active.onDidChange(updateStatus);
  client.onDidChangeState(updateStatus);
  updateStatus();

  // Virtual documents
  const docs = new InstructionsDocumentProvider(client, profile);
  context.subscriptions.push(docs, vscode.workspace.registerTextDocumentContentProvider(SCHEME, docs));

  // Refreshing
  let filesTimer: ReturnType<typeof setTimeout> | undefined;
  const refreshAll = (uris?: string[]) => {
    if (!uris || affectsRuleMatches(uris)) decorations.clear();
    active.scheduleRefresh();
    docs.refreshOpen();
    if (filesTimer) clearTimeout(filesTimer);
    filesTimer = setTimeout(() => void files.refresh(), 150);
  };
  context.subscriptions.push({ dispose: () => filesTimer && clearTimeout(filesTimer) });
  client.onGraphChanged((e) => refreshAll(e.uris));
  client.onDidChangeState((s) => {
    if (s !== 'starting') refreshAll();
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
      if (e.affectsConfiguration('rulemap.server.command')) {
        // (after the running client has forwarded the change: stopping it first races with that)
        setTimeout(() => void client.restart('rulemap.server.command changed'), 250);
      } else if (e.affectsConfiguration('rulemap.allowImportsFrom')) {
        // the server takes it from initializationOptions only (docs/security.md)
        setTimeout(() => void client.restart('rulemap.allowImportsFrom changed'), 250);
      } else if (e.affectsConfiguration('rulemap')) {
        // The server re-pulls its configuration and sends graphChanged; refresh anyway for the
        // settings the client itself sends (rulemap.profile).
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
    vscode.commands.registerCommand('rulemap.refresh', () => refreshAll()),
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
    vscode.commands.registerCommand('rulemap.selectProfile', async () => {
      const r = await client.profiles();
      if (!r || !r.profiles?.length) {
        void vscode.window.showWarningMessage('Rulemap: the language server did not list any profile (is it running?).');
        return;
      }
      const items = r.profiles.map((p) => ({
        label: p.title || p.name,
        description: p.name === r.active ? `${p.name} (active)` : p.name,
        detail: p.description,
        name: p.name,
      }));
      const pick = await vscode.window.showQuickPick(items, {
        title: 'Rulemap: Select Profile',
        placeHolder: 'Which agent loader should Rulemap model?',
        matchOnDescription: true,
        matchOnDetail: true,
      });
      if (!pick) return;
      const config = vscode.workspace.getConfiguration('rulemap');
      const target =
        config.inspect('profile')?.workspaceValue !== undefined
          ? vscode.ConfigurationTarget.Workspace
          : vscode.ConfigurationTarget.Global;
      await config.update('profile', pick.name, target);
    }),
  );

  void client.start();
}

export async function deactivate(): Promise<void> {
  await rulemapClient?.dispose();
  rulemapClient = undefined;
}
