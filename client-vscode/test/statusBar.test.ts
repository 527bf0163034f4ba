import { describe, expect, it } from 'vitest';
import { agentsLine, isOverBudget, profileStatusModel, RulemapStatusBar, statusModel } from '../src/statusBar';
import { file, PROFILES, result } from './fixtures';
import { MockStatusBarItem, ThemeColor } from './vscode-mock';

describe('statusModel', () => {
  it('shows the budget use of the active file', () => {
    const m = statusModel(result({ totalChars: 12300, maxChars: 32000 }), 'running', true);
    expect(m).toMatchObject({ visible: true, text: 'Rulemap 12.3k/32k', warning: false, command: 'rulemap.effectiveInstructions.focus' });
    expect(m.tooltip).toContain('2 files loaded for src/api/handler.ts');
    expect(m.tooltip).toContain('12,300 of 32,000 characters');
  });

  it('warns when a file is cut', () => {
    const r = result({
      totalChars: 32000,
      files: [file('AGENTS.md', { chars: 30000 }), file('.claude/rules/big.md', { reason: 'rule', chars: 2000, cut: true })],
    });
    const m = statusModel(r, 'running', true);
    expect(m.warning).toBe(true);
    expect(m.text).toBe('Rulemap 32k/32k');
    expect(m.tooltip).toContain('Cut: .claude/rules/big.md');
  });

  it('warns when files are left out', () => {
    const r = result({ leftOut: ['docs/late.md', 'docs/later.md'] });
    expect(isOverBudget(r)).toBe(true);
    const m = statusModel(r, 'running', true);
    expect(m.warning).toBe(true);
    expect(m.tooltip).toContain('Left out: docs/late.md, docs/later.md');
  });

  it('is hidden without a file or a result', () => {
    expect(statusModel(result(), 'running', false).visible).toBe(false);
    expect(statusModel(null, 'running', true).visible).toBe(false);
    expect(statusModel(undefined, 'stopped', true).visible).toBe(false);
  });

  it('shows starting and failed states', () => {
    expect(statusModel(undefined, 'starting', true)).toMatchObject({ visible: true, text: '$(sync~spin) Rulemap' });
    const failed = statusModel(result(), 'failed', false);
    expect(failed).toMatchObject({ visible: true, error: true, command: 'rulemap.showOutput' });
  });
});

describe('RulemapStatusBar', () => {
  it('applies the model to a status bar item', () => {
    const bar = new RulemapStatusBar();
    const item = bar.item as unknown as MockStatusBarItem;
    bar.update(result({ leftOut: ['x.md'] }), 'running', true);
    expect(item.text).toBe('Rulemap 812/32k');
    expect(item.visible).toBe(true);
    expect((item.backgroundColor as ThemeColor).id).toBe('statusBarItem.warningBackground');
    expect(item.command).toBe('rulemap.effectiveInstructions.focus');

    bar.update(result(), 'running', true);
    expect(item.backgroundColor).toBeUndefined();

    bar.update(undefined, 'running', false);
    expect(item.visible).toBe(false);

    bar.update(undefined, 'failed', false);
    expect((item.backgroundColor as ThemeColor).id).toBe('statusBarItem.errorBackground');
    bar.dispose();
    expect(item.disposed).toBe(true);
  });
});

describe('profileStatusModel', () => {
  const info = (n: string) => PROFILES.profiles.find((p) => p.name === n);

  it('names the profile the views show, shortly, and opens the picker', () => {
    const m = profileStatusModel(result({ profile: 'gamma' }), 'running', true, 'gamma', info);
    expect(m).toMatchObject({ visible: true, text: 'Rulemap: gamma' });
    expect(m.tooltip).toContain('Gamma CLI (gamma)');
    expect(m.tooltip).toContain('Loads rules by glob');
    expect(m.tooltip).toContain('Chosen for this workspace (rulemap.profile).');
    expect(m.text.length).toBeLessThanOrEqual(24);
  });

  it("shows the server's default when nothing was picked", () => {
    const m = profileStatusModel(result({ profile: 'alpha' }), 'running', true, undefined, info);
    expect(m.text).toBe('Rulemap: alpha');
    expect(m.tooltip).toContain('workspace default');
  });

  it("says which agents were selected and why, and why the lead speaks when nothing was picked", () => {
    const profiles = {
      ...PROFILES,
      active: 'gamma',
      selection: [
        { name: 'alpha', title: 'Alpha Agent', why: 'the default model' },
        { name: 'gamma', title: 'Gamma CLI', why: 'GAMMA.md' },
      ],
      lead: { name: 'gamma', why: 'GAMMA.md', note: 'alpha, the default model, reads no instruction file here: answering for gamma (GAMMA.md); pick alpha to see the default model\'s load.' },
    };
    const m = profileStatusModel(result({ profile: 'gamma' }), 'running', true, undefined, info, profiles);
    expect(m.text).toBe('Rulemap: gamma');
    expect(m.tooltip).toContain('The workspace default: ');
    expect(m.tooltip).toContain('Selected by GAMMA.md.');
    expect(m.tooltip).toContain('pick alpha to see');
    expect(m.tooltip).toContain('Selected agents: alpha (the default model), gamma (GAMMA.md)');
    // a pick of the user's own: no lead sentence, no note, the selection still said
    const picked = profileStatusModel(result({ profile: 'alpha' }), 'running', true, 'alpha', info, profiles);
    expect(picked.tooltip).not.toContain('The workspace default');
    expect(picked.tooltip).not.toContain('pick alpha');
    expect(picked.tooltip).toContain('Selected agents: alpha (the default model), gamma (GAMMA.md)');
  });

  it('has no agents line before the server knows the selection', () => {
    expect(agentsLine(undefined)).toBeUndefined();
    expect(agentsLine([])).toBeUndefined();
    const m = profileStatusModel(result({ profile: 'alpha' }), 'running', true, undefined, info, PROFILES);
    expect(m.tooltip).not.toContain('Selected agents');
  });

  it('is hidden without a running server or a file', () => {
    expect(profileStatusModel(result(), 'starting', true, undefined, info).visible).toBe(false);
    expect(profileStatusModel(result(), 'running', false, undefined, info).visible).toBe(false);
    expect(profileStatusModel(undefined, 'running', true, undefined, info).visible).toBe(false);
    expect(profileStatusModel(undefined, 'running', true, 'beta', info).text).toBe('Rulemap: beta');
  });

  it('is a second status item whose click runs Choose Agent Profile', () => {
    const bar = new RulemapStatusBar();
    const item = bar.profileItem as unknown as MockStatusBarItem;
    expect(item.command).toBe('rulemap.chooseProfile');
    bar.updateProfile(result({ profile: 'beta' }), 'running', true, 'beta', info);
    expect(item.text).toBe('Rulemap: beta');
    expect(item.visible).toBe(true);
    bar.updateProfile(undefined, 'failed', false, undefined, info);
    expect(item.visible).toBe(false);
    bar.dispose();
    expect(item.disposed).toBe(true);
  });
});
