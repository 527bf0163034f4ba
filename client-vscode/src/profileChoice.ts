// The agent profile the views explain for: one choice, the workspace-scope value of the
// `rulemap.profile` setting. "Rulemap: Choose Agent Profile" (view title, status bar) writes it
// there, from the list the server sends (`rulemap/profiles`); the language client forwards the
// change (didChangeConfiguration) and the server's hovers, code lenses and inlay hints follow it,
// as the views do. A setting rather than a message of our own: the server already reads
// `profile` per folder, a user who edits settings.json sees the same choice, and other editors
// have the same knob. No profile name is written here: without a pick the server uses the
// user-level `rulemap.profile`, else rulemap.toml's `profile`, else its own default.

import * as vscode from 'vscode';
import { ProfileInfo, ProfilesResult, RulemapApi } from './protocol';

/** The key of the choice in its store: `profile` of the `rulemap` section. */
export const PROFILE_SETTING = 'profile';
/** Where older versions kept the pick (workspaceState): moved into the setting once. */
export const LEGACY_STATE_KEY = 'rulemap.agentProfile';

/** A key-value store: the workspace scope of the `rulemap` settings, or `vscode.Memento`. */
export interface StateStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

/** The `rulemap` section's workspace-scope values (what the picker writes, the server reads). */
export function workspaceSettings(): StateStore {
  const section = () => vscode.workspace.getConfiguration('rulemap');
  return {
    get: <T>(key: string) => section().inspect<T>(key)?.workspaceValue,
    update: (key: string, value: unknown) =>
      section().update(key, value, vscode.ConfigurationTarget.Workspace),
  };
}

/**
 * Move a pick kept by an older version (workspaceState) into the setting, unless the setting
 * already says something; the old entry is dropped either way so that it never competes.
 */
export async function migrateLegacyPick(legacy: StateStore, settings: StateStore): Promise<void> {
  const old = legacy.get<unknown>(LEGACY_STATE_KEY);
  if (old === undefined) return;
  if (typeof old === 'string' && old !== '' && settings.get<unknown>(PROFILE_SETTING) === undefined) {
    await settings.update(PROFILE_SETTING, old);
  }
  await legacy.update(LEGACY_STATE_KEY, undefined);
}

export class ProfileChoice implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<string | undefined>();
  /** Fires with the new pick (undefined: back to the workspace default). */
  readonly onDidChange = this.emitter.event;
  private catalog: ProfilesResult | undefined;
  /** The value the last event announced, so that our own write's echo is not news. */
  private announced: string | undefined;

  constructor(private readonly state: StateStore) {
    this.announced = this.picked;
  }

  /** The profile picked for this workspace; undefined: the server's workspace default. */
  get picked(): string | undefined {
    const v = this.state.get<unknown>(PROFILE_SETTING);
    return typeof v === 'string' && v !== '' ? v : undefined;
  }

  /**
   * The setting changed outside the picker (settings.json, the Settings editor, another window):
   * the views follow it as they follow a pick.
   */
  settingChanged(): void {
    const now = this.picked;
    if (now !== this.announced) {
      this.announced = now;
      this.emitter.fire(now);
    }
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
    await this.state.update(PROFILE_SETTING, name);
    this.announced = name;
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
    const selected = r.selection?.find((a) => a.name === p.name);
    if (selected) marks.push(`selected: ${selected.why}`);
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
      detail: 'Forget this choice: use your user-level rulemap.profile, else the profile of rulemap.toml.',
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
