import { describe, expect, it } from 'vitest';
import { InstructionMap, MapPanel, mapHtml, messagePage } from '../src/instructionMap';
import { fakeApi } from './fixtures';

const PAGE = '<!DOCTYPE html><html><body><script>const data = {"files": 3};</script><div id="map"></div></body></html>';

function panel() {
  let disposeListener: (() => void) | undefined;
  const p: MapPanel & { reveals: number; dispose(): void } = {
    webview: { html: '' },
    title: 'Instruction Map',
    visible: true,
    reveals: 0,
    reveal() {
      this.reveals++;
    },
    onDidDispose(l) {
      disposeListener = l;
      return { dispose() {} };
    },
    dispose() {
      disposeListener?.();
    },
  };
  return p;
}

describe('mapHtml', () => {
  it("shows the server's page as it is", () => {
    expect(mapHtml({ html: PAGE }, true)).toEqual({ ok: true, html: PAGE });
  });

  it('says why there is no map: not running, no folder, no answer, an error, an empty page', () => {
    expect(mapHtml(undefined, false).html).toContain('not running');
    expect(mapHtml(null, true).html).toContain('No workspace folder');
    expect(mapHtml(undefined, true).html).toContain('did not answer rulemap/map');
    expect(mapHtml({ error: 'boom <b>' }, true)).toMatchObject({ ok: false });
    expect(mapHtml({ error: 'boom <b>' }, true).html).toContain('boom &lt;b&gt;');
    expect(mapHtml({ html: ' ' }, true).html).toContain('without a page');
  });

  it('a message page runs no script', () => {
    expect(messagePage('t', 'm')).toContain("default-src 'none'");
    expect(messagePage('t', 'm')).not.toContain('<script');
  });
});

describe('InstructionMap', () => {
  it('opens one panel, asks rulemap/map for the folder of the file, shows the page', async () => {
    const api = fakeApi({ map: async (p) => (api.calls.push({ method: 'map', params: p }), { html: PAGE }) });
    const made: ReturnType<typeof panel>[] = [];
    const map = new InstructionMap(api, () => {
      const p = panel();
      made.push(p);
      return p;
    });
    expect(await map.open('file:///ws/AGENTS.md')).toBe(true);
    expect(api.calls).toEqual([{ method: 'map', params: { uri: 'file:///ws/AGENTS.md' } }]);
    expect(made[0].webview.html).toBe(PAGE);
    // a second open reveals the same panel and reloads
    await map.open(undefined);
    expect(made.length).toBe(1);
    expect(made[0].reveals).toBe(1);
    expect(api.calls.length).toBe(2);
    // refresh asks again; a closed panel is made anew
    await map.refresh();
    expect(api.calls.length).toBe(3);
    made[0].dispose();
    expect(map.current).toBeUndefined();
    await map.open('file:///ws/AGENTS.md');
    expect(made.length).toBe(2);
  });

  it('shows a clear message on an error or no answer', async () => {
    const p = panel();
    const map = new InstructionMap(fakeApi({ map: async () => ({ error: 'the map failed: out of memory' }) }), () => p);
    expect(await map.open('file:///ws/a.md')).toBe(false);
    expect(p.webview.html).toContain('The server could not draw the map');
    expect(p.webview.html).toContain('the map failed: out of memory');
    const q = panel();
    const none = new InstructionMap(fakeApi(), () => q);
    await none.open(undefined);
    expect(q.webview.html).toContain('No workspace folder');
  });
});
