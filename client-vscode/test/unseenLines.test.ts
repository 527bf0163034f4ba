import { describe, expect, it } from 'vitest';
import type { UnseenLinesResult } from '../src/protocol';
import { UnseenEditor, unseenHover, UnseenKind, UnseenLinesController, unseenSegments } from '../src/unseenLines';
import { fakeApi } from './fixtures';
import { MarkdownString, Range, Uri } from './vscode-mock';

// A `rulemap/unseenLines` answer shaped like the contract (agent names are test data only).
const answer: UnseenLinesResult = {
  uri: 'file:///ws/NOTES.md',
  path: 'NOTES.md',
  agents: [
    {
      profile: 'alpha',
      title: 'Alpha Agent',
      files: 19,
      never: null,
      ranges: [
        { start: 3, end: 5, kind: 'stripped', files: 19, why: 'inside an HTML comment, which Alpha Agent removes' },
        { start: 40, end: 59, kind: 'cut', files: 7, why: 'past the 32,000-character budget' },
      ],
    },
    {
      profile: 'beta',
      title: 'Beta',
      files: 19,
      never: null,
      ranges: [{ start: 4, end: 8, kind: 'stripped', files: 19, why: 'inside an HTML comment, which Beta removes' }],
    },
    { profile: 'gamma', title: 'Gamma CLI', files: 0, never: 'Gamma CLI does not read it', ranges: [] },
  ],
};

describe('unseenSegments', () => {
  const segs = unseenSegments(answer, 50);

  it("marks an agent that never loads the file once, at line 0, not on every line", () => {
    expect(segs[0]).toMatchObject({ start: 0, end: 0, kind: 'never' });
    expect(segs[0].entries.map((e) => e.profile)).toEqual(['gamma']);
    expect(segs.filter((s) => s.kind === 'never').length).toBe(1);
  });

  it('splits overlapping ranges where the set of agents changes', () => {
    expect(segs.map((s) => [s.start, s.end, s.kind, s.entries.map((e) => e.profile).join('+')])).toEqual([
      [0, 0, 'never', 'gamma'],
      [3, 3, 'stripped', 'alpha'],
      [4, 5, 'stripped', 'alpha+beta'],
      [6, 8, 'stripped', 'beta'],
      [40, 49, 'cut', 'alpha'], // clamped to the document's 50 lines
    ]);
  });

  it('marks nothing for a file no agent loads (not an instruction file)', () => {
    const none: UnseenLinesResult = { ...answer, agents: answer.agents.map((a) => ({ ...a, never: 'does not read it', ranges: [] })) };
    expect(unseenSegments(none)).toEqual([]);
    expect(unseenSegments(null)).toEqual([]);
    expect(unseenSegments({ ...answer, agents: [] })).toEqual([]);
  });
});

describe('unseenHover', () => {
  const segs = unseenSegments(answer, 50);

  it('lists per agent why, as the server wrote it, and for how many files', () => {
    const h = unseenHover(segs[2]);
    expect(h).toContain('Lines 5–6');
    expect(h).toContain('- **Alpha Agent** — stripped for 19 files: inside an HTML comment, which Alpha Agent removes');
    expect(h).toContain('- **Beta** — stripped for 19 files: inside an HTML comment, which Beta removes');
    expect(unseenHover(segs[4])).toContain('**Alpha Agent** — cut for 7 files: past the 32,000-character budget');
  });

  it('says an agent never loads the file', () => {
    const h = unseenHover(segs[0]);
    expect(h).toContain('Gamma CLI never loads this file');
    expect(h).toContain('Gamma CLI does not read it');
  });
});

type Call = { type: string; options: { range: Range; hoverMessage: MarkdownString }[] };

function editor(uri: string, languageId = 'markdown', lineCount = 50) {
  const calls: Call[] = [];
  const e: UnseenEditor & { calls: Call[]; doc: { uri: Uri; version: number; languageId: string; lineCount: number } } = {
    calls,
    doc: { uri: Uri.parse(uri), version: 1, languageId, lineCount },
    get document() {
      return this.doc as never;
    },
    setDecorations(type: unknown, options: unknown) {
      calls.push({ type: (type as { kind: string }).kind, options: options as Call['options'] });
    },
  };
  return e;
}

const types = Object.fromEntries((['never', 'cut', 'stripped'] as UnseenKind[]).map((k) => [k, { kind: k, dispose() {} }])) as never;

function last(calls: Call[], kind: string) {
  return calls.filter((c) => c.type === kind).at(-1)?.options ?? [];
}

describe('UnseenLinesController', () => {
  it('asks for each visible markdown editor and draws the marks with their hovers', async () => {
    const api = fakeApi({ unseenLines: async (p) => (api.calls.push({ method: 'unseenLines', params: p }), answer) });
    const md = editor('file:///ws/NOTES.md');
    const ts = editor('file:///ws/src/a.ts', 'typescript');
    const c = new UnseenLinesController(api, { visibleEditors: () => [md, ts], enabled: () => true }, types, 0);
    await c.update();
    expect(api.calls.map((x) => x.params)).toEqual([{ uri: 'file:///ws/NOTES.md' }]);
    expect(ts.calls).toEqual([]);
    const stripped = last(md.calls, 'stripped');
    expect(stripped.map((o) => [o.range.start.line, o.range.end.line])).toEqual([
      [3, 3],
      [4, 5],
      [6, 8],
    ]);
    expect(stripped[1].hoverMessage.value).toContain('Beta');
    expect(last(md.calls, 'cut').map((o) => o.range.start.line)).toEqual([40]);
    expect(last(md.calls, 'never').map((o) => [o.range.start.line, o.range.end.line])).toEqual([[0, 0]]);
  });

  it('does not ask again for the same version; asks after an edit or a graph change', async () => {
    let asked = 0;
    const api = fakeApi({ unseenLines: async () => (asked++, answer) });
    const md = editor('file:///ws/NOTES.md');
    const c = new UnseenLinesController(api, { visibleEditors: () => [md], enabled: () => true }, types, 0);
    await c.update();
    await c.update();
    expect(asked).toBe(1);
    md.doc.version = 2;
    await c.update();
    expect(asked).toBe(2);
    c.graphChanged();
    await c.update();
    expect(asked).toBe(3);
    c.dispose();
  });

  it('clears the marks when rulemap.unseenLines.enabled is turned off', async () => {
    let enabled = true;
    const md = editor('file:///ws/NOTES.md');
    const c = new UnseenLinesController(fakeApi({ unseenLines: async () => answer }), { visibleEditors: () => [md], enabled: () => enabled }, types, 0);
    await c.update();
    expect(last(md.calls, 'stripped').length).toBe(3);
    enabled = false;
    await c.update();
    for (const k of ['never', 'cut', 'stripped']) expect(last(md.calls, k)).toEqual([]);
  });

  it('keeps what is drawn when the server does not answer (an older server)', async () => {
    const md = editor('file:///ws/NOTES.md');
    const c = new UnseenLinesController(fakeApi(), { visibleEditors: () => [md], enabled: () => true }, types, 0);
    await c.update();
    expect(md.calls).toEqual([]);
  });
});
