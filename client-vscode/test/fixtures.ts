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
    profiles: async () => {
      calls.push({ method: 'profiles', params: {} });
      return { profiles: [], active: 'cogitator' };
    },
  };
  return Object.assign(api, overrides) as RulemapApi & { calls: { method: string; params: unknown }[] };
}
