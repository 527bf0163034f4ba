import { describe, expect, it } from 'vitest';
import {
  buildEffectiveTree,
  EffectiveInstructionsProvider,
  EffectiveNode,
  effectiveTreeItem,
  effectiveViewHeader,
  fileDescription,
} from '../src/views/effectiveInstructions';
import { file, result } from './fixtures';
import { EventEmitter, MarkdownString, Range, ThemeColor, ThemeIcon, TreeItemCollapsibleState, Uri } from './vscode-mock';

const withImports = result({
  totalChars: 1500,
  files: [
    file('AGENTS.md', { chars: 500 }),
    file('docs/style.md', { reason: 'import', importedBy: 'AGENTS.md', depth: 1, line: 3, chars: 300 }),
    file('docs/deep.md', { reason: 'import', importedBy: 'docs/style.md', depth: 2, line: 0, chars: 200 }),
    file('docs/other.md', { reason: 'import', importedBy: 'AGENTS.md', depth: 1, line: 7, chars: 100 }),
    file('CLAUDE.md', { chars: 200 }),
    file('.claude/rules/general.md', { reason: 'rule', chars: 100 }),
    file('src/AGENTS.md', { reason: 'nested', chars: 50 }),
    file('.claude/rules/api.md', { reason: 'scoped', chars: 50 }),
  ],
  skipped: [{ path: 'docs/missing.md', why: 'broken-import' }],
});

function labels(nodes: EffectiveNode[]): unknown[] {
  return nodes.map((n) => {
    if (n.kind === 'file') return n.children.length ? [n.file.path, labels(n.children)] : n.file.path;
    if (n.kind === 'skippedGroup') return ['skipped', labels(n.children)];
    return n.path;
  });
}

describe('buildEffectiveTree', () => {
  it('keeps load order and nests imports under their importer', () => {
    const tree = buildEffectiveTree(withImports);
    expect(labels(tree)).toEqual([
      ['AGENTS.md', [['docs/style.md', ['docs/deep.md']], 'docs/other.md']],
      'CLAUDE.md',
      '.claude/rules/general.md',
      'src/AGENTS.md',
      '.claude/rules/api.md',
      ['skipped', ['docs/missing.md']],
    ]);
    const agents = tree[0] as Extract<EffectiveNode, { kind: 'file' }>;
    const style = agents.children[0] as Extract<EffectiveNode, { kind: 'file' }>;
    expect(agents.order).toBe(1);
    expect(style.order).toBe(2);
    expect(style.importerUri).toBe('file:///ws/AGENTS.md');
    expect((style.children[0] as Extract<EffectiveNode, { kind: 'file' }>).importerUri).toBe('file:///ws/docs/style.md');
  });

  it('lists left-out files after the loaded ones', () => {
    const tree = buildEffectiveTree(result({ leftOut: ['docs/late.md', '/abs/outside.md'] }));
    expect(tree.map((n) => n.kind)).toEqual(['file', 'file', 'leftOut', 'leftOut']);
    expect(tree[2]).toMatchObject({ path: 'docs/late.md', uri: 'file:///ws/docs/late.md', order: 3 });
    expect(tree[3]).toMatchObject({ uri: 'file:///abs/outside.md' });
  });

  it('puts an import whose importer is unknown at the top level', () => {
    const tree = buildEffectiveTree(
      result({ files: [file('x.md', { reason: 'import', importedBy: 'gone.md', depth: 1, line: 0 })] }),
    );
    expect(labels(tree)).toEqual(['x.md']);
  });

  it('is empty without a result', () => {
    expect(buildEffectiveTree(null)).toEqual([]);
    expect(buildEffectiveTree(undefined)).toEqual([]);
  });
});

describe('effectiveTreeItem', () => {
  const tree = buildEffectiveTree(withImports);

  it('renders a project file with icon, description and open command', () => {
    const item = effectiveTreeItem(tree[0]);
    expect(item.label).toBe('AGENTS.md');
    expect(item.description).toBe('500');
    expect((item.iconPath as ThemeIcon).id).toBe('book');
    expect(item.collapsibleState).toBe(TreeItemCollapsibleState.Expanded);
    expect(item.command?.command).toBe('vscode.open');
    expect((item.command?.arguments?.[0] as Uri).toString()).toBe('file:///ws/AGENTS.md');
    expect(item.command?.arguments?.length).toBe(1);
    expect((item.tooltip as MarkdownString).value).toContain('#1 in load order');
  });

  it('opens the importer at the import line for an import', () => {
    const agents = tree[0] as Extract<EffectiveNode, { kind: 'file' }>;
    const item = effectiveTreeItem(agents.children[0]);
    expect((item.iconPath as ThemeIcon).id).toBe('link');
    expect(item.contextValue).toBe('rulemap.import');
    expect((item.command?.arguments?.[0] as Uri).toString()).toBe('file:///ws/AGENTS.md');
    const opts = item.command?.arguments?.[1] as { selection: Range };
    expect(opts.selection.start.line).toBe(3);
    expect((item.tooltip as MarkdownString).value).toContain('Imported by `AGENTS.md` (line 4), hop 1');
  });

  it('uses one icon per reason', () => {
    const ids = tree
      .filter((n) => n.kind === 'file')
      .map((n) => (effectiveTreeItem(n).iconPath as ThemeIcon).id);
    expect(ids).toEqual(['book', 'book', 'law', 'list-tree', 'filter']);
  });

  it('marks cut files and left-out files', () => {
    const cut = file('AGENTS.md', { chars: 32000, cut: true });
    expect(fileDescription(cut)).toBe('32k · cut');
    const item = effectiveTreeItem({ kind: 'file', file: cut, order: 1, children: [] });
    expect(((item.iconPath as ThemeIcon).color as ThemeColor).id).toBe('list.warningForeground');
    const left = effectiveTreeItem({ kind: 'leftOut', path: 'docs/x.md', uri: 'file:///ws/docs/x.md', order: 2 });
    expect(left.description).toBe('left out');
    expect((left.iconPath as ThemeIcon).id).toBe('circle-slash');
  });

  it('shows skipped files in a collapsed group', () => {
    const group = tree.at(-1)!;
    const item = effectiveTreeItem(group);
    expect(item.label).toBe('Skipped (1)');
    expect(item.collapsibleState).toBe(TreeItemCollapsibleState.Collapsed);
    const child = effectiveTreeItem((group as Extract<EffectiveNode, { kind: 'skippedGroup' }>).children[0]);
    expect(child.description).toBe('broken-import');
  });

  it('gives every row a unique id', () => {
    const ids: string[] = [];
    const walk = (ns: EffectiveNode[]) =>
      ns.forEach((n) => {
        ids.push(effectiveTreeItem(n).id!);
        if (n.kind === 'file' || n.kind === 'skippedGroup') walk(n.children);
      });
    walk(tree);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('a file that gains imports', () => {
  it('is drawn as a new, expanded row (VS Code keeps the state of an id it drew as a leaf)', () => {
    const broken = buildEffectiveTree(result({ files: [file('AGENTS.md')], skipped: [{ path: 'docs/missing.md', why: 'broken-import' }] }));
    const fixed = buildEffectiveTree(
      result({ files: [file('AGENTS.md'), file('docs/guide.md', { reason: 'import', importedBy: 'AGENTS.md', depth: 1, line: 3 })] }),
    );
    const before = effectiveTreeItem(broken[0]);
    const after = effectiveTreeItem(fixed[0]);
    expect(before.collapsibleState).toBe(TreeItemCollapsibleState.None);
    expect(after.collapsibleState).toBe(TreeItemCollapsibleState.Expanded);
    expect(after.id).not.toBe(before.id);
    // the same load drawn again keeps its id (a user's collapse of it is kept)
    expect(effectiveTreeItem(buildEffectiveTree(result({ files: [file('AGENTS.md'), file('docs/guide.md', { reason: 'import', importedBy: 'AGENTS.md', depth: 1, line: 3 })] }))[0]).id).toBe(after.id);
  });
});

describe('what the server says about each agent', () => {
  const r = result({
    profile: 'gamma',
    totalChars: 4000,
    budget: { kind: 'shared', unit: 'bytes', limit: 32768 },
    files: [file('AGENTS.md', { chars: 3000, bytes: 3072, step: 1 }), file('docs/big.md', { chars: 1000, bytes: 1024, truncated: true, cutLine: 9, note: 'cut at the byte' })],
    leftOut: ['deep/AGENTS.md'],
    leftOutUris: ['file:///elsewhere/deep/AGENTS.md'],
    notes: ['the walk stops at the workspace root'],
  });
  const tree = buildEffectiveTree(r);

  it("shows sizes in the budget's unit, steps, per-file cuts and notes", () => {
    const [agents, big] = tree.map((n) => effectiveTreeItem(n));
    expect(agents.description).toBe('3KiB · step 1');
    expect(big.description).toBe('1KiB · cut');
    const tip = (big.tooltip as MarkdownString).value;
    expect(tip).toContain('1,000 characters · 1,024 bytes');
    expect(tip).toContain('the agent stops reading at line 10');
    expect(tip).toContain('cut at the byte');
  });

  it("opens left-out files at the server's URI", () => {
    expect(tree[2]).toMatchObject({ kind: 'leftOut', uri: 'file:///elsewhere/deep/AGENTS.md' });
  });

  it("lists the profile's notes in a collapsed group at the end", () => {
    const group = tree.at(-1)!;
    expect(group.kind).toBe('notesGroup');
    const item = effectiveTreeItem(group);
    expect(item.label).toBe('Notes (1)');
    expect(item.collapsibleState).toBe(TreeItemCollapsibleState.Collapsed);
    const note = effectiveTreeItem((group as Extract<EffectiveNode, { kind: 'notesGroup' }>).children[0]);
    expect(note.label).toBe('the walk stops at the workspace root');
    expect(note.tooltip).toBe('the walk stops at the workspace root');
  });

  it('puts the profile in the message and the budget in its unit in the description', () => {
    const h = effectiveViewHeader(r, { hasFile: true, ready: true });
    expect(h.description).toBe('4KiB/32KiB');
    expect(h.message).toMatch(/^gamma: 2 files for handler\.ts · 4,096 of 32,768 bytes/);
    expect(effectiveViewHeader({ ...r, overBudget: true }, { hasFile: true, ready: true }).message).toMatch(/over budget: 1 cut, 1 left out$/);
  });
});

describe('effectiveViewHeader', () => {
  it('shows the budget in the description', () => {
    const h = effectiveViewHeader(result({ totalChars: 12300 }), { hasFile: true, ready: true });
    expect(h.description).toBe('12.3k/32k');
    expect(h.message).toBe('cogitator: 2 files for handler.ts · 12,300 of 32,000 characters');
  });
  it('says what is over budget', () => {
    const r = result({ files: [file('AGENTS.md', { cut: true })], leftOut: ['a.md', 'b.md'] });
    expect(effectiveViewHeader(r, { hasFile: true, ready: true }).message).toMatch(/over budget: 1 cut, 2 left out$/);
  });
  it('leaves room for the welcome view when no file is open', () => {
    expect(effectiveViewHeader(undefined, { hasFile: false, ready: true })).toEqual({ description: undefined, message: undefined });
    expect(effectiveViewHeader(null, { hasFile: true, ready: true }).message).toMatch(/not inside a workspace folder/);
  });
});

describe('EffectiveInstructionsProvider', () => {
  it('rebuilds and updates the view header when the source changes', () => {
    const changed = new EventEmitter<void>();
    const source = { uri: undefined as Uri | undefined, result: undefined as ReturnType<typeof result> | undefined, ready: true, onDidChange: changed.event };
    const provider = new EffectiveInstructionsProvider(source as never);
    const view = { description: undefined as string | undefined, message: undefined as string | undefined };
    provider.attach(view as never);
    let fired = 0;
    provider.onDidChangeTreeData(() => fired++);
    expect(provider.getChildren()).toEqual([]);

    source.uri = Uri.file('/ws/src/api/handler.ts');
    source.result = withImports;
    changed.fire();
    expect(fired).toBe(1);
    expect(view.description).toBe('1.5k/32k');
    const roots = provider.getChildren();
    expect(roots.map((n) => (n.kind === 'file' ? n.file.path : n.kind))).toEqual([
      'AGENTS.md',
      'CLAUDE.md',
      '.claude/rules/general.md',
      'src/AGENTS.md',
      '.claude/rules/api.md',
      'skippedGroup',
    ]);
    expect(provider.getChildren(roots[0]).length).toBe(2);
    expect(provider.getChildren(roots[1])).toEqual([]);
    provider.dispose();
  });
});
