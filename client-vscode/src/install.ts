// Running Python: checking that an interpreter has `rulemap`, and installing it into a virtual
// environment owned by the extension.

import * as cp from 'child_process';
import * as fs from 'fs';
import * as vscode from 'vscode';
import { interpretModuleCheck, ModuleCheck, MODULE_CHECK_SCRIPT, PIP_PACKAGE, venvPython } from './launch';

export interface RunResult {
  exitCode: number | null;
  errorCode?: string;
  output: string;
}

export function run(
  command: string,
  args: string[],
  opts: { timeoutMs?: number; log?: vscode.LogOutputChannel; cwd?: string } = {},
): Promise<RunResult> {
  return new Promise((resolve) => {
    let output = '';
    let settled = false;
    const done = (r: RunResult) => {
      if (!settled) {
        settled = true;
        resolve(r);
      }
    };
    let child: cp.ChildProcess;
    try {
      child = cp.spawn(command, args, { cwd: opts.cwd, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      done({ exitCode: null, errorCode: (e as NodeJS.ErrnoException).code ?? 'ERROR', output: String(e) });
      return;
    }
    const timer = opts.timeoutMs
      ? setTimeout(() => {
          child.kill();
          done({ exitCode: null, errorCode: 'ETIMEDOUT', output });
        }, opts.timeoutMs)
      : undefined;
    const onData = (b: Buffer) => {
      const s = b.toString();
      output += s;
      opts.log?.info(s.replace(/\s+$/, ''));
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (timer) clearTimeout(timer);
      done({ exitCode: null, errorCode: e.code ?? 'ERROR', output: output + String(e) });
    });
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      done({ exitCode: code, output });
    });
  });
}

/** Can `python` import `rulemap`? */
export async function checkModule(python: string): Promise<ModuleCheck> {
  const r = await run(python, ['-c', MODULE_CHECK_SCRIPT], { timeoutMs: 20000 });
  return interpretModuleCheck(r);
}

export function managedVenvDir(context: vscode.ExtensionContext): string {
  return vscode.Uri.joinPath(context.globalStorageUri, 'venv').fsPath;
}

export function existingManagedVenvPython(context: vscode.ExtensionContext): string | undefined {
  const py = venvPython(managedVenvDir(context));
  return fs.existsSync(py) ? py : undefined;
}

/**
 * Create (or reuse) the extension's virtual environment with `basePython` and pip-install
 * Rulemap into it. Returns the venv's interpreter, or undefined on failure (logged).
 */
export async function createVenvAndInstall(
  context: vscode.ExtensionContext,
  basePython: string,
  log: vscode.LogOutputChannel,
): Promise<string | undefined> {
  const dir = managedVenvDir(context);
  const py = venvPython(dir);
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Rulemap', cancellable: false },
    async (progress) => {
      await fs.promises.mkdir(context.globalStorageUri.fsPath, { recursive: true });
      if (!fs.existsSync(py)) {
        progress.report({ message: `Creating a virtual environment in ${dir}…` });
        log.info(`Running: ${basePython} -m venv ${dir}`);
        const r = await run(basePython, ['-m', 'venv', dir], { log, timeoutMs: 120000 });
        if (r.exitCode !== 0) {
          log.error(`Creating the virtual environment failed (${r.errorCode ?? r.exitCode}).`);
          return undefined;
        }
      }
      progress.report({ message: `Installing ${PIP_PACKAGE} with pip…` });
      log.info(`Running: ${py} -m pip install ${PIP_PACKAGE}`);
      const r = await run(py, ['-m', 'pip', 'install', '--disable-pip-version-check', PIP_PACKAGE], {
        log,
        timeoutMs: 600000,
      });
      if (r.exitCode !== 0) {
        log.error(`pip install failed (${r.errorCode ?? r.exitCode}).`);
        return undefined;
      }
      return py;
    },
  );
}
