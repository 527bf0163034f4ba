import type { EffectiveInstructions, LoadedFile, RulemapApi } from '../src/protocol';

export const ROOT = '/ws';

export function file(path: string, extra: Partial<LoadedFile> = {}): LoadedFile {
  return {
    path,
    uri: `file://${ROOT}/${path}`,
    reason: 'project',
    importedBy: null,
    depth: 0,
    chars: 100,
    cut: false,
    ...extra,
  };
}

export function result(extra: Partial<EffectiveInstructions> = {}): EffectiveInstructions {
  return {
    profile: 'cogitator',
    root: ROOT,
    cwd: '.',
    target: 'src/api/handler.ts',
    maxChars: 32000,
    totalChars: 812,
    files: [file('AGENTS.md', { chars: 700 }), file('.claude/rules/api.md', { reason: 'scoped', chars: 112 })],
    leftOut: [],
    skipped: [],
    uri: `file://${ROOT}/src/api/handler.ts`,
    ...extra,
  };
}

/** A fake server: records calls; answers from the given functions. */
export function fakeApi(overrides: Partial<RulemapApi> = {}): RulemapApi & { calls: { method: string; params: unknown }[] } {
  const calls: { method: string; params: unknown }[] = [];
  const api = {
    calls,
    isReady: true,
    effectiveInstructions: async (params: unknown) => {
      calls.push({ method: 'effectiveInstructions', params });
      return result();
    },
    rulesForFile: async (uri: string) => {
      calls.push({ method: 'rulesForFile', params: { uri } });
      return { rules: [] };
    },
    instructionFiles: async () => {
      calls.push({ method: 'instructionFiles', params: {} });
      return { files: [] };
    },
    profiles: async (uri?: string) => {
      calls.push({ method: 'profiles', params: uri ? { uri } : {} });
      return { profiles: [], active: 'cogitator' };
    },
    compare: async (params: unknown) => {
      calls.push({ method: 'compare', params });
      return { uri: `file://${ROOT}/src/api/handler.ts`, target: 'src/api/handler.ts', columns: [] };
    },
    session: async (params: unknown) => {
      calls.push({ method: 'session', params });
      return undefined;
    },
    reach: async (params: unknown) => {
      calls.push({ method: 'reach', params });
      return undefined;
    },
    unseenLines: async (params: unknown) => {
      calls.push({ method: 'unseenLines', params });
      return undefined;
    },
    why: async (params: unknown) => {
      calls.push({ method: 'why', params });
      return undefined;
    },
    map: async (params: unknown) => {
      calls.push({ method: 'map', params });
      return undefined;
    },
  };
  return Object.assign(api, overrides) as RulemapApi & { calls: { method: string; params: unknown }[] };
}

/** A `rulemap/profiles` answer shaped like the server's (names here are test data only). */
export const PROFILES = {
  profiles: [
    { name: 'alpha', title: 'Alpha Agent', description: 'Loads AGENTS.md files and their imports.' },
    { name: 'beta', title: 'Beta', description: 'Loads the nearest instruction file only.' },
    { name: 'gamma', title: 'Gamma CLI', description: 'Loads rules by glob, token budget per file.' },
  ],
  active: 'alpha',
  selected: ['alpha', 'gamma'],
};

/** An in-memory `context.workspaceState`. */
export function memento(initial: Record<string, unknown> = {}) {
  const data = new Map<string, unknown>(Object.entries(initial));
  return {
    data,
    get<T>(key: string): T | undefined {
      return data.get(key) as T | undefined;
    },
    update(key: string, value: unknown): Thenable<void> {
      if (value === undefined) data.delete(key);
      else data.set(key, value);
      return Promise.resolve();
    },
  };
}
