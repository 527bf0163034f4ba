import { describe, expect, it } from 'vitest';
import { basename, formatChars, formatInt, plural, reasonLabel, shortName, shortPath } from '../src/format';

describe('format', () => {
  it('formats character counts compactly', () => {
    expect(formatChars(0)).toBe('0');
    expect(formatChars(812)).toBe('812');
    expect(formatChars(999)).toBe('999');
    expect(formatChars(1000)).toBe('1k');
    expect(formatChars(12300)).toBe('12.3k');
    expect(formatChars(12349)).toBe('12.3k');
    expect(formatChars(32000)).toBe('32k');
    expect(formatChars(999_949)).toBe('999.9k');
    expect(formatChars(999_950)).toBe('1M');
    expect(formatChars(1_250_000)).toBe('1.3M');
    expect(formatChars(NaN)).toBe('?');
  });
  it('formats integers with thousands separators', () => {
    expect(formatInt(32000)).toBe('32,000');
    expect(formatInt(1234567)).toBe('1,234,567');
    expect(formatInt(12)).toBe('12');
  });
  it('pluralises and names reasons', () => {
    expect(plural(1, 'file')).toBe('1 file');
    expect(plural(2, 'file')).toBe('2 files');
    expect(reasonLabel('scoped')).toBe('path-scoped rule');
    expect(reasonLabel('other')).toBe('other');
    expect(basename('a/b/c.md')).toBe('c.md');
    expect(basename('AGENTS.md')).toBe('AGENTS.md');
  });
});

describe('shortPath (labels at the default sidebar width)', () => {
  it('keeps short paths whole', () => {
    expect(shortPath('docs/guide.md')).toBe('docs/guide.md');
    expect(shortPath('a'.repeat(28))).toBe('a'.repeat(28));
  });

  it('shortens in the middle, keeping the first folder and the whole file name', () => {
    expect(shortPath('packages/web/src/components/deep/notes.md')).toBe('packages/…/deep/notes.md');
    expect(shortPath('packages/web/src/components/deep/notes.md').length).toBeLessThanOrEqual(28);
    expect(shortPath('src/lib/a.ts', 8)).toBe('…/a.ts');
  });

  it('never cuts the file name', () => {
    const name = 'a-very-long-instruction-file-name.md';
    expect(shortPath(`x/y/${name}`)).toBe(`…/${name}`);
    expect(shortPath(name)).toBe(name);
  });
});

describe('shortName', () => {
  it('keeps short names, shortens long ones in the middle to the limit', () => {
    expect(shortName('handler.ts', 16)).toBe('handler.ts');
    expect(shortName('a-very-long-component-name.tsx')).toBe('a-very-long…me.tsx');
    expect(shortName('a-very-long-component-name.tsx', 16)).toHaveLength(16);
  });
});
