// Running Python: checking that an interpreter has `rulemap`, finding the workspace's and the
// PATH's servers, and creating the extension's private environment (python -m venv + pip
// install of the bundled server or of the workspace's Rulemap). The decisions are in setup.ts.

import * as cp from 'child_process';
import * as fs from 'fs';
import * as vscode from 'vscode';
import * as path from 'path';
import { findOnPath, interpretModuleCheck, ModuleCheck, MODULE_CHECK_SCRIPT, SERVER_EXECUTABLE, venvPython } from './launch';
import {
  basePythonCandidates,
  chooseBasePython,
  InstallFailure,
  InstallSource,
  isRulemapProject,
  pipProgress,
  PythonProbe,
  VERSION_SCRIPT,
} from './setup';

export interface RunResult {
  exitCode: number | null;
  errorCode?: string;
  output: string;
}

export function run(
  command: string,
  args: string[],
  opts: { timeoutMs?: number; log?: vscode.LogOutputChannel; cwd?: string; onLine?: (line: string) => void } = {},
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
      if (opts.onLine) s.split(/\r?\n/).forEach((l) => l && opts.onLine?.(l));
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

/** `major.minor` of `python`, undefined when it does not run. */
export async function probeVersion(python: string): Promise<PythonProbe> {
  const r = await run(python, ['-c', VERSION_SCRIPT], { timeoutMs: 20000 });
  const version = r.exitCode === 0 ? r.output.trim().split(/\s+/).pop() : undefined;
  return { python, version };
}

export function managedVenvDir(context: vscode.ExtensionContext): string {
  return vscode.Uri.joinPath(context.globalStorageUri, 'venv').fsPath;
}

export function existingManagedVenvPython(context: vscode.ExtensionContext): string | undefined {
  const py = venvPython(managedVenvDir(context));
  return fs.existsSync(py) ? py : undefined;
}

/** The interpreter of the workspace folder's own `.venv` (or `venv`), when there is one. */
export function projectVenvPython(folder: string | undefined): string | undefined {
  if (!folder) return undefined;
  for (const name of ['.venv', 'venv']) {
    const py = venvPython(path.join(folder, name));
    if (fs.existsSync(py)) return py;
  }
  return undefined;
}

/** `rulemap` on PATH (pipx puts it there). */
export function rulemapOnPath(): string | undefined {
  return findOnPath(SERVER_EXECUTABLE, process.env.PATH, isExecutableFile, process.platform, process.env.PATHEXT);
}

function isExecutableFile(p: string): boolean {
  try {
    if (!fs.statSync(p).isFile()) return false;
    if (process.platform !== 'win32') fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The server sources the build copied into the extension (scripts/build.mjs). */
export function bundledServerDir(context: vscode.ExtensionContext): string | undefined {
  const dir = path.join(context.extensionPath, 'dist', 'rulemap-server');
  return fs.existsSync(path.join(dir, 'pyproject.toml')) ? dir : undefined;
}

/** The workspace folder itself, when it is a Rulemap checkout. */
export function workspaceRulemapDir(folder: string | undefined): string | undefined {
  if (!folder) return undefined;
  try {
    return isRulemapProject(fs.readFileSync(path.join(folder, 'pyproject.toml'), 'utf8')) ? folder : undefined;
  } catch {
    return undefined;
  }
}

export type CreateResult = { ok: true; python: string } | { ok: false; failure: InstallFailure };

/**
 * Create (or reuse) the private environment in globalStorage and pip-install Rulemap from
 * `source` into it, with a progress notification. `selectedPython`: the Python extension's
 * interpreter, tried first as the base.
 */
export async function createEnvironment(
  context: vscode.ExtensionContext,
  source: InstallSource,
  selectedPython: string | undefined,
  log: vscode.LogOutputChannel,
): Promise<CreateResult> {
  const dir = managedVenvDir(context);
  const py = venvPython(dir);
  return vscode.window.withProgress(
    // (one line in the toast: short title, short messages)
    { location: vscode.ProgressLocation.Notification, title: 'Rulemap setup', cancellable: false },
    async (progress): Promise<CreateResult> => {
      await fs.promises.mkdir(context.globalStorageUri.fsPath, { recursive: true });
      if (!fs.existsSync(py)) {
        progress.report({ message: 'finding Python 3.11+…' });
        const tried: PythonProbe[] = [];
        let base: PythonProbe | undefined;
        for (const candidate of basePythonCandidates(selectedPython)) {
          const probe = await probeVersion(candidate);
          tried.push(probe);
          if ((base = chooseBasePython([probe]))) break;
        }
        log.info(`Python probes: ${tried.map((p) => `${p.python}=${p.version ?? 'none'}`).join(', ')}`);
        if (!base) return { ok: false, failure: { stage: 'no-python', tried } };
        progress.report({ message: `creating a Python ${base.version} environment…` });
        log.info(`Running: ${base.python} -m venv ${dir}`);
        const r = await run(base.python, ['-m', 'venv', dir], { log, timeoutMs: 180000 });
        if (r.exitCode !== 0) {
          await fs.promises.rm(dir, { recursive: true, force: true }).catch(() => undefined);
          return { ok: false, failure: { stage: 'venv', output: r.output, errorCode: r.errorCode } };
        }
      }
      // pip builds a local project in place: build from a private copy, never in the
      // (possibly read-only) extension folder or the user's checkout
      let from = source.dir;
      if (source.kind === 'bundled') {
        from = path.join(context.globalStorageUri.fsPath, 'server-src');
        await fs.promises.rm(from, { recursive: true, force: true });
        await fs.promises.cp(source.dir, from, { recursive: true });
      }
      progress.report({ message: 'pip: installing Rulemap…' });
      log.info(`Running: ${py} -m pip install ${from}`);
      const r = await run(py, ['-m', 'pip', 'install', '--disable-pip-version-check', from], {
        log,
        timeoutMs: 600000,
        onLine: (line) => {
          const m = pipProgress(line);
          if (m) progress.report({ message: `pip: ${m}` });
        },
      });
      if (r.exitCode !== 0) return { ok: false, failure: { stage: 'pip', output: r.output, errorCode: r.errorCode } };
      const check = await run(py, ['-c', 'import rulemap.lsp.server'], { timeoutMs: 30000 });
      if (check.exitCode !== 0) return { ok: false, failure: { stage: 'check', output: check.output } };
      return { ok: true, python: py };
    },
  );
}
