// Pure decisions about a missing server: what to tell the user (at most two buttons), where a
// private environment installs Rulemap from, which Python creates it, and the one line of a
// failed pip or venv run worth showing. No `vscode` import: unit-tested without an editor.
//
// Rulemap is not on PyPI: it is installed from a clone (`pipx install .` / `pip install .`), so
// no message here ever suggests `pip install rulemap`.

import { describeSource, isExplicit, LaunchCandidate, ModuleCheck } from './launch';

/** Notification buttons (VS Code cuts a toast with more than two). */
export type NoticeAction = 'Create Environment' | 'Open Settings' | 'Show Output';

export interface Notice {
  message: string;
  /** At most two. */
  actions: NoticeAction[];
}

/** The setting that points at the server, named in messages. */
export type ServerSetting = 'rulemap.server.command' | 'rulemap.server.path';

export type MissingServer =
  /** An explicit setting names a Python that lacks the `rulemap` module. */
  | { kind: 'explicit-missing-module'; python: string; setting: ServerSetting }
  /** An explicit setting names a program that does not exist or cannot run. */
  | { kind: 'explicit-not-found'; command: string; setting: ServerSetting }
  /** Nothing found anywhere Rulemap looks. */
  | { kind: 'none-found' };

export const HOW_TO_INSTALL = 'install it from a Rulemap clone with `pipx install .`';

/** What to show when no server could be started; `canCreate`: a private environment can be made. */
export function missingServerNotice(m: MissingServer, canCreate: boolean): Notice {
  switch (m.kind) {
    case 'explicit-missing-module':
      return {
        message: `Rulemap is not installed in ${m.python} (${m.setting}). Point the setting at a Python that has it, or clear it to let Rulemap find one.`,
        actions: ['Open Settings', 'Show Output'],
      };
    case 'explicit-not-found':
      return {
        message: `Rulemap: cannot run ${m.command} (${m.setting}): not found. Fix the setting, or clear it to let Rulemap find the server.`,
        actions: ['Open Settings', 'Show Output'],
      };
    case 'none-found':
      return canCreate
        ? {
            message:
              'Rulemap: no Rulemap server found (settings, Python interpreter, .venv, PATH). Create a private environment for it (Python 3.11+, pip)?',
            actions: ['Create Environment', 'Open Settings'],
          }
        : {
            message: `Rulemap: no Rulemap server found. To fix: ${HOW_TO_INSTALL}, or set rulemap.server.path.`,
            actions: ['Open Settings', 'Show Output'],
          };
  }
}

/** Where the private environment installs Rulemap from. */
export type InstallSource = { kind: 'bundled' | 'workspace'; dir: string };

/**
 * The server bundled in the extension (it matches the extension's protocol), else the
 * workspace's own Rulemap checkout — only when the workspace is trusted: installing it runs its
 * build code.
 */
export function chooseInstallSource(opts: {
  bundledDir?: string;
  workspaceRulemapDir?: string;
  trusted: boolean;
}): InstallSource | undefined {
  if (opts.bundledDir) return { kind: 'bundled', dir: opts.bundledDir };
  if (opts.trusted && opts.workspaceRulemapDir) return { kind: 'workspace', dir: opts.workspaceRulemapDir };
  return undefined;
}

/** Does this `pyproject.toml` text describe the Rulemap project itself? */
export function isRulemapProject(pyproject: string): boolean {
  const project = /^\[project\]\s*$([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(pyproject);
  return !!project && /^name\s*=\s*["']rulemap["']\s*$/m.test(project[1]);
}

/** The Python snippet printing `major.minor`. */
export const VERSION_SCRIPT = "import sys; print('%d.%d' % sys.version_info[:2])";
export const MIN_PYTHON: [number, number] = [3, 11];

export interface PythonProbe {
  python: string;
  /** `major.minor`, undefined when it did not run. */
  version?: string;
}

function atLeast(version: string, min: [number, number]): boolean {
  const m = /^(\d+)\.(\d+)/.exec(version.trim());
  if (!m) return false;
  const [a, b] = [Number(m[1]), Number(m[2])];
  return a > min[0] || (a === min[0] && b >= min[1]);
}

/** The first probed interpreter new enough to create the environment. */
export function chooseBasePython(probes: PythonProbe[]): PythonProbe | undefined {
  return probes.find((p) => p.version !== undefined && atLeast(p.version, MIN_PYTHON));
}

/** Interpreters to probe, in order: the selected one (trusted only), then the usual names. */
export function basePythonCandidates(selected: string | undefined, platform: string = process.platform): string[] {
  const names = platform === 'win32' ? ['python', 'py'] : ['python3.13', 'python3.12', 'python3.11', 'python3', 'python'];
  return [...new Set([...(selected ? [selected] : []), ...names])];
}

const MAX_LINE = 180;

function clip(line: string): string {
  const l = line.trim().replace(/\s+/g, ' ');
  return l.length > MAX_LINE ? `${l.slice(0, MAX_LINE - 1)}…` : l;
}

/**
 * The one line of a failed pip / venv run that says what went wrong: pip's last `ERROR:` line,
 * else the last line that mentions an error, else the last line.
 */
export function errorLine(output: string): string {
  const lines = output
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const pipError = [...lines].reverse().find((l) => l.startsWith('ERROR:'));
  if (pipError) return clip(pipError);
  // (Debian's venv message wraps its lines)
  if (/ensurepip\s+is\s+not\s+available/.test(output)) return 'ensurepip is not available.';
  const error = [...lines].reverse().find((l) => /error|not found|denied|no such/i.test(l));
  return clip(error ?? lines.at(-1) ?? 'no output');
}

export type InstallFailure =
  | { stage: 'no-python'; tried: PythonProbe[] }
  | { stage: 'no-source' }
  | { stage: 'venv' | 'pip' | 'check'; output: string; errorCode?: string };

/** The error toast of a failed "Create Environment": what failed, one line of why, the fix. */
export function installFailureNotice(f: InstallFailure): Notice {
  const actions: NoticeAction[] = ['Show Output', 'Open Settings'];
  switch (f.stage) {
    case 'no-python': {
      const old = f.tried.filter((p) => p.version !== undefined);
      const found = old.length ? ` (found ${old.map((p) => `${p.python} ${p.version}`).join(', ')})` : ' (none found)';
      return {
        message: `Rulemap: creating its environment needs Python 3.11+${found}. Install Python 3.11 or newer, or set rulemap.server.path.`,
        actions,
      };
    }
    case 'no-source':
      return {
        message: `Rulemap: this extension has no bundled server to install. To fix: ${HOW_TO_INSTALL}, or set rulemap.server.path.`,
        actions,
      };
    case 'venv': {
      const line = errorLine(f.output);
      const fix = /ensurepip/.test(f.output)
        ? 'install your distribution\'s python3-venv package (e.g. `apt install python3-venv`)'
        : 'check the Python installation';
      return { message: `Rulemap: creating the virtual environment failed: ${line} To fix: ${fix}, or set rulemap.server.path.`, actions };
    }
    case 'pip': {
      const line = f.errorCode === 'ETIMEDOUT' ? 'pip did not finish in time.' : errorLine(f.output);
      return {
        message: `Rulemap: pip install failed: ${line} To fix: check the network or proxy (pip needs PyPI for the dependencies), or set rulemap.server.path.`,
        actions,
      };
    }
    case 'check':
      return {
        message: `Rulemap: the new environment cannot import rulemap: ${errorLine(f.output)} To fix: set rulemap.server.path.`,
        actions,
      };
  }
}

/** A short progress text from a line of pip's output ("Collecting pygls" → "pygls"). */
export function pipProgress(line: string): string | undefined {
  const m = /^\s*(Collecting|Downloading|Building wheel for|Installing collected packages:)\s*(.*)$/.exec(line);
  if (!m) return undefined;
  const what = m[2].split(/[\s(<>=!~;]/)[0] ?? '';
  switch (m[1]) {
    case 'Installing collected packages:':
      return 'installing the packages…';
    case 'Building wheel for':
      return `building ${what}…`;
    default: {
      // a package name: "pygls<3" → "pygls", ".../pyyaml-6.0.4-cp311-….whl" → "pyyaml"
      const name = (what.split('/').pop() ?? '').split('-')[0];
      return name ? `downloading ${name}…` : undefined;
    }
  }
}

/** The outcome of checking the launch plan's candidates. */
export type Pick = { candidate: LaunchCandidate; checked: string[] } | { missing: MissingServer; checked: string[] };

/**
 * Which candidate to start (pure; `check` runs the module check, `exists` tests a path). An
 * explicit setting is the only candidate: checked when it names a Python, tested for existence
 * when it is an absolute path. Otherwise the first interpreter that has `rulemap` (or whose check
 * failed for another reason: the server then reports its own problem), or the PATH executable.
 */
export async function pickCandidate(
  candidates: LaunchCandidate[],
  check: (python: string) => Promise<ModuleCheck>,
  exists: (p: string) => boolean,
): Promise<Pick> {
  const checked: string[] = [];
  const explicit = candidates.find((c) => isExplicit(c.source));
  if (explicit) {
    const setting: ServerSetting = explicit.source.endsWith('path-setting') ? 'rulemap.server.path' : 'rulemap.server.command';
    if (explicit.python || (explicit.args[0] === '-m' && explicit.args[1] === 'rulemap')) {
      const python = explicit.python ?? explicit.command;
      const result = await check(python);
      checked.push(`${describeSource(explicit.source)} (${python}): ${result}`);
      if (result === 'missing-module') return { missing: { kind: 'explicit-missing-module', python, setting }, checked };
      if (result === 'no-python') return { missing: { kind: 'explicit-not-found', command: python, setting }, checked };
    } else if (/^([/\\]|[A-Za-z]:[\\/])/.test(explicit.command) && !exists(explicit.command)) {
      return { missing: { kind: 'explicit-not-found', command: explicit.command, setting }, checked };
    }
    return { candidate: explicit, checked };
  }
  for (const c of candidates) {
    if (!c.python) {
      checked.push(`${describeSource(c.source)} (${c.command}): found`);
      return { candidate: c, checked };
    }
    const result = await check(c.python);
    checked.push(`${describeSource(c.source)} (${c.command}): ${result}`);
    if (result === 'ok' || result === 'error') return { candidate: c, checked };
  }
  return { missing: { kind: 'none-found' }, checked };
}
