// The "Compare Agents" view: for the active editor's file, one node per agent (from the
// server's `rulemap/compare`), each with the files that agent loads, in its order. Which agents,
// their titles, summaries and budgets are all the server's; this only draws them.

import * as vscode from 'vscode';
import { CompareColumn, CompareResult, LoadedFile, RulemapApi } from '../protocol';
import { basename, formatInt, plural, reasonLabel, shortName } from '../format';
import { budgetLong, budgetOf, budgetShort, fileSize, isCut } from '../budget';
import { REASON_ICONS, resolvePathUri } from './effectiveInstructions';

export type CompareNode =
  | { kind: 'agent'; column: CompareColumn; current: boolean; children: CompareNode[] }
  | {
      kind: 'file';
      agent: string;
      agentTitle: string;
      file: LoadedFile;
      /** 1-based position in this agent's load order. */
      order: number;
      /** The budget's unit (sizes are shown in it when the server gave them). */
      unit: string;
      /** The parent folder, when another loaded file has the same name. */
      dir?: string;
    }
  | { kind: 'leftOut'; agent: string; agentTitle: string; path: string; uri: string; order: number };

function parentDir(p: string): string {
  const i = p.replace(/\/+$/, '').lastIndexOf('/');
  return i <= 0 ? '' : p.slice(0, i);
}

/** Pure: the tree of a `rulemap/compare` answer; `current` is the profile the other views show. */
export function buildCompareTree(result: CompareResult | null | undefined, current: string | undefined): CompareNode[] {
  if (!result || !Array.isArray(result.columns)) {
    return [];
  }
  return result.columns.map((column) => {
    const e = column.explanation;
    const unit = budgetOf(e).unit;
    const title = column.title || column.profile;
    const names = new Map<string, number>();
    for (const f of e.files) names.set(basename(f.path), (names.get(basename(f.path)) ?? 0) + 1);
    const children: CompareNode[] = e.files.map((file, i) => ({
      kind: 'file' as const,
      agent: column.profile,
      agentTitle: title,
      file,
      order: i + 1,
      unit,
      ...((names.get(basename(file.path)) ?? 0) > 1 ? { dir: parentDir(file.path) || '.' } : {}),
    }));
    e.leftOut.forEach((p, i) => {
      children.push({
        kind: 'leftOut',
        agent: column.profile,
        agentTitle: title,
        path: p,
        uri: e.leftOutUris?.[i] ?? resolvePathUri(e.root, p),
        order: e.files.length + i + 1,
      });
    });
    return { kind: 'agent' as const, column, current: column.profile === current, children };
  });
}

/**
 * Pure: an agent row's description, short for the default sidebar width: "3 files · 178/32k"
 * (the server's longer `summary` is in the tooltip).
 */
export function agentDescription(c: CompareColumn): string {
  const e = c.explanation;
  return `${plural(e.files.length, 'file')} · ${budgetShort(e, true)}`;
}

/** Pure: a file row's description, short: "3.1k", "3.1k · cut", "812 tok · step 2". */
export function compareFileDescription(node: Extract<CompareNode, { kind: 'file' }>): string {
  const f = node.file;
  const parts = [fileSize(f, node.unit)];
  if (f.step !== undefined && f.step !== null) parts.push(`step ${f.step}`);
  if (isCut(f)) parts.push('cut');
  if (node.dir !== undefined) parts.push(`in ${node.dir}`);
  return parts.join(' · ');
}

function openAt(uri: string, line?: number): vscode.Command {
  const args: unknown[] = [vscode.Uri.parse(uri)];
  if (line !== undefined && line !== null) {
    args.push({ selection: new vscode.Range(line, 0, line, 0), preview: true });
  }
  return { command: 'vscode.open', title: 'Open', arguments: args };
}

function fileTooltip(node: Extract<CompareNode, { kind: 'file' }>): vscode.MarkdownString {
  const f = node.file;
  const sizes = [`${formatInt(f.chars)} characters`];
  if (f.bytes !== undefined && f.bytes !== null) sizes.push(`${formatInt(f.bytes)} bytes`);
  if (f.tokens !== undefined && f.tokens !== null) sizes.push(`${formatInt(f.tokens)} tokens`);
  const lines = [
    `**${f.path}**`,
    `#${node.order} in ${node.agentTitle}'s load order · ${reasonLabel(f.reason)}${
      f.step !== undefined && f.step !== null ? ` · step ${f.step}` : ''
    }`,
    f.importedBy ? `Imported by \`${f.importedBy}\`, hop ${f.depth}` : '',
    sizes.join(' · '),
    isCut(f)
      ? `**Cut**${f.cutLine !== undefined && f.cutLine !== null ? `: the agent stops reading at line ${f.cutLine + 1}` : ''}`
      : '',
    f.note ?? '',
  ].filter((l) => l !== '');
  return new vscode.MarkdownString(lines.join('\n\n'));
}

export function compareTreeItem(node: CompareNode): vscode.TreeItem {
  switch (node.kind) {
    case 'agent': {
      const c = node.column;
      const item = new vscode.TreeItem(
        c.title || c.profile,
        node.children.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
      );
      item.id = `agent:${c.profile}`;
      item.description = agentDescription(c);
      item.iconPath = c.overBudget
        ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'))
        : new vscode.ThemeIcon(node.current ? 'pass-filled' : 'hubot');
      const e = c.explanation;
      const lines = [
        `**${c.title || c.profile}** (\`${c.profile}\`)${node.current ? ' — the profile the other views show' : ''}`,
        c.summary,
        `${plural(e.files.length, 'file')} loaded · ${budgetLong(e)}`,
        c.overBudget ? '**Over budget**: something is cut or left out.' : '',
        ...(e.notes ?? []).map((n) => `- ${n}`),
      ].filter((l) => l !== '');
      item.tooltip = new vscode.MarkdownString(lines.join('\n\n'));
      item.contextValue = node.current ? 'rulemap.agent.current' : 'rulemap.agent';
      return item;
    }
    case 'file': {
      const f = node.file;
      const item = new vscode.TreeItem(basename(f.path), vscode.TreeItemCollapsibleState.None);
      item.id = `file:${node.agent}:${node.order}:${f.uri}`;
      item.description = compareFileDescription(node);
      item.iconPath = new vscode.ThemeIcon(
        REASON_ICONS[f.reason] ?? 'file',
        isCut(f) ? new vscode.ThemeColor('list.warningForeground') : undefined,
      );
      item.tooltip = fileTooltip(node);
      item.contextValue = 'rulemap.compareFile';
      item.command = openAt(f.uri, isCut(f) ? f.cutLine : undefined);
      return item;
    }
    case 'leftOut': {
      const item = new vscode.TreeItem(basename(node.path), vscode.TreeItemCollapsibleState.None);
      item.id = `leftOut:${node.agent}:${node.uri}`;
      item.description = 'left out';
      item.iconPath = new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('list.errorForeground'));
      item.tooltip = new vscode.MarkdownString(
        `**${node.path}**\n\n#${node.order} in ${node.agentTitle}'s load order — **left out**: the budget was used up before it.`,
      );
      item.contextValue = 'rulemap.leftOut';
      item.command = openAt(node.uri);
      return item;
    }
  }
}

/** Pure: the view's description (the file compared) and message. */
export function compareViewHeader(
  result: CompareResult | null | undefined,
  opts: { hasFile: boolean; ready: boolean; loaded: boolean },
): { description: string | undefined; message: string | undefined } {
  if (!opts.hasFile || !opts.ready || !opts.loaded) {
    return { description: undefined, message: undefined };
  }
  if (result === null) {
    return { description: undefined, message: 'This file is not inside a workspace folder.' };
  }
  if (!result) {
    return { description: undefined, message: 'The language server did not compare the agents (see "Rulemap: Show Output").' };
  }
  // (a long file name shortened: the title and the description must fit the default width)
  return { description: result.target ? shortName(basename(result.target), 16) : undefined, message: undefined };
}

/** The part of a TreeView the provider drives (a real TreeView, or a stand-in in tests). */
export interface CompareView {
  description?: string;
  message?: string;
  readonly visible: boolean;
  readonly onDidChangeVisibility: vscode.Event<{ readonly visible: boolean }>;
}

export class CompareAgentsProvider implements vscode.TreeDataProvider<CompareNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<CompareNode | undefined | void>();
  readonly onDidChangeTreeData = this.emitter.event;
  private roots: CompareNode[] = [];
  private last: CompareResult | null | undefined;
  private loaded = false;
  private view: CompareView | undefined;
  private seq = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Something changed while the view was hidden: refresh when it shows. */
  private stale = true;
  private readonly subs: vscode.Disposable[] = [];

  constructor(
    private readonly api: RulemapApi,
    /** The file to compare for (the active editor's). */
    private readonly target: () => vscode.Uri | undefined,
    /** The profile the other views show (marked in the tree). */
    private readonly current: () => string | undefined,
    private readonly debounceMs = 150,
  ) {}

  attach(view: CompareView): void {
    this.view = view;
    // Comparing runs every agent's loader: only do it while someone looks.
    this.subs.push(
      view.onDidChangeVisibility((e) => {
        if (e.visible && this.stale) this.scheduleRefresh();
      }),
    );
    this.updateHeader();
  }

  /** Refresh soon if the view is visible, else when it becomes visible. */
  scheduleRefresh(): void {
    this.stale = true;
    if (this.view && !this.view.visible) {
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.refresh();
    }, this.debounceMs);
  }

  /** Redraw without asking the server (e.g. the current profile changed). */
  redraw(): void {
    this.roots = buildCompareTree(this.last, this.current());
    this.emitter.fire();
  }

  async refresh(): Promise<void> {
    const seq = ++this.seq;
    this.stale = false;
    const uri = this.target();
    let result: CompareResult | null | undefined;
    if (uri && this.api.isReady) {
      result = await this.api.compare({ uri: uri.toString() });
    }
    if (seq !== this.seq) {
      return; // superseded
    }
    this.loaded = uri !== undefined && this.api.isReady;
    this.last = uri ? result : undefined;
    this.roots = buildCompareTree(this.last, this.current());
    this.updateHeader();
    this.emitter.fire();
  }

  private updateHeader(): void {
    if (!this.view) return;
    const h = compareViewHeader(this.last, {
      hasFile: this.target() !== undefined,
      ready: this.api.isReady,
      loaded: this.loaded,
    });
    this.view.description = h.description;
    this.view.message = h.message;
  }

  getTreeItem(node: CompareNode): vscode.TreeItem {
    return compareTreeItem(node);
  }

  getChildren(node?: CompareNode): CompareNode[] {
    if (!node) return this.roots;
    return node.kind === 'agent' ? node.children : [];
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const s of this.subs) s.dispose();
    this.emitter.dispose();
  }
}
