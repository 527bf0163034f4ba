import { describe, expect, it } from 'vitest';
import { budgetLong, budgetShort, fileSize, formatBytes, isCut, isOverBudget } from '../src/budget';
import { file, result } from './fixtures';

describe('budget texts', () => {
  it('falls back to a shared character budget of maxChars for older servers', () => {
    const r = result({ totalChars: 12300 });
    expect(budgetShort(r)).toBe('12.3k/32k');
    expect(budgetLong(r)).toBe('12,300 of 32,000 characters');
  });

  it('shows a shared budget in its unit', () => {
    const bytes = result({
      files: [file('A.md', { chars: 1000, bytes: 1024 }), file('B.md', { chars: 2000, bytes: 2048 })],
      totalChars: 3000,
      budget: { kind: 'shared', unit: 'bytes', limit: 32768 },
    });
    expect(budgetShort(bytes)).toBe('3KiB/32KiB');
    expect(budgetLong(bytes)).toBe('3,072 of 32,768 bytes');
    const tokens = result({
      files: [file('A.md', { chars: 4000, tokens: 812 })],
      totalChars: 4000,
      budget: { kind: 'shared', unit: 'tokens', limit: 8000 },
    });
    expect(budgetShort(tokens)).toBe('812/8k tok');
  });

  it('does not invent a total when a file lacks the unit', () => {
    const r = result({ totalChars: 1500, budget: { kind: 'shared', unit: 'bytes', limit: 32768 } });
    expect(budgetShort(r)).toBe('1.5k · 32KiB');
    expect(budgetLong(r)).toContain('budget 32,768 bytes shared by all files');
  });

  it('shows per-file limits and no budget', () => {
    const per = result({ totalChars: 1200, budget: { kind: 'per-file', unit: 'tokens', limit: 8000 } });
    expect(budgetShort(per)).toBe('1.2k · 8k tok/file');
    expect(budgetLong(per)).toBe('1,200 characters; each file is read up to 8,000 tokens');
    const none = result({ totalChars: 1200, budget: { kind: 'none', unit: 'chars', limit: null } });
    // never "of 0": an agent without a shared budget says so
    expect(budgetShort(none)).toBe('1.2k · no shared budget');
    expect(budgetShort(none, true)).toBe('1.2k chars'); // a Compare Agents row: the tooltip says it
    expect(budgetLong(none)).toBe('1,200 characters; no shared budget');
  });

  it("shows a per-file budget's load in its unit when the server counted it", () => {
    const files = [
      { path: 'AGENTS.md', reason: 'project', importedBy: null, depth: 0, chars: 800, cut: false, tokens: 200 },
      { path: 'src/AGENTS.md', reason: 'nested', importedBy: null, depth: 0, chars: 400, cut: false, tokens: 100 },
    ];
    const per = result({ totalChars: 1200, files, budget: { kind: 'per-file', unit: 'tokens', limit: 1000 } } as never);
    expect(budgetShort(per)).toBe('300 tok · 1k tok/file');
    expect(budgetLong(per)).toBe('300 tokens; each file is read up to 1,000 tokens');
  });

  it("takes the server's overBudget when it is there", () => {
    expect(isOverBudget(result({ overBudget: true }))).toBe(true);
    // the server's word wins over what the client could guess from the numbers
    expect(isOverBudget(result({ overBudget: false, totalChars: 99999 }))).toBe(false);
    expect(isOverBudget(result({ leftOut: ['x.md'] }))).toBe(true);
    expect(isOverBudget(result())).toBe(false);
  });

  it('counts a per-file truncation as cut', () => {
    expect(isCut(file('A.md', { truncated: true }))).toBe(true);
    expect(isCut(file('A.md', { cut: true }))).toBe(true);
    expect(isCut(file('A.md'))).toBe(false);
  });

  it('formats sizes', () => {
    expect(formatBytes(812)).toBe('812B');
    expect(formatBytes(32768)).toBe('32KiB');
    expect(formatBytes(1536)).toBe('1.5KiB');
    expect(fileSize(file('A.md', { chars: 3100 }), 'chars')).toBe('3.1k');
    expect(fileSize(file('A.md', { chars: 3100, tokens: 700 }), 'tokens')).toBe('700 tok');
    expect(fileSize(file('A.md', { chars: 3100 }), 'tokens')).toBe('3.1k');
  });
});
