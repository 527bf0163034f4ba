// Explorer badges: files that path-scoped rules match get a badge and a tooltip naming the rules.

import * as vscode from 'vscode';
import { GraphChangedParams, MatchingRule, RulemapApi } from './protocol';

export interface DecorationModel {
  badge: string;
  tooltip: string;
}

/** Pure: badge "R" for one rule, "R2".."R9" for several, "R+" for ten or more. */
export function ruleBadge(count: number): string {
  if (count <= 1) return 'R';
  if (count <= 9) return `R${count}`;
  return 'R+';
}

/** Pure: what to show for a file matched by `rules` (undefined for none). */
export function decorationModel(rules: MatchingRule[] | undefined | null): DecorationModel | undefined {
  if (!rules || rules.length === 0) {
    return undefined;
  }
  const names = rules.map((r) => `${r.path} (${r.matchedBy || r.globs.join(', ')})`);
  const head = rules.length === 1 ? 'Rulemap: matched by rule' : `Rulemap: matched by ${rules.length} rules`;
  return { badge: ruleBadge(rules.length), tooltip: `${head} ${names.join('; ')}` };
}

/**
 * Pure: should we ask the server about this URI at all? Only files on disk; which folders the
 * server walks (and which it leaves out) is its business — it answers "no rules" for those.
 */
export function isDecoratable(uri: { scheme: string; path: string }): boolean {
  return uri.scheme === 'file';
}

/**
 * Pure: can this `rulemap/graphChanged` change which rules match which file? The server says so
 * in `rulesChanged`; when it does not (an older server, or the synthetic event after a start),
 * assume it can.
 */
export function affectsRuleMatches(e: GraphChangedParams | undefined): boolean {
  return typeof e?.rulesChanged === 'boolean' ? e.rulesChanged : true;
}

export class RuleDecorationProvider implements vscode.FileDecorationProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<vscode.Uri | vscode.Uri[] | undefined>();
  readonly onDidChangeFileDecorations = this.emitter.event;
  private readonly cache = new Map<string, Promise<DecorationModel | undefined>>();

  constructor(private readonly api: RulemapApi) {}

  /** Number of cached URIs (for tests and logs). */
  get cacheSize(): number {
    return this.cache.size;
  }

  provideFileDecoration(uri: vscode.Uri): Promise<vscode.FileDecoration | undefined> | undefined {
    if (!isDecoratable(uri) || !this.api.isReady) {
      return undefined;
    }
    const key = uri.toString();
    let p = this.cache.get(key);
    if (!p) {
      p = this.api.rulesForFile(key).then(
        (r) => decorationModel(r?.rules),
        () => undefined,
      );
      this.cache.set(key, p);
    }
    return p.then((m) => {
      if (!m) {
        return undefined;
      }
      const d = new vscode.FileDecoration(m.badge, m.tooltip);
      d.propagate = false;
      return d;
    });
  }

  /** Forget everything and ask VS Code to re-query every visible file (graph changed, restart). */
  clear(): void {
    this.cache.clear();
    this.emitter.fire(undefined);
  }

  dispose(): void {
    this.emitter.dispose();
    this.cache.clear();
  }
}

