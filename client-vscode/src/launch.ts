// Pure logic deciding how to start the Rulemap language server. No `vscode` import here, so it
// is unit-testable without an editor.

import * as path from 'path';

/** The shape of `WorkspaceConfiguration.inspect('server.command')` that we read. */
export interface CommandInspection {
  defaultValue?: unknown;
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

export type LaunchSource =
  | 'workspace-setting'
  | 'user-setting'
  | 'workspace-path-setting'
  | 'user-path-setting'
  | 'python-extension'
  | 'project-venv'
  | 'path-executable'
  | 'managed-venv'
  | 'default-python';

/** Sources the user named explicitly: the only candidate, never a fallback. */
export function isExplicit(source: LaunchSource): boolean {
  return (
    source === 'workspace-setting' ||
    source === 'user-setting' ||
    source === 'workspace-path-setting' ||
    source === 'user-path-setting'
  );
}

export interface LaunchCandidate {
  command: string;
  args: string[];
  source: LaunchSource;
  /** For Python-based candidates: the interpreter that must have the `rulemap` module. */
  python?: string;
}

export interface LaunchInputs {
  /** `inspect()` of `rulemap.server.command`. */
  setting: CommandInspection | undefined;
  /** `inspect()` of `rulemap.server.path` (a `rulemap` executable or a Python that has it). */
  pathSetting?: CommandInspection | undefined;
  /** The interpreter of the workspace's own virtual environment (`.venv`, `venv`), when one exists. */
  projectVenvPython?: string;
  /** A `rulemap` executable found on PATH (e.g. from `pipx install`). */
  pathExecutable?: string;
  /** `workspace.isTrusted`. */
  trusted: boolean;
  /** The active interpreter of the Python extension, when it is installed and has one. */
  pythonExtensionInterpreter?: string;
  /** The interpreter of the virtual environment this extension created, when it exists. */
  managedVenvPython?: string;
  /** `process.platform`. */
  platform?: string;
  /** The home directory, for a `~/` in `rulemap.server.path`. */
  home?: string;
}

export interface LaunchPlan {
  /** Ordered: the first candidate whose checks pass is started. */
  candidates: LaunchCandidate[];
  /** Messages worth logging (e.g. a workspace setting ignored in Restricted Mode). */
  notes: string[];
}

export const SERVER_MODULE_ARGS = ['-m', 'rulemap', 'serve'];
/** The console script's arguments (`rulemap serve`; `--stdio` is appended by the client). */
export const SERVER_EXECUTABLE_ARGS = ['serve'];
/** The name of the console script `pip install` / `pipx install` put on PATH. */
export const SERVER_EXECUTABLE = 'rulemap';

/** Is `p` a Python interpreter (`python`, `python3.12`, `python.exe`) rather than `rulemap`? */
export function isPythonExecutable(p: string): boolean {
  const base = p.split(/[\\/]/).pop() ?? p;
  return /^python(\d+(\.\d+)*)?w?(\.exe)?$/i.test(base);
}

function asPath(value: unknown, home?: string): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const p = value.trim();
  return home && (p === '~' || p.startsWith('~/')) ? home + p.slice(1) : p;
}

/** `rulemap.server.path` → how to start it: `python -m rulemap serve` or `rulemap serve`. */
export function fromServerPath(p: string, source: LaunchSource): LaunchCandidate {
  return isPythonExecutable(p)
    ? { command: p, args: [...SERVER_MODULE_ARGS], source, python: p }
    : { command: p, args: [...SERVER_EXECUTABLE_ARGS], source };
}

/**
 * The first `name` on a PATH string (pure: `exists` is the file test). On Windows also tries
 * the PATHEXT extensions.
 */
export function findOnPath(
  name: string,
  pathEnv: string | undefined,
  exists: (p: string) => boolean,
  platform: string = process.platform,
  pathExt: string | undefined = undefined,
): string | undefined {
  const win = platform === 'win32';
  const sep = win ? ';' : ':';
  const join = win ? path.win32.join : path.posix.join;
  const exts = win ? (pathExt ?? '.EXE;.CMD;.BAT').split(';').filter(Boolean) : [''];
  for (const dir of (pathEnv ?? '').split(sep)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = join(dir, name + ext);
      if (exists(candidate)) return candidate;
    }
  }
  return undefined;
}

/** A valid `rulemap.server.command`: a non-empty array of non-empty strings. */
export function asCommand(value: unknown): string[] | undefined {
  if (!Array.isArray(value) || value.length === 0) {
    return undefined;
  }
  if (!value.every((v) => typeof v === 'string' && v.length > 0)) {
    return undefined;
  }
  return value as string[];
}

export function defaultPython(platform: string = process.platform): string {
  return platform === 'win32' ? 'python' : 'python3';
}

/** The interpreter inside a virtual environment directory. */
export function venvPython(venvDir: string, platform: string = process.platform): string {
  return platform === 'win32'
    ? path.win32.join(venvDir, 'Scripts', 'python.exe')
    : path.posix.join(venvDir, 'bin', 'python');
}

function pythonCandidate(python: string, source: LaunchSource): LaunchCandidate {
  return { command: python, args: [...SERVER_MODULE_ARGS], source, python };
}

/**
 * Decide which server commands to try, in order.
 *
 * 1. `rulemap.server.command`, then 2. `rulemap.server.path` — in Restricted Mode only from
 *    user settings (or the default), never from workspace or folder settings;
 * 3. the Python extension's active interpreter and 4. the workspace's `.venv` (trusted
 *    workspaces only: both are chosen by the workspace);
 * 5. `rulemap` on PATH (`pipx install`);
 * 6. the private environment created by "Create Server Environment";
 * 7. `python3 -m rulemap serve`.
 *
 * An explicit command or path is the only candidate. The others are tried in order; the first
 * whose interpreter has `rulemap` installed (or the PATH executable, which exists) wins.
 */
export function resolveLaunch(inputs: LaunchInputs): LaunchPlan {
  const notes: string[] = [];
  const s = inputs.setting ?? {};
  const workspaceCommand = asCommand(s.workspaceFolderValue) ?? asCommand(s.workspaceValue);
  const userCommand = asCommand(s.globalValue) ?? asCommand(s.defaultValue);

  if (inputs.trusted && workspaceCommand) {
    return { candidates: [fromCommand(workspaceCommand, 'workspace-setting')], notes };
  }
  if (!inputs.trusted && workspaceCommand) {
    notes.push(
      'Restricted Mode: ignoring rulemap.server.command from the workspace settings ' +
        `(${JSON.stringify(workspaceCommand)}). Trust the workspace to use it.`,
    );
  }
  if (userCommand) {
    return { candidates: [fromCommand(userCommand, 'user-setting')], notes };
  }
  const p = inputs.pathSetting ?? {};
  const workspacePath = asPath(p.workspaceFolderValue, inputs.home) ?? asPath(p.workspaceValue, inputs.home);
  const userPath = asPath(p.globalValue, inputs.home) ?? asPath(p.defaultValue, inputs.home);
  if (inputs.trusted && workspacePath) {
    return { candidates: [fromServerPath(workspacePath, 'workspace-path-setting')], notes };
  }
  if (!inputs.trusted && workspacePath) {
    notes.push(
      `Restricted Mode: ignoring rulemap.server.path from the workspace settings (${workspacePath}). ` +
        'Trust the workspace to use it.',
    );
  }
  if (userPath) {
    return { candidates: [fromServerPath(userPath, 'user-path-setting')], notes };
  }

  const candidates: LaunchCandidate[] = [];
  if (inputs.pythonExtensionInterpreter) {
    if (inputs.trusted) {
      candidates.push(pythonCandidate(inputs.pythonExtensionInterpreter, 'python-extension'));
    } else {
      notes.push("Restricted Mode: not using the Python extension's interpreter.");
    }
  }
  if (inputs.projectVenvPython) {
    if (inputs.trusted) {
      candidates.push(pythonCandidate(inputs.projectVenvPython, 'project-venv'));
    } else {
      notes.push("Restricted Mode: not using the workspace's virtual environment.");
    }
  }
  if (inputs.pathExecutable) {
    candidates.push({ command: inputs.pathExecutable, args: [...SERVER_EXECUTABLE_ARGS], source: 'path-executable' });
  }
  if (inputs.managedVenvPython) {
    candidates.push(pythonCandidate(inputs.managedVenvPython, 'managed-venv'));
  }
  candidates.push(pythonCandidate(defaultPython(inputs.platform), 'default-python'));
  return { candidates: dedupe(candidates), notes };
}

function fromCommand(cmd: string[], source: LaunchSource): LaunchCandidate {
  const [command, ...args] = cmd;
  return { command, args, source };
}

function dedupe(candidates: LaunchCandidate[]): LaunchCandidate[] {
  const seen = new Set<string>();
  return candidates.filter((c) => {
    const key = [c.command, ...c.args].join('\u0000');
    if (seen.has(key)) {
      return false;
    }
    seen.add(key);
    return true;
  });
}

/** Quote one argument for display in a POSIX or Windows shell. */
export function shellQuote(arg: string, platform: string = process.platform): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) {
    return arg;
  }
  if (platform === 'win32') {
    return `"${arg.replace(/"/g, '\\"')}"`;
  }
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** A command line for logs and messages. */
export function describeCommand(c: { command: string; args: string[] }): string {
  return [c.command, ...c.args].map((a) => shellQuote(a)).join(' ');
}

export function describeSource(source: LaunchSource): string {
  switch (source) {
    case 'workspace-setting':
      return 'rulemap.server.command (workspace settings)';
    case 'user-setting':
      return 'rulemap.server.command (user settings)';
    case 'workspace-path-setting':
      return 'rulemap.server.path (workspace settings)';
    case 'user-path-setting':
      return 'rulemap.server.path (user settings)';
    case 'python-extension':
      return "the Python extension's selected interpreter";
    case 'project-venv':
      return "the workspace's virtual environment";
    case 'path-executable':
      return 'rulemap on PATH';
    case 'managed-venv':
      return "Rulemap's private environment";
    case 'default-python':
      return 'the default python3';
  }
}

/** The Python snippet used to check that an interpreter can run the server. */
export const MODULE_CHECK_SCRIPT =
  "import importlib.util, sys; sys.exit(0 if importlib.util.find_spec('rulemap') else 3)";

export type ModuleCheck = 'ok' | 'missing-module' | 'no-python' | 'error';

/** Interpret the outcome of running `python -c MODULE_CHECK_SCRIPT`. */
export function interpretModuleCheck(outcome: {
  errorCode?: string;
  exitCode: number | null;
}): ModuleCheck {
  if (outcome.errorCode === 'ENOENT' || outcome.errorCode === 'EACCES') {
    return 'no-python';
  }
  if (outcome.errorCode) {
    return 'error';
  }
  if (outcome.exitCode === 0) {
    return 'ok';
  }
  if (outcome.exitCode === 3) {
    return 'missing-module';
  }
  return 'error';
}

/** Does a server's stderr say that the module is missing? (for explicit commands) */
export function looksLikeMissingModule(stderr: string): boolean {
  return /No module named '?rulemap'?|No module named rulemap/.test(stderr);
}

/** Settings that only configure the client; never sent to the server. */
const CLIENT_ONLY_KEYS = new Set(['server', 'trace', 'unseenLines']);

/**
 * The setting only the user may set: it lets `@imports` read outside the workspace. It is sent
 * once, as its user-scope (`globalValue`) value, in `initializationOptions` (see
 * `serverInitializationOptions`), never in the merged configuration a workspace could shape; the
 * server ignores it anywhere else (docs/security.md).
 */
export const USER_GRANT_KEY = 'allowImportsFrom';
const NOT_FORWARDED_KEYS = new Set([...CLIENT_ONLY_KEYS, USER_GRANT_KEY]);

/** The shape of `WorkspaceConfiguration.inspect('allowImportsFrom')` that we read. */
export interface GrantInspection {
  globalValue?: unknown;
}

/**
 * What the user grants with `rulemap.allowImportsFrom`: the user-settings value only, and
 * nothing at all in Restricted Mode (an untrusted workspace gets no access outside itself).
 */
export function userImportGrant(inspection: GrantInspection | undefined, trusted: boolean): unknown {
  if (!trusted) {
    return undefined;
  }
  const value = inspection?.globalValue;
  return value === null ? undefined : value;
}

/**
 * `initializationOptions`: the cleaned `rulemap` section, plus the user's own
 * `allowImportsFrom` (when there is one, and the workspace is trusted).
 */
export function serverInitializationOptions(
  section: unknown,
  grant: GrantInspection | undefined,
  trusted: boolean,
): Record<string, unknown> {
  const cleaned = cleanServerConfig(section ?? {});
  const out: Record<string, unknown> =
    cleaned !== null && typeof cleaned === 'object' && !Array.isArray(cleaned) ? { ...(cleaned as Record<string, unknown>) } : {};
  const value = userImportGrant(grant, trusted);
  if (value !== undefined) {
    out[USER_GRANT_KEY] = value;
  }
  return out;
}

/**
 * The `rulemap` section for `workspace/didChangeConfiguration`: as VS Code merges it (`null`
 * kept: it tells the server a setting was removed), without the user-only key.
 */
export function withoutUserGrant(section: unknown): Record<string, unknown> {
  if (section === null || typeof section !== 'object' || Array.isArray(section)) {
    return {};
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(section as Record<string, unknown>)) {
    if (k !== USER_GRANT_KEY) {
      out[k] = v;
    }
  }
  return out;
}

/**
 * Clean the `rulemap` configuration section before it reaches the server: drop `null`
 * (meaning "not set here, use rulemap.toml"), client-only keys and the user-only
 * `allowImportsFrom` (sent separately, see `serverInitializationOptions`).
 */
export function cleanServerConfig(value: unknown, topLevel = true): unknown {
  if (Array.isArray(value)) {
    return value.map((v) => cleanServerConfig(v, false));
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v === null || v === undefined || (topLevel && NOT_FORWARDED_KEYS.has(k))) {
        continue;
      }
      out[k] = cleanServerConfig(v, false);
    }
    return out;
  }
  return value;
}

/**
 * Pure: does a change of the Python extension's interpreter call for a restart? Only when the
 * interpreter could be used (trusted workspace, no explicit command) and differs from the one
 * running — the Python extension fires its event more often than the interpreter changes.
 */
export function interpreterChangeNeedsRestart(
  current: LaunchCandidate | undefined,
  interpreter: string | undefined,
  trusted: boolean,
): boolean {
  if (current && isExplicit(current.source)) {
    return false;
  }
  if (!trusted) {
    return false;
  }
  if (!current) {
    return interpreter !== undefined; // not running: a new interpreter may have rulemap
  }
  if (current.source === 'python-extension') {
    return current.python !== interpreter;
  }
  return interpreter !== undefined && interpreter !== current.python;
}
