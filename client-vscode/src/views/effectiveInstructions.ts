// The "Effective Instructions" view: what an agent loads for the active editor's file.

import * as vscode from 'vscode';
import { EffectiveInstructions, LoadedFile } from '../protocol';
import { basename, formatInt, plural, reasonLabel, shortPath } from '../format';
import { budgetLong, budgetOf, budgetShort, fileSize, isCut, isOverBudget } from '../budget';

export type EffectiveNode =
  | {
      kind: 'file';
      file: LoadedFile;
      /** 1-based position in load order. */
      order: number;
      children: EffectiveNode[];
      /** For imports: the importer's URI, opened at `file.line` on click. */
      importerUri?: string;
      /** The budget's unit (sizes are shown in it when the server gave them). */
      unit?: string;
    }
  | { kind: 'leftOut'; path: string; uri: string; order: number }
  | { kind: 'skippedGroup'; children: EffectiveNode[] }
  | { kind: 'skipped'; path: string; why: string; uri?: string }
  | { kind: 'notesGroup'; children: EffectiveNode[] }
  | { kind: 'note'; text: string; index: number };

export const REASON_ICONS: Record<string, string> = {
  project: 'book',
  import: 'link',
  rule: 'law',
  nested: 'list-tree',
  scoped: 'filter',
  user: 'account',
  requested: 'target',
};

/** Resolve a result path (root-relative, or absolute outside the root) to a URI string. */
export function resolvePathUri(root: string, p: string): string {
  const abs = p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p);
  return abs ? vscode.Uri.file(p).toString() : vscode.Uri.joinPath(vscode.Uri.file(root), p).toString();
}

/**
 * Pure: turn a result into tree nodes. Files stay in load order; an import is nested under its
 * importer (the latest loaded file with the `importedBy` path — loads are depth first). Left-out
 * files follow, then a collapsed group of skipped files.
 */
export function buildEffectiveTree(result: EffectiveInstructions | null | undefined): EffectiveNode[] {
  if (!result) {
    return [];
  }
  const top: EffectiveNode[] = [];
  const byPath = new Map<string, Extract<EffectiveNode, { kind: 'file' }>>();
  const unit = budgetOf(result).unit;
  result.files.forEach((file, i) => {
    const node: Extract<EffectiveNode, { kind: 'file' }> = { kind: 'file', file, order: i + 1, children: [], unit };
    const importer = file.importedBy ? byPath.get(file.importedBy) : undefined;
    if (importer) {
      node.importerUri = importer.file.uri;
      importer.children.push(node);
    } else {
      top.push(node);
    }
    byPath.set(file.path, node);
  });
  result.leftOut.forEach((p, i) => {
    top.push({
      kind: 'leftOut',
      path: p,
      uri: result.leftOutUris?.[i] ?? resolvePathUri(result.root, p),
      order: result.files.length + i + 1,
    });
  });
  if (result.skipped.length) {
    top.push({
      kind: 'skippedGroup',
      children: result.skipped.map((s) => ({
        kind: 'skipped' as const,
        path: s.path,
        why: s.why,
        uri: s.uri,
      })),
    });
  }
  const notes = result.notes ?? [];
  if (notes.length) {
    // the profile's decisions ("the walk stops at the workspace root"), as the CLI prints them
    top.push({ kind: 'notesGroup', children: notes.map((text, index) => ({ kind: 'note' as const, text, index })) });
  }
  return top;
}

/**
 * Pure: the description next to a file row, short enough for the default sidebar width even
 * for a cut file: "812", "14 · cut", "3KiB · step 1" (the size in the budget's unit, as the
 * view's description shows the budget). The icon tells the reason; the reason in words and the
 * exact sizes are in the tooltip.
 */
export function fileDescription(f: LoadedFile, unit = 'chars'): string {
  const parts = [fileSize(f, unit)];
  if (f.step !== undefined && f.step !== null) {
    parts.push(`step ${f.step}`);
  }
  if (isCut(f)) {
    parts.push('cut');
  }
  return parts.join(' · ');
}

function openCommand(uri: string, line?: number): vscode.Command {
  const args: unknown[] = [vscode.Uri.parse(uri)];
  if (line !== undefined) {
    args.push({ selection: new vscode.Range(line, 0, line, 0), preview: true });
  }
  return { command: 'vscode.open', title: 'Open', arguments: args };
}

export function effectiveTreeItem(node: EffectiveNode): vscode.TreeItem {
  switch (node.kind) {
    case 'file': {
      const f = node.file;
      const item = new vscode.TreeItem(
        shortPath(f.path),
        node.children.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
      );
      // VS Code keeps a row's collapsed state by id and ignores a new Expanded state for an id
      // it drew as a leaf (microsoft/vscode#40179, #30918): a file whose import is fixed must
      // show the import under it, so a file with imports is another row than one without.
      item.id = node.children.length ? `file:${f.uri}#imports` : `file:${f.uri}`;
      item.description = fileDescription(f, node.unit);
      item.iconPath = new vscode.ThemeIcon(
        REASON_ICONS[f.reason] ?? 'file',
        isCut(f) ? new vscode.ThemeColor('list.warningForeground') : undefined,
      );
      const sizes = [`${formatInt(f.chars)} characters`];
      if (f.bytes !== undefined && f.bytes !== null) sizes.push(`${formatInt(f.bytes)} bytes`);
      if (f.tokens !== undefined && f.tokens !== null) sizes.push(`${formatInt(f.tokens)} tokens`);
      const tip = [
        `**${f.path}**`,
        `#${node.order} in load order · ${reasonLabel(f.reason)}${f.step !== undefined && f.step !== null ? ` · step ${f.step}` : ''}`,
        f.importedBy
          ? `Imported by \`${f.importedBy}\`${f.line !== undefined ? ` (line ${f.line + 1})` : ''}, hop ${f.depth}`
          : '',
        `${sizes.join(' · ')}${
          isCut(f)
            ? ` — **cut**${f.cutLine !== undefined && f.cutLine !== null ? `: the agent stops reading at line ${f.cutLine + 1}` : ''}`
            : ''
        }`,
        f.note ?? '',
      ].filter((l) => l !== '');
      item.tooltip = new vscode.MarkdownString(tip.join('\n\n'));
      item.contextValue = f.reason === 'import' ? 'rulemap.import' : 'rulemap.file';
      item.command =
        f.reason === 'import' && node.importerUri && f.line !== undefined
          ? openCommand(node.importerUri, f.line)
          : openCommand(f.uri);
      return item;
    }
    case 'leftOut': {
      const item = new vscode.TreeItem(shortPath(node.path), vscode.TreeItemCollapsibleState.None);
      item.id = `leftOut:${node.uri}`;
      item.description = 'left out';
      item.iconPath = new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('list.errorForeground'));
      item.tooltip = new vscode.MarkdownString(
        `**${node.path}**\n\n#${node.order} in load order — **left out**: the budget was used up before it.`,
      );
      item.contextValue = 'rulemap.leftOut';
      item.command = openCommand(node.uri);
      return item;
    }
    case 'skippedGroup': {
      const item = new vscode.TreeItem(`Skipped (${node.children.length})`, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = 'skipped';
      item.iconPath = new vscode.ThemeIcon('eye-closed');
      item.tooltip = 'Files the loader did not bring (missing imports, duplicates, unreadable files)';
      item.contextValue = 'rulemap.skippedGroup';
      return item;
    }
    case 'skipped': {
      const item = new vscode.TreeItem(shortPath(node.path), vscode.TreeItemCollapsibleState.None);
      item.id = `skipped:${node.path}:${node.why}`;
      item.description = node.why;
      item.iconPath = new vscode.ThemeIcon('dash');
      item.tooltip = `${node.path}: skipped (${node.why})`;
      item.contextValue = 'rulemap.skipped';
      if (node.uri) {
        item.command = openCommand(node.uri);
      }
      return item;
    }
    case 'notesGroup': {
      const item = new vscode.TreeItem(`Notes (${node.children.length})`, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = 'notes';
      item.iconPath = new vscode.ThemeIcon('info');
      item.tooltip = 'What this agent profile decided where the agent is unclear or Rulemap bounds it';
      item.contextValue = 'rulemap.notesGroup';
      return item;
    }
    case 'note': {
      const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
      item.id = `note:${node.index}`;
      item.tooltip = node.text;
      item.contextValue = 'rulemap.note';
      return item;
    }
  }
}

/** Pure: the view's description (budget) and message. */
export function effectiveViewHeader(
  result: EffectiveInstructions | null | undefined,
  opts: { hasFile: boolean; ready: boolean },
): { description: string | undefined; message: string | undefined } {
  if (!opts.hasFile || !opts.ready) {
    return { description: undefined, message: undefined };
  }
  if (!result) {
    return { description: undefined, message: 'This file is not inside a workspace folder.' };
  }
  const description = budgetShort(result);
  const target = result.target ? basename(result.target) : 'the workspace';
  let message = `${result.profile}: ${plural(result.files.length, 'file')} for ${target} · ${budgetLong(result)}`;
  if (isOverBudget(result)) {
    const cut = result.files.filter(isCut).length;
    message += ` — over budget: ${cut} cut, ${result.leftOut.length} left out`;
  }
  return { description, message };
}

/** Anything that holds the active file's result (see ActiveInstructions). */
export interface ActiveResultSource {
  readonly uri: vscode.Uri | undefined;
  readonly result: EffectiveInstructions | null | undefined;
  readonly ready: boolean;
  readonly onDidChange: vscode.Event<void>;
}

export class EffectiveInstructionsProvider implements vscode.TreeDataProvider<EffectiveNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<EffectiveNode | undefined | void>();
  readonly onDidChangeTreeData = this.emitter.event;
  private roots: EffectiveNode[] = [];
  private view: vscode.TreeView<EffectiveNode> | undefined;
  private readonly sub: vscode.Disposable;

  constructor(private readonly source: ActiveResultSource) {
    this.sub = source.onDidChange(() => this.refresh());
    this.roots = buildEffectiveTree(source.result);
  }

  attach(view: vscode.TreeView<EffectiveNode>): void {
    this.view = view;
    this.updateHeader();
  }

  refresh(): void {
    this.roots = buildEffectiveTree(this.source.result);
    this.updateHeader();
    this.emitter.fire();
  }

  private updateHeader(): void {
    if (!this.view) {
      return;
    }
    const h = effectiveViewHeader(this.source.result, {
      hasFile: this.source.uri !== undefined,
      ready: this.source.ready,
    });
    this.view.description = h.description;
    this.view.message = h.message;
  }

  getTreeItem(node: EffectiveNode): vscode.TreeItem {
    return effectiveTreeItem(node);
  }

  getChildren(node?: EffectiveNode): EffectiveNode[] {
    if (!node) {
      return this.roots;
    }
    return node.kind === 'file' || node.kind === 'skippedGroup' || node.kind === 'notesGroup' ? node.children : [];
  }

  dispose(): void {
    this.sub.dispose();
    this.emitter.dispose();
  }
}
