// "Why Doesn't an Agent See This?": takes the selected text of an instruction file (or the
// current line), asks for the file the agent works on (or its start-up load), and shows what the
// server's `rulemap/why` answers: per agent, ✓ the text reaches the model, or ✗ and why. Where
// the text is and why an agent misses it are the server's findings; this only asks and shows.

import * as vscode from 'vscode';
import { RequestError, WhyParams, WhyResult } from './protocol';
import { basename } from './format';

/** Pure: the text to ask about: the selection, else the line of the caret (trimmed); none if blank. */
export function textToAsk(
  doc: { lineAt(line: number): { text: string }; getText(range?: vscode.Range): string },
  selection: { isEmpty: boolean; active: { line: number } } & vscode.Range,
): string | undefined {
  const raw = selection.isEmpty ? doc.lineAt(selection.active.line).text : doc.getText(selection);
  const t = raw.trim();
  return t === '' ? undefined : t;
}

/** Pure: a text quoted for a message, shortened: “Keep functions small.” */
export function quoted(text: string, max = 60): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return `“${one.length > max ? `${one.slice(0, max - 1)}…` : one}”`;
}

export type TargetItem = vscode.QuickPickItem & { target?: string; choose?: boolean; targetLabel?: string };

/** An open file the agent could work on: its URI and its workspace-relative path. */
export interface OpenFile {
  uri: string;
  relative: string;
}

/** Pure: the target picker's items: start-up first, then the open files, then "Choose a file…". */
export function targetItems(openFiles: OpenFile[]): TargetItem[] {
  const items: TargetItem[] = [
    { label: '$(rocket) At start-up', description: 'the load before the agent opens any file', targetLabel: 'at start-up' },
  ];
  const seen = new Set<string>();
  const files = openFiles.filter((f) => !seen.has(f.uri) && seen.add(f.uri));
  if (files.length) {
    items.push({ label: 'Open files', kind: vscode.QuickPickItemKind.Separator });
    for (const f of files) {
      const dir = f.relative.includes('/') ? f.relative.slice(0, f.relative.lastIndexOf('/')) : '';
      items.push({ label: `$(file) ${basename(f.relative)}`, description: dir, target: f.uri, targetLabel: `for ${f.relative}` });
    }
  }
  items.push({ label: '', kind: vscode.QuickPickItemKind.Separator });
  items.push({ label: '$(folder-opened) Choose a file…', description: 'the file the agent works on', choose: true });
  return items;
}

/** Pure: "Why doesn't <title> see this?" when one agent is asked about, else "… an agent …". */
export function whyTitle(agentTitle: string | undefined): string {
  return `Why doesn't ${agentTitle ?? 'an agent'} see this?`;
}

/** Pure: the verdict for people — one line per agent, ✓ seen or ✗ and why. */
export function verdictLines(result: WhyResult): string[] {
  return result.agents.map((a) => `${a.seen ? '✓' : '✗'} ${a.title || a.profile}${a.seen ? '' : `: ${a.why}`}`);
}

/** Pure: the notification: level, message (agents that miss it, and why) and its buttons. */
export function verdictMessage(
  result: WhyResult,
  text: string,
  targetLabel: string,
): { level: 'info' | 'warning'; message: string; actions: string[] } {
  const q = quoted(text);
  if (!result.places || result.places.length === 0) {
    return {
      level: 'warning',
      message: `Rulemap: ${q} is in no instruction file, rule or file they import.`,
      actions: [],
    };
  }
  const one = result.agents.length === 1 ? result.agents[0] : undefined;
  if (result.seenByAll || result.agents.every((a) => a.seen)) {
    const who = one ? one.title || one.profile : result.agents.length === 2 ? 'both agents' : `all ${result.agents.length} agents`;
    return { level: 'info', message: `Rulemap: ✓ ${who} see${one ? 's' : ''} ${q} ${targetLabel}.`, actions: ['Show Details'] };
  }
  const missing = result.agents.filter((a) => !a.seen);
  const seeing = result.agents.filter((a) => a.seen);
  const head = one
    ? `Rulemap: ${whyTitle(one.title || one.profile)} ${q} ${targetLabel}:`
    : `Rulemap: ${missing.length} of ${result.agents.length} agents do not see ${q} ${targetLabel}.`;
  const body = missing.map((a) => `✗ ${a.title || a.profile}: ${a.why}`);
  const tail = seeing.length ? [`✓ ${seeing.map((a) => a.title || a.profile).join(', ')}`] : [];
  return { level: 'warning', message: [head, ...body, ...tail].join(' '), actions: ['Show Details'] };
}

/** Pure: the read-only details document (markdown). */
export function whyDetails(result: WhyResult, text: string, targetLabel: string, title: string): string {
  const out = [`# ${title}`, '', ...text.split('\n').map((l) => `> ${l}`), ''];
  out.push(`Asked ${targetLabel}${result.cwd && result.cwd !== '.' ? `, the agents working in \`${result.cwd}\`` : ''}.`, '');
  if (!result.places?.length) {
    out.push('The text is in no instruction file, rule or file they import.');
    return out.join('\n') + '\n';
  }
  out.push(
    `Found in: ${result.places.map((p) => `\`${p.path}\` line ${p.line}${p.exact ? '' : ' (wrapped differently)'}`).join(', ')}`,
    '',
  );
  for (const a of result.agents) {
    out.push(`## ${a.seen ? '✓' : '✗'} ${a.title || a.profile} (\`${a.profile}\`)`, '');
    out.push(a.why, '');
    if (a.path) out.push(`At \`${a.path}\`${a.line ? ` line ${a.line}` : ''}.`, '');
    if (a.also?.length) out.push(`Also from: ${a.also.map((p) => `\`${p.path}\` line ${p.line}`).join(', ')} (the model gets it twice).`, '');
  }
  const seeing = result.agents.filter((a) => a.seen).length;
  out.push(result.seenByAll ? 'Every agent sees it.' : seeing === 0 ? 'No agent sees it.' : 'Not every agent sees it.');
  return out.join('\n') + '\n';
}

/** What the command needs of VS Code (the real window, or a stand-in in tests). */
export interface WhyUi {
  pickTarget(items: TargetItem[], title: string): Thenable<TargetItem | undefined>;
  chooseFile(): Thenable<vscode.Uri | undefined>;
  progress<T>(title: string, task: () => Promise<T>): Thenable<T>;
  showInformationMessage(message: string, ...actions: string[]): Thenable<string | undefined>;
  showWarningMessage(message: string, ...actions: string[]): Thenable<string | undefined>;
  /** Open the details document. */
  showDetails(markdown: string): Thenable<void>;
}

export interface WhyInput {
  /** The file the text is in. */
  uri: string;
  text: string | undefined;
  openFiles: OpenFile[];
  /** The selected agent's title when only one is selected (names the command's question). */
  agentTitle?: string;
}

/** The command's flow; returns what was shown (for tests and logs). */
export async function runWhyNotSeen(
  api: { readonly isReady: boolean; why(params: WhyParams): Promise<WhyResult | RequestError | null | undefined> },
  ui: WhyUi,
  input: WhyInput,
): Promise<{ shown: string; result?: WhyResult } | undefined> {
  if (!input.text) {
    const m = 'Rulemap: select the text (or click in a line) of an instruction file to ask who sees it.';
    void ui.showInformationMessage(m);
    return { shown: m };
  }
  if (!api.isReady) {
    const m = 'Rulemap: the language server is not running (see "Rulemap: Show Output").';
    void ui.showWarningMessage(m);
    return { shown: m };
  }
  const title = whyTitle(input.agentTitle);
  const picked = await ui.pickTarget(targetItems(input.openFiles), `${title} ${quoted(input.text, 40)} — for which file?`);
  if (!picked) return undefined;
  let target = picked.target;
  let targetLabel = picked.targetLabel ?? 'at start-up';
  if (picked.choose) {
    const file = await ui.chooseFile();
    if (!file) return undefined;
    target = file.toString();
    targetLabel = `for ${basename(file.path)}`;
  }
  const params: WhyParams = { uri: input.uri, text: input.text, ...(target ? { target } : {}) };
  const r = await ui.progress(`Rulemap: who sees ${quoted(input.text, 30)}`, () => api.why(params));
  if (r === null) {
    const m = 'Rulemap: this file is not inside a workspace folder.';
    void ui.showWarningMessage(m);
    return { shown: m };
  }
  if (r === undefined) {
    const m = 'Rulemap: the server did not answer (an older server without `rulemap/why`? see "Rulemap: Show Output").';
    void ui.showWarningMessage(m);
    return { shown: m };
  }
  if ('error' in r) {
    const m = `Rulemap: could not tell who sees ${quoted(input.text)}: ${r.error}`;
    void ui.showWarningMessage(m);
    return { shown: m };
  }
  if (r.target) targetLabel = `for ${r.target}`;
  const v = verdictMessage(r, input.text, targetLabel);
  const show = v.level === 'info' ? ui.showInformationMessage : ui.showWarningMessage;
  void Promise.resolve(show.call(ui, v.message, ...v.actions)).then((choice) => {
    if (choice === 'Show Details') {
      const agentTitle = r.agents.length === 1 ? r.agents[0].title || r.agents[0].profile : input.agentTitle;
      return ui.showDetails(whyDetails(r, input.text ?? '', targetLabel, whyTitle(agentTitle)));
    }
    return undefined;
  });
  return { shown: v.message, result: r };
}

export const WHY_SCHEME = 'rulemap-why';

/** Read-only documents with the details of an answer. */
export class WhyDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly docs = new Map<string, string>();
  private n = 0;

  /** Keep `markdown` as a new document; its URI. */
  add(markdown: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: WHY_SCHEME, path: `/Who sees this (${++this.n}).md` });
    this.docs.set(uri.toString(), markdown);
    // (only the last few are kept: each is one answer)
    if (this.docs.size > 20) this.docs.delete(this.docs.keys().next().value as string);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.docs.get(uri.toString()) ?? 'Rulemap: this answer is no longer kept; ask again.';
  }

  dispose(): void {
    this.docs.clear();
  }
}
