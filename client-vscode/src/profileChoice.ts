// The agent profile the views explain for: picked per workspace (workspaceState) with
// "Rulemap: Choose Agent Profile", from the list the server sends (`rulemap/profiles`). No
// profile name is written here: without a pick the server uses its workspace default
// (`rulemap.profile`, else rulemap.toml's `profile`, else its own default).

import * as vscode from 'vscode';
import { ProfileInfo, ProfilesResult, RulemapApi } from './protocol';

/** The workspaceState key of the pick. */
export const PROFILE_STATE_KEY = 'rulemap.agentProfile';

/** The part of `vscode.Memento` used here (`context.workspaceState`). */
export interface StateStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

export class ProfileChoice implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<string | undefined>();
  /** Fires with the new pick (undefined: back to the workspace default). */
  readonly onDidChange = this.emitter.event;
  private catalog: ProfilesResult | undefined;

  constructor(private readonly state: StateStore) {}

  /** The profile picked for this workspace; undefined: the server's workspace default. */
  get picked(): string | undefined {
    const v = this.state.get<unknown>(PROFILE_STATE_KEY);
    return typeof v === 'string' && v !== '' ? v : undefined;
  }

  /** The last list the server sent (undefined before the first answer). */
  get profiles(): ProfilesResult | undefined {
    return this.catalog;
  }

  info(name: string): ProfileInfo | undefined {
    return this.catalog?.profiles.find((p) => p.name === name);
  }

  async pick(name: string | undefined): Promise<void> {
    if (name === this.picked) {
      return;
    }
    await this.state.update(PROFILE_STATE_KEY, name);
    this.emitter.fire(name);
  }

  /**
   * Ask the server for its profiles. A remembered pick the server no longer knows is forgotten
   * (its requests would fail); returns that name so the caller can say so.
   */
  async load(api: RulemapApi, uri?: string): Promise<{ result: ProfilesResult | undefined; dropped?: string }> {
    const r = await api.profiles(uri);
    if (!r || !Array.isArray(r.profiles) || r.profiles.length === 0) {
      return { result: undefined };
    }
    this.catalog = r;
    const p = this.picked;
    if (p !== undefined && !r.profiles.some((x) => x.name === p)) {
      await this.pick(undefined);
      return { result: r, dropped: p };
    }
    return { result: r };
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

export interface ProfilePickItem {
  label: string;
  description?: string;
  detail?: string;
  /** undefined: "use the workspace default" (forget the pick). */
  name: string | undefined;
}

/**
 * Pure: the quick pick's items, in the server's order: label = the agent's title, description =
 * its name (plus "current" / "default"), detail = the server's description. With a pick, a first
 * item goes back to the workspace default.
 */
export function profilePickItems(r: ProfilesResult, picked: string | undefined): ProfilePickItem[] {
  const current = picked ?? r.active;
  const items: ProfilePickItem[] = r.profiles.map((p) => {
    const marks = [p.name];
    if (p.name === current) marks.push('current');
    if (p.name === r.active) marks.push('default');
    return {
      label: `${p.name === current ? '$(check)' : '$(blank)'} ${p.title || p.name}`,
      description: marks.join(' · '),
      detail: p.description || undefined,
      name: p.name,
    };
  });
  if (picked !== undefined) {
    items.unshift({
      label: '$(discard) Workspace default',
      description: r.active,
      detail: 'Forget this choice: use rulemap.profile, else the profile of rulemap.toml.',
      name: undefined,
    });
  }
  return items;
}

export interface PickerUi {
  showQuickPick(
    items: ProfilePickItem[],
    options: { title: string; placeHolder: string; matchOnDescription: boolean; matchOnDetail: boolean },
  ): Thenable<ProfilePickItem | undefined>;
  showWarningMessage(message: string): unknown;
}

/**
 * "Rulemap: Choose Agent Profile": list the server's profiles, remember the choice. Returns
 * false when nothing changed (cancelled, no server).
 */
export async function chooseProfile(
  api: RulemapApi,
  choice: ProfileChoice,
  ui: PickerUi,
  /** The active file: the server answers with its folder's default. */
  uri?: string,
): Promise<boolean> {
  const { result } = await choice.load(api, uri);
  if (!result) {
    ui.showWarningMessage('Rulemap: the language server did not list any agent profile (is it running?).');
    return false;
  }
  const item = await ui.showQuickPick(profilePickItems(result, choice.picked), {
    title: 'Rulemap: Choose Agent Profile',
    placeHolder: 'Which agent should the Rulemap views show the instructions of?',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (!item) {
    return false;
  }
  const before = choice.picked;
  await choice.pick(item.name);
  return before !== item.name;
}
