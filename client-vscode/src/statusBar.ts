// The status bar item: the active file's budget use, e.g. `Rulemap 12.3k/32k`.

import * as vscode from 'vscode';
import { EffectiveInstructions, ProfileInfo, ProfilesResult } from './protocol';
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

/** Pure: every selected agent with why it was selected, in one line, as the CLI says it. */
export function agentsLine(selection: ProfilesResult['selection']): string | undefined {
  if (!selection?.length) {
    return undefined;
  }
  return `Selected agents: ${selection.map((a) => `${a.name} (${a.why})`).join(', ')}`;
}

/**
 * Pure: the second, short status item naming the agent profile the views show
 * (`Rulemap: <profile name>`); clicking it opens the picker. The name comes from the server's
 * answer (the lead agent when nothing was picked), else from the pick. `profiles`: the server's
 * `rulemap/profiles` answer, whose selection (each agent with why) and lead the tooltip says.
 */
export function profileStatusModel(
  result: EffectiveInstructions | null | undefined,
  state: ServerState,
  hasFile: boolean,
  picked: string | undefined,
  info: (name: string) => ProfileInfo | undefined,
  profiles?: ProfilesResult,
): ProfileStatusModel {
  const name = result?.profile ?? picked;
  if (state !== 'running' || !hasFile || !name) {
    return { visible: false, text: 'Rulemap', tooltip: '' };
  }
  const p = info(name);
  const lead = profiles?.lead;
  const why = lead && lead.name === name ? ` Selected by ${lead.why}.` : '';
  const selected = agentsLine(profiles?.selection);
  const lines = [
    `Rulemap agent profile: ${p?.title ? `${p.title} (${name})` : name}`,
    ...(p?.description ? [p.description] : []),
    picked
      ? 'Chosen for this workspace (rulemap.profile).'
      : `The workspace default: your rulemap.profile, else rulemap.toml's, else the default model when it reads a file here, else the first selected agent that does.${why}`,
    ...(!picked && lead?.note ? [lead.note] : []),
    ...(selected ? [selected] : []),
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
    profiles?: ProfilesResult,
  ): ProfileStatusModel {
    const m = profileStatusModel(result, state, hasFile, picked, info, profiles);
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
