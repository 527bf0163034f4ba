// What the extension says and does when no server is found (issue #10 part 2): short, correct
// messages with at most two buttons, never `pip install rulemap` (Rulemap is not on PyPI).
import { describe, expect, it } from 'vitest';
import {
  basePythonCandidates,
  chooseBasePython,
  chooseInstallSource,
  errorLine,
  installFailureNotice,
  isRulemapProject,
  missingServerNotice,
  Notice,
  pickCandidate,
  pipProgress,
} from '../src/setup';
import { resolveLaunch } from '../src/launch';
import type { ModuleCheck } from '../src/launch';

const PIP_FAILURE = `Processing /home/me/.config/Code/User/globalStorage/rulemap.rulemap/server-src
  Installing build dependencies: started
  Installing build dependencies: finished with status 'error'
  error: subprocess-exited-with-error

  × pip subprocess to install build dependencies did not run successfully.
  │ exit code: 1
  ╰─> [3 lines of output]
      WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection broken
      ERROR: Could not find a version that satisfies the requirement setuptools>=77 (from versions: none)
      ERROR: No matching distribution found for setuptools>=77
      [end of output]
note: This error originates from a subprocess, and is likely not a problem with pip.
`;

const VENV_FAILURE = `The virtual environment was not created successfully because ensurepip is not
available.  On Debian/Ubuntu systems, you need to install the python3-venv
package using the following command.

    apt install python3.11-venv

You may need to use sudo with that command.  After installing the python3-venv
package, recreate your virtual environment.

Failing command: /home/me/.config/Code/User/globalStorage/rulemap.rulemap/venv/bin/python3
`;

function allNotices(): Notice[] {
  return [
    missingServerNotice({ kind: 'none-found' }, true),
    missingServerNotice({ kind: 'none-found' }, false),
    missingServerNotice({ kind: 'explicit-missing-module', python: '/v/bin/python', setting: 'rulemap.server.command' }, true),
    missingServerNotice({ kind: 'explicit-not-found', command: '/nope/rulemap', setting: 'rulemap.server.path' }, true),
    installFailureNotice({ stage: 'no-python', tried: [{ python: 'python3', version: '3.9' }, { python: 'python3.12' }] }),
    installFailureNotice({ stage: 'no-source' }),
    installFailureNotice({ stage: 'venv', output: VENV_FAILURE }),
    installFailureNotice({ stage: 'pip', output: PIP_FAILURE }),
    installFailureNotice({ stage: 'pip', output: '', errorCode: 'ETIMEDOUT' }),
    installFailureNotice({ stage: 'check', output: "ModuleNotFoundError: No module named 'pygls'" }),
  ];
}

describe('notices', () => {
  it('have at most two buttons, never suggest `pip install rulemap`, and name a fix', () => {
    for (const n of allNotices()) {
      expect(n.actions.length, n.message).toBeLessThanOrEqual(2);
      expect(n.actions.length, n.message).toBeGreaterThan(0);
      expect(n.message, n.message).not.toMatch(/pip install rulemap/);
      expect(n.message, n.message).toMatch(/rulemap\.server\.(path|command)|Create|pipx install \./);
      // short enough for a toast: one message, no log dump
      expect(n.message.length, n.message).toBeLessThan(330);
      expect(n.message, n.message).not.toContain('\n');
    }
  });

  it('offers to create the environment only when there is something to install', () => {
    expect(missingServerNotice({ kind: 'none-found' }, true).actions).toEqual(['Create Environment', 'Open Settings']);
    const none = missingServerNotice({ kind: 'none-found' }, false);
    expect(none.actions).not.toContain('Create Environment');
    expect(none.message).toContain('pipx install .');
    expect(none.message).toContain('rulemap.server.path');
  });

  it('an explicit setting that lacks rulemap: name the interpreter and the setting, no environment (the setting would win)', () => {
    const n = missingServerNotice({ kind: 'explicit-missing-module', python: '/v/bin/python', setting: 'rulemap.server.command' }, true);
    expect(n.message).toContain('/v/bin/python');
    expect(n.message).toContain('rulemap.server.command');
    expect(n.actions).toEqual(['Open Settings', 'Show Output']);
  });

  it('a pip failure shows the one line that says why', () => {
    const n = installFailureNotice({ stage: 'pip', output: PIP_FAILURE });
    expect(n.message).toContain('pip install failed: ERROR: No matching distribution found for setuptools>=77');
    expect(n.message).toContain('network or proxy');
    expect(n.message).toContain('rulemap.server.path');
  });

  it('a venv without ensurepip says to install python3-venv', () => {
    const n = installFailureNotice({ stage: 'venv', output: VENV_FAILURE });
    expect(n.message).toMatch(/ensurepip is not/);
    expect(n.message).toContain('python3-venv');
  });

  it('no Python 3.11+: says which versions were found', () => {
    const n = installFailureNotice({ stage: 'no-python', tried: [{ python: 'python3', version: '3.9' }, { python: 'python3.12' }] });
    expect(n.message).toContain('Python 3.11+ (found python3 3.9)');
    expect(installFailureNotice({ stage: 'no-python', tried: [{ python: 'python3' }] }).message).toContain('(none found)');
  });
});

describe('errorLine', () => {
  it("prefers pip's last ERROR line, then an error-ish line, then the last line", () => {
    expect(errorLine(PIP_FAILURE)).toBe('ERROR: No matching distribution found for setuptools>=77');
    expect(errorLine('Collecting x\nerror: could not write to /ro\nDone')).toBe('error: could not write to /ro');
    expect(errorLine('one\ntwo\n')).toBe('two');
    expect(errorLine('')).toBe('no output');
  });

  it('clips a long line', () => {
    const l = errorLine(`ERROR: ${'x'.repeat(400)}`);
    expect(l.length).toBeLessThanOrEqual(180);
    expect(l.endsWith('…')).toBe(true);
  });
});

describe('where the private environment installs from', () => {
  it('the bundled server first (it matches the extension)', () => {
    expect(chooseInstallSource({ bundledDir: '/ext/dist/rulemap-server', workspaceRulemapDir: '/ws', trusted: true })).toEqual({
      kind: 'bundled',
      dir: '/ext/dist/rulemap-server',
    });
  });

  it("else the workspace's own Rulemap, only when trusted (pip runs its build)", () => {
    expect(chooseInstallSource({ workspaceRulemapDir: '/ws', trusted: true })).toEqual({ kind: 'workspace', dir: '/ws' });
    expect(chooseInstallSource({ workspaceRulemapDir: '/ws', trusted: false })).toBeUndefined();
    expect(chooseInstallSource({ trusted: true })).toBeUndefined();
  });

  it('recognises the Rulemap project by [project] name', () => {
    expect(isRulemapProject('[build-system]\nrequires = []\n\n[project]\nname = "rulemap"\nversion = "0.1.0"\n')).toBe(true);
    expect(isRulemapProject('[project]\nname = "other"\n[tool.x]\nname = "rulemap"\n')).toBe(false);
    expect(isRulemapProject('[tool.poetry]\nname = "rulemap"\n')).toBe(false);
  });
});

describe('the base Python', () => {
  it('is the first probe at 3.11 or newer', () => {
    expect(chooseBasePython([{ python: 'a', version: '3.10' }, { python: 'b' }, { python: 'c', version: '3.12' }])?.python).toBe('c');
    expect(chooseBasePython([{ python: 'a', version: '3.9' }, { python: 'b', version: '4.0' }])?.python).toBe('b');
    expect(chooseBasePython([{ python: 'a', version: '2.7' }])).toBeUndefined();
  });

  it('tries the selected interpreter first, then the usual names', () => {
    expect(basePythonCandidates('/sel/python', 'linux')).toEqual(['/sel/python', 'python3.13', 'python3.12', 'python3.11', 'python3', 'python']);
    expect(basePythonCandidates('python3', 'linux')[0]).toBe('python3');
    expect(new Set(basePythonCandidates('python3', 'linux')).size).toBe(basePythonCandidates('python3', 'linux').length);
    expect(basePythonCandidates(undefined, 'win32')).toEqual(['python', 'py']);
  });
});

describe('pip progress', () => {
  it('turns pip lines into short progress texts', () => {
    expect(pipProgress('Collecting pygls<3,>=2.0 (from rulemap==0.1.0)')).toBe('downloading pygls…');
    expect(pipProgress('  Downloading https://files.example/p/pyyaml-6.0.whl (700 kB)')).toBe('downloading pyyaml…');
    expect(pipProgress('Building wheel for rulemap (pyproject.toml): started')).toBe('building rulemap…');
    expect(pipProgress('Installing collected packages: pyyaml, rulemap')).toBe('installing the packages…');
    expect(pipProgress('Requirement already satisfied: rich')).toBeUndefined();
  });
});

describe('pickCandidate: which server starts', () => {
  const checks = (table: Record<string, ModuleCheck>) => {
    const asked: string[] = [];
    return { asked, check: async (py: string) => (asked.push(py), table[py] ?? 'no-python') };
  };
  const none = () => false;

  it('the first interpreter that has rulemap, after those that lack it', async () => {
    const plan = resolveLaunch({
      setting: { defaultValue: [] },
      trusted: true,
      platform: 'linux',
      pythonExtensionInterpreter: '/sel/python',
      projectVenvPython: '/ws/.venv/bin/python',
      managedVenvPython: '/storage/venv/bin/python',
    });
    const c = checks({ '/sel/python': 'missing-module', '/ws/.venv/bin/python': 'ok' });
    const pick = await pickCandidate(plan.candidates, c.check, none);
    expect('candidate' in pick && pick.candidate.source).toBe('project-venv');
    expect(c.asked).toEqual(['/sel/python', '/ws/.venv/bin/python']);
    expect(pick.checked[0]).toContain('missing-module');
  });

  it('rulemap on PATH is started as found (no interpreter to check)', async () => {
    const plan = resolveLaunch({ setting: undefined, trusted: true, platform: 'linux', pathExecutable: '/home/me/.local/bin/rulemap' });
    const c = checks({});
    const pick = await pickCandidate(plan.candidates, c.check, none);
    expect('candidate' in pick && pick.candidate.command).toBe('/home/me/.local/bin/rulemap');
    expect(c.asked).toEqual([]);
  });

  it('nothing has it: none-found (which offers the private environment)', async () => {
    const plan = resolveLaunch({ setting: undefined, trusted: true, platform: 'linux', managedVenvPython: '/s/venv/bin/python' });
    const pick = await pickCandidate(plan.candidates, checks({ '/s/venv/bin/python': 'missing-module' }).check, none);
    expect(pick).toMatchObject({ missing: { kind: 'none-found' } });
  });

  it('an explicit setting is checked, never replaced by a fallback', async () => {
    const plan = resolveLaunch({ setting: { globalValue: ['/v/bin/python', '-m', 'rulemap', 'serve'] }, trusted: true, platform: 'linux' });
    expect(await pickCandidate(plan.candidates, checks({ '/v/bin/python': 'missing-module', python3: 'ok' }).check, none)).toMatchObject({
      missing: { kind: 'explicit-missing-module', python: '/v/bin/python', setting: 'rulemap.server.command' },
    });
    const path = resolveLaunch({ setting: undefined, pathSetting: { globalValue: '/nope/rulemap' }, trusted: true, platform: 'linux' });
    expect(await pickCandidate(path.candidates, checks({ python3: 'ok' }).check, none)).toMatchObject({
      missing: { kind: 'explicit-not-found', command: '/nope/rulemap', setting: 'rulemap.server.path' },
    });
    const there = await pickCandidate(path.candidates, checks({}).check, (p) => p === '/nope/rulemap');
    expect('candidate' in there && there.candidate.args).toEqual(['serve']);
    const py = resolveLaunch({ setting: undefined, pathSetting: { globalValue: '/x/python3' }, trusted: true, platform: 'linux' });
    expect(await pickCandidate(py.candidates, checks({}).check, none)).toMatchObject({
      missing: { kind: 'explicit-not-found', command: '/x/python3', setting: 'rulemap.server.path' },
    });
  });

  it("a check that fails for another reason starts the server (it reports its own problem)", async () => {
    const plan = resolveLaunch({ setting: undefined, trusted: true, platform: 'linux' });
    const pick = await pickCandidate(plan.candidates, checks({ python3: 'error' }).check, none);
    expect('candidate' in pick && pick.candidate.command).toBe('python3');
  });
});
