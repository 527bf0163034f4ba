// "Open Instruction Map": the repository map page the server renders (`rulemap/map`, a
// self-contained HTML page with inline scripts and data) in a webview panel. The page is the
// server's; this only hosts it, with a refresh and a clear message when there is no page. It
// tells the server the webview's own source (for the page's Content-Security-Policy) and shows
// the page only when that policy is strict (mapPolicy.ts).

import * as vscode from 'vscode';
import { newNonce, policyProblem } from './mapPolicy';
import { MapParams, MapResult, RequestError, WhyParams, WhyResult } from './protocol';

export const MAP_VIEW_TYPE = 'rulemap.instructionMap';
export const MAP_TITLE = 'Instruction Map';

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

/** A page with a message (no map to show), styled with the theme's colours; its style by `nonce` (default: a fresh one). */
export function messagePage(title: string, message: string, nonce: string = newNonce()): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-${escapeHtml(nonce)}'; base-uri 'none'; form-action 'none'">
<title>${escapeHtml(MAP_TITLE)}</title>
<style nonce="${escapeHtml(nonce)}">body{font-family:var(--vscode-font-family);color:var(--vscode-foreground);padding:2em;max-width:48em}
h1{font-size:1.3em;font-weight:600}p{line-height:1.5}code{font-family:var(--vscode-editor-font-family)}</style>
</head><body><h1>${escapeHtml(title)}</h1><p class="rulemap-map-message">${escapeHtml(message)}</p>
<p>Run <b>Rulemap: Refresh Instruction Map</b> to try again.</p></body></html>`;
}

/**
 * The HTML to show for an answer: the server's page when its policy is strict for the webview
 * whose own source is `cspSource`, else a page saying why there is none.
 */
export function mapHtml(result: MapResult | RequestError | null | undefined, ready: boolean, cspSource: string): { html: string; ok: boolean } {
  if (!ready) {
    return { ok: false, html: messagePage('The Rulemap language server is not running', 'Start it (Rulemap: Restart Server) or see "Rulemap: Show Output".') };
  }
  if (result === null) {
    return { ok: false, html: messagePage('No workspace folder', 'Open a folder (or a file inside one) to map the instructions its agents load.') };
  }
  if (result === undefined) {
    return {
      ok: false,
      html: messagePage('No map from the server', 'The server did not answer rulemap/map (an older server? see "Rulemap: Show Output").'),
    };
  }
  if ('error' in result) {
    return { ok: false, html: messagePage('The server could not draw the map', result.error) };
  }
  if (typeof result.html !== 'string' || result.html.trim() === '') {
    return { ok: false, html: messagePage('No map from the server', 'The server answered rulemap/map without a page.') };
  }
  const problem = policyProblem(result.html, cspSource);
  if (problem !== undefined) {
    return {
      ok: false,
      html: messagePage(
        "The map was not shown: the server's page has no strict Content-Security-Policy",
        `The server's page would run with scripts enabled, but ${problem}. Update the Rulemap server (an older one does not write the policy).`,
      ),
    };
  }
  return { ok: true, html: result.html };
}

/** The longest sentence the page may ask about (the server refuses longer ones too). */
export const MAX_WHY_TEXT = 2000;

/** The page's answer to `{command: 'why', text}`: where the text reaches each agent. */
export interface WhyReply {
  command: 'why';
  text: string;
  result?: WhyResult;
  error?: string;
}

/**
 * The map page's question "where does this sentence reach each agent?" (its find box, given
 * text that names no file), answered with `rulemap/why` for the map's folder — the engine's
 * answer, as `rulemap why --json` gives it; undefined: no question (not a sentence).
 */
export async function answerWhy(
  api: { why(params: WhyParams): Promise<WhyResult | RequestError | null | undefined> },
  uri: string | undefined,
  text: unknown,
): Promise<WhyReply | undefined> {
  if (typeof text !== 'string' || !text.trim() || text.length > MAX_WHY_TEXT) return undefined;
  if (!uri) return { command: 'why', text, error: 'no workspace folder is open' };
  const answer = await api.why({ uri, text });
  if (answer === null) return { command: 'why', text, error: 'the folder of the map is not indexed' };
  if (answer === undefined) return { command: 'why', text, error: 'the server did not answer (see "Rulemap: Show Output")' };
  if ('error' in answer) return { command: 'why', text, error: answer.error };
  return { command: 'why', text, result: answer };
}

/** The part of a webview panel the map drives (a real panel, or a stand-in in tests). */
export interface MapPanel {
  /** `cspSource`: the webview's own source, which the page's policy names for images;
   *  `postMessage`: to the page (a stand-in may have none). */
  readonly webview: { html: string; readonly cspSource: string; postMessage?(message: unknown): Thenable<boolean> };
  title: string;
  readonly visible: boolean;
  reveal(): void;
  onDidDispose(listener: () => void): vscode.Disposable;
}

export class InstructionMap implements vscode.Disposable {
  private panel: MapPanel | undefined;
  private uri: string | undefined;
  private seq = 0;
  private readonly subs: vscode.Disposable[] = [];

  constructor(
    private readonly api: { readonly isReady: boolean; map(params: MapParams): Promise<MapResult | RequestError | null | undefined> },
    private readonly createPanel: () => MapPanel,
    private readonly progress: <T>(task: () => Promise<T>) => Thenable<T> = (t) => t(),
  ) {}

  /** The open panel (for tests). */
  get current(): MapPanel | undefined {
    return this.panel;
  }

  /** The file or folder the map is of (its folder is what the page's questions are about). */
  get target(): string | undefined {
    return this.uri;
  }

  /** Open (or reveal) the map for the workspace folder of `uri`, and load it. */
  async open(uri: string | undefined): Promise<boolean> {
    if (uri) this.uri = uri;
    if (!this.panel) {
      const panel = this.createPanel();
      this.panel = panel;
      this.subs.push(
        panel.onDidDispose(() => {
          if (this.panel === panel) this.panel = undefined;
        }),
      );
    } else {
      this.panel.reveal();
    }
    return this.refresh();
  }

  /**
   * The views' agent changed (Choose Agent Profile): the page colours by it too, keeping what
   * is selected and the zoom (`{command: 'agent', name}`); back to the workspace default, the
   * server's page is asked again (it opens on the server's lead agent).
   */
  follow(name: string | undefined): void {
    const panel = this.panel;
    if (!panel) return;
    if (name !== undefined && panel.webview.postMessage) {
      void panel.webview.postMessage({ command: 'agent', name });
    } else {
      void this.refresh();
    }
  }

  /** Ask the server for the page again (the panel's refresh). */
  async refresh(): Promise<boolean> {
    const panel = this.panel;
    if (!panel) return false;
    const seq = ++this.seq;
    const uri = this.uri;
    if (!uri) {
      panel.webview.html = messagePage('No workspace folder', 'Open a folder (or a file inside one) to map the instructions its agents load.');
      return false;
    }
    const cspSource = panel.webview.cspSource;
    const result = this.api.isReady ? await this.progress(() => this.api.map({ uri, cspSource })) : undefined;
    if (seq !== this.seq || this.panel !== panel) return false;
    const page = mapHtml(result, this.api.isReady, cspSource);
    panel.webview.html = page.html;
    return page.ok;
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
  }
}
