import { describe, expect, it } from 'vitest';
import { affectsRuleMatches, decorationModel, isDecoratable, RuleDecorationProvider, ruleBadge } from '../src/decorations';
import { fakeApi } from './fixtures';
import { FileDecoration, Uri } from './vscode-mock';

const apiRule = { path: '.claude/rules/api.md', uri: 'file:///ws/.claude/rules/api.md', globs: ['src/api/**/*.ts'], matchedBy: 'src/api/**/*.ts' };
const tsRule = { path: '.claude/rules/ts.md', uri: 'file:///ws/.claude/rules/ts.md', globs: ['*.ts', '*.tsx'], matchedBy: '*.ts' };

describe('decorationModel', () => {
  it('is nothing for files no rule matches', () => {
    expect(decorationModel([])).toBeUndefined();
    expect(decorationModel(undefined)).toBeUndefined();
    expect(decorationModel(null)).toBeUndefined();
  });
  it('names one rule and its glob', () => {
    expect(decorationModel([apiRule])).toEqual({
      badge: 'R',
      tooltip: 'Rulemap: matched by rule .claude/rules/api.md (src/api/**/*.ts)',
    });
  });
  it('counts several rules', () => {
    const m = decorationModel([apiRule, tsRule])!;
    expect(m.badge).toBe('R2');
    expect(m.tooltip).toBe('Rulemap: matched by 2 rules .claude/rules/api.md (src/api/**/*.ts); .claude/rules/ts.md (*.ts)');
  });
  it('keeps badges at most two characters', () => {
    expect(ruleBadge(1)).toBe('R');
    expect(ruleBadge(9)).toBe('R9');
    expect(ruleBadge(10)).toBe('R+');
    for (const n of [1, 5, 9, 10, 250]) expect(ruleBadge(n).length).toBeLessThanOrEqual(2);
  });
  it('only decorates files on disk, and leaves which folders count to the server', () => {
    expect(isDecoratable(Uri.file('/ws/src/a.ts'))).toBe(true);
    expect(isDecoratable(Uri.parse('untitled:Untitled-1'))).toBe(false);
    expect(isDecoratable(Uri.parse('git:/ws/src/a.ts'))).toBe(false);
    // no skipped-folder list in the client: the server answers "no rules" for what it does not walk
    expect(isDecoratable(Uri.file('/ws/node_modules/x/index.js'))).toBe(true);
    expect(isDecoratable(Uri.file('/ws/.github/workflows/ci.yml'))).toBe(true);
  });
});

describe('RuleDecorationProvider', () => {
  it('asks the server once per URI, caches, and clears on graph changes', async () => {
    const api = fakeApi({
      rulesForFile: async (uri: string) => {
        api.calls.push({ method: 'rulesForFile', params: { uri } });
        return { rules: uri.endsWith('handler.ts') ? [apiRule] : [] };
      },
    });
    const p = new RuleDecorationProvider(api);
    const handler = Uri.file('/ws/src/api/handler.ts');
    const d = (await p.provideFileDecoration(handler as never)) as unknown as FileDecoration;
    expect(d.badge).toBe('R');
    expect(d.tooltip).toContain('.claude/rules/api.md');
    expect(d.propagate).toBe(false);
    await p.provideFileDecoration(handler as never);
    expect(await p.provideFileDecoration(Uri.file('/ws/README.md') as never)).toBeUndefined();
    expect(api.calls.filter((c) => c.method === 'rulesForFile').length).toBe(2);
    expect(p.cacheSize).toBe(2);

    const events: unknown[] = [];
    p.onDidChangeFileDecorations((e) => events.push(e));
    p.clear();
    expect(p.cacheSize).toBe(0);
    expect(events).toEqual([undefined]);
    await p.provideFileDecoration(handler as never);
    expect(api.calls.filter((c) => c.method === 'rulesForFile').length).toBe(3);
  });

  it('does not ask a server that is not ready, nor about non-file URIs', async () => {
    const api = fakeApi({ isReady: false });
    const p = new RuleDecorationProvider(api);
    expect(p.provideFileDecoration(Uri.file('/ws/a.ts') as never)).toBeUndefined();
    (api as { isReady: boolean }).isReady = true;
    expect(p.provideFileDecoration(Uri.parse('git:/ws/a.ts') as never)).toBeUndefined();
    expect(api.calls.length).toBe(0);
  });

  it('survives a failing request', async () => {
    const api = fakeApi({ rulesForFile: async () => Promise.reject(new Error('boom')) });
    const p = new RuleDecorationProvider(api);
    expect(await p.provideFileDecoration(Uri.file('/ws/a.ts') as never)).toBeUndefined();
  });
});

describe('affectsRuleMatches', () => {
  it("follows the server's rulesChanged", () => {
    expect(affectsRuleMatches({ uris: ['file:///ws/AGENTS.md'], rulesChanged: false })).toBe(false);
    expect(affectsRuleMatches({ uris: ['file:///ws/AGENTS.md'], rulesChanged: true })).toBe(true);
    // a path the client would once have taken for a rule: the server's word wins
    expect(affectsRuleMatches({ uris: ['file:///ws/.claude/rules/api.md'], rulesChanged: false })).toBe(false);
    expect(affectsRuleMatches({ uris: ['file:///ws/docs/rules.mdc'], rulesChanged: true })).toBe(true);
  });
  it('refreshes when the server does not say (older server, synthetic event after a start)', () => {
    expect(affectsRuleMatches({ uris: ['file:///ws/AGENTS.md'] })).toBe(true);
    expect(affectsRuleMatches({ uris: [] })).toBe(true);
    expect(affectsRuleMatches(undefined)).toBe(true);
  });
});
