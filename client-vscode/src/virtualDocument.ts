// Read-only documents with the effective instructions exactly as the agent receives them.

import * as vscode from 'vscode';
import { RulemapApi } from './protocol';

export const SCHEME = 'rulemap';

/** Pure-ish: the virtual document URI for a target file. */
export function instructionsUri(target: vscode.Uri): vscode.Uri {
  const base = target.path.split('/').pop() || 'file';
  return vscode.Uri.from({
    scheme: SCHEME,
    path: `/${base} (effective instructions).md`,
    query: new URLSearchParams({ target: target.toString() }).toString(),
  });
}

export function targetOf(uri: vscode.Uri): vscode.Uri | undefined {
  const t = new URLSearchParams(uri.query).get('target');
  return t ? vscode.Uri.parse(t) : undefined;
}

export class InstructionsDocumentProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;

  constructor(
    private readonly api: RulemapApi,
    private readonly profile: () => string | undefined,
  ) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const target = targetOf(uri);
    if (!target) {
      return 'Rulemap: this document does not name a target file.';
    }
    return (await fetchInstructionsText(this.api, target, this.profile())).text;
  }

  /** Re-render every open instructions document (after the graph changed). */
  refreshOpen(): void {
    for (const doc of vscode.workspace.textDocuments) {
      if (doc.uri.scheme === SCHEME) {
        this.emitter.fire(doc.uri);
      }
    }
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

/** The text the agent receives for `target`, or an explanation of why there is none. */
export async function fetchInstructionsText(
  api: RulemapApi,
  target: vscode.Uri,
  profile: string | undefined,
): Promise<{ ok: boolean; text: string; chars?: number; path?: string }> {
  if (!api.isReady) {
    return { ok: false, text: 'Rulemap: the language server is not running (see "Rulemap: Show Output").' };
  }
  const r = await api.effectiveInstructions({
    uri: target.toString(),
    includeText: true,
    ...(profile ? { profile } : {}),
  });
  if (r === null) {
    return { ok: false, text: `Rulemap: ${target.fsPath} is not inside a workspace folder.` };
  }
  if (!r || typeof r.text !== 'string') {
    return { ok: false, text: 'Rulemap: the server did not return the instructions text.' };
  }
  return { ok: true, text: r.text, chars: r.totalChars, path: r.target ?? undefined };
}
