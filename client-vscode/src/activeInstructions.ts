// Keeps the effective instructions of the active editor's file, shared by the view and the
// status bar.

import * as vscode from 'vscode';
import { EffectiveInstructions, RulemapApi } from './protocol';

/** Which URIs count as "a file the agent could work on". */
export function isTrackable(uri: vscode.Uri | undefined): boolean {
  return !!uri && uri.scheme === 'file';
}

export class ActiveInstructions implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChange = this.emitter.event;
  private _uri: vscode.Uri | undefined;
  private _result: EffectiveInstructions | null | undefined;
  private seq = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly api: RulemapApi,
    private readonly profile: () => string | undefined,
    private readonly debounceMs = 80,
    /** Is this file still open in some editor tab? (a webview or settings tab being active is
     *  no reason to forget it) */
    private readonly isStillOpen: (uri: vscode.Uri) => boolean = () => false,
  ) {}

  get uri(): vscode.Uri | undefined {
    return this._uri;
  }

  get result(): EffectiveInstructions | null | undefined {
    return this._result;
  }

  get ready(): boolean {
    return this.api.isReady;
  }

  /**
   * Follow the active editor. Editors of other schemes (our own virtual documents, output,
   * diffs) keep the last file; no text editor clears it unless the file's tab is still open.
   */
  setEditorUri(uri: vscode.Uri | undefined): void {
    if (uri === undefined) {
      if (this._uri !== undefined && !this.isStillOpen(this._uri)) {
        this._uri = undefined;
        this._result = undefined;
        this.seq++;
        this.emitter.fire();
      }
      return;
    }
    if (!isTrackable(uri)) {
      return;
    }
    if (this._uri?.toString() === uri.toString()) {
      return;
    }
    this._uri = uri;
    this._result = undefined;
    this.emitter.fire();
    void this.refresh();
  }

  /** Refresh soon (coalesces bursts of graphChanged notifications). */
  scheduleRefresh(): void {
    if (this.timer) {
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.refresh();
    }, this.debounceMs);
  }

  async refresh(): Promise<void> {
    const seq = ++this.seq;
    const uri = this._uri;
    if (!uri || !this.api.isReady) {
      this._result = undefined;
      this.emitter.fire();
      return;
    }
    const profile = this.profile();
    const result = await this.api.effectiveInstructions({ uri: uri.toString(), ...(profile ? { profile } : {}) });
    if (seq !== this.seq) {
      return; // a newer request superseded this one
    }
    this._result = result;
    this.emitter.fire();
  }

  dispose(): void {
    if (this.timer) {
      clearTimeout(this.timer);
    }
    this.emitter.dispose();
  }
}
