// The manifest is part of the contract: settings the server reads, trust, views, commands.
import { readFileSync } from 'fs';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const extensionSource = readFileSync(new URL('../src/extension.ts', import.meta.url), 'utf8');
const protocol = readFileSync(new URL('../../docs/protocol.md', import.meta.url), 'utf8');

describe('package.json', () => {
  const props = pkg.contributes.configuration.properties as Record<string, { default?: unknown; description?: string; markdownDescription?: string }>;

  it('contributes a setting, with a description and a default, for every key the server reads', () => {
    const keys = [
      'profile', 'hover.sourceFiles', 'files', 'cwd', 'maxChars', 'maxImportDepth', 'allowImportsFrom',
      'rules', 'nested', 'ignore', 'severity', 'diagnostics.debounceMs', 'server.command',
    ];
    for (const k of keys) {
      const p = props[`rulemap.${k}`];
      expect(p, k).toBeDefined();
      expect(p.description ?? p.markdownDescription, k).toBeTruthy();
      expect('default' in p, k).toBe(true);
    }
    // null: rulemap.toml's profile, else the server's default (no profile name in the client)
    expect(props['rulemap.profile'].default).toBeNull();
    expect(props['rulemap.hover.sourceFiles'].default).toBe('firstLine');
    expect(props['rulemap.diagnostics.debounceMs'].default).toBe(150);
  });

  it('mentions in protocol.md every key it contributes (except client-only ones)', () => {
    for (const key of Object.keys(props)) {
      const short = key.replace(/^rulemap\./, '');
      if (short.startsWith('server.') || short.startsWith('trace.')) continue;
      expect(protocol.includes(`\`${short}\``), short).toBe(true);
    }
  });

  it('lets only the user set allowImportsFrom (no workspace or folder value)', () => {
    const p = props['rulemap.allowImportsFrom'] as { scope?: string };
    expect(['machine', 'application']).toContain(p.scope);
  });

  it('declares limited support for untrusted workspaces', () => {
    expect(pkg.capabilities.untrustedWorkspaces).toMatchObject({
      supported: 'limited',
      restrictedConfigurations: ['rulemap.server.command'],
    });
  });

  it('targets VS Code 1.100 and bundles to dist/extension.js', () => {
    expect(pkg.engines.vscode).toBe('^1.100.0');
    expect(pkg.main).toBe('./dist/extension.js');
    expect(pkg.repository).toBeTruthy();
  });

  it('has the Rulemap container and its three views', () => {
    expect(pkg.contributes.viewsContainers.activitybar[0]).toMatchObject({ id: 'rulemap', title: 'Rulemap' });
    expect(pkg.contributes.views.rulemap.map((v: { id: string; name: string }) => [v.id, v.name])).toEqual([
      ['rulemap.effectiveInstructions', 'Effective Instructions'],
      ['rulemap.compareAgents', 'Compare Agents'],
      ['rulemap.instructionFiles', 'Instruction Files'],
    ]);
    for (const v of ['rulemap.effectiveInstructions', 'rulemap.compareAgents']) {
      expect(pkg.contributes.viewsWelcome.some((w: { view: string; when: string }) => w.view === v && w.when.includes('!rulemap.activeFile')), v).toBe(true);
    }
    expect(pkg.contributes.viewsWelcome.some((w: { view: string; when: string }) => w.view === 'rulemap.effectiveInstructions' && w.when.includes('!rulemap.activeFile'))).toBe(true);
  });

  it('registers every contributed command, and contributes every registered one', () => {
    const contributed = pkg.contributes.commands.map((c: { command: string }) => c.command).sort();
    const registered = [...extensionSource.matchAll(/registerCommand\('([^']+)'/g)].map((m) => m[1]).sort();
    expect(registered).toEqual(contributed);
    for (const c of ['rulemap.showEffectiveInstructions', 'rulemap.copyEffectiveInstructions', 'rulemap.chooseProfile', 'rulemap.restartServer', 'rulemap.showOutput']) {
      expect(contributed).toContain(c);
    }
  });

  it('offers Choose Agent Profile with an icon in the title bars of Effective Instructions and Compare Agents', () => {
    const cmd = pkg.contributes.commands.find((c: { command: string }) => c.command === 'rulemap.chooseProfile');
    expect(cmd).toMatchObject({ title: 'Choose Agent Profile', category: 'Rulemap' });
    expect(cmd.icon).toMatch(/^\$\([a-z-]+\)$/);
    const titleBar = pkg.contributes.menus['view/title'].filter((m: { command: string }) => m.command === 'rulemap.chooseProfile');
    expect(titleBar.length).toBe(1);
    // the navigation group: an icon in the title bar, not a "…" menu entry
    expect(titleBar[0].group).toMatch(/^navigation/);
    expect(titleBar[0].when).toContain('view == rulemap.effectiveInstructions');
    expect(titleBar[0].when).toContain('view == rulemap.compareAgents');
    // and on each agent row of the compare view, to switch to that agent
    const inline = pkg.contributes.menus['view/item/context'].find((m: { command: string }) => m.command === 'rulemap.chooseProfile');
    expect(inline).toMatchObject({ group: 'inline' });
    expect(inline.when).toContain('viewItem == rulemap.agent');
    expect(inline.when).not.toContain('rulemap.agent.current');
  });

  it('refreshes, restarts and shows output from every view', () => {
    for (const c of ['rulemap.refresh', 'rulemap.restartServer', 'rulemap.showOutput']) {
      const m = pkg.contributes.menus['view/title'].find((x: { command: string }) => x.command === c);
      for (const v of ['rulemap.effectiveInstructions', 'rulemap.compareAgents', 'rulemap.instructionFiles']) {
        expect(m.when, `${c} in ${v}`).toContain(`view == ${v}`);
      }
    }
  });
});
