// Owns the language client: resolves the server command, starts, restarts and stops it, and
// wraps Rulemap's custom requests.

import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
  TransportKind,
} from 'vscode-languageclient/node';
import {
  cleanServerConfig,
  describeCommand,
  describeSource,
  LaunchCandidate,
  pipInstallCommand,
  resolveLaunch,
  serverInitializationOptions,
  USER_GRANT_KEY,
  withoutUserGrant,
} from './launch';
import { checkModule, createVenvAndInstall, existingManagedVenvPython } from './install';
import {
  CompareParams,
  CompareResult,
  EffectiveInstructions,
  EffectiveInstructionsParams,
  GraphChangedParams,
  InstructionFilesResult,
  Methods,
  ProfilesResult,
  RulemapApi,
  RulesForFileResult,
} from './protocol';
import { PythonInterpreter } from './python';
import { ServerState } from './statusBar';

const REQUEST_TIMEOUT_MS = 15000;

export const DOCUMENT_SELECTOR = [
  { scheme: 'file', language: 'markdown' },
  // every file, for the "which instructions load for this file" hover
  { scheme: 'file' },
];

/** The `rulemap` settings section as the server should see it (without `allowImportsFrom`). */
export function serverConfiguration(scope?: vscode.Uri): unknown {
  return cleanServerConfig(vscode.workspace.getConfiguration(undefined, scope).get('rulemap') ?? {});
}

/**
 * `initializationOptions`: the section above plus `rulemap.allowImportsFrom` from the user's
 * settings only (the setting is machine-scoped, so no workspace can set it; its merged value is
 * never sent), and not in Restricted Mode.
 */
export function initializationOptions(scope?: vscode.Uri): Record<string, unknown> {
  return serverInitializationOptions(
    vscode.workspace.getConfiguration(undefined, scope).get('rulemap') ?? {},
    vscode.workspace.getConfiguration('rulemap', scope).inspect(USER_GRANT_KEY),
    vscode.workspace.isTrusted,
  );
}

export class RulemapClient implements RulemapApi, vscode.Disposable {
  private client: LanguageClient | undefined;
  private _state: ServerState = 'stopped';
  private queue: Promise<void> = Promise.resolve();
  private readonly stateEmitter = new vscode.EventEmitter<ServerState>();
  private readonly graphEmitter = new vscode.EventEmitter<GraphChangedParams>();
  /** Fires on every state change ('running' means requests can be sent). */
  readonly onDidChangeState = this.stateEmitter.event;
  /** `rulemap/graphChanged` from the server, and a synthetic one after each (re)start. */
  readonly onGraphChanged = this.graphEmitter.event;
  /** The command line of the running server, for the output and tests. */
  current: LaunchCandidate | undefined;
  private disposed = false;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    private readonly python: PythonInterpreter,
  ) {}

  get state(): ServerState {
    return this._state;
  }

  get isReady(): boolean {
    return this._state === 'running' && this.client !== undefined && this.client.isRunning();
  }

  private setState(s: ServerState): void {
    if (this._state !== s) {
      this._state = s;
      void vscode.commands.executeCommand('setContext', 'rulemap.serverState', s);
      this.stateEmitter.fire(s);
    }
  }

  /** Run lifecycle operations one at a time. */
  private enqueue(op: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(op, op).catch((e) => {
      this.log.error(`Rulemap: ${e instanceof Error ? e.stack ?? e.message : String(e)}`);
    });
    return this.queue;
  }

  start(): Promise<void> {
    return this.enqueue(() => this.doStart());
  }

  restart(why: string): Promise<void> {
    return this.enqueue(async () => {
      this.log.info(`Restarting the server: ${why}`);
      await this.doStop();
      await this.doStart();
    });
  }

  stop(): Promise<void> {
    return this.enqueue(() => this.doStop());
  }

  private async doStop(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    this.current = undefined;
    if (c) {
      try {
        await c.stop(4000);
      } catch (e) {
        this.log.warn(`Stopping the server: ${String(e)}`);
      }
      try {
        await c.dispose(2000);
      } catch {
        // already gone
      }
    }
    this.setState('stopped');
  }

  private async pickCandidate(): Promise<LaunchCandidate | undefined> {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const trusted = vscode.workspace.isTrusted;
    const plan = resolveLaunch({
      setting: vscode.workspace.getConfiguration('rulemap', folder).inspect('server.command'),
      trusted,
      pythonExtensionInterpreter: trusted ? await this.python.interpreter(folder) : undefined,
      managedVenvPython: existingManagedVenvPython(this.context),
    });
    for (const note of plan.notes) {
      this.log.warn(note);
    }
    const explicit = plan.candidates.find((c) => c.source === 'workspace-setting' || c.source === 'user-setting');
    if (explicit) {
      // `["/path/python", "-m", "rulemap", ...]`: we can check the module before starting.
      if (explicit.args[0] === '-m' && explicit.args[1] === 'rulemap') {
        const check = await checkModule(explicit.command);
        if (check === 'missing-module' || check === 'no-python') {
          this.reportMissing(explicit, check);
          return undefined;
        }
      }
      return explicit;
    }
    let firstFailure: { c: LaunchCandidate; check: 'missing-module' | 'no-python' } | undefined;
    for (const c of plan.candidates) {
      const check = await checkModule(c.python ?? c.command);
      this.log.info(`Checked ${describeSource(c.source)} (${c.command}): ${check}`);
      if (check === 'ok' || check === 'error') {
        return c; // 'error': let the server start and report its own problem
      }
      if (!firstFailure || (firstFailure.check === 'no-python' && check === 'missing-module')) {
        firstFailure = { c, check };
      }
    }
    if (firstFailure) {
      this.reportMissing(firstFailure.c, firstFailure.check);
    }
    return undefined;
  }

  private reportMissing(c: LaunchCandidate, check: 'missing-module' | 'no-python'): void {
    const python = c.python ?? c.command;
    const fromSetting = c.source === 'workspace-setting' || c.source === 'user-setting';
    const pip = pipInstallCommand(python);
    let msg: string;
    if (check === 'no-python') {
      msg = fromSetting
        ? `Rulemap: cannot run "${python}" from rulemap.server.command. Fix the setting, or install Python 3.11+.`
        : `Rulemap: no Python interpreter found ("${python}"). Install Python 3.11 or newer, then run: ${pip} — or set rulemap.server.command.`;
    } else {
      msg = `Rulemap is not installed in ${python} (${describeSource(c.source)}). Install it with: ${pip}`;
    }
    this.log.error(msg);
    this.setState('failed');
    const actions: string[] = [];
    const createVenv = 'Create Virtual Environment and Install';
    const installHere = 'Install with pip';
    const copy = 'Copy Command';
    const settings = 'Open Settings';
    if (check === 'missing-module') {
      actions.push(createVenv, installHere, copy);
    }
    actions.push(settings);
    void vscode.window.showErrorMessage(msg, ...actions).then(async (choice) => {
      if (choice === copy) {
        await vscode.env.clipboard.writeText(pip);
        void vscode.window.showInformationMessage(`Copied: ${pip}`);
      } else if (choice === settings) {
        await vscode.commands.executeCommand('workbench.action.openSettings', 'rulemap.server.command');
      } else if (choice === installHere) {
        const term = vscode.window.createTerminal('Rulemap: install');
        term.show();
        term.sendText(pip);
        void vscode.window
          .showInformationMessage('When pip has finished, restart the Rulemap server.', 'Restart Server')
          .then((c2) => c2 && this.restart('installed with pip'));
      } else if (choice === createVenv) {
        await this.installIntoVenv(check === 'missing-module' && c.python ? c.python : undefined);
      }
    });
  }

  /** "Create Virtual Environment and Install", also a command. */
  async installIntoVenv(basePython?: string): Promise<void> {
    const base = basePython ?? (process.platform === 'win32' ? 'python' : 'python3');
    this.log.show(true);
    const py = await createVenvAndInstall(this.context, base, this.log);
    if (py) {
      void vscode.window.showInformationMessage(`Rulemap installed into ${py}.`);
      await this.restart('installed into a virtual environment');
    } else {
      void vscode.window.showErrorMessage(
        'Rulemap: installing into a virtual environment failed; see the output.',
        'Show Output',
      ).then((c) => c && this.log.show());
    }
  }

  private async doStart(): Promise<void> {
    if (this.disposed) {
      return;
    }
    this.setState('starting');
    const candidate = await this.pickCandidate();
    if (!candidate) {
      return; // state is 'failed', the user was told
    }
    const folder = vscode.workspace.workspaceFolders?.[0];
    const serverOptions: ServerOptions = {
      command: candidate.command,
      args: candidate.args,
      transport: TransportKind.stdio,
      options: { cwd: folder?.uri.fsPath, env: { ...process.env, PYTHONUNBUFFERED: '1' } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: DOCUMENT_SELECTOR,
      outputChannel: this.log,
      diagnosticCollectionName: 'rulemap',
      synchronize: { configurationSection: 'rulemap' },
      initializationOptions: initializationOptions(folder?.uri),
      middleware: {
        workspace: {
          configuration: async (params, token, next) => {
            const result = await next(params, token);
            return Array.isArray(result) ? result.map((r) => cleanServerConfig(r)) : result;
          },
          // The default notification carries the merged section; send it without the user-only
          // key (a change of that restarts the server with the new initializationOptions).
          didChangeConfiguration: async () => {
            const section = vscode.workspace.getConfiguration(undefined, folder?.uri).get('rulemap') ?? {};
            await client.sendNotification(DidChangeConfigurationNotification.type, {
              settings: { rulemap: withoutUserGrant(JSON.parse(JSON.stringify(section)) as unknown) },
            });
          },
        },
      },
    };
    this.log.info(`Starting the server (${describeSource(candidate.source)}): ${describeCommand(candidate)} --stdio`);
    const client = new LanguageClient('rulemap', 'Rulemap', serverOptions, clientOptions);
    this.client = client;
    this.current = candidate;
    client.onDidChangeState((e) => {
      if (this.client !== client) {
        return;
      }
      if (e.newState === State.Running) {
        this.setState('running');
      } else if (e.newState === State.Starting) {
        this.setState('starting');
      } else if (e.newState === State.Stopped && this._state !== 'stopped') {
        this.setState('failed');
      }
    });
    client.onNotification(Methods.graphChanged, (params: GraphChangedParams) => {
      this.graphEmitter.fire(params ?? { uris: [] });
    });
    try {
      await client.start();
      this.setState('running');
      this.log.info('The server is running.');
      this.graphEmitter.fire({ uris: [] });
    } catch (e) {
      if (this.client !== client) {
        return;
      }
      this.setState('failed');
      const msg = `Rulemap: the language server did not start (${describeCommand(candidate)}): ${
        e instanceof Error ? e.message : String(e)
      }`;
      this.log.error(msg);
      void vscode.window.showErrorMessage(msg, 'Show Output', 'Open Settings').then((c) => {
        if (c === 'Show Output') this.log.show();
        if (c === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'rulemap.server.command');
      });
    }
  }

  private async request<T>(method: string, params: unknown): Promise<T | undefined> {
    const c = this.client;
    if (!c || !this.isReady) {
      return undefined;
    }
    // A server that never answers must not leave the views waiting forever.
    const cts = new vscode.CancellationTokenSource();
    const timer = setTimeout(() => {
      this.log.warn(`${method} got no answer in ${REQUEST_TIMEOUT_MS / 1000} s; cancelled`);
      cts.cancel();
    }, REQUEST_TIMEOUT_MS);
    try {
      return (await c.sendRequest(method, params, cts.token)) as T;
    } catch (e) {
      if (!cts.token.isCancellationRequested && this.client === c) {
        this.log.warn(`${method} failed: ${e instanceof Error ? e.message : String(e)}`);
      }
      return undefined;
    } finally {
      clearTimeout(timer);
      cts.dispose();
    }
  }

  effectiveInstructions(params: EffectiveInstructionsParams): Promise<EffectiveInstructions | null | undefined> {
    return this.request(Methods.effectiveInstructions, params);
  }

  rulesForFile(uri: string): Promise<RulesForFileResult | null | undefined> {
    return this.request(Methods.rulesForFile, { uri });
  }

  instructionFiles(): Promise<InstructionFilesResult | null | undefined> {
    return this.request(Methods.instructionFiles, {});
  }

  profiles(uri?: string): Promise<ProfilesResult | null | undefined> {
    return this.request(Methods.profiles, uri ? { uri } : {});
  }

  compare(params: CompareParams): Promise<CompareResult | null | undefined> {
    return this.request(Methods.compare, params);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await this.stop();
    this.stateEmitter.dispose();
    this.graphEmitter.dispose();
  }
}
