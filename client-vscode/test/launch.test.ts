import { describe, expect, it } from 'vitest';
import {
  asCommand,
  cleanServerConfig,
  interpretModuleCheck,
  interpreterChangeNeedsRestart,
  looksLikeMissingModule,
  findOnPath,
  fromServerPath,
  isPythonExecutable,
  resolveLaunch,
  serverInitializationOptions,
  shellQuote,
  userImportGrant,
  venvPython,
  withoutUserGrant,
} from '../src/launch';

const DEFAULT = { defaultValue: [] };

describe('resolveLaunch', () => {
  it('uses the workspace command in a trusted workspace', () => {
    const plan = resolveLaunch({
      setting: { ...DEFAULT, workspaceValue: ['/ws/.venv/bin/python', '-m', 'rulemap', 'serve'], globalValue: ['other'] },
      trusted: true,
    });
    expect(plan.candidates).toEqual([
      { command: '/ws/.venv/bin/python', args: ['-m', 'rulemap', 'serve'], source: 'workspace-setting' },
    ]);
    expect(plan.notes).toEqual([]);
  });

  it('never uses a workspace or folder command in Restricted Mode', () => {
    const plan = resolveLaunch({
      setting: { ...DEFAULT, workspaceValue: ['/bin/sh', '-c', 'touch /tmp/pwned'], workspaceFolderValue: ['evil'] },
      trusted: false,
    });
    const lines = plan.candidates.map((c) => [c.command, ...c.args].join(' '));
    expect(lines.some((l) => l.includes('pwned') || l.includes('evil'))).toBe(false);
    expect(plan.candidates.at(-1)).toMatchObject({ command: 'python3', args: ['-m', 'rulemap', 'serve'], source: 'default-python' });
    expect(plan.notes.join('\n')).toMatch(/Restricted Mode: ignoring rulemap.server.command/);
  });

  it('uses the user command in Restricted Mode', () => {
    const plan = resolveLaunch({
      setting: { ...DEFAULT, globalValue: ['/usr/bin/rulemap', 'serve'], workspaceValue: ['evil'] },
      trusted: false,
    });
    expect(plan.candidates).toEqual([{ command: '/usr/bin/rulemap', args: ['serve'], source: 'user-setting' }]);
  });

  it('prefers the folder value over the workspace value when trusted', () => {
    const plan = resolveLaunch({
      setting: { ...DEFAULT, workspaceValue: ['a'], workspaceFolderValue: ['b', 'serve'] },
      trusted: true,
    });
    expect(plan.candidates[0].command).toBe('b');
  });

  it('falls back to the Python extension, then the managed venv, then python3', () => {
    const plan = resolveLaunch({
      setting: DEFAULT,
      trusted: true,
      pythonExtensionInterpreter: '/ws/.venv/bin/python',
      managedVenvPython: '/storage/venv/bin/python',
      platform: 'linux',
    });
    expect(plan.candidates.map((c) => [c.source, c.python])).toEqual([
      ['python-extension', '/ws/.venv/bin/python'],
      ['managed-venv', '/storage/venv/bin/python'],
      ['default-python', 'python3'],
    ]);
    expect(plan.candidates.every((c) => c.args.join(' ') === '-m rulemap serve')).toBe(true);
  });

  it("ignores the Python extension's interpreter in Restricted Mode", () => {
    const plan = resolveLaunch({ setting: DEFAULT, trusted: false, pythonExtensionInterpreter: '/ws/evil/python' });
    expect(plan.candidates.map((c) => c.command)).toEqual(['python3']);
    expect(plan.notes.length).toBe(1);
  });

  it('ignores empty or malformed command settings', () => {
    for (const bad of [[], [''], 'python -m rulemap serve', [1, 2], null, {}]) {
      const plan = resolveLaunch({ setting: { ...DEFAULT, globalValue: bad }, trusted: true, platform: 'linux' });
      expect(plan.candidates.map((c) => c.source)).toEqual(['default-python']);
    }
  });

  it('uses python on Windows and removes duplicate candidates', () => {
    const plan = resolveLaunch({ setting: undefined, trusted: true, pythonExtensionInterpreter: 'python', platform: 'win32' });
    expect(plan.candidates.map((c) => c.command)).toEqual(['python']);
  });
});

describe('helpers', () => {
  it('asCommand validates arrays of strings', () => {
    expect(asCommand(['a', 'b'])).toEqual(['a', 'b']);
    expect(asCommand(['a', ''])).toBeUndefined();
    expect(asCommand(undefined)).toBeUndefined();
  });

  it('quotes arguments for a shell', () => {
    expect(shellQuote('/usr/bin/python3', 'linux')).toBe('/usr/bin/python3');
    expect(shellQuote('/home/me/My Env/bin/python', 'linux')).toBe("'/home/me/My Env/bin/python'");
    expect(shellQuote('C:\\Program Files\\Python\\python.exe', 'win32')).toBe('"C:\\Program Files\\Python\\python.exe"');
    expect(shellQuote("it's", 'linux')).toBe(`'it'\\''s'`);
  });

  it('knows where a venv keeps its interpreter', () => {
    expect(venvPython('/s/venv', 'linux')).toBe('/s/venv/bin/python');
    expect(venvPython('C:\\s\\venv', 'win32')).toBe('C:\\s\\venv\\Scripts\\python.exe');
  });

  it('interprets the module check', () => {
    expect(interpretModuleCheck({ exitCode: 0 })).toBe('ok');
    expect(interpretModuleCheck({ exitCode: 3 })).toBe('missing-module');
    expect(interpretModuleCheck({ exitCode: null, errorCode: 'ENOENT' })).toBe('no-python');
    expect(interpretModuleCheck({ exitCode: 1 })).toBe('error');
    expect(interpretModuleCheck({ exitCode: null, errorCode: 'ETIMEDOUT' })).toBe('error');
  });

  it('recognises a missing module in stderr', () => {
    expect(looksLikeMissingModule("/usr/bin/python3: No module named rulemap")).toBe(true);
    expect(looksLikeMissingModule("ModuleNotFoundError: No module named 'rulemap'")).toBe(true);
    expect(looksLikeMissingModule('Traceback: KeyError')).toBe(false);
  });

  it('strips nulls and client-only settings before they reach the server', () => {
    expect(
      cleanServerConfig({
        profile: 'cogitator',
        hover: { sourceFiles: 'firstLine' },
        maxChars: null,
        files: null,
        ignore: ['dist/**'],
        severity: { 'duplicate-load': 'off', x: null },
        diagnostics: { debounceMs: 150 },
        server: { command: ['/bin/sh', '-c', 'x'] },
        trace: { server: 'verbose' },
      }),
    ).toEqual({
      profile: 'cogitator',
      hover: { sourceFiles: 'firstLine' },
      ignore: ['dist/**'],
      severity: { 'duplicate-load': 'off' },
      diagnostics: { debounceMs: 150 },
    });
  });
});

describe('allowImportsFrom: the user grants it, never the workspace', () => {
  const section = { profile: 'mastra', maxChars: null, allowImportsFrom: ['~', '/'], server: { command: ['x'] } };

  it('never forwards the merged value (a workspace could have shaped it)', () => {
    expect(cleanServerConfig(section)).toEqual({ profile: 'mastra' });
    expect(withoutUserGrant(section)).toEqual({ profile: 'mastra', maxChars: null, server: { command: ['x'] } });
    expect(withoutUserGrant(null)).toEqual({});
  });

  it('sends only the user-settings value, in initializationOptions', () => {
    const inspection = { globalValue: ['~/notes'], workspaceValue: ['~'], workspaceFolderValue: ['/'] };
    expect(userImportGrant(inspection, true)).toEqual(['~/notes']);
    expect(serverInitializationOptions(section, inspection, true)).toEqual({
      profile: 'mastra',
      allowImportsFrom: ['~/notes'],
    });
  });

  it('sends nothing when the user set nothing, even if the workspace did', () => {
    const inspection = { globalValue: undefined, workspaceValue: ['~'] };
    expect(userImportGrant(inspection, true)).toBeUndefined();
    expect(userImportGrant({ globalValue: null }, true)).toBeUndefined();
    expect(serverInitializationOptions(section, inspection, true)).toEqual({ profile: 'mastra' });
    expect(serverInitializationOptions(undefined, undefined, true)).toEqual({});
  });

  it('sends nothing in Restricted Mode', () => {
    const inspection = { globalValue: ['~/notes'] };
    expect(userImportGrant(inspection, false)).toBeUndefined();
    expect(serverInitializationOptions(section, inspection, false)).toEqual({ profile: 'mastra' });
  });
});

describe('interpreterChangeNeedsRestart', () => {
  const py = (python: string, source: 'python-extension' | 'default-python' | 'managed-venv') => ({
    command: python,
    args: ['-m', 'rulemap', 'serve'],
    source,
    python,
  });
  const explicit = { command: '/x/python', args: ['-m', 'rulemap', 'serve'], source: 'user-setting' as const };

  it('ignores interpreter changes while an explicit command is used', () => {
    expect(interpreterChangeNeedsRestart(explicit, '/new/python', true)).toBe(false);
  });
  it('ignores them in Restricted Mode', () => {
    expect(interpreterChangeNeedsRestart(py('python3', 'default-python'), '/new/python', false)).toBe(false);
  });
  it('restarts when the selected interpreter really changed', () => {
    expect(interpreterChangeNeedsRestart(py('/a/python', 'python-extension'), '/a/python', true)).toBe(false);
    expect(interpreterChangeNeedsRestart(py('/a/python', 'python-extension'), '/b/python', true)).toBe(true);
    expect(interpreterChangeNeedsRestart(py('/a/python', 'python-extension'), undefined, true)).toBe(true);
  });
  it('switches from the fallback to a newly selected interpreter', () => {
    expect(interpreterChangeNeedsRestart(py('python3', 'default-python'), '/b/python', true)).toBe(true);
    expect(interpreterChangeNeedsRestart(py('python3', 'default-python'), undefined, true)).toBe(false);
  });
  it('retries a failed start when an interpreter appears', () => {
    expect(interpreterChangeNeedsRestart(undefined, '/b/python', true)).toBe(true);
    expect(interpreterChangeNeedsRestart(undefined, undefined, true)).toBe(false);
  });
});

describe('finding the server the way users expect', () => {
  const base = { setting: DEFAULT, trusted: true, platform: 'linux' };

  it('rulemap.server.path: a rulemap executable runs `serve`, a Python runs `-m rulemap serve`', () => {
    expect(resolveLaunch({ ...base, pathSetting: { globalValue: '/home/me/.local/bin/rulemap' } }).candidates).toEqual([
      { command: '/home/me/.local/bin/rulemap', args: ['serve'], source: 'user-path-setting' },
    ]);
    expect(resolveLaunch({ ...base, pathSetting: { globalValue: '/opt/venv/bin/python3.12' } }).candidates).toEqual([
      { command: '/opt/venv/bin/python3.12', args: ['-m', 'rulemap', 'serve'], source: 'user-path-setting', python: '/opt/venv/bin/python3.12' },
    ]);
    expect(resolveLaunch({ ...base, home: '/home/me', pathSetting: { globalValue: '~/.local/bin/rulemap' } }).candidates[0].command).toBe(
      '/home/me/.local/bin/rulemap',
    );
  });

  it('rulemap.server.command wins over rulemap.server.path', () => {
    const plan = resolveLaunch({ ...base, setting: { globalValue: ['/x/rulemap', 'serve'] }, pathSetting: { globalValue: '/y/rulemap' } });
    expect(plan.candidates.map((c) => c.command)).toEqual(['/x/rulemap']);
  });

  it('never uses a workspace rulemap.server.path in Restricted Mode', () => {
    const plan = resolveLaunch({ ...base, trusted: false, pathSetting: { workspaceValue: '/tmp/evil' } });
    expect(plan.candidates.map((c) => c.command)).toEqual(['python3']);
    expect(plan.notes.join('\n')).toMatch(/ignoring rulemap.server.path/);
    const trusted = resolveLaunch({ ...base, pathSetting: { workspaceValue: '/ws/bin/rulemap' } });
    expect(trusted.candidates).toEqual([{ command: '/ws/bin/rulemap', args: ['serve'], source: 'workspace-path-setting' }]);
  });

  it('looks in order: Python extension, .venv, rulemap on PATH, private environment, python3', () => {
    const plan = resolveLaunch({
      ...base,
      pythonExtensionInterpreter: '/ws/.venv/bin/python',
      projectVenvPython: '/ws/venv/bin/python',
      pathExecutable: '/home/me/.local/bin/rulemap',
      managedVenvPython: '/storage/venv/bin/python',
    });
    expect(plan.candidates.map((c) => [c.source, c.command, c.args.join(' ')])).toEqual([
      ['python-extension', '/ws/.venv/bin/python', '-m rulemap serve'],
      ['project-venv', '/ws/venv/bin/python', '-m rulemap serve'],
      ['path-executable', '/home/me/.local/bin/rulemap', 'serve'],
      ['managed-venv', '/storage/venv/bin/python', '-m rulemap serve'],
      ['default-python', 'python3', '-m rulemap serve'],
    ]);
    // the PATH executable has no interpreter to check: it is started as found
    expect(plan.candidates[2].python).toBeUndefined();
  });

  it("skips the workspace's .venv in Restricted Mode (the workspace chose it), keeps PATH", () => {
    const plan = resolveLaunch({ ...base, trusted: false, projectVenvPython: '/ws/.venv/bin/python', pathExecutable: '/usr/local/bin/rulemap' });
    expect(plan.candidates.map((c) => c.source)).toEqual(['path-executable', 'default-python']);
    expect(plan.notes.join('\n')).toMatch(/virtual environment/);
  });

  it('tells a Python from the rulemap executable', () => {
    for (const p of ['python', 'python3', '/usr/bin/python3.11', 'C:\\Py\\python.exe', 'pythonw.exe']) expect(isPythonExecutable(p), p).toBe(true);
    for (const p of ['rulemap', '/home/me/.local/bin/rulemap', 'rulemap.exe', '/opt/python3/bin/rulemap']) expect(isPythonExecutable(p), p).toBe(false);
    expect(fromServerPath('rulemap', 'user-path-setting').args).toEqual(['serve']);
  });

  it('finds rulemap on PATH (first match; PATHEXT on Windows)', () => {
    const files = new Set(['/b/rulemap', '/c/rulemap', 'C:\\tools\\rulemap.EXE']);
    const exists = (p: string) => files.has(p);
    expect(findOnPath('rulemap', '/a:/b:/c', exists, 'linux')).toBe('/b/rulemap');
    expect(findOnPath('rulemap', '/a::/x', exists, 'linux')).toBeUndefined();
    expect(findOnPath('rulemap', undefined, exists, 'linux')).toBeUndefined();
    expect(findOnPath('rulemap', 'C:\\bin;C:\\tools', exists, 'win32', '.COM;.EXE')).toBe('C:\\tools\\rulemap.EXE');
  });

  it('does not restart on an interpreter change while rulemap.server.path is set', () => {
    const current = { command: '/x/rulemap', args: ['serve'], source: 'user-path-setting' as const };
    expect(interpreterChangeNeedsRestart(current, '/new/python', true)).toBe(false);
  });
});
