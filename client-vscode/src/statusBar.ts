// The status bar item: the active file's budget use, e.g. `Rulemap 12.3k/32k`.

import * as vscode from 'vscode';
import { EffectiveInstructions } from './protocol';
import { formatChars, formatInt, plural } from './format';

export type ServerState = 'starting' | 'running' | 'stopped' | 'failed';

export interface StatusModel {
  visible: boolean;
  text: string;
  tooltip: string;
  warning: boolean;
  error: boolean;
  command: string;
}

export const FOCUS_SIDEBAR_COMMAND = 'rulemap.effectiveInstructions.focus';

/** Is anything of this load cut or left out? */
export function isOverBudget(r: EffectiveInstructions): boolean {
  return r.files.some((f) => f.cut) || r.leftOut.length > 0 || r.totalChars > r.maxChars;
}

/** Pure: what the status bar item should show. */
export function statusModel(
  result: EffectiveInstructions | null | undefined,
  state: ServerState,
  hasFile: boolean,
): StatusModel {
  const base = { warning: false, error: false, command: FOCUS_SIDEBAR_COMMAND };
  if (state === 'failed') {
    return {
      ...base,
      visible: true,
      error: true,
      text: '$(error) Rulemap',
      tooltip: 'The Rulemap language server is not running. Click to show its output.',
      command: 'rulemap.showOutput',
    };
  }
  if (state === 'starting') {
    return {
      ...base,
      visible: hasFile,
      text: '$(sync~spin) Rulemap',
      tooltip: 'Rulemap: starting the language server…',
    };
  }
  if (!hasFile || !result || state !== 'running') {
    return { ...base, visible: false, text: 'Rulemap', tooltip: '' };
  }
  const over = isOverBudget(result);
  const lines = [
    `Rulemap (${result.profile}): ${plural(result.files.length, 'file')} loaded for ${
      result.target ?? 'this workspace'
    }`,
    `${formatInt(result.totalChars)} of ${formatInt(result.maxChars)} characters`,
  ];
  const cut = result.files.filter((f) => f.cut).map((f) => f.path);
  if (cut.length) {
    lines.push(`Cut: ${cut.join(', ')}`);
  }
  if (result.leftOut.length) {
    lines.push(`Left out: ${result.leftOut.join(', ')}`);
  }
  lines.push('Click to show the Effective Instructions view.');
  return {
    ...base,
    visible: true,
    warning: over,
    text: `Rulemap ${formatChars(result.totalChars)}/${formatChars(result.maxChars)}`,
    tooltip: lines.join('\n'),
  };
}

/** Applies `statusModel` to a real status bar item. */
export class RulemapStatusBar implements vscode.Disposable {
  readonly item: vscode.StatusBarItem;

  constructor() {
    this.item = vscode.window.createStatusBarItem('rulemap.status', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'Rulemap';
  }

  update(result: EffectiveInstructions | null | undefined, state: ServerState, hasFile: boolean): StatusModel {
    const m = statusModel(result, state, hasFile);
    this.item.text = m.text;
    this.item.tooltip = m.tooltip;
    this.item.command = m.command;
    this.item.backgroundColor = m.error
      ? new vscode.ThemeColor('statusBarItem.errorBackground')
      : m.warning
        ? new vscode.ThemeColor('statusBarItem.warningBackground')
        : undefined;
    if (m.visible) {
      this.item.show();
    } else {
      this.item.hide();
    }
    return m;
  }

  dispose(): void {
    this.item.dispose();
  }
}
