// The "Session" view: a replayed agent session (`rulemap/session`), step by step — what each
// tool access brings into the context, where the budget first cuts. Steps, reasons, budgets
// and whether a profile models steps at all are the server's answer; this only draws it.

import * as vscode from 'vscode';
import { formatAmount, unitWord } from '../budget';
import { basename, formatInt, plural, reasonLabel, shortName, shortPath } from '../format';
import { RulemapApi, SessionError, SessionFile, SessionParams, SessionResult, SessionStep } from '../protocol';
import { REASON_ICONS, resolvePathUri } from './effectiveInstructions';

export type SessionNode =
  | { kind: 'step'; step: SessionStep; unit: string; limit: number | null; shared: boolean; cutsHere: boolean; children: SessionNode[] }
  | { kind: 'joined'; file: SessionFile; step: number; unit: string; uri: string }
  | { kind: 'leftOut'; path: string; step: number; uri: string }
  | { kind: 'firstCut'; step: number; unit: string; limit: number | null }
  | { kind: 'problems'; children: SessionNode[] }
  | { kind: 'problem'; line: number | null; message: string };

/**
 * Pure: the tree of a session. One row per step (its joined files, then what it left out, as
 * children); a "First cut" row right before the step where the budget first cuts; transcript
 * problems in a collapsed group at the end. `root`: the workspace folder, for relative paths.
 */
export function buildSessionTree(result: SessionAnswer, folder: string | undefined): SessionNode[] {
  if (!isResult(result)) return [];
  const root = result.root ?? folder;
  const unit = result.budget?.unit ?? 'chars';
  // a limit to say "of" only for a shared budget: an agent without one is never "of 0"
  const shared = (result.budget?.kind ?? 'shared') === 'shared'; // older servers: maxChars
  const limit = shared ? result.budget?.limit ?? null : null;
  const uriOf = (p: string, uri?: string) => uri ?? (root ? resolvePathUri(root, p) : vscode.Uri.file(p).toString());
  const nodes: SessionNode[] = [];
  for (const step of result.steps) {
    const cutsHere = result.firstCutStep !== null && result.firstCutStep !== undefined && step.index === result.firstCutStep;
    if (cutsHere) nodes.push({ kind: 'firstCut', step: step.index, unit, limit });
    const children: SessionNode[] = (step.joined ?? []).map((file) => ({
      kind: 'joined' as const,
      file,
      step: step.index,
      unit,
      uri: uriOf(file.path, file.uri),
    }));
    for (const left of step.leftOut ?? []) {
      const p = typeof left === 'string' ? left : left.path;
      children.push({ kind: 'leftOut', path: p, step: step.index, uri: uriOf(p, typeof left === 'string' ? undefined : left.uri) });
    }
    nodes.push({ kind: 'step', step, unit, limit, shared, cutsHere, children });
  }
  if (result.problems?.length) {
    nodes.push({
      kind: 'problems',
      children: result.problems.map((p) => ({ kind: 'problem' as const, line: p.line, message: p.message })),
    });
  }
  return nodes;
}

/** What the view may hold: an answer, the server's refusal, `null` (no folder), nothing yet. */
export type SessionAnswer = SessionResult | SessionError | null | undefined;

export function isResult(a: SessionAnswer): a is SessionResult {
  return !!a && !('error' in a) && Array.isArray((a as SessionResult).steps);
}

/**
 * Pure: a step row's label, short enough to leave room for its description at the default
 * sidebar width: "Step 2 · read a.ts", "Step 3 · edit x.py +2" (the file name, shortened in the
 * middle past 18 characters; the paths in full are in the tooltip).
 */
export function stepLabel(step: SessionStep): string {
  const paths = step.paths ?? [];
  const first = paths[0]?.replace(/\/+$/, '') ?? '';
  const name = paths[0]?.endsWith('/') ? `${basename(first)}/` : basename(first);
  const what = paths.length ? ` ${shortName(name || paths[0])}${paths.length > 1 ? ` +${paths.length - 1}` : ''}` : '';
  return `Step ${step.index} · ${step.kind}${what}`;
}

/** Pure: a step row's description: how many files joined and the budget used ("+2 · 1.2k"). */
export function stepDescription(node: Extract<SessionNode, { kind: 'step' }>): string {
  const s = node.step;
  const parts = [`+${s.joined?.length ?? 0}`, formatAmount(s.used, node.unit)];
  if (s.leftOut?.length) parts.push(`${s.leftOut.length} out`);
  return parts.join(' · ');
}

/** Pure: a joined file's description: "812", "3.1k · cut" (the icon tells the reason; words in the tooltip). */
export function joinedDescription(node: Extract<SessionNode, { kind: 'joined' }>): string {
  const f = node.file;
  const parts = [formatAmount(f.chars, 'chars')];
  if (f.cut) parts.push('cut');
  return parts.join(' · ');
}

function budgetText(amount: number, unit: string): string {
  return `${formatInt(amount)} ${unitWord(unit)}`;
}

function open(uri: string): vscode.Command {
  return { command: 'vscode.open', title: 'Open', arguments: [vscode.Uri.parse(uri)] };
}

export function sessionTreeItem(node: SessionNode): vscode.TreeItem {
  switch (node.kind) {
    case 'step': {
      const s = node.step;
      const item = new vscode.TreeItem(
        stepLabel(s),
        node.children.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
      );
      item.id = `step:${s.index}`;
      item.description = stepDescription(node);
      const cut = node.cutsHere || (s.leftOut?.length ?? 0) > 0 || (s.joined ?? []).some((f) => f.cut);
      item.iconPath = cut
        ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'))
        : new vscode.ThemeIcon(s.kind === 'edit' || s.kind === 'write' ? 'edit' : s.kind === 'read' ? 'eye' : 'debug-step-over');
      const lines = [
        `**Step ${s.index}** · ${s.kind}`,
        ...(s.paths ?? []).map((p) => `- \`${p}\``),
        `${plural(s.joined?.length ?? 0, 'file')} joined${s.leftOut?.length ? `, ${s.leftOut.length} left out` : ''}`,
        `Used ${budgetText(s.used, node.unit)}${
          s.left !== null && s.left !== undefined ? ` · ${budgetText(s.left, node.unit)} left` : ''
        }${node.limit !== null ? ` of ${budgetText(node.limit, node.unit)}` : node.shared ? '' : ' · no shared budget'}`,
        node.cutsHere ? '**The budget first cuts or leaves something out here.**' : '',
      ].filter((l) => l !== '');
      item.tooltip = new vscode.MarkdownString(lines.join('\n\n'));
      item.contextValue = 'rulemap.sessionStep';
      return item;
    }
    case 'joined': {
      const f = node.file;
      const item = new vscode.TreeItem(shortPath(f.path), vscode.TreeItemCollapsibleState.None);
      item.id = `joined:${node.step}:${f.path}`;
      item.description = joinedDescription(node);
      item.iconPath = new vscode.ThemeIcon(
        REASON_ICONS[f.reason] ?? 'file',
        f.cut ? new vscode.ThemeColor('list.warningForeground') : undefined,
      );
      const lines = [
        `**${f.path}**`,
        `Joins at step ${f.step ?? node.step} · ${reasonLabel(f.reason)}`,
        f.importedBy ? `Imported by \`${f.importedBy}\`` : '',
        `${formatInt(f.chars)} characters${f.cut ? ' — **cut** by the budget' : ''}`,
      ].filter((l) => l !== '');
      item.tooltip = new vscode.MarkdownString(lines.join('\n\n'));
      item.contextValue = 'rulemap.sessionFile';
      item.command = open(node.uri);
      return item;
    }
    case 'leftOut': {
      const item = new vscode.TreeItem(shortPath(node.path), vscode.TreeItemCollapsibleState.None);
      item.id = `leftOut:${node.step}:${node.path}`;
      item.description = 'left out';
      item.iconPath = new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('list.errorForeground'));
      item.tooltip = new vscode.MarkdownString(`**${node.path}**\n\nWould join at step ${node.step} — **left out**: the budget was used up.`);
      item.contextValue = 'rulemap.sessionLeftOut';
      item.command = open(node.uri);
      return item;
    }
    case 'firstCut': {
      const item = new vscode.TreeItem(`First cut · step ${node.step}`, vscode.TreeItemCollapsibleState.None);
      item.id = 'firstCut';
      item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
      item.tooltip = new vscode.MarkdownString(
        `At step ${node.step} the budget${
          node.limit !== null ? ` (${budgetText(node.limit, node.unit)})` : ''
        } first cuts a file or leaves one out: from here on the agent does not get everything.`,
      );
      item.contextValue = 'rulemap.sessionFirstCut';
      return item;
    }
    case 'problems': {
      const item = new vscode.TreeItem(`Problems (${node.children.length})`, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = 'problems';
      item.iconPath = new vscode.ThemeIcon('warning');
      item.tooltip = 'Transcript lines Rulemap did not understand (skipped)';
      item.contextValue = 'rulemap.sessionProblems';
      return item;
    }
    case 'problem': {
      const where = node.line === null || node.line === undefined ? 'Input' : `Line ${node.line}`;
      const item = new vscode.TreeItem(where, vscode.TreeItemCollapsibleState.None);
      item.id = `problem:${node.line}:${node.message}`;
      item.description = node.message;
      item.tooltip = `${where}: ${node.message}`;
      item.contextValue = 'rulemap.sessionProblem';
      return item;
    }
  }
}

/** Pure: the view's description (the profile) and message (summary, the server's note). */
export function sessionViewHeader(
  result: SessionAnswer,
  state: { transcript?: string; asked: boolean },
): { description: string | undefined; message: string | undefined } {
  if (!state.asked) return { description: undefined, message: undefined };
  if (result === null) return { description: undefined, message: 'The transcript is not inside a workspace folder.' };
  if (result && 'error' in result) return { description: undefined, message: `Rulemap could not replay it: ${result.error}` };
  if (!isResult(result)) {
    return { description: undefined, message: 'The language server did not replay the session (see "Rulemap: Show Output").' };
  }
  const name = state.transcript ? basename(state.transcript.replace(/\\/g, '/')) : 'session';
  const parts = [`${name}: ${plural(result.steps.length, 'step')}`];
  if (result.firstCutStep !== null && result.firstCutStep !== undefined) parts.push(`first cut at step ${result.firstCutStep}`);
  if (result.problems?.length) parts.push(plural(result.problems.length, 'skipped line'));
  const extra = [result.hasStepModel ? '' : result.note ?? '', result.notice ?? ''].filter((s) => s);
  return {
    description: result.title || result.profile,
    message: [parts.join(' · '), ...extra].join(' — '),
  };
}

/** The part of a TreeView the provider drives (a real TreeView, or a stand-in in tests). */
export interface SessionView {
  description?: string;
  message?: string;
}

export class SessionProvider implements vscode.TreeDataProvider<SessionNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<SessionNode | undefined | void>();
  readonly onDidChangeTreeData = this.emitter.event;
  private roots: SessionNode[] = [];
  private view: SessionView | undefined;
  private last: SessionAnswer;
  private asked = false;
  private params: SessionParams | undefined;
  private seq = 0;

  constructor(
    private readonly api: RulemapApi,
    /** The workspace folder of a URI (relative paths of the answer resolve against it). */
    private readonly rootOf: (uri: string) => string | undefined,
  ) {}

  attach(view: SessionView): void {
    this.view = view;
  }

  get result(): SessionAnswer {
    return this.last;
  }

  /** Replay a session and show it; `undefined` when the server did not answer. */
  async replay(params: SessionParams): Promise<SessionAnswer> {
    this.params = params;
    const seq = ++this.seq;
    const result = await this.api.session(params);
    if (seq !== this.seq) return result;
    this.asked = true;
    this.last = result;
    this.roots = buildSessionTree(result, this.rootOf(params.uri));
    this.updateHeader();
    this.emitter.fire();
    return result;
  }

  /** Replay the last session again for another profile (`undefined`: the workspace default). */
  async replayFor(profile: string | undefined): Promise<void> {
    if (!this.params || !this.api.isReady) return;
    const next: SessionParams = { ...this.params };
    if (profile === undefined) delete next.profile;
    else next.profile = profile;
    await this.replay(next);
  }

  private updateHeader(): void {
    if (!this.view) return;
    const h = sessionViewHeader(this.last, { transcript: this.params?.transcript, asked: this.asked });
    this.view.description = h.description;
    this.view.message = h.message;
  }

  getTreeItem(node: SessionNode): vscode.TreeItem {
    return sessionTreeItem(node);
  }

  getChildren(node?: SessionNode): SessionNode[] {
    if (!node) return this.roots;
    return node.kind === 'step' || node.kind === 'problems' ? node.children : [];
  }

  dispose(): void {
    this.emitter.dispose();
  }
}
