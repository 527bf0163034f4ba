import { describe, expect, it } from 'vitest';
import { answerWhy, InstructionMap, MapPanel, mapHtml, MAX_WHY_TEXT, messagePage } from '../src/instructionMap';
import { fakeApi } from './fixtures';

const SOURCE = 'https://*.vscode-cdn.net';
const NONCE = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const POLICY = `default-src 'none'; script-src 'nonce-${NONCE}'; style-src 'nonce-${NONCE}'; img-src data: ${SOURCE}; base-uri 'none'; form-action 'none'`;
const PAGE = `<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${POLICY}"></head><body><script nonce="${NONCE}">const data = {"files": 3};</script><div id="map"></div></body></html>`;
// what an older server answers: no policy
const OPEN_PAGE = '<!DOCTYPE html><html><body><script>const data = {"files": 3};</script><div id="map"></div></body></html>';

function panel() {
  let disposeListener: (() => void) | undefined;
  const p: MapPanel & { reveals: number; dispose(): void } = {
    webview: { html: '', cspSource: SOURCE },
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
  it("shows the server's page as it is when its policy is strict", () => {
    expect(mapHtml({ html: PAGE }, true, SOURCE)).toEqual({ ok: true, html: PAGE });
  });

  it('never shows a page without a strict policy (an older server), and says why', () => {
    const open = mapHtml({ html: OPEN_PAGE }, true, SOURCE);
    expect(open.ok).toBe(false);
    expect(open.html).toContain('no strict Content-Security-Policy');
    expect(open.html).toContain('has no Content-Security-Policy');
    expect(open.html).not.toContain('const data');
    // a policy for another webview's source is not this one's
    expect(mapHtml({ html: PAGE }, true, 'https://other.test').ok).toBe(false);
  });

  it('says why there is no map: not running, no folder, no answer, an error, an empty page', () => {
    expect(mapHtml(undefined, false, SOURCE).html).toContain('not running');
    expect(mapHtml(null, true, SOURCE).html).toContain('No workspace folder');
    expect(mapHtml(undefined, true, SOURCE).html).toContain('did not answer rulemap/map');
    expect(mapHtml({ error: 'boom <b>' }, true, SOURCE)).toMatchObject({ ok: false });
    expect(mapHtml({ error: 'boom <b>' }, true, SOURCE).html).toContain('boom &lt;b&gt;');
    expect(mapHtml({ html: ' ' }, true, SOURCE).html).toContain('without a page');
  });

  it('a message page runs no script, and styles itself by a fresh nonce only', () => {
    const page = messagePage('t', 'm');
    expect(page).toContain("default-src 'none'");
    expect(page).not.toContain('<script');
    expect(page).not.toContain('unsafe-inline');
    const nonce = /style-src 'nonce-([^']+)'/.exec(page)?.[1];
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(page).toContain(`<style nonce="${nonce}">`);
    expect(messagePage('t', 'm')).not.toContain(nonce);
    expect(page).not.toMatch(/\sstyle=|\son[a-z]+=/i);
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
    // the webview's own source goes with the request, for the page's policy
    expect(api.calls).toEqual([{ method: 'map', params: { uri: 'file:///ws/AGENTS.md', cspSource: SOURCE } }]);
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

  it("does not show a page without a strict policy", async () => {
    const p = panel();
    const map = new InstructionMap(fakeApi({ map: async () => ({ html: OPEN_PAGE }) }), () => p);
    expect(await map.open('file:///ws/a.md')).toBe(false);
    expect(p.webview.html).toContain('no strict Content-Security-Policy');
    expect(p.webview.html).not.toContain('const data');
  });
});

describe('answerWhy: the page asks where a sentence reaches each agent', () => {
  const result = { text: 'Validate input.', target: null, cwd: '.', places: [{ path: 'AGENTS.md', line: 3, exact: true }], agents: [], seenByAll: true };
  const api = (answer: unknown) => {
    const asked: unknown[] = [];
    return { asked, why: async (p: unknown) => (asked.push(p), answer as never) };
  };

  it("asks rulemap/why for the map's folder and hands the answer back", async () => {
    const a = api(result);
    expect(await answerWhy(a, 'file:///ws', 'Validate input.')).toEqual({ command: 'why', text: 'Validate input.', result });
    expect(a.asked).toEqual([{ uri: 'file:///ws', text: 'Validate input.' }]);
  });

  it('says why there is no answer', async () => {
    expect((await answerWhy(api({ error: 'boom' }), 'file:///ws', 'x'))?.error).toBe('boom');
    expect((await answerWhy(api(undefined), 'file:///ws', 'x'))?.error).toMatch(/did not answer/);
    expect((await answerWhy(api(null), 'file:///ws', 'x'))?.error).toMatch(/not indexed/);
    expect((await answerWhy(api(result), undefined, 'x'))?.error).toMatch(/no workspace folder/);
  });

  it('asks nothing for what is not a sentence', async () => {
    const a = api(result);
    for (const text of [undefined, 3, '', '   ', 'x'.repeat(MAX_WHY_TEXT + 1)]) {
      expect(await answerWhy(a, 'file:///ws', text)).toBeUndefined();
    }
    expect(a.asked).toEqual([]);
  });
});

describe('the map follows the views\' agent', () => {
  it('tells the page the new pick, and asks the server again for the default', async () => {
    const p = panel() as ReturnType<typeof panel> & { webview: { postMessage?: (m: unknown) => Thenable<boolean> } };
    const posted: unknown[] = [];
    p.webview.postMessage = async (m: unknown) => (posted.push(m), true);
    let asked = 0;
    const map = new InstructionMap({ isReady: true, map: async () => (asked++, { html: PAGE }) }, () => p);
    map.follow('codex'); // no panel yet: nothing
    expect(posted).toEqual([]);
    await map.open('file:///ws/a.ts');
    expect(asked).toBe(1);
    map.follow('claude-code');
    expect(posted).toEqual([{ command: 'agent', name: 'claude-code' }]);
    expect(asked).toBe(1); // the page keeps its selection and zoom: not drawn again
    map.follow(undefined);
    await new Promise((r) => setTimeout(r, 0));
    expect(asked).toBe(2); // back to the default: the server's lead, asked again
  });
});
