// Owns the language client: resolves the server command, starts, restarts and stops it, and
// wraps Rulemap's custom requests.

import * as fs from 'fs';
import * as os from 'os';
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
  resolveLaunch,
  serverInitializationOptions,
  USER_GRANT_KEY,
  withoutUserGrant,
} from './launch';
import {
  bundledServerDir,
  checkModule,
  createEnvironment,
  existingManagedVenvPython,
  projectVenvPython,
  rulemapOnPath,
  workspaceRulemapDir,
} from './install';
import { chooseInstallSource, installFailureNotice, MissingServer, missingServerNotice, Notice, pickCandidate } from './setup';
import {
  CompareParams,
  CompareResult,
  EffectiveInstructions,
  EffectiveInstructionsParams,
  GraphChangedParams,
  InstructionFilesResult,
  MapParams,
  MapResult,
  Methods,
  ProfilesResult,
  ReachParams,
  ReachResult,
  RequestError,
  RulemapApi,
  RulesForFileResult,
  SessionError,
  SessionParams,
  SessionResult,
  UnseenLinesParams,
  UnseenLinesResult,
  WhyParams,
  WhyResult,
} from './protocol';
import { PythonInterpreter } from './python';
import { ServerState } from './statusBar';

const REQUEST_TIMEOUT_MS = 15000;
/** A long transcript replays many steps. */
const SESSION_TIMEOUT_MS = 60000;
/** Who loads a file: every file's load, for every agent (about a second on a large repository). */
const REACH_TIMEOUT_MS = 30000;

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
    const config = vscode.workspace.getConfiguration('rulemap', folder);
    const plan = resolveLaunch({
      setting: config.inspect('server.command'),
      pathSetting: config.inspect('server.path'),
      trusted,
      pythonExtensionInterpreter: trusted ? await this.python.interpreter(folder) : undefined,
      projectVenvPython: trusted ? projectVenvPython(folder?.fsPath) : undefined,
      pathExecutable: rulemapOnPath(),
      managedVenvPython: existingManagedVenvPython(this.context),
      home: os.homedir(),
    });
    for (const note of plan.notes) {
      this.log.warn(note);
    }
    const pick = await pickCandidate(plan.candidates, checkModule, (p) => fs.existsSync(p));
    for (const line of pick.checked) this.log.info(`Checked ${line}`);
    if ('missing' in pick) {
      this.reportMissing(pick.missing);
      return undefined;
    }
    return pick.candidate;
  }

  private installSource() {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    return chooseInstallSource({
      bundledDir: bundledServerDir(this.context),
      workspaceRulemapDir: workspaceRulemapDir(folder),
      trusted: vscode.workspace.isTrusted,
    });
  }

  private reportMissing(m: MissingServer): void {
    const notice = missingServerNotice(m, this.installSource() !== undefined);
    this.log.error(notice.message);
    this.setState('failed');
    void this.show(notice, 'error');
  }

  /** Show a notice (at most two buttons) and do what the user picks. */
  private async show(notice: Notice, level: 'error' | 'info'): Promise<void> {
    const actions = notice.actions.slice(0, 2);
    const choice =
      level === 'error'
        ? await vscode.window.showErrorMessage(notice.message, ...actions)
        : await vscode.window.showInformationMessage(notice.message, ...actions);
    if (choice === 'Open Settings') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'rulemap.server');
    } else if (choice === 'Show Output') {
      this.log.show();
    } else if (choice === 'Create Environment') {
      await this.installIntoVenv();
    }
  }

  /** "Create Server Environment" (also a command): a private venv in globalStorage. */
  async installIntoVenv(): Promise<void> {
    const source = this.installSource();
    if (!source) {
      const notice = installFailureNotice({ stage: 'no-source' });
      this.log.error(notice.message);
      void this.show(notice, 'error');
      return;
    }
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const selected = vscode.workspace.isTrusted ? await this.python.interpreter(folder) : undefined;
    this.log.info(`Creating the server environment from ${source.kind === 'bundled' ? 'the bundled server' : 'the workspace'} (${source.dir})`);
    const r = await createEnvironment(this.context, source, selected, this.log);
    if (r.ok) {
      this.log.info(`Rulemap installed into ${r.python}`);
      void vscode.window.showInformationMessage(`Rulemap: server installed in its private environment.`);
      await this.restart('installed into the private environment');
    } else {
      const notice = installFailureNotice(r.failure);
      this.log.error(notice.message);
      void this.show(notice, 'error');
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
      void this.show({ message: msg, actions: ['Show Output', 'Open Settings'] }, 'error');
    }
  }

  private async request<T>(
    method: string,
    params: unknown,
    timeoutMs = REQUEST_TIMEOUT_MS,
    onError?: (message: string) => void,
  ): Promise<T | undefined> {
    const c = this.client;
    if (!c || !this.isReady) {
      return undefined;
    }
    // A server that never answers must not leave the views waiting forever.
    const cts = new vscode.CancellationTokenSource();
    const timer = setTimeout(() => {
      this.log.warn(`${method} got no answer in ${timeoutMs / 1000} s; cancelled`);
      cts.cancel();
    }, timeoutMs);
    try {
      return (await c.sendRequest(method, params, cts.token)) as T;
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      if (!cts.token.isCancellationRequested && this.client === c) {
        this.log.warn(`${method} failed: ${message}`);
      }
      onError?.(cts.token.isCancellationRequested ? `no answer in ${timeoutMs / 1000} s` : message);
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

  async session(params: SessionParams): Promise<SessionResult | SessionError | null | undefined> {
    let error: string | undefined;
    const r = await this.request<SessionResult | null>(Methods.session, params, SESSION_TIMEOUT_MS, (m) => (error = m));
    return error !== undefined ? { error } : r;
  }

  reach(params: ReachParams): Promise<ReachResult | null | undefined> {
    return this.request(Methods.reach, params, REACH_TIMEOUT_MS);
  }

  unseenLines(params: UnseenLinesParams): Promise<UnseenLinesResult | null | undefined> {
    return this.request(Methods.unseenLines, params, REACH_TIMEOUT_MS);
  }

  async why(params: WhyParams): Promise<WhyResult | RequestError | null | undefined> {
    let error: string | undefined;
    const r = await this.request<WhyResult | null>(Methods.why, params, REACH_TIMEOUT_MS, (m) => (error = m));
    return error !== undefined ? { error } : r;
  }

  async map(params: MapParams): Promise<MapResult | RequestError | null | undefined> {
    let error: string | undefined;
    const r = await this.request<MapResult | null>(Methods.map, params, SESSION_TIMEOUT_MS, (m) => (error = m));
    return error !== undefined ? { error } : r;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await this.stop();
    this.stateEmitter.dispose();
    this.graphEmitter.dispose();
  }
}
