// The manifest is part of the contract: settings the server reads, trust, views, commands.
import { readFileSync } from 'fs';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const extensionSource = readFileSync(new URL('../src/extension.ts', import.meta.url), 'utf8');
const protocol = readFileSync(new URL('../../docs/protocol.md', import.meta.url), 'utf8');
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

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
      if (short.startsWith('server.') || short.startsWith('trace.') || short.startsWith('unseenLines.')) continue;
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
      restrictedConfigurations: ['rulemap.server.command', 'rulemap.server.path'],
    });
  });

  it('targets VS Code 1.100 and bundles to dist/extension.js', () => {
    expect(pkg.engines.vscode).toBe('^1.100.0');
    expect(pkg.main).toBe('./dist/extension.js');
    expect(pkg.repository).toBeTruthy();
  });

  it('has the Rulemap container and its five views, with titles short enough for the default sidebar width', () => {
    expect(pkg.contributes.viewsContainers.activitybar[0]).toMatchObject({ id: 'rulemap', title: 'Rulemap' });
    expect(pkg.contributes.views.rulemap.map((v: { id: string; name: string }) => [v.id, v.name])).toEqual([
      ['rulemap.effectiveInstructions', 'Instructions'],
      ['rulemap.compareAgents', 'Compare Agents'],
      ['rulemap.whoSeesThis', 'Who Sees This'],
      ['rulemap.instructionFiles', 'Instruction Files'],
      ['rulemap.session', 'Session'],
    ]);
    // a pane header also holds the view's description and up to five action icons
    for (const v of pkg.contributes.views.rulemap) expect(v.name.length, v.name).toBeLessThanOrEqual(17);
    for (const v of ['rulemap.effectiveInstructions', 'rulemap.compareAgents', 'rulemap.whoSeesThis']) {
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

  it('has a Replay Session command, in the Session view title bar and its welcome', () => {
    const cmd = pkg.contributes.commands.find((c: { command: string }) => c.command === 'rulemap.replaySession');
    expect(cmd).toMatchObject({ title: 'Replay Session…', category: 'Rulemap' });
    const title = pkg.contributes.menus['view/title'].find((m: { command: string }) => m.command === 'rulemap.replaySession');
    expect(title).toMatchObject({ when: 'view == rulemap.session', group: 'navigation@0' });
    expect(
      pkg.contributes.viewsWelcome.some((w: { view: string; contents: string }) => w.view === 'rulemap.session' && w.contents.includes('command:rulemap.replaySession')),
    ).toBe(true);
  });

  it('describes rulemap.server.path and no `pip install rulemap` anywhere (Rulemap is installed from a clone)', () => {
    expect(props['rulemap.server.path'].default).toBeNull();
    expect(props['rulemap.server.path'].markdownDescription).toContain('pipx install .');
    expect(JSON.stringify(pkg)).not.toMatch(/pip install rulemap/);
    expect(readme).not.toMatch(/pip install rulemap/);
  });

  it('refreshes, restarts and shows output from every view', () => {
    for (const c of ['rulemap.refresh', 'rulemap.restartServer', 'rulemap.showOutput']) {
      const whens = pkg.contributes.menus['view/title']
        .filter((x: { command: string }) => x.command === c)
        .map((x: { when: string }) => x.when)
        .join(' || ');
      for (const v of ['rulemap.effectiveInstructions', 'rulemap.compareAgents', 'rulemap.instructionFiles', 'rulemap.whoSeesThis']) {
        expect(whens, `${c} in ${v}`).toContain(`view == ${v}`);
      }
    }
  });

  it('keeps at most three title-bar icons per view (the title and description must fit the default width)', () => {
    for (const v of pkg.contributes.views.rulemap) {
      const icons = pkg.contributes.menus['view/title'].filter(
        (m: { when: string; group?: string }) => (m.group ?? '').startsWith('navigation') && m.when.split(' || ').includes(`view == ${v.id}`),
      );
      expect(icons.length, v.id).toBeLessThanOrEqual(3);
    }
  });

  it('has the Who Sees This view: a welcome for files no agent loads, the map in its title bar', () => {
    const welcome = pkg.contributes.viewsWelcome.filter((w: { view: string }) => w.view === 'rulemap.whoSeesThis');
    expect(welcome.some((w: { when: string }) => w.when.includes('rulemap.whoSeesThis.state == notLoaded'))).toBe(true);
    expect(welcome.some((w: { when: string }) => w.when === 'rulemap.serverState == failed')).toBe(true);
    const map = pkg.contributes.menus['view/title'].find((m: { command: string }) => m.command === 'rulemap.openMap');
    expect(map).toMatchObject({ when: 'view == rulemap.whoSeesThis', group: 'navigation@0' });
  });

  it('marks unseen lines unless rulemap.unseenLines.enabled is false (a client-only setting)', () => {
    expect(props['rulemap.unseenLines.enabled']).toMatchObject({ type: 'boolean', default: true });
    expect(readFileSync(new URL('../src/launch.ts', import.meta.url), 'utf8')).toMatch(/CLIENT_ONLY_KEYS = new Set\(\[[^\]]*'unseenLines'/);
  });

  it('offers "Why Doesn\'t an Agent See This?" on a markdown selection and in the palette', () => {
    const cmd = pkg.contributes.commands.find((c: { command: string }) => c.command === 'rulemap.whyNotSeen');
    expect(cmd).toMatchObject({ title: "Why Doesn't an Agent See This?", category: 'Rulemap' });
    const ctx = pkg.contributes.menus['editor/context'].find((m: { command: string }) => m.command === 'rulemap.whyNotSeen');
    expect(ctx.when).toContain('editorHasSelection');
    expect(ctx.when).toContain('editorLangId == markdown');
    expect(pkg.contributes.menus.commandPalette.find((m: { command: string }) => m.command === 'rulemap.whyNotSeen').when).toBe('rulemap.serverState == running');
  });

  it('opens the Instruction Map, with a refresh in the panel title bar', () => {
    const titles = Object.fromEntries(pkg.contributes.commands.map((c: { command: string; title: string }) => [c.command, c.title]));
    expect(titles['rulemap.openMap']).toBe('Open Instruction Map');
    expect(titles['rulemap.refreshMap']).toBe('Refresh Instruction Map');
    const refresh = pkg.contributes.menus['editor/title'].find((m: { command: string }) => m.command === 'rulemap.refreshMap');
    expect(refresh.when).toBe("activeWebviewPanelId == 'rulemap.instructionMap'");
    expect(extensionSource).toContain("createWebviewPanel(MAP_VIEW_TYPE, MAP_TITLE");
    expect(extensionSource).toContain('enableScripts: true');
  });
});
