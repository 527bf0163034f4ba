// Marks, in the gutter and the overview ruler, the lines of an instruction file that some
// selected agent never brings to the model — stripped (an HTML comment it removes) or past the
// point where its budget cuts the file — with a hover saying, agent by agent, why. Which lines
// and why are the server's answer (`rulemap/unseenLines`); this only draws them.

import * as vscode from 'vscode';
import { UnseenLinesParams, UnseenLinesResult } from './protocol';
import { formatInt } from './format';

/** The look of a mark: `never` (the agent loads the file for no file), `cut`, `stripped`. */
export type UnseenKind = 'never' | 'cut' | 'stripped';
export const UNSEEN_KINDS: readonly UnseenKind[] = ['never', 'cut', 'stripped'];

export interface UnseenEntry {
  profile: string;
  title: string;
  /** The server's kind ("stripped", "cut", …) or "never". */
  kind: string;
  /** Workspace files whose load misses these lines (0 for "never"). */
  files: number;
  why: string;
}

/** A run of lines (0-based, inclusive) that the same agents miss for the same reasons. */
export interface UnseenSegment {
  start: number;
  end: number;
  kind: UnseenKind;
  entries: UnseenEntry[];
}

const PRIORITY: Record<UnseenKind, number> = { never: 3, cut: 2, stripped: 1 };

function markKind(kind: string): UnseenKind {
  return kind === 'never' ? 'never' : kind === 'cut' ? 'cut' : 'stripped';
}

/**
 * Pure: the marks of an answer. An agent that never loads the file is ONE mark at line 0 (not
 * every line); when no agent loads it at all (not an instruction file) there is nothing to mark.
 * Overlapping ranges of several agents are split where the set of agents changes; `lineCount`
 * clamps ranges to the document.
 */
export function unseenSegments(result: UnseenLinesResult | null | undefined, lineCount?: number): UnseenSegment[] {
  if (!result || !Array.isArray(result.agents) || result.agents.length === 0) return [];
  if (result.agents.every((a) => !!a.never)) return [];
  const last = lineCount !== undefined ? Math.max(0, lineCount - 1) : Number.MAX_SAFE_INTEGER;
  const spans: { start: number; end: number; entry: UnseenEntry }[] = [];
  for (const a of result.agents) {
    const title = a.title || a.profile;
    if (a.never) {
      spans.push({ start: 0, end: 0, entry: { profile: a.profile, title, kind: 'never', files: 0, why: a.never } });
      continue;
    }
    for (const r of a.ranges ?? []) {
      const start = Math.max(0, Math.min(r.start, last));
      const end = Math.max(start, Math.min(r.end, last));
      if (r.start > last) continue;
      spans.push({ start, end, entry: { profile: a.profile, title, kind: r.kind, files: r.files, why: r.why } });
    }
  }
  if (spans.length === 0) return [];
  const cuts = [...new Set(spans.flatMap((s) => [s.start, s.end + 1]))].sort((x, y) => x - y);
  const out: UnseenSegment[] = [];
  for (let i = 0; i < cuts.length - 1; i++) {
    const start = cuts[i];
    const end = cuts[i + 1] - 1;
    const entries = spans.filter((s) => s.start <= start && s.end >= end).map((s) => s.entry);
    if (entries.length === 0) continue;
    const kind = entries.map((e) => markKind(e.kind)).reduce((k, x) => (PRIORITY[x] > PRIORITY[k] ? x : k));
    const prev = out[out.length - 1];
    if (prev && prev.end === start - 1 && prev.kind === kind && sameEntries(prev.entries, entries)) {
      prev.end = end;
    } else {
      out.push({ start, end, kind, entries });
    }
  }
  return out;
}

function sameEntries(a: UnseenEntry[], b: UnseenEntry[]): boolean {
  return a.length === b.length && a.every((e, i) => e === b[i]);
}

/** Pure: the hover of a mark, per agent why (the server's sentence, as is). */
export function unseenHover(segment: UnseenSegment): string {
  const lines = segment.start === segment.end ? `Line ${segment.start + 1}` : `Lines ${segment.start + 1}–${segment.end + 1}`;
  const head =
    segment.entries.length === 1 && segment.entries[0].kind === 'never'
      ? `**Rulemap**: ${segment.entries[0].title} never loads this file`
      : `**Rulemap**: ${lines} — not every agent sees ${segment.start === segment.end ? 'it' : 'them'}`;
  const items = segment.entries.map((e) => {
    if (e.kind === 'never') return `- **${e.title}** never loads this file: ${e.why}`;
    const files = e.files > 0 ? ` for ${formatInt(e.files)} ${e.files === 1 ? 'file' : 'files'}` : '';
    return `- **${e.title}** — ${e.kind}${files}: ${e.why}`;
  });
  return [head, '', ...items].join('\n');
}

/** What the controller needs of a text editor (a real one, or a stand-in in tests). */
export interface UnseenEditor {
  readonly document: {
    readonly uri: vscode.Uri;
    readonly version: number;
    readonly languageId: string;
    readonly lineCount: number;
  };
  setDecorations(type: vscode.TextEditorDecorationType, options: vscode.DecorationOptions[]): void;
}

export interface UnseenHost {
  visibleEditors(): readonly UnseenEditor[];
  /** `rulemap.unseenLines.enabled`. */
  enabled(): boolean;
}

/** Pure: the editors whose lines are marked: markdown files on disk. */
export function isMarkable(editor: UnseenEditor): boolean {
  return editor.document.uri.scheme === 'file' && editor.document.languageId === 'markdown';
}

export class UnseenLinesController implements vscode.Disposable {
  /** Answers by `uri@version`, dropped when the graph changes. */
  private readonly cache = new Map<string, UnseenLinesResult | null>();
  private readonly inflight = new Map<string, Promise<UnseenLinesResult | null | undefined>>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Visible editors that carry marks, to clear them when turned off. */
  private readonly marked = new Set<UnseenEditor>();
  /** Bumped by `graphChanged`: an answer asked for before it is not cached. */
  private generation = 0;

  constructor(
    private readonly api: { readonly isReady: boolean; unseenLines(params: UnseenLinesParams): Promise<UnseenLinesResult | null | undefined> },
    private readonly host: UnseenHost,
    private readonly types: Record<UnseenKind, vscode.TextEditorDecorationType>,
    private readonly debounceMs = 500,
  ) {}

  /** Redraw soon (after edits, a save, the visible editors changing). */
  schedule(delay = this.debounceMs): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.update();
    }, delay);
  }

  /** `rulemap/graphChanged` (or a restart): every answer may be stale. */
  graphChanged(): void {
    this.cache.clear();
    this.inflight.clear();
    this.generation++;
    this.schedule(300);
  }

  /** Ask (or take from the cache) for every visible markdown editor and draw its marks. */
  async update(): Promise<void> {
    const editors = this.host.visibleEditors();
    if (!this.host.enabled()) {
      for (const e of [...this.marked]) this.clear(e);
      return;
    }
    for (const e of [...this.marked]) if (!editors.includes(e)) this.marked.delete(e);
    await Promise.all(editors.filter(isMarkable).map((e) => this.updateEditor(e)));
  }

  private async updateEditor(editor: UnseenEditor): Promise<void> {
    const doc = editor.document;
    const key = `${doc.uri.toString()}@${doc.version}`;
    let result = this.cache.get(key);
    if (result === undefined && !this.cache.has(key)) {
      if (!this.api.isReady) return;
      let p = this.inflight.get(key);
      if (!p) {
        const generation = this.generation;
        p = this.api.unseenLines({ uri: doc.uri.toString() }).then((r) => {
          if (r !== undefined && generation === this.generation) this.cache.set(key, r);
          return r;
        });
        this.inflight.set(key, p);
        void p.finally(() => this.inflight.delete(key));
      }
      const r = await p;
      if (r === undefined) return; // no answer: keep what is drawn
      result = r;
    }
    // (the document changed while the server answered: the next update draws it)
    if (editor.document.version !== doc.version || !this.host.enabled()) return;
    this.apply(editor, result);
  }

  /** Draw the marks of `result` in `editor`. */
  apply(editor: UnseenEditor, result: UnseenLinesResult | null | undefined): void {
    const segments = unseenSegments(result, editor.document.lineCount);
    for (const kind of UNSEEN_KINDS) {
      editor.setDecorations(
        this.types[kind],
        segments
          .filter((s) => s.kind === kind)
          .map((s) => ({
            range: new vscode.Range(s.start, 0, s.end, Number.MAX_SAFE_INTEGER),
            hoverMessage: new vscode.MarkdownString(unseenHover(s)),
          })),
      );
    }
    if (segments.length) this.marked.add(editor);
    else this.marked.delete(editor);
  }

  private clear(editor: UnseenEditor): void {
    for (const kind of UNSEEN_KINDS) editor.setDecorations(this.types[kind], []);
    this.marked.delete(editor);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const t of Object.values(this.types)) t.dispose();
  }
}
