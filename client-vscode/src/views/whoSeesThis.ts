// The "Who Sees This" view: for the active instruction file (or rule, or a file they import),
// one node per agent — from the server's `rulemap/reach` — with the ways its loads hold the file
// (why, where in the load, imported by whom), the directories whose files load it that way, an
// example file, where the agent's budget cuts it and the files whose load leaves it out. Every
// fact is the server's; this only draws them.

import * as vscode from 'vscode';
import { ReachAgent, ReachArea, ReachParams, ReachResult, ReachWay } from '../protocol';
import { basename, formatInt, plural, reasonLabel, shortName, shortPath } from '../format';
import { unitWord } from '../budget';
import { REASON_ICONS } from './effectiveInstructions';

export type WhoNode =
  | { kind: 'agent'; agent: ReachAgent; children: WhoNode[] }
  | { kind: 'way'; agent: ReachAgent; way: ReachWay; index: number; children: WhoNode[] }
  | { kind: 'area'; agent: string; parent: string; area: ReachArea; uri: string }
  | { kind: 'example'; agent: string; parent: string; path: string; uri: string }
  | { kind: 'cut'; agent: ReachAgent; parent: string; line: number; files: number; uri: string }
  | { kind: 'leftOut'; agent: ReachAgent; files: number; under: string; children: WhoNode[] };

/** "1 file", "1,204 files". */
function count(n: number): string {
  return `${formatInt(n)} ${n === 1 ? 'file' : 'files'}`;
}

/** Pure: the workspace root's URI of a reach answer (its `uri` is `root/path`). */
export function rootOf(result: Pick<ReachResult, 'uri' | 'path'>): vscode.Uri {
  const u = vscode.Uri.parse(result.uri);
  const tail = '/' + result.path.replace(/^\/+/, '');
  const p = u.path.endsWith(tail) ? u.path.slice(0, u.path.length - tail.length) : u.path.replace(/\/[^/]*$/, '');
  return vscode.Uri.from({ scheme: u.scheme, authority: u.authority, path: p || '/' });
}

/** Pure: a workspace-relative path (a directory ends in `/`) as a URI string. */
export function pathUri(root: vscode.Uri, p: string): string {
  const clean = p.replace(/\/+$/, '');
  return clean ? vscode.Uri.joinPath(root, clean).toString() : root.toString();
}

/** Pure: the earliest line (1-based) where any of the agent's loads cuts the file. */
export function firstCutLine(agent: ReachAgent): number | undefined {
  const lines = agent.ways.map((w) => w.cutLine).filter((l): l is number => typeof l === 'number');
  return lines.length ? Math.min(...lines) : undefined;
}

/** Pure: is the answer about a file no selected agent loads (a source file, not an instruction)? */
export function loadedByNone(result: ReachResult | null | undefined): boolean {
  return !!result && result.agents.length > 0 && result.agents.every((a) => a.never !== null && a.ways.length === 0 && !a.leftOut);
}

/** Pure: the tree of a `rulemap/reach` answer. */
export function buildWhoTree(result: ReachResult | null | undefined): WhoNode[] {
  if (!result || !Array.isArray(result.agents) || loadedByNone(result)) {
    return [];
  }
  const root = rootOf(result);
  const self = result.uri;
  return result.agents.map((agent) => {
    const children: WhoNode[] = agent.ways.map((way, index) => {
      const id = `${agent.profile}:${index}`;
      const kids: WhoNode[] = [];
      if (way.cutLine !== null && way.cutLine !== undefined) {
        kids.push({ kind: 'cut', agent, parent: id, line: way.cutLine, files: way.files, uri: self });
      }
      for (const area of way.areas ?? []) {
        kids.push({ kind: 'area', agent: agent.profile, parent: id, area, uri: pathUri(root, area.path) });
      }
      if (way.example) {
        kids.push({ kind: 'example', agent: agent.profile, parent: id, path: way.example, uri: pathUri(root, way.example) });
      }
      return { kind: 'way' as const, agent, way, index, children: kids };
    });
    if (agent.leftOut) {
      const lo = agent.leftOut;
      children.push({
        kind: 'leftOut',
        agent,
        files: lo.files,
        under: lo.under,
        children: (lo.areas ?? []).map((area) => ({
          kind: 'area' as const,
          agent: agent.profile,
          parent: `${agent.profile}:leftOut`,
          area,
          uri: pathUri(root, area.path),
        })),
      });
    }
    return { kind: 'agent' as const, agent, children };
  });
}

/** Pure: an agent row's description: "1,204 files · cut at line 210 for 300", "never: …". */
export function agentWhoDescription(agent: ReachAgent): string {
  if (agent.never) {
    // (the server's sentence often starts with the agent's title, already the row's label)
    const title = agent.title || agent.profile;
    const why = agent.never.startsWith(`${title} `) ? agent.never.slice(title.length + 1) : agent.never;
    return `never: ${why}`;
  }
  const parts = [count(agent.files)];
  const cut = firstCutLine(agent);
  if (agent.cut > 0 && cut !== undefined) parts.push(`cut at line ${cut} for ${formatInt(agent.cut)}`);
  if (agent.leftOut) parts.push(`left out for ${formatInt(agent.leftOut.files)}`);
  return parts.join(' · ');
}

/** Pure: "32,768 bytes (project_doc_max_bytes)", "no limit". */
export function limitText(agent: ReachAgent): string {
  if (agent.limit === null || agent.limit === undefined || agent.limit <= 0) {
    return `no ${unitWord(agent.unit).replace(/s$/, '')} limit`;
  }
  return `${formatInt(agent.limit)} ${unitWord(agent.unit)}${agent.setting ? ` (\`${agent.setting}\`)` : ''}`;
}

/** Pure: what a way is, for its label: "imported by docs/conventions.md", "path-scoped rule". */
export function wayLabel(way: ReachWay): string {
  const label = way.importedBy ? `imported by ${basename(way.importedBy)}` : reasonLabel(way.reason);
  // read under another name (a symlink): which name, said in the label; the why in the tooltip
  return way.through ? `${label}, as ${basename(way.through.path)}` : label;
}

/** Pure: where the files of a way are: "every file", "src/web/ (all 12)", "12 files under src/". */
export function wayWhere(way: ReachWay): string {
  if (way.startUp) return 'at start-up';
  const under = way.under ? `${way.under.replace(/\/?$/, '/')}` : 'the workspace';
  return way.everyFileUnder ? `every file under ${under}` : `${plural(way.files, 'file')} under ${under}`;
}

/** Pure: a way row's description, short: "#3 · 19 files", "#2 · 5 files · cut" (start-up: tooltip). */
export function wayDescription(way: ReachWay): string {
  const parts = [`#${way.position}`, count(way.files)];
  if (way.cutLine !== null && way.cutLine !== undefined) parts.push(way.seen ? 'cut' : 'not read');
  return parts.join(' · ');
}

function wayTooltip(agent: ReachAgent, way: ReachWay): vscode.MarkdownString {
  const unit = unitWord(agent.unit);
  const lines = [
    `**${agent.title}** — ${reasonLabel(way.reason)}${way.importedBy ? `, imported by \`${way.importedBy}\`` : ''}`,
    way.through ? `It ${way.through.text}` : '',
    way.alsoAs?.length ? `Read again as ${way.alsoAs.map((p) => `\`${p}\``).join(', ')}: the model gets it more than once` : '',
    `#${way.position} in the load, after ${formatInt(way.before)} ${unit}; it brings ${formatInt(way.size)} ${unit} (limit: ${limitText(agent)})`,
    `${way.startUp ? 'In the start-up load: ' : ''}${count(way.files)} load it this way${
      way.under !== undefined ? ` — ${way.everyFileUnder ? 'every file' : 'files'} under \`${way.under || '.'}\`` : ''
    }`,
    way.cutLine !== null && way.cutLine !== undefined
      ? `**Cut**: the agent stops reading it at line ${way.cutLine}${way.seen ? '' : ' (nothing of it is read)'}`
      : '',
    way.example ? `e.g. \`${way.example}\`` : '',
  ].filter((l) => l !== '');
  return new vscode.MarkdownString(lines.join('\n\n'));
}

function openAt(uri: string, line?: number): vscode.Command {
  const args: unknown[] = [vscode.Uri.parse(uri)];
  if (line !== undefined) {
    args.push({ selection: new vscode.Range(line, 0, line, 0), preview: true });
  }
  return { command: 'vscode.open', title: 'Open', arguments: args };
}

export function whoTreeItem(node: WhoNode): vscode.TreeItem {
  switch (node.kind) {
    case 'agent': {
      const a = node.agent;
      const item = new vscode.TreeItem(
        a.title || a.profile,
        node.children.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
      );
      item.id = `who:${a.profile}`;
      item.description = agentWhoDescription(a);
      item.iconPath = a.never
        ? new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('disabledForeground'))
        : a.cut > 0 || a.leftOut
          ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'))
          : new vscode.ThemeIcon('eye');
      const cut = firstCutLine(a);
      const lines = [
        `**${a.title || a.profile}** (\`${a.profile}\`)`,
        a.never
          ? `**Never loads it**: ${a.never}`
          : `${count(a.files)} of the workspace load it; it reaches the model for ${formatInt(a.seen)}`,
        a.cut > 0 ? `Cut for ${formatInt(a.cut)} ${a.cut === 1 ? 'file' : 'files'}${cut !== undefined ? `, from line ${cut}` : ''}` : '',
        a.leftOut ? `Left out over the budget for ${plural(a.leftOut.files, 'file')}${a.leftOut.under ? ` under \`${a.leftOut.under}\`` : ''}` : '',
        `Budget: ${limitText(a)}`,
      ].filter((l) => l !== '');
      item.tooltip = new vscode.MarkdownString(lines.join('\n\n'));
      item.contextValue = 'rulemap.whoAgent';
      return item;
    }
    case 'way': {
      const w = node.way;
      const item = new vscode.TreeItem(
        wayLabel(w),
        node.children.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
      );
      item.id = `who:${node.agent.profile}:${node.index}`;
      item.description = wayDescription(w);
      item.iconPath = new vscode.ThemeIcon(
        REASON_ICONS[w.reason] ?? 'file',
        w.cutLine !== null && w.cutLine !== undefined ? new vscode.ThemeColor('list.warningForeground') : undefined,
      );
      item.tooltip = wayTooltip(node.agent, w);
      item.contextValue = 'rulemap.whoWay';
      return item;
    }
    case 'area': {
      const dir = node.area.path.endsWith('/');
      const item = new vscode.TreeItem(shortPath(node.area.path), vscode.TreeItemCollapsibleState.None);
      item.id = `who:${node.parent}:area:${node.area.path}`;
      item.description = count(node.area.files);
      item.iconPath = new vscode.ThemeIcon(dir ? 'folder' : 'file');
      item.tooltip = `${node.area.path} — ${plural(node.area.files, 'file')} load it this way`;
      item.contextValue = dir ? 'rulemap.whoDirectory' : 'rulemap.whoFile';
      item.command = dir
        ? { command: 'revealInExplorer', title: 'Reveal in Explorer', arguments: [vscode.Uri.parse(node.uri)] }
        : openAt(node.uri);
      return item;
    }
    case 'example': {
      const item = new vscode.TreeItem(shortName(basename(node.path), 24), vscode.TreeItemCollapsibleState.None);
      item.id = `who:${node.parent}:example`;
      item.description = 'e.g.';
      item.iconPath = new vscode.ThemeIcon('go-to-file');
      item.tooltip = `For example ${node.path} (click to open it)`;
      item.contextValue = 'rulemap.whoExample';
      item.command = openAt(node.uri);
      return item;
    }
    case 'cut': {
      const item = new vscode.TreeItem(`cut at line ${node.line}`, vscode.TreeItemCollapsibleState.None);
      item.id = `who:${node.parent}:cut`;
      item.description = `for ${count(node.files)}`;
      item.iconPath = new vscode.ThemeIcon('fold-down', new vscode.ThemeColor('list.warningForeground'));
      item.tooltip = new vscode.MarkdownString(
        `${node.agent.title} stops reading this file at line ${node.line} (budget: ${limitText(node.agent)}). Click to show the line.`,
      );
      item.contextValue = 'rulemap.whoCut';
      item.command = openAt(node.uri, node.line - 1);
      return item;
    }
    case 'leftOut': {
      const item = new vscode.TreeItem(
        `left out for ${count(node.files)}`,
        node.children.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
      );
      item.id = `who:${node.agent.profile}:leftOut`;
      item.description = node.under ? shortPath(node.under.replace(/\/?$/, '/'), 20) : undefined;
      item.iconPath = new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('list.errorForeground'));
      item.tooltip = new vscode.MarkdownString(
        `For ${plural(node.files, 'file')}${node.under ? ` under \`${node.under}\`` : ''}, ${node.agent.title}'s budget (${limitText(
          node.agent,
        )}) is used up before this file: it is **left out**.`,
      );
      item.contextValue = 'rulemap.whoLeftOut';
      return item;
    }
  }
}

/** What the view shows besides its tree (drives its welcome text). */
export type WhoState = 'noFile' | 'notRunning' | 'loading' | 'notLoaded' | 'shown' | 'none';

/** Pure: the view's description (the file), message and state. */
export function whoViewHeader(
  result: ReachResult | null | undefined,
  opts: { hasFile: boolean; ready: boolean; loaded: boolean },
): { description: string | undefined; message: string | undefined; state: WhoState } {
  if (!opts.hasFile) return { description: undefined, message: undefined, state: 'noFile' };
  if (!opts.ready) return { description: undefined, message: undefined, state: 'notRunning' };
  if (!opts.loaded) return { description: undefined, message: undefined, state: 'loading' };
  if (result === null) {
    return { description: undefined, message: 'This file is not inside a workspace folder.', state: 'none' };
  }
  if (!result) {
    return {
      description: undefined,
      message: 'The language server did not say who loads this file (see "Rulemap: Show Output").',
      state: 'none',
    };
  }
  const description = shortName(basename(result.path), 16);
  if (loadedByNone(result)) return { description, message: undefined, state: 'notLoaded' };
  return { description, message: undefined, state: 'shown' };
}

/** The part of a TreeView the provider drives (a real TreeView, or a stand-in in tests). */
export interface WhoView {
  description?: string;
  message?: string;
  readonly visible: boolean;
  readonly onDidChangeVisibility: vscode.Event<{ readonly visible: boolean }>;
}

export interface WhoHost {
  /** The file to answer for (the active editor's). */
  target(): vscode.Uri | undefined;
  /** The open document's version (for the cache), undefined when not open. */
  version(uri: vscode.Uri): number | undefined;
  /** Has the open document unsaved edits? (the view waits for the save) */
  isDirty(uri: vscode.Uri): boolean;
  /** Show progress on the view while the server works. */
  progress<T>(task: () => Promise<T>): Thenable<T>;
  /** The view's state, for its welcome text (a context key). */
  setState(state: WhoState): void;
}

export class WhoSeesThisProvider implements vscode.TreeDataProvider<WhoNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<WhoNode | undefined | void>();
  readonly onDidChangeTreeData = this.emitter.event;
  private roots: WhoNode[] = [];
  private last: ReachResult | null | undefined;
  private loaded = false;
  private view: WhoView | undefined;
  private seq = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stale = true;
  /** Answers by `uri@version`, dropped when the graph changes. */
  private readonly cache = new Map<string, ReachResult | null>();
  private readonly subs: vscode.Disposable[] = [];

  constructor(
    private readonly api: { readonly isReady: boolean; reach(params: ReachParams): Promise<ReachResult | null | undefined> },
    private readonly host: WhoHost,
    private readonly debounceMs = 150,
  ) {}

  attach(view: WhoView): void {
    this.view = view;
    // reach runs every file's load for every agent: only while someone looks
    this.subs.push(
      view.onDidChangeVisibility((e) => {
        if (e.visible && this.stale) this.scheduleRefresh();
      }),
    );
    this.updateHeader();
  }

  /** The last answer (for tests and commands). */
  get result(): ReachResult | null | undefined {
    return this.last;
  }

  /** The active file changed, or was saved: answer from the cache or ask. */
  scheduleRefresh(): void {
    this.stale = true;
    if (this.view && !this.view.visible) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.refresh();
    }, this.debounceMs);
  }

  /**
   * The graph changed (`rulemap/graphChanged`): forget every answer. While the active file has
   * unsaved edits (someone is typing) the view waits for the save instead of asking per keystroke.
   */
  graphChanged(): void {
    this.cache.clear();
    const uri = this.host.target();
    if (uri && this.host.isDirty(uri)) {
      this.stale = true;
      return;
    }
    this.scheduleRefresh();
  }

  /** Forget every answer and ask again (the Refresh command, a restart). */
  invalidate(): void {
    this.cache.clear();
    this.scheduleRefresh();
  }

  async refresh(): Promise<void> {
    const seq = ++this.seq;
    this.stale = false;
    const uri = this.host.target();
    let result: ReachResult | null | undefined;
    if (uri && this.api.isReady) {
      const key = `${uri.toString()}@${this.host.version(uri) ?? 'disk'}`;
      if (this.cache.has(key)) {
        result = this.cache.get(key);
      } else {
        this.host.setState('loading');
        result = await this.host.progress(() => this.api.reach({ uri: uri.toString() }));
        if (result !== undefined && seq === this.seq) this.cache.set(key, result);
      }
    }
    if (seq !== this.seq) return; // superseded
    this.loaded = uri !== undefined && this.api.isReady;
    this.last = uri ? result : undefined;
    this.roots = buildWhoTree(this.last);
    this.updateHeader();
    this.emitter.fire();
  }

  private updateHeader(): void {
    const h = whoViewHeader(this.last, { hasFile: this.host.target() !== undefined, ready: this.api.isReady, loaded: this.loaded });
    this.host.setState(h.state);
    if (!this.view) return;
    this.view.description = h.description;
    this.view.message = h.message;
  }

  getTreeItem(node: WhoNode): vscode.TreeItem {
    return whoTreeItem(node);
  }

  getChildren(node?: WhoNode): WhoNode[] {
    if (!node) return this.roots;
    return 'children' in node ? node.children : [];
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const s of this.subs) s.dispose();
    this.emitter.dispose();
  }
}
