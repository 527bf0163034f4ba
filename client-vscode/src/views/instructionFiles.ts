// The "Instruction Files" view: every instruction file and rule of the workspace.

import * as vscode from 'vscode';
import { InstructionFileInfo, InstructionFilesResult, ProblemCounts, RulemapApi } from '../protocol';
import { formatChars, formatInt, plural, shortPath } from '../format';

export type InstructionNode =
  | { kind: 'folder'; name: string; uri: string; children: InstructionNode[] }
  | { kind: 'file'; info: InstructionFileInfo };

/** Pure: "2 errors, 1 warning" (only non-zero counts; "" when there are none). */
export function problemSummary(p: ProblemCounts | undefined): string {
  if (!p) {
    return '';
  }
  const parts: string[] = [];
  if (p.error) parts.push(plural(p.error, 'error'));
  if (p.warning) parts.push(plural(p.warning, 'warning'));
  if (p.information) parts.push(plural(p.information, 'info', 'infos'));
  if (p.hint) parts.push(plural(p.hint, 'hint'));
  return parts.join(', ');
}

/** Pure: "1 warning", "3 problems" (one kind: its name; several: the total; "" when none). */
export function problemShort(p: ProblemCounts | undefined): string {
  if (!p) return '';
  const kinds = (['error', 'warning', 'information', 'hint'] as const).filter((k) => p[k]);
  if (kinds.length === 0) return '';
  if (kinds.length === 1) {
    const k = kinds[0];
    return k === 'information' ? plural(p[k], 'info', 'infos') : plural(p[k], k);
  }
  return plural(kinds.reduce((n, k) => n + p[k], 0), 'problem');
}

/**
 * Pure: the description of a row, one short fact so it fits the default sidebar width beside a
 * path: its problems ("1 warning", "3 problems"), else for a path-scoped rule its matches ("12
 * matches"; "0 matches": it never loads), else its size ("812"). Everything else — counts by
 * kind, matches, characters — is in the tooltip.
 */
export function instructionFileDescription(f: InstructionFileInfo): string {
  const problems = problemShort(f.problems);
  if (problems) return problems;
  if (f.scoped && f.matches !== null && f.matches !== undefined) return plural(f.matches, 'match', 'matches');
  return formatChars(f.chars);
}

export function instructionFileIcon(f: InstructionFileInfo): { id: string; color?: string } {
  const id = f.kind === 'rule' ? (f.scoped ? 'filter' : 'law') : 'book';
  if (f.problems?.error) return { id, color: 'list.errorForeground' };
  if (f.problems?.warning) return { id, color: 'list.warningForeground' };
  if (f.scoped && f.matches === 0) return { id, color: 'list.warningForeground' };
  return { id };
}

/**
 * Pure: group files by workspace folder when there is more than one folder; files keep the
 * server's order. `folderOf` maps a file URI to its folder's name and URI.
 */
export function buildInstructionTree(
  result: InstructionFilesResult | null | undefined,
  folderOf: (uri: string) => { name: string; uri: string } | undefined,
): InstructionNode[] {
  if (!result) {
    return [];
  }
  const groups = new Map<string, Extract<InstructionNode, { kind: 'folder' }>>();
  const loose: InstructionNode[] = [];
  for (const info of result.files) {
    const folder = folderOf(info.uri);
    const node: InstructionNode = { kind: 'file', info };
    if (!folder) {
      loose.push(node);
      continue;
    }
    let g = groups.get(folder.uri);
    if (!g) {
      g = { kind: 'folder', name: folder.name, uri: folder.uri, children: [] };
      groups.set(folder.uri, g);
    }
    g.children.push(node);
  }
  if (groups.size <= 1) {
    return [...[...groups.values()].flatMap((g) => g.children), ...loose];
  }
  return [...groups.values(), ...loose];
}

export function instructionTreeItem(node: InstructionNode): vscode.TreeItem {
  if (node.kind === 'folder') {
    const item = new vscode.TreeItem(node.name, vscode.TreeItemCollapsibleState.Expanded);
    item.id = `folder:${node.uri}`;
    item.iconPath = vscode.ThemeIcon.Folder;
    item.description = plural(node.children.length, 'file');
    item.contextValue = 'rulemap.folder';
    return item;
  }
  const f = node.info;
  const item = new vscode.TreeItem(shortPath(f.path), vscode.TreeItemCollapsibleState.None);
  item.id = `file:${f.uri}`;
  item.description = instructionFileDescription(f);
  const icon = instructionFileIcon(f);
  item.iconPath = new vscode.ThemeIcon(icon.id, icon.color ? new vscode.ThemeColor(icon.color) : undefined);
  const kind = f.kind === 'rule' ? (f.scoped ? 'Path-scoped rule' : 'Rule (always loaded)') : 'Instruction file';
  const lines = [`**${f.path}**`, kind, `${formatInt(f.chars)} characters`];
  const problems = problemSummary(f.problems);
  lines.push(problems ? `Problems: ${problems}` : 'No problems');
  if (f.scoped && f.matches !== null && f.matches !== undefined) {
    lines.push(
      f.matches === 0
        ? 'Its `paths` globs match no file of the workspace: it never loads.'
        : `Loads for ${plural(f.matches, 'file')} of the workspace.`,
    );
  }
  item.tooltip = new vscode.MarkdownString(lines.join('\n\n'));
  item.contextValue = f.kind === 'rule' ? 'rulemap.rule' : 'rulemap.instruction';
  item.command = { command: 'vscode.open', title: 'Open', arguments: [vscode.Uri.parse(f.uri)] };
  return item;
}

export class InstructionFilesProvider implements vscode.TreeDataProvider<InstructionNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<InstructionNode | undefined | void>();
  readonly onDidChangeTreeData = this.emitter.event;
  private roots: InstructionNode[] = [];
  private view: vscode.TreeView<InstructionNode> | undefined;
  private seq = 0;
  private loaded = false;

  constructor(
    private readonly api: RulemapApi,
    private readonly folderOf: (uri: string) => { name: string; uri: string } | undefined = defaultFolderOf,
  ) {}

  attach(view: vscode.TreeView<InstructionNode>): void {
    this.view = view;
  }

  /** Re-query the server and redraw. */
  async refresh(): Promise<void> {
    const seq = ++this.seq;
    let result: InstructionFilesResult | null | undefined = null;
    if (this.api.isReady) {
      result = await this.api.instructionFiles();
    }
    if (seq !== this.seq) {
      return;
    }
    this.loaded = this.api.isReady;
    this.roots = buildInstructionTree(result, this.folderOf);
    if (this.view) {
      const files = result?.files ?? [];
      const errors = files.reduce((n, f) => n + (f.problems?.error ?? 0), 0);
      const warnings = files.reduce((n, f) => n + (f.problems?.warning ?? 0), 0);
      this.view.description = this.loaded ? `${files.length}` : undefined;
      this.view.badge =
        errors + warnings > 0
          ? { value: errors + warnings, tooltip: `${problemSummary({ error: errors, warning: warnings, information: 0, hint: 0 })} in instruction files` }
          : undefined;
      this.view.message =
        this.loaded && files.length === 0 ? 'No instruction files or rules in this workspace.' : undefined;
    }
    this.emitter.fire();
  }

  getTreeItem(node: InstructionNode): vscode.TreeItem {
    return instructionTreeItem(node);
  }

  getChildren(node?: InstructionNode): InstructionNode[] {
    if (!node) {
      return this.roots;
    }
    return node.kind === 'folder' ? node.children : [];
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

function defaultFolderOf(uri: string): { name: string; uri: string } | undefined {
  const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(uri));
  return folder ? { name: folder.name, uri: folder.uri.toString() } : undefined;
}
