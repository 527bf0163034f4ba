import { describe, expect, it } from 'vitest';
import {
  buildInstructionTree,
  instructionFileDescription,
  instructionFileIcon,
  InstructionFilesProvider,
  instructionTreeItem,
  problemShort,
  problemSummary,
} from '../src/views/instructionFiles';
import type { InstructionFileInfo } from '../src/protocol';
import { fakeApi } from './fixtures';
import { MarkdownString, ThemeIcon } from './vscode-mock';

const none = { error: 0, warning: 0, information: 0, hint: 0 };
function info(path: string, extra: Partial<InstructionFileInfo> = {}, root = '/ws'): InstructionFileInfo {
  return { path, uri: `file://${root}/${path}`, kind: 'instruction', scoped: false, problems: none, matches: null, chars: 812, ...extra };
}

const agents = info('AGENTS.md', { problems: { error: 1, warning: 2, information: 0, hint: 1 } });
const api = info('.claude/rules/api.md', { kind: 'rule', scoped: true, matches: 12, chars: 120 });
const never = info('.claude/rules/old.md', { kind: 'rule', scoped: true, matches: 0, chars: 50 });
const general = info('.claude/rules/general.md', { kind: 'rule', scoped: false, chars: 1500 });

describe('instruction file rows', () => {
  it('summarises problems', () => {
    expect(problemSummary(none)).toBe('');
    expect(problemSummary(agents.problems)).toBe('1 error, 2 warnings, 1 hint');
    expect(problemSummary({ error: 0, warning: 0, information: 3, hint: 0 })).toBe('3 infos');
  });
  it('describes problems, else matches, else the size — one short fact (details in the tooltip)', () => {
    expect(instructionFileDescription(agents)).toBe('4 problems');
    expect(instructionFileDescription(api)).toBe('12 matches');
    expect(instructionFileDescription(never)).toBe('0 matches');
    expect(instructionFileDescription(general)).toBe('1.5k');
    expect(instructionFileDescription({ ...api, matches: 1, problems: { error: 0, warning: 1, information: 0, hint: 0 } })).toBe('1 warning');
    expect(problemShort({ error: 2, warning: 0, information: 0, hint: 0 })).toBe('2 errors');
    expect(problemShort({ error: 0, warning: 0, information: 1, hint: 0 })).toBe('1 info');
  });
  it('picks icons and colours', () => {
    expect(instructionFileIcon(agents)).toEqual({ id: 'book', color: 'list.errorForeground' });
    expect(instructionFileIcon(api)).toEqual({ id: 'filter' });
    expect(instructionFileIcon(never)).toEqual({ id: 'filter', color: 'list.warningForeground' });
    expect(instructionFileIcon(general)).toEqual({ id: 'law' });
  });
  it('renders a tree item that opens the file', () => {
    const item = instructionTreeItem({ kind: 'file', info: never });
    expect(item.label).toBe('.claude/rules/old.md');
    expect((item.iconPath as ThemeIcon).id).toBe('filter');
    expect((item.tooltip as MarkdownString).value).toContain('match no file of the workspace');
    expect(item.command?.command).toBe('vscode.open');
    expect(item.contextValue).toBe('rulemap.rule');
  });
});

describe('buildInstructionTree', () => {
  const folderOf = (uri: string) =>
    uri.startsWith('file:///ws/') ? { name: 'ws', uri: 'file:///ws' } : uri.startsWith('file:///other/') ? { name: 'other', uri: 'file:///other' } : undefined;

  it('is flat for one folder, in server order', () => {
    const tree = buildInstructionTree({ files: [agents, general, api] }, folderOf);
    expect(tree.map((n) => (n.kind === 'file' ? n.info.path : n.name))).toEqual(['AGENTS.md', '.claude/rules/general.md', '.claude/rules/api.md']);
  });
  it('groups by folder for multi-root workspaces', () => {
    const tree = buildInstructionTree({ files: [agents, info('CLAUDE.md', {}, '/other'), api] }, folderOf);
    expect(tree.map((n) => n.kind)).toEqual(['folder', 'folder']);
    expect(tree[0].kind === 'folder' && tree[0].children.length).toBe(2);
    expect(instructionTreeItem(tree[1]).description).toBe('1 file');
  });
  it('is empty without a result', () => {
    expect(buildInstructionTree(null, folderOf)).toEqual([]);
  });
});

describe('InstructionFilesProvider', () => {
  it('queries the server, fills the view and shows a problem badge', async () => {
    const fake = fakeApi({
      instructionFiles: async () => ({ files: [agents, api] }),
    });
    const p = new InstructionFilesProvider(fake, () => ({ name: 'ws', uri: 'file:///ws' }));
    const view = {} as { description?: string; badge?: { value: number; tooltip: string }; message?: string };
    p.attach(view as never);
    let fired = 0;
    p.onDidChangeTreeData(() => fired++);
    await p.refresh();
    expect(fired).toBe(1);
    expect(p.getChildren().length).toBe(2);
    expect(view.description).toBe('2');
    expect(view.badge).toEqual({ value: 3, tooltip: '1 error, 2 warnings in instruction files' });
    expect(view.message).toBeUndefined();
  });
  it('says so when the workspace has no instruction files', async () => {
    const p = new InstructionFilesProvider(fakeApi(), () => undefined);
    const view = {} as { message?: string };
    p.attach(view as never);
    await p.refresh();
    expect(view.message).toMatch(/No instruction files/);
  });
});
