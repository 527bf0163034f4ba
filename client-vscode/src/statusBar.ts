// The status bar item: the active file's budget use, e.g. `Rulemap 12.3k/32k`.

import * as vscode from 'vscode';
import { EffectiveInstructions, ProfileInfo } from './protocol';
import { plural } from './format';
import { budgetLong, budgetShort, isCut, isOverBudget } from './budget';

export { isOverBudget } from './budget';

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
export const CHOOSE_PROFILE_COMMAND = 'rulemap.chooseProfile';

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
    budgetLong(result),
  ];
  const cut = result.files.filter(isCut).map((f) => f.path);
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
    text: `Rulemap ${budgetShort(result)}`,
    tooltip: lines.join('\n'),
  };
}

export interface ProfileStatusModel {
  visible: boolean;
  text: string;
  tooltip: string;
}

/**
 * Pure: the second, short status item naming the agent profile the views show
 * (`Rulemap: <profile name>`); clicking it opens the picker. The name comes from the server's
 * answer (the workspace default when nothing was picked), else from the pick.
 */
export function profileStatusModel(
  result: EffectiveInstructions | null | undefined,
  state: ServerState,
  hasFile: boolean,
  picked: string | undefined,
  info: (name: string) => ProfileInfo | undefined,
): ProfileStatusModel {
  const name = result?.profile ?? picked;
  if (state !== 'running' || !hasFile || !name) {
    return { visible: false, text: 'Rulemap', tooltip: '' };
  }
  const p = info(name);
  const lines = [
    `Rulemap agent profile: ${p?.title ? `${p.title} (${name})` : name}`,
    ...(p?.description ? [p.description] : []),
    picked ? 'Chosen for this workspace (rulemap.profile).' : 'The workspace default (your rulemap.profile, else rulemap.toml).',
    'Click to choose another agent.',
  ];
  return { visible: true, text: `Rulemap: ${name}`, tooltip: lines.join('\n') };
}

/** Applies `statusModel` to a real status bar item, and `profileStatusModel` to a second one. */
export class RulemapStatusBar implements vscode.Disposable {
  readonly item: vscode.StatusBarItem;
  readonly profileItem: vscode.StatusBarItem;

  constructor() {
    this.item = vscode.window.createStatusBarItem('rulemap.status', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'Rulemap';
    // just left of the budget item (on the right side a higher priority sits further left)
    this.profileItem = vscode.window.createStatusBarItem('rulemap.profileStatus', vscode.StatusBarAlignment.Right, 101);
    this.profileItem.name = 'Rulemap Agent Profile';
    this.profileItem.command = CHOOSE_PROFILE_COMMAND;
  }

  updateProfile(
    result: EffectiveInstructions | null | undefined,
    state: ServerState,
    hasFile: boolean,
    picked: string | undefined,
    info: (name: string) => ProfileInfo | undefined,
  ): ProfileStatusModel {
    const m = profileStatusModel(result, state, hasFile, picked, info);
    this.profileItem.text = m.text;
    this.profileItem.tooltip = m.tooltip;
    if (m.visible) {
      this.profileItem.show();
    } else {
      this.profileItem.hide();
    }
    return m;
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
    this.profileItem.dispose();
  }
}
