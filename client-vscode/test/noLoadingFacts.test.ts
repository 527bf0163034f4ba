// Issue #11: what an agent loads (file names, folders, rule locations, which agents exist) is
// the server's knowledge. The extension shows what the server answers and writes none of it.
import { readdirSync, readFileSync, statSync } from 'fs';
import { join } from 'path';
import { fileURLToPath } from 'url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

// instruction files and folders of the agents the server models, and its profile names
const FACTS = [
  /AGENTS(\.override)?\.md/,
  /CLAUDE(\.local)?\.md/,
  /GEMINI\.md/,
  /copilot-instructions/,
  /\.claude\b/,
  /\.cursor\b/,
  /\.github\//,
  /\.mdc\b/,
  /node_modules/,
  /['"/]\.git\b/,
  /\b(cogitator|mastra|claude-code|codex|gemini|copilot|cursor)\b/i,
];

describe('no loading fact in TypeScript', () => {
  const files = sources(SRC);

  it('finds the sources', () => {
    expect(files.length).toBeGreaterThan(10);
  });

  for (const fact of FACTS) {
    it(`no source names ${fact}`, () => {
      const hits = files.flatMap((f) =>
        readFileSync(f, 'utf8')
          .split('\n')
          .map((line, i) => ({ line, at: `${f.slice(SRC.length + 1)}:${i + 1}` }))
          .filter((l) => fact.test(l.line))
          .map((l) => `${l.at}: ${l.line.trim()}`),
      );
      expect(hits).toEqual([]);
    });
  }

  it('the manifest does not list the profiles either (the server validates rulemap.profile)', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    const profile = pkg.contributes.configuration.properties['rulemap.profile'];
    expect(profile.enum).toBeUndefined();
    expect(profile.default).toBeNull();
  });
});
