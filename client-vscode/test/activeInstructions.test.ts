import { describe, expect, it, vi } from 'vitest';
import { ActiveInstructions, isTrackable } from '../src/activeInstructions';
import { fakeApi, result } from './fixtures';
import { Uri } from './vscode-mock';

describe('ActiveInstructions', () => {
  it('follows file editors and asks for their instructions with the profile', async () => {
    const api = fakeApi();
    const a = new ActiveInstructions(api, () => 'mastra', 5);
    const changes: number[] = [];
    a.onDidChange(() => changes.push(1));
    a.setEditorUri(Uri.file('/ws/src/api/handler.ts') as never);
    await vi.waitFor(() => expect(a.result).toBeTruthy());
    expect(api.calls).toEqual([{ method: 'effectiveInstructions', params: { uri: 'file:///ws/src/api/handler.ts', profile: 'mastra' } }]);
    expect(changes.length).toBe(2); // cleared, then filled
  });

  it('keeps the last file when a non-file editor becomes active, clears with no editor', async () => {
    const a = new ActiveInstructions(fakeApi(), () => undefined, 5);
    a.setEditorUri(Uri.file('/ws/a.ts') as never);
    await vi.waitFor(() => expect(a.result).toBeTruthy());
    a.setEditorUri(Uri.parse('rulemap:/a.ts (effective instructions).md') as never);
    expect(a.uri?.toString()).toBe('file:///ws/a.ts');
    expect(a.result).toBeTruthy();
    a.setEditorUri(undefined);
    expect(a.uri).toBeUndefined();
    expect(a.result).toBeUndefined();
  });

  it('drops stale answers', async () => {
    let release: (() => void) | undefined;
    const api = fakeApi({
      effectiveInstructions: (params) =>
        params.uri.endsWith('slow.ts')
          ? new Promise((resolve) => (release = () => resolve(result({ target: 'slow.ts' }))))
          : Promise.resolve(result({ target: 'fast.ts' })),
    });
    const a = new ActiveInstructions(api, () => undefined, 5);
    a.setEditorUri(Uri.file('/ws/slow.ts') as never);
    a.setEditorUri(Uri.file('/ws/fast.ts') as never);
    await vi.waitFor(() => expect(a.result?.target).toBe('fast.ts'));
    release!();
    await new Promise((r) => setTimeout(r, 10));
    expect(a.result?.target).toBe('fast.ts');
  });

  it('debounces refreshes', async () => {
    const api = fakeApi();
    const a = new ActiveInstructions(api, () => undefined, 20);
    a.setEditorUri(Uri.file('/ws/a.ts') as never);
    await vi.waitFor(() => expect(a.result).toBeTruthy());
    for (let i = 0; i < 10; i++) a.scheduleRefresh();
    await new Promise((r) => setTimeout(r, 60));
    expect(api.calls.length).toBe(2);
    a.dispose();
  });

  it('does not ask a server that is not ready', async () => {
    const api = fakeApi({ isReady: false });
    const a = new ActiveInstructions(api, () => undefined, 5);
    a.setEditorUri(Uri.file('/ws/a.ts') as never);
    await new Promise((r) => setTimeout(r, 10));
    expect(api.calls.length).toBe(0);
    expect(isTrackable(Uri.parse('untitled:Untitled-1') as never)).toBe(false);
  });
});

describe('ActiveInstructions with open tabs', () => {
  it('keeps the file while its tab is open (a webview is active), forgets it once closed', async () => {
    let open = true;
    const a = new ActiveInstructions(fakeApi(), () => undefined, 5, () => open);
    a.setEditorUri(Uri.file('/ws/a.ts') as never);
    await vi.waitFor(() => expect(a.result).toBeTruthy());
    a.setEditorUri(undefined);
    expect(a.uri?.toString()).toBe('file:///ws/a.ts');
    open = false;
    a.setEditorUri(undefined);
    expect(a.uri).toBeUndefined();
  });
});
