import { describe, expect, it, vi } from 'vitest';
import { ActiveInstructions } from '../src/activeInstructions';
import {
  chooseProfile,
  LEGACY_STATE_KEY,
  migrateLegacyPick,
  PickerUi,
  PROFILE_SETTING,
  ProfileChoice,
  ProfilePickItem,
  profilePickItems,
  workspaceSettings,
} from '../src/profileChoice';
import { fetchInstructionsText } from '../src/virtualDocument';
import { fakeApi, memento, PROFILES, result } from './fixtures';
import { ConfigurationTarget, settingsScopes, Uri, workspace } from './vscode-mock';

function ui(answer: (items: ProfilePickItem[]) => ProfilePickItem | undefined) {
  const shown: { items: ProfilePickItem[]; options: unknown }[] = [];
  const warnings: string[] = [];
  const u: PickerUi = {
    showQuickPick: (items, options) => {
      shown.push({ items, options });
      return Promise.resolve(answer(items));
    },
    showWarningMessage: (m) => warnings.push(m),
  };
  return { u, shown, warnings };
}

const profilesApi = () => fakeApi({ profiles: async () => PROFILES });

describe('ProfileChoice', () => {
  it('remembers the pick in the workspace setting, across reloads', async () => {
    const state = memento();
    const a = new ProfileChoice(state);
    expect(a.picked).toBeUndefined();
    await a.pick('gamma');
    expect(state.data.get(PROFILE_SETTING)).toBe('gamma');
    // a new window on the same workspace: the same workspace settings
    expect(new ProfileChoice(state).picked).toBe('gamma');
    await a.pick(undefined);
    expect(state.data.has(PROFILE_SETTING)).toBe(false);
    expect(new ProfileChoice(state).picked).toBeUndefined();
  });

  it('fires only on a change', async () => {
    const a = new ProfileChoice(memento());
    const seen: (string | undefined)[] = [];
    a.onDidChange((n) => seen.push(n));
    await a.pick('beta');
    await a.pick('beta');
    await a.pick(undefined);
    expect(seen).toEqual(['beta', undefined]);
  });

  it('ignores junk in the state', () => {
    expect(new ProfileChoice(memento({ [PROFILE_SETTING]: 42 })).picked).toBeUndefined();
    expect(new ProfileChoice(memento({ [PROFILE_SETTING]: '' })).picked).toBeUndefined();
  });

  it('keeps the server list and forgets a pick the server does not know', async () => {
    const state = memento({ [PROFILE_SETTING]: 'retired' });
    const a = new ProfileChoice(state);
    const r = await a.load(profilesApi());
    expect(r.dropped).toBe('retired');
    expect(a.picked).toBeUndefined();
    expect(a.info('gamma')?.title).toBe('Gamma CLI');
    const kept = new ProfileChoice(memento({ [PROFILE_SETTING]: 'beta' }));
    expect((await kept.load(profilesApi())).dropped).toBeUndefined();
    expect(kept.picked).toBe('beta');
  });

  it('keeps the pick when the server is not there', async () => {
    const a = new ProfileChoice(memento({ [PROFILE_SETTING]: 'beta' }));
    expect((await a.load(fakeApi({ profiles: async () => undefined }))).result).toBeUndefined();
    expect(a.picked).toBe('beta');
  });
});

describe('profilePickItems', () => {
  it("lists the server's profiles in its order: title, name, description", () => {
    const items = profilePickItems(PROFILES, undefined);
    expect(items.map((i) => i.name)).toEqual(['alpha', 'beta', 'gamma']);
    expect(items[0]).toEqual({
      label: '$(check) Alpha Agent',
      description: 'alpha · current · default',
      detail: 'Loads AGENTS.md files and their imports.',
      name: 'alpha',
    });
    expect(items[1].label).toBe('$(blank) Beta');
    expect(items[1].description).toBe('beta');
  });

  it('marks the pick and offers to go back to the workspace default', () => {
    const items = profilePickItems(PROFILES, 'gamma');
    expect(items[0]).toMatchObject({ name: undefined, description: 'alpha' });
    expect(items[0].label).toContain('Workspace default');
    const gamma = items.find((i) => i.name === 'gamma')!;
    expect(gamma.label).toBe('$(check) Gamma CLI');
    expect(gamma.description).toBe('gamma · current');
    expect(items.find((i) => i.name === 'alpha')!.description).toBe('alpha · default');
  });

  it('says why each selected agent was selected', () => {
    const items = profilePickItems({
      ...PROFILES,
      selection: [
        { name: 'alpha', title: 'Alpha Agent', why: 'the default model' },
        { name: 'gamma', title: 'Gamma CLI', why: 'GAMMA.md' },
      ],
    }, undefined);
    expect(items.find((i) => i.name === 'gamma')!.description).toBe('gamma · selected: GAMMA.md');
    expect(items.find((i) => i.name === 'alpha')!.description).toBe('alpha · current · default · selected: the default model');
    expect(items.find((i) => i.name === 'beta')!.description).toBe('beta');
  });

  it('keeps labels short: the title only (details go to description and detail)', () => {
    for (const i of profilePickItems(PROFILES, 'beta')) {
      expect(i.label.replace(/^\$\([a-z-]+\) /, '').length).toBeLessThanOrEqual(24);
    }
  });
});

describe('chooseProfile', () => {
  it('asks the server, shows the quick pick and remembers the answer', async () => {
    const state = memento();
    const choice = new ProfileChoice(state);
    const { u, shown } = ui((items) => items.find((i) => i.name === 'gamma'));
    expect(await chooseProfile(profilesApi(), choice, u)).toBe(true);
    expect(shown.length).toBe(1);
    expect(shown[0].options).toMatchObject({ title: 'Rulemap: Choose Agent Profile', matchOnDetail: true });
    expect(shown[0].items.map((i) => i.label)).toEqual(['$(check) Alpha Agent', '$(blank) Beta', '$(blank) Gamma CLI']);
    expect(state.data.get(PROFILE_SETTING)).toBe('gamma');
  });

  it("asks for the active file's folder", async () => {
    const api = fakeApi();
    const choice = new ProfileChoice(memento());
    await chooseProfile(api, choice, ui(() => undefined).u, 'file:///ws/src/a.ts');
    expect(api.calls).toEqual([{ method: 'profiles', params: { uri: 'file:///ws/src/a.ts' } }]);
  });

  it('changes nothing when cancelled', async () => {
    const choice = new ProfileChoice(memento({ [PROFILE_SETTING]: 'beta' }));
    const { u } = ui(() => undefined);
    expect(await chooseProfile(profilesApi(), choice, u)).toBe(false);
    expect(choice.picked).toBe('beta');
  });

  it('"Workspace default" forgets the pick', async () => {
    const choice = new ProfileChoice(memento({ [PROFILE_SETTING]: 'beta' }));
    const { u } = ui((items) => items[0]);
    expect(await chooseProfile(profilesApi(), choice, u)).toBe(true);
    expect(choice.picked).toBeUndefined();
  });

  it('says so when the server lists nothing', async () => {
    const choice = new ProfileChoice(memento());
    const { u, shown, warnings } = ui(() => undefined);
    expect(await chooseProfile(fakeApi({ profiles: async () => undefined }), choice, u)).toBe(false);
    expect(shown.length).toBe(0);
    expect(warnings[0]).toMatch(/did not list any agent profile/);
  });
});

describe('the pick reaches the server as `profile`', () => {
  it('in rulemap/effectiveInstructions for the views, and not at all without a pick', async () => {
    const choice = new ProfileChoice(memento());
    const api = fakeApi();
    const a = new ActiveInstructions(api, () => choice.picked, 5);
    a.setEditorUri(Uri.file('/ws/src/api/handler.ts') as never);
    await vi.waitFor(() => expect(a.result).toBeTruthy());
    expect(api.calls[0].params).toEqual({ uri: 'file:///ws/src/api/handler.ts' });
    await choice.pick('beta');
    await a.refresh();
    expect(api.calls[1].params).toEqual({ uri: 'file:///ws/src/api/handler.ts', profile: 'beta' });
  });

  it('in the text of Show / Copy Effective Instructions', async () => {
    const choice = new ProfileChoice(memento({ [PROFILE_SETTING]: 'gamma' }));
    const api = fakeApi({
      effectiveInstructions: async (params) => {
        api.calls.push({ method: 'effectiveInstructions', params });
        return result({ text: 'hello' });
      },
    });
    const r = await fetchInstructionsText(api, Uri.file('/ws/a.ts') as never, choice.picked);
    expect(r.ok).toBe(true);
    expect(api.calls[0].params).toEqual({ uri: 'file:///ws/a.ts', includeText: true, profile: 'gamma' });
  });
});

describe('the pick and the server\'s `profile` setting are one choice', () => {
  it('a pick writes rulemap.profile at workspace scope, the section the server reads', async () => {
    settingsScopes.reset();
    const choice = new ProfileChoice(workspaceSettings());
    const { u } = ui((items) => items.find((i) => i.name === 'gamma'));
    expect(await chooseProfile(profilesApi(), choice, u)).toBe(true);
    expect(settingsScopes.writes).toEqual([
      { key: 'rulemap.profile', value: 'gamma', target: ConfigurationTarget.Workspace },
    ]);
    // what the language client answers the server's workspace/configuration with
    expect(workspace.getConfiguration('rulemap').get('profile')).toBe('gamma');
    expect(choice.picked).toBe('gamma');
    // "Workspace default" clears the workspace value: the user's own value shows through
    settingsScopes.user.set('rulemap.profile', 'beta');
    const back = ui((items) => items[0]);
    expect(await chooseProfile(profilesApi(), choice, back.u)).toBe(true);
    expect(settingsScopes.workspace.has('rulemap.profile')).toBe(false);
    expect(choice.picked).toBeUndefined();
    expect(workspace.getConfiguration('rulemap').get('profile')).toBe('beta');
    settingsScopes.reset();
  });

  it('the picker shows a rulemap.profile set by hand, and the views hear of it once', async () => {
    settingsScopes.reset();
    settingsScopes.workspace.set('rulemap.profile', 'beta');
    const choice = new ProfileChoice(workspaceSettings());
    expect(choice.picked).toBe('beta');
    const seen: (string | undefined)[] = [];
    choice.onDidChange((n) => seen.push(n));
    // settings.json edited: the configuration event reaches settingChanged
    settingsScopes.workspace.set('rulemap.profile', 'gamma');
    choice.settingChanged();
    choice.settingChanged();
    expect(seen).toEqual(['gamma']);
    expect(profilePickItems(PROFILES, choice.picked).find((i) => i.name === 'gamma')!.label).toBe('$(check) Gamma CLI');
    // our own write's echo (the configuration event after a pick) is not a second change
    await choice.pick('alpha');
    choice.settingChanged();
    expect(seen).toEqual(['gamma', 'alpha']);
    settingsScopes.reset();
  });

  it('moves a pick an older version kept in workspaceState into the setting, once', async () => {
    settingsScopes.reset();
    const legacy = memento({ [LEGACY_STATE_KEY]: 'gamma' });
    await migrateLegacyPick(legacy, workspaceSettings());
    expect(settingsScopes.workspace.get('rulemap.profile')).toBe('gamma');
    expect(legacy.data.has(LEGACY_STATE_KEY)).toBe(false);
    // a setting already there wins; the old entry is dropped anyway
    const other = memento({ [LEGACY_STATE_KEY]: 'beta' });
    await migrateLegacyPick(other, workspaceSettings());
    expect(settingsScopes.workspace.get('rulemap.profile')).toBe('gamma');
    expect(other.data.has(LEGACY_STATE_KEY)).toBe(false);
    expect(PROFILE_SETTING).toBe('profile');
    settingsScopes.reset();
  });
});
