import { describe, expect, it, vi } from 'vitest';
import type { CompareResult } from '../src/protocol';
import {
  buildCompareTree,
  CompareAgentsProvider,
  compareFileDescription,
  CompareNode,
  compareTreeItem,
  compareViewHeader,
} from '../src/views/compareAgents';
import { fakeApi, file, result } from './fixtures';
import { EventEmitter, MarkdownString, Range, ThemeColor, ThemeIcon, TreeItemCollapsibleState, Uri } from './vscode-mock';

// A `rulemap/compare` answer shaped like the contract (agent names are test data only).
const compared: CompareResult = {
  uri: 'file:///ws/src/api/handler.ts',
  target: 'src/api/handler.ts',
  columns: [
    {
      profile: 'alpha',
      title: 'Alpha Agent',
      summary: '3 files, 3,200 of 32,000 chars',
      overBudget: false,
      explanation: result({
        profile: 'alpha',
        totalChars: 3200,
        files: [
          file('AGENTS.md', { chars: 3100 }),
          file('docs/guide.md', { reason: 'import', importedBy: 'AGENTS.md', depth: 1, line: 3, chars: 60 }),
          file('src/api/AGENTS.md', { reason: 'nested', chars: 40 }),
        ],
        budget: { kind: 'shared', unit: 'chars', limit: 32000 },
        notes: ['the walk stops at the workspace root'],
      }),
    },
    {
      profile: 'gamma',
      title: 'Gamma CLI',
      summary: '2 files · 1 cut',
      overBudget: true,
      explanation: result({
        profile: 'gamma',
        totalChars: 9000,
        files: [
          file('GAMMA.md', { chars: 8000, tokens: 2000, step: 1, truncated: true, cutLine: 41, note: 'read up to the token limit' }),
          file('.gamma/rules/api.md', { reason: 'scoped', chars: 1000, tokens: 250, step: 2 }),
        ],
        leftOut: ['docs/late.md'],
        leftOutUris: ['file:///ws/docs/late.md'],
        budget: { kind: 'per-file', unit: 'tokens', limit: 2000 },
      }),
    },
    {
      profile: 'beta',
      title: 'Beta',
      summary: 'nothing loaded',
      overBudget: false,
      explanation: result({ profile: 'beta', totalChars: 0, files: [], budget: { kind: 'none', unit: 'chars', limit: null } }),
    },
  ],
};

type Agent = Extract<CompareNode, { kind: 'agent' }>;
type FileNode = Extract<CompareNode, { kind: 'file' }>;

describe('buildCompareTree', () => {
  const tree = buildCompareTree(compared, 'gamma') as Agent[];

  it('has one top-level node per column, in the server order', () => {
    expect(tree.map((n) => n.kind)).toEqual(['agent', 'agent', 'agent']);
    expect(tree.map((n) => n.column.profile)).toEqual(['alpha', 'gamma', 'beta']);
    expect(tree.map((n) => n.current)).toEqual([false, true, false]);
  });

  it("lists each agent's files in that agent's order, then what it left out", () => {
    expect(tree[0].children.map((c) => (c as FileNode).file.path)).toEqual(['AGENTS.md', 'docs/guide.md', 'src/api/AGENTS.md']);
    expect(tree[0].children.map((c) => (c as FileNode).order)).toEqual([1, 2, 3]);
    expect(tree[1].children.map((c) => c.kind)).toEqual(['file', 'file', 'leftOut']);
    expect(tree[1].children[2]).toMatchObject({ path: 'docs/late.md', uri: 'file:///ws/docs/late.md', order: 3 });
    expect(tree[2].children).toEqual([]);
  });

  it('names the folder only for files whose name repeats', () => {
    const [agents, guide, nested] = tree[0].children as FileNode[];
    expect(agents.dir).toBe('.');
    expect(nested.dir).toBe('src/api');
    expect(guide.dir).toBeUndefined();
  });

  it('is empty without an answer', () => {
    expect(buildCompareTree(null, undefined)).toEqual([]);
    expect(buildCompareTree(undefined, undefined)).toEqual([]);
  });
});

describe('compareTreeItem', () => {
  const tree = buildCompareTree(compared, 'alpha') as Agent[];

  it("labels an agent with its title, a short description, the server's summary in the tooltip", () => {
    const item = compareTreeItem(tree[0]);
    expect(item.label).toBe('Alpha Agent');
    // short at the default sidebar width: the longer summary is in the tooltip
    expect(item.description).toBe('3 files · 3.2k/32k');
    expect((item.tooltip as MarkdownString).value).toContain('3 files, 3,200 of 32,000 chars');
    expect(item.collapsibleState).toBe(TreeItemCollapsibleState.Expanded);
    expect(item.id).toBe('agent:alpha');
    expect(item.contextValue).toBe('rulemap.agent.current');
    expect((item.iconPath as ThemeIcon).id).toBe('pass-filled');
    const tip = (item.tooltip as MarkdownString).value;
    expect(tip).toContain('`alpha`');
    expect(tip).toContain('3 files loaded · 3,200 of 32,000 characters');
    expect(tip).toContain('the walk stops at the workspace root');
  });

  it('warns on an agent that is over budget', () => {
    const item = compareTreeItem(tree[1]);
    const icon = item.iconPath as ThemeIcon;
    expect(icon.id).toBe('warning');
    expect((icon.color as ThemeColor).id).toBe('list.warningForeground');
    expect((item.tooltip as MarkdownString).value).toContain('Over budget');
    expect(item.contextValue).toBe('rulemap.agent');
    expect((compareTreeItem(tree[2]).iconPath as ThemeIcon).id).toBe('hubot');
    expect(compareTreeItem(tree[2]).collapsibleState).toBe(TreeItemCollapsibleState.None);
  });

  it('gives files short labels (the name) and short descriptions (size, step, cut)', () => {
    const rows = tree.flatMap((a) => a.children.map((c) => compareTreeItem(c)));
    expect(rows.map((r) => [r.label, r.description])).toEqual([
      ['AGENTS.md', '3.1k · in .'],
      ['guide.md', '60'],
      ['AGENTS.md', '40 · in src/api'],
      ['GAMMA.md', '2k tok · step 1 · cut'],
      ['api.md', '250 tok · step 2'],
      ['late.md', 'left out'],
    ]);
    for (const r of rows) expect(String(r.label).length).toBeLessThanOrEqual(16);
  });

  it('puts the full path and the note in the tooltip, and opens the file (at the cut line)', () => {
    const gamma = tree[1].children[0] as FileNode;
    const item = compareTreeItem(gamma);
    const tip = (item.tooltip as MarkdownString).value;
    expect(tip).toContain('**GAMMA.md**');
    expect(tip).toContain("#1 in Gamma CLI's load order");
    expect(tip).toContain('the agent stops reading at line 42');
    expect(tip).toContain('read up to the token limit');
    expect(tip).toContain('2,000 tokens');
    expect(item.command?.command).toBe('vscode.open');
    expect((item.command?.arguments?.[0] as Uri).toString()).toBe('file:///ws/GAMMA.md');
    expect((item.command?.arguments?.[1] as { selection: Range }).selection.start.line).toBe(41);
    const guide = compareTreeItem(tree[0].children[1]);
    expect((guide.tooltip as MarkdownString).value).toContain('**docs/guide.md**');
    expect((guide.command?.arguments?.[0] as Uri).toString()).toBe('file:///ws/docs/guide.md');
    expect(guide.command?.arguments?.length).toBe(1);
    expect(((compareTreeItem(gamma).iconPath as ThemeIcon).color as ThemeColor).id).toBe('list.warningForeground');
  });

  it('gives every row a unique id (the same file under two agents included)', () => {
    const ids = tree.flatMap((a) => [compareTreeItem(a).id, ...a.children.map((c) => compareTreeItem(c).id)]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('describes a file by its characters when the budget unit has no size for it', () => {
    const node: FileNode = { kind: 'file', agent: 'x', agentTitle: 'X', file: file('A.md', { chars: 1234 }), order: 1, unit: 'bytes' };
    expect(compareFileDescription(node)).toBe('1.2k');
    expect(compareFileDescription({ ...node, file: file('A.md', { chars: 1234, bytes: 4096 }) })).toBe('4KiB');
  });
});

describe('compareViewHeader', () => {
  it('names the compared file, or says why there is nothing', () => {
    expect(compareViewHeader(compared, { hasFile: true, ready: true, loaded: true })).toEqual({ description: 'handler.ts', message: undefined });
    expect(compareViewHeader(null, { hasFile: true, ready: true, loaded: true }).message).toMatch(/not inside a workspace folder/);
    // a long file name is shortened in the middle: the header must fit the default sidebar width
    const long = compareViewHeader({ ...compared, target: 'src/components/VeryLongComponentName.test.tsx' }, { hasFile: true, ready: true, loaded: true });
    expect(long.description).toBe('VeryLongC…st.tsx');
    expect(compareViewHeader(undefined, { hasFile: true, ready: true, loaded: true }).message).toMatch(/did not compare/);
    expect(compareViewHeader(undefined, { hasFile: false, ready: true, loaded: true })).toEqual({ description: undefined, message: undefined });
  });
});

function fakeView(visible: boolean) {
  const vis = new EventEmitter<{ visible: boolean }>();
  const view = {
    visible,
    description: undefined as string | undefined,
    message: undefined as string | undefined,
    onDidChangeVisibility: vis.event,
    show(v: boolean) {
      view.visible = v;
      vis.fire({ visible: v });
    },
  };
  return view;
}

describe('CompareAgentsProvider', () => {
  it('asks rulemap/compare for the active file and renders the columns', async () => {
    const api = fakeApi({
      compare: async (params) => {
        api.calls.push({ method: 'compare', params });
        return compared;
      },
    });
    let uri: Uri | undefined = Uri.file('/ws/src/api/handler.ts');
    const p = new CompareAgentsProvider(api, () => uri as never, () => 'gamma', 5);
    const view = fakeView(true);
    p.attach(view);
    p.scheduleRefresh();
    await vi.waitFor(() => expect(p.getChildren().length).toBe(3));
    expect(api.calls).toEqual([{ method: 'compare', params: { uri: 'file:///ws/src/api/handler.ts' } }]);
    expect(view.description).toBe('handler.ts');
    const gamma = p.getChildren()[1];
    expect(p.getChildren(gamma).length).toBe(3);
    expect(p.getTreeItem(gamma).label).toBe('Gamma CLI');

    uri = undefined;
    await p.refresh();
    expect(p.getChildren()).toEqual([]);
    expect(api.calls.length).toBe(1);
    p.dispose();
  });

  it('compares only while visible: a change while hidden waits for the view to show', async () => {
    const api = fakeApi();
    const p = new CompareAgentsProvider(api, () => Uri.file('/ws/a.ts') as never, () => undefined, 5);
    const view = fakeView(false);
    p.attach(view);
    p.scheduleRefresh();
    p.scheduleRefresh();
    await new Promise((r) => setTimeout(r, 20));
    expect(api.calls.length).toBe(0);
    view.show(true);
    await vi.waitFor(() => expect(api.calls.length).toBe(1));
    // nothing changed since: hiding and showing again does not ask again
    view.show(false);
    view.show(true);
    await new Promise((r) => setTimeout(r, 20));
    expect(api.calls.length).toBe(1);
    p.dispose();
  });

  it('debounces bursts (graphChanged, editor and profile changes)', async () => {
    const api = fakeApi();
    const p = new CompareAgentsProvider(api, () => Uri.file('/ws/a.ts') as never, () => undefined, 10);
    p.attach(fakeView(true));
    for (let i = 0; i < 8; i++) p.scheduleRefresh();
    await new Promise((r) => setTimeout(r, 40));
    expect(api.calls.length).toBe(1);
    p.dispose();
  });

  it('moves the current-agent marker without asking the server again', async () => {
    const api = fakeApi({ compare: async () => compared });
    let current = 'alpha';
    const p = new CompareAgentsProvider(api, () => Uri.file('/ws/a.ts') as never, () => current, 5);
    p.attach(fakeView(true));
    await p.refresh();
    expect((p.getChildren() as Agent[]).map((n) => n.current)).toEqual([true, false, false]);
    let fired = 0;
    p.onDidChangeTreeData(() => fired++);
    current = 'beta';
    p.redraw();
    expect(fired).toBe(1);
    expect((p.getChildren() as Agent[]).map((n) => n.current)).toEqual([false, false, true]);
  });

  it('does not ask a server that is not ready, and drops stale answers', async () => {
    const idle = fakeApi({ isReady: false });
    const p0 = new CompareAgentsProvider(idle, () => Uri.file('/ws/a.ts') as never, () => undefined, 5);
    await p0.refresh();
    expect(idle.calls.length).toBe(0);

    let release: (() => void) | undefined;
    let n = 0;
    const api = fakeApi({
      compare: () =>
        n++ === 0
          ? new Promise((resolve) => (release = () => resolve({ ...compared, columns: compared.columns.slice(0, 1) })))
          : Promise.resolve(compared),
    });
    const p = new CompareAgentsProvider(api, () => Uri.file('/ws/a.ts') as never, () => undefined, 5);
    const slow = p.refresh();
    await p.refresh();
    release!();
    await slow;
    expect(p.getChildren().length).toBe(3);
  });
});
