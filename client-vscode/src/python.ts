// Optional integration with the Python extension (ms-python.python): its active interpreter.
// Everything is guarded: the extension may be missing, inactive, or have another API shape.

import * as vscode from 'vscode';

const PYTHON_EXTENSION_ID = 'ms-python.python';

interface EnvironmentPath {
  id?: string;
  path?: string;
}

interface PythonEnvironmentsApi {
  getActiveEnvironmentPath?(resource?: vscode.Uri): EnvironmentPath | undefined;
  resolveEnvironment?(env: EnvironmentPath | string): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
  onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
}

interface PythonApi {
  environments?: PythonEnvironmentsApi;
}

export class PythonInterpreter implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  /** Fires when the selected interpreter may have changed. */
  readonly onDidChange = this.emitter.event;
  private readonly disposables: vscode.Disposable[] = [];
  private subscribed = false;
  private lastInstalled: boolean;

  constructor(private readonly log: vscode.LogOutputChannel) {
    this.lastInstalled = vscode.extensions.getExtension(PYTHON_EXTENSION_ID) !== undefined;
    this.disposables.push(
      vscode.extensions.onDidChange(() => {
        const installed = vscode.extensions.getExtension(PYTHON_EXTENSION_ID) !== undefined;
        if (installed !== this.lastInstalled) {
          this.lastInstalled = installed;
          this.subscribed = false;
          this.emitter.fire();
        }
      }),
    );
  }

  /** The interpreter's executable, or undefined when the Python extension is not there. */
  async interpreter(resource?: vscode.Uri): Promise<string | undefined> {
    const ext = vscode.extensions.getExtension<PythonApi>(PYTHON_EXTENSION_ID);
    if (!ext) {
      return undefined;
    }
    try {
      const api = ext.isActive ? ext.exports : await ext.activate();
      const envs = api?.environments;
      if (!envs?.getActiveEnvironmentPath) {
        return undefined;
      }
      if (!this.subscribed && envs.onDidChangeActiveEnvironmentPath) {
        this.subscribed = true;
        this.disposables.push(envs.onDidChangeActiveEnvironmentPath(() => this.emitter.fire()));
      }
      const envPath = envs.getActiveEnvironmentPath(resource);
      if (!envPath?.path) {
        return undefined;
      }
      if (envs.resolveEnvironment) {
        const env = await envs.resolveEnvironment(envPath);
        const exe = env?.executable?.uri?.fsPath;
        if (exe) {
          return exe;
        }
      }
      return envPath.path;
    } catch (e) {
      this.log.warn(`Could not ask the Python extension for its interpreter: ${String(e)}`);
      return undefined;
    }
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
    this.emitter.dispose();
  }
}
