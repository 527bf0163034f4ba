import { describe, expect, it } from 'vitest';
import type { ReachAgent, ReachResult, ReachWay } from '../src/protocol';
import {
  agentWhoDescription,
  buildWhoTree,
  loadedByNone,
  rootOf,
  WhoNode,
  WhoSeesThisProvider,
  WhoState,
  whoTreeItem,
  whoViewHeader,
} from '../src/views/whoSeesThis';
import { fakeApi } from './fixtures';
import { EventEmitter, MarkdownString, Range, ThemeIcon, TreeItemCollapsibleState, Uri } from './vscode-mock';

// A `rulemap/reach` answer shaped like the contract (agent names are test data only).
function way(extra: Partial<ReachWay> = {}): ReachWay {
  return {
    reason: 'project',
    importedBy: null,
    position: 1,
    before: 0,
    size: 700,
    cutLine: null,
    seen: true,
    startUp: true,
    files: 1204,
    under: '',
    everyFileUnder: true,
    areas: [
      { path: 'packages/', files: 1100 },
      { path: 'README.md', files: 1 },
    ],
    example: 'packages/web/src/app.ts',
    ...extra,
  };
}

function agent(extra: Partial<ReachAgent> = {}): ReachAgent {
  return {
    profile: 'alpha',
    title: 'Alpha Agent',
    unit: 'chars',
    limit: 32000,
    setting: 'maxChars',
    files: 1204,
    seen: 1204,
    cut: 0,
    ways: [way()],
    leftOut: null,
    never: null,
    ...extra,
  };
}

const reached: ReachResult = {
  path: 'docs/style.md',
  line: null,
  workspaceFiles: 1300,
  cwd: '.',
  uri: 'file:///ws/docs/style.md',
  agents: [
    agent({
      cut: 300,
      ways: [
        way(),
        way({ reason: 'import', importedBy: 'docs/conventions.md', position: 3, before: 595, cutLine: 210, startUp: false, files: 300, under: 'src/web/', everyFileUnder: false, areas: [{ path: 'src/web/', files: 300 }], example: 'src/web/a.ts' }),
      ],
      leftOut: { files: 12, under: 'legacy/', areas: [{ path: 'legacy/', files: 12 }] },
    }),
    agent({ profile: 'beta', title: 'Beta CLI', files: 0, seen: 0, ways: [], never: 'not a BETA.md' }),
    agent({ profile: 'gamma', title: 'Gamma', unit: 'bytes', limit: 32768, setting: 'max_bytes', files: 5, seen: 5, ways: [way({ files: 5, areas: [] })] }),
  ],
};

type Agent = Extract<WhoNode, { kind: 'agent' }>;
type Way = Extract<WhoNode, { kind: 'way' }>;

describe('buildWhoTree', () => {
  const tree = buildWhoTree(reached) as Agent[];

  it('has one node per agent, in the server order', () => {
    expect(tree.map((n) => [n.kind, n.agent.profile])).toEqual([
      ['agent', 'alpha'],
      ['agent', 'beta'],
      ['agent', 'gamma'],
    ]);
  });

  it("lists each agent's ways, then the files that leave it out", () => {
    expect(tree[0].children.map((c) => c.kind)).toEqual(['way', 'way', 'leftOut']);
    expect(tree[1].children).toEqual([]);
  });

  it('puts under a way its cut, its areas (with file counts) and an example', () => {
    const imported = tree[0].children[1] as Way;
    expect(imported.children.map((c) => c.kind)).toEqual(['cut', 'area', 'example']);
    expect(imported.children[0]).toMatchObject({ line: 210, files: 300, uri: 'file:///ws/docs/style.md' });
    expect(imported.children[1]).toMatchObject({ area: { path: 'src/web/', files: 300 }, uri: 'file:///ws/src/web' });
    expect(imported.children[2]).toMatchObject({ path: 'src/web/a.ts', uri: 'file:///ws/src/web/a.ts' });
  });

  it('resolves paths against the root the answer implies', () => {
    expect(rootOf(reached).toString()).toBe('file:///ws');
    expect(rootOf({ uri: 'file:///a/b/AGENTS.md', path: 'AGENTS.md' }).toString()).toBe('file:///a/b');
  });

  it('is empty without an answer, and for a file no agent loads (a source file)', () => {
    expect(buildWhoTree(null)).toEqual([]);
    expect(buildWhoTree(undefined)).toEqual([]);
    const source: ReachResult = { ...reached, agents: reached.agents.map((a) => ({ ...a, ways: [], leftOut: null, never: 'does not read it' })) };
    expect(loadedByNone(source)).toBe(true);
    expect(buildWhoTree(source)).toEqual([]);
    expect(loadedByNone(reached)).toBe(false);
  });
});

describe('whoTreeItem', () => {
  const tree = buildWhoTree(reached) as Agent[];

  it('labels an agent with its title; files, the cut line and the left-out count in the description', () => {
    const item = whoTreeItem(tree[0]);
    expect(item.label).toBe('Alpha Agent');
    expect(item.description).toBe('1,204 files · cut at line 210 for 300 · left out for 12');
    expect((item.iconPath as ThemeIcon).id).toBe('warning');
    expect(item.collapsibleState).toBe(TreeItemCollapsibleState.Expanded);
    const tip = (item.tooltip as MarkdownString).value;
    expect(tip).toContain('1,204 files of the workspace load it');
    expect(tip).toContain('Budget: 32,000 characters (`maxChars`)');
  });

  it('says "never" and why for an agent that never loads it (without repeating its name)', () => {
    const item = whoTreeItem(tree[1]);
    expect(item.description).toBe('never: not a BETA.md');
    expect(agentWhoDescription({ ...tree[1].agent, never: 'Beta CLI does not read it' })).toBe('never: does not read it');
    expect((item.tooltip as MarkdownString).value).toContain('**Never loads it**: not a BETA.md');
    expect((item.iconPath as ThemeIcon).id).toBe('circle-slash');
    expect(item.collapsibleState).toBe(TreeItemCollapsibleState.None);
  });

  it("speaks in the agent's own unit", () => {
    expect(agentWhoDescription(tree[2].agent)).toBe('5 files');
    const tip = (whoTreeItem(tree[2].children[0]).tooltip as MarkdownString).value;
    expect(tip).toContain('after 0 bytes; it brings 700 bytes (limit: 32,768 bytes (`max_bytes`))');
    expect(tip).not.toContain('characters');
  });

  it('shows a way: why, its place in the load, who imports it', () => {
    const start = whoTreeItem(tree[0].children[0]);
    expect(start.label).toBe('project instructions');
    expect(start.description).toBe('#1 · 1,204 files');
    expect((start.tooltip as MarkdownString).value).toContain('In the start-up load: 1,204 files load it this way');
    const imported = whoTreeItem(tree[0].children[1]);
    expect(imported.label).toBe('imported by conventions.md');
    expect(imported.description).toBe('#3 · 300 files · cut');
    expect((imported.iconPath as ThemeIcon).id).toBe('link');
    expect((imported.tooltip as MarkdownString).value).toContain('imported by `docs/conventions.md`');
  });

  it('says the other name a way reads the file under (a symlink), and a name read again', () => {
    const linked = buildWhoTree({
      ...reached,
      path: 'AGENTS.md',
      agents: [
        agent({
          ways: [
            way({
              through: {
                path: 'CLAUDE.md',
                how: 'symlink',
                real: 'AGENTS.md',
                text: 'reads its text as `CLAUDE.md` (a symlink to `AGENTS.md`)',
              },
              alsoAs: ['.github/copilot-instructions.md'],
            }),
          ],
        }),
      ],
    }) as Agent[];
    const item = whoTreeItem(linked[0].children[0]);
    expect(item.label).toBe('project instructions, as CLAUDE.md');
    const tip = (item.tooltip as MarkdownString).value;
    expect(tip).toContain('It reads its text as `CLAUDE.md` (a symlink to `AGENTS.md`)');
    expect(tip).toContain('Read again as `.github/copilot-instructions.md`: the model gets it more than once');
    expect(whoTreeItem(tree[0].children[0]).label).toBe('project instructions'); // its own name
  });

  it('a cut node reveals the line (0-based in the editor)', () => {
    const cut = (tree[0].children[1] as Way).children[0];
    const item = whoTreeItem(cut);
    expect(item.label).toBe('cut at line 210');
    expect(item.description).toBe('for 300 files');
    expect(item.command?.command).toBe('vscode.open');
    const [uri, opts] = item.command?.arguments as [Uri, { selection: Range }];
    expect(uri.toString()).toBe('file:///ws/docs/style.md');
    expect(opts.selection.start.line).toBe(209);
  });

  it('a directory reveals it in the explorer, a file and the example open', () => {
    const kids = (tree[0].children[0] as Way).children;
    const dir = whoTreeItem(kids[0]);
    expect([dir.label, dir.description, dir.command?.command]).toEqual(['packages/', '1,100 files', 'revealInExplorer']);
    const file = whoTreeItem(kids[1]);
    expect([file.label, file.description, file.command?.command]).toEqual(['README.md', '1 file', 'vscode.open']);
    const example = whoTreeItem(kids[2]);
    expect(example.label).toBe('app.ts');
    expect((example.command?.arguments?.[0] as Uri).toString()).toBe('file:///ws/packages/web/src/app.ts');
  });

  it('a left-out node counts the files', () => {
    const item = whoTreeItem(tree[0].children[2]);
    expect(item.label).toBe('left out for 12 files');
    expect((item.tooltip as MarkdownString).value).toContain('**left out**');
  });
});

describe('whoViewHeader', () => {
  it('names the file, or says why there is nothing', () => {
    expect(whoViewHeader(reached, { hasFile: true, ready: true, loaded: true })).toEqual({ description: 'style.md', message: undefined, state: 'shown' });
    expect(whoViewHeader(undefined, { hasFile: false, ready: true, loaded: false }).state).toBe('noFile');
    expect(whoViewHeader(null, { hasFile: true, ready: true, loaded: true }).message).toBe('This file is not inside a workspace folder.');
    const source: ReachResult = { ...reached, agents: [agent({ ways: [], never: 'does not read it' })] };
    expect(whoViewHeader(source, { hasFile: true, ready: true, loaded: true }).state).toBe('notLoaded');
  });
});

function host(uri: Uri | undefined, dirty = false) {
  const states: WhoState[] = [];
  let progress = 0;
  const versions = new Map<string, number>();
  return {
    states,
    get progressCalls() {
      return progress;
    },
    versions,
    dirty,
    target: () => uri,
    version: (u: Uri) => versions.get(u.toString()) ?? 1,
    isDirty(): boolean {
      return this.dirty;
    },
    progress<T>(task: () => Promise<T>): Promise<T> {
      progress++;
      return task();
    },
    setState: (s: WhoState) => void states.push(s),
  };
}

function view(visible = true) {
  const emitter = new EventEmitter<{ visible: boolean }>();
  return { description: undefined as string | undefined, message: undefined as string | undefined, visible, onDidChangeVisibility: emitter.event, emitter };
}

describe('WhoSeesThisProvider', () => {
  const uri = Uri.file('/ws/docs/style.md');

  it('asks rulemap/reach with progress, and draws the answer', async () => {
    const api = fakeApi({ reach: async () => reached });
    const h = host(uri);
    const p = new WhoSeesThisProvider(api, h as never, 0);
    const v = view();
    p.attach(v);
    await p.refresh();
    expect(p.getChildren().length).toBe(3);
    expect(h.progressCalls).toBe(1);
    expect(v.description).toBe('style.md');
    expect(h.states.at(-1)).toBe('shown');
  });

  it('answers from its cache for the same version, asks again for a new one or after the graph changed', async () => {
    let asked = 0;
    const api = fakeApi({ reach: async () => (asked++, reached) });
    const h = host(uri);
    const p = new WhoSeesThisProvider(api, h as never, 0);
    await p.refresh();
    await p.refresh();
    expect(asked).toBe(1);
    h.versions.set(uri.toString(), 2);
    await p.refresh();
    expect(asked).toBe(2);
    p.graphChanged();
    await p.refresh();
    expect(asked).toBe(3);
  });

  it('does not ask while the file has unsaved edits (typing): it waits for the save', async () => {
    let asked = 0;
    const api = fakeApi({ reach: async () => (asked++, reached) });
    const h = host(uri, true);
    const p = new WhoSeesThisProvider(api, h as never, 0);
    p.graphChanged();
    await new Promise((r) => setTimeout(r, 10));
    expect(asked).toBe(0);
  });

  it('does not ask while hidden; asks when shown', async () => {
    let asked = 0;
    const api = fakeApi({ reach: async () => (asked++, reached) });
    const p = new WhoSeesThisProvider(api, host(uri) as never, 0);
    const v = view(false);
    p.attach(v);
    p.scheduleRefresh();
    await new Promise((r) => setTimeout(r, 10));
    expect(asked).toBe(0);
    v.visible = true;
    v.emitter.fire({ visible: true });
    await new Promise((r) => setTimeout(r, 10));
    expect(asked).toBe(1);
  });

  it('shows the welcome state for a file no agent loads', async () => {
    const source: ReachResult = { ...reached, agents: [agent({ ways: [], never: 'does not read it' })] };
    const h = host(uri);
    const p = new WhoSeesThisProvider(fakeApi({ reach: async () => source }), h as never, 0);
    await p.refresh();
    expect(p.getChildren()).toEqual([]);
    expect(h.states.at(-1)).toBe('notLoaded');
  });
});
