import { describe, expect, it } from 'vitest';
import type { WhyResult } from '../src/protocol';
import {
  quoted,
  runWhyNotSeen,
  TargetItem,
  targetItems,
  textToAsk,
  verdictMessage,
  whyDetails,
  WhyDocuments,
  whyTitle,
  WhyUi,
} from '../src/whyNotSeen';
import { fakeApi } from './fixtures';
import { QuickPickItemKind, Range, Uri } from './vscode-mock';

// A `rulemap/why` answer shaped like the contract (agent names are test data only).
const answer: WhyResult = {
  text: 'hidden note',
  target: null,
  cwd: '.',
  places: [{ path: 'NOTES.md', line: 4, exact: true }],
  agents: [
    { profile: 'alpha', title: 'Alpha Agent', seen: false, path: 'NOTES.md', line: 4, why: 'stripped: line 4 of `NOTES.md` is inside an HTML comment', also: [] },
    { profile: 'beta', title: 'Beta', seen: true, path: 'NOTES.md', line: 4, why: 'reaches the model at start-up', also: [] },
  ],
  seenByAll: false,
  uri: 'file:///ws/NOTES.md',
};

function doc(lines: string[]) {
  return {
    lineAt: (i: number) => ({ text: lines[i] }),
    getText: (r?: Range) => (r ? lines[r.start.line].slice(r.start.character, r.end.character) : lines.join('\n')),
  };
}

function selection(sl: number, sc: number, el: number, ec: number) {
  const r = new Range(sl, sc, el, ec) as Range & { isEmpty: boolean; active: { line: number } };
  r.isEmpty = sl === el && sc === ec;
  r.active = { line: el };
  return r;
}

describe('textToAsk', () => {
  const d = doc(['# Notes', '', '  Keep functions small.  ']);
  it('takes the selection, else the line of the caret; nothing on a blank line', () => {
    expect(textToAsk(d as never, selection(2, 2, 2, 11) as never)).toBe('Keep func');
    expect(textToAsk(d as never, selection(2, 0, 2, 0) as never)).toBe('Keep functions small.');
    expect(textToAsk(d as never, selection(1, 0, 1, 0) as never)).toBeUndefined();
  });
});

describe('targetItems', () => {
  it('offers start-up first, then the open files, then "Choose a file…"', () => {
    const items = targetItems([
      { uri: 'file:///ws/src/api/handler.ts', relative: 'src/api/handler.ts' },
      { uri: 'file:///ws/src/api/handler.ts', relative: 'src/api/handler.ts' },
      { uri: 'file:///ws/main.py', relative: 'main.py' },
    ]);
    const rows = items.filter((i) => i.kind !== QuickPickItemKind.Separator);
    expect(rows.map((i) => i.label)).toEqual(['$(rocket) At start-up', '$(file) handler.ts', '$(file) main.py', '$(folder-opened) Choose a file…']);
    expect(rows[0].target).toBeUndefined();
    expect(rows[1]).toMatchObject({ target: 'file:///ws/src/api/handler.ts', description: 'src/api', targetLabel: 'for src/api/handler.ts' });
    expect(rows[3].choose).toBe(true);
  });
});

describe('verdicts', () => {
  it('names one agent in the question when only one is asked about', () => {
    expect(whyTitle('Beta')).toBe("Why doesn't Beta see this?");
    expect(whyTitle(undefined)).toBe("Why doesn't an agent see this?");
  });

  it('warns with the agents that miss the text and why; lists those that see it', () => {
    const v = verdictMessage(answer, 'hidden note', 'at start-up');
    expect(v.level).toBe('warning');
    expect(v.message).toBe(
      'Rulemap: 1 of 2 agents do not see “hidden note” at start-up. ✗ Alpha Agent: stripped: line 4 of `NOTES.md` is inside an HTML comment ✓ Beta',
    );
    expect(v.actions).toEqual(['Show Details']);
  });

  it('asks the question in the agent\'s name for a single agent', () => {
    const v = verdictMessage({ ...answer, agents: [answer.agents[0]] }, 'hidden note', 'at start-up');
    expect(v.message.startsWith("Rulemap: Why doesn't Alpha Agent see this? “hidden note” at start-up:")).toBe(true);
  });

  it('informs when every agent sees it, and warns when the text is nowhere', () => {
    const all = verdictMessage({ ...answer, seenByAll: true, agents: answer.agents.map((a) => ({ ...a, seen: true })) }, 'x', 'for a.ts');
    expect(all).toMatchObject({ level: 'info', message: 'Rulemap: ✓ both agents see “x” for a.ts.' });
    const nowhere = verdictMessage({ ...answer, places: [] }, 'x', 'at start-up');
    expect(nowhere).toEqual({ level: 'warning', message: 'Rulemap: “x” is in no instruction file, rule or file they import.', actions: [] });
  });

  it('details: the text, where it is, per agent ✓/✗ and why', () => {
    const md = whyDetails(answer, 'hidden note', 'at start-up', whyTitle(undefined));
    expect(md).toContain("# Why doesn't an agent see this?");
    expect(md).toContain('> hidden note');
    expect(md).toContain('Found in: `NOTES.md` line 4');
    expect(md).toContain('## ✗ Alpha Agent (`alpha`)\n\nstripped: line 4');
    expect(md).toContain('## ✓ Beta (`beta`)');
    expect(md.trim().endsWith('Not every agent sees it.')).toBe(true);
    const none = whyDetails({ ...answer, agents: [answer.agents[0]] }, 'hidden note', 'at start-up', 't');
    expect(none.trim().endsWith('No agent sees it.')).toBe(true);
  });

  it('shortens long texts in messages', () => {
    expect(quoted('a'.repeat(100), 10)).toBe(`“${'a'.repeat(9)}…”`);
  });
});

function ui(pick: (items: TargetItem[]) => TargetItem | undefined, extra: Partial<WhyUi> = {}) {
  const shown: { level: string; message: string; actions: string[] }[] = [];
  const details: string[] = [];
  const titles: string[] = [];
  const u: WhyUi & { shown: typeof shown; details: string[]; titles: string[] } = {
    shown,
    details,
    titles,
    pickTarget: async (items, title) => (titles.push(title), pick(items)),
    chooseFile: async () => Uri.file('/ws/src/picked.ts') as never,
    progress: (_t, task) => task(),
    showInformationMessage: async (message, ...actions) => (shown.push({ level: 'info', message, actions }), actions[0]),
    showWarningMessage: async (message, ...actions) => (shown.push({ level: 'warning', message, actions }), actions[0]),
    showDetails: async (md) => void details.push(md),
    ...extra,
  };
  return u;
}

describe('runWhyNotSeen', () => {
  it('start-up: asks without a target and shows the verdict, then the details', async () => {
    const api = fakeApi({ why: async (p) => (api.calls.push({ method: 'why', params: p }), answer) });
    const u = ui((items) => items[0]);
    const r = await runWhyNotSeen(api, u, { uri: 'file:///ws/NOTES.md', text: 'hidden note', openFiles: [] });
    expect(api.calls).toEqual([{ method: 'why', params: { uri: 'file:///ws/NOTES.md', text: 'hidden note' } }]);
    expect(u.titles[0]).toBe("Why doesn't an agent see this? “hidden note” — for which file?");
    expect(u.shown[0].level).toBe('warning');
    expect(r?.shown).toContain('✗ Alpha Agent');
    await new Promise((res) => setTimeout(res, 0));
    expect(u.details[0]).toContain('## ✗ Alpha Agent');
  });

  it('an open file: asks for it as the target; "Choose a file…" asks for the chosen one', async () => {
    const api = fakeApi({ why: async (p) => (api.calls.push({ method: 'why', params: p }), { ...answer, target: 'src/a.ts' }) });
    await runWhyNotSeen(api, ui((items) => items.find((i) => i.target)), {
      uri: 'file:///ws/NOTES.md',
      text: 'hidden note',
      openFiles: [{ uri: 'file:///ws/src/a.ts', relative: 'src/a.ts' }],
    });
    const u = ui((items) => items.find((i) => i.choose));
    await runWhyNotSeen(api, u, { uri: 'file:///ws/NOTES.md', text: 'hidden note', openFiles: [], agentTitle: 'Beta' });
    expect(api.calls.map((c) => (c.params as { target?: string }).target)).toEqual(['file:///ws/src/a.ts', 'file:///ws/src/picked.ts']);
    expect(u.titles[0].startsWith("Why doesn't Beta see this?")).toBe(true);
    expect(u.shown[0].message).toContain('for src/a.ts');
  });

  it('stops when the pick is dismissed, and explains when there is no text, no server or an error', async () => {
    const api = fakeApi({ why: async () => ({ error: 'the text is empty' }) });
    expect(await runWhyNotSeen(api, ui(() => undefined), { uri: 'file:///ws/N.md', text: 'x', openFiles: [] })).toBeUndefined();
    const u = ui((items) => items[0]);
    await runWhyNotSeen(api, u, { uri: 'file:///ws/N.md', text: undefined, openFiles: [] });
    await runWhyNotSeen(api, u, { uri: 'file:///ws/N.md', text: 'x', openFiles: [] });
    await runWhyNotSeen(fakeApi(), u, { uri: 'file:///ws/N.md', text: 'x', openFiles: [] });
    await runWhyNotSeen({ ...fakeApi(), isReady: false }, u, { uri: 'file:///ws/N.md', text: 'x', openFiles: [] });
    expect(u.shown.map((s) => s.message)).toEqual([
      'Rulemap: select the text (or click in a line) of an instruction file to ask who sees it.',
      'Rulemap: could not tell who sees “x”: the text is empty',
      'Rulemap: the server did not answer (an older server without `rulemap/why`? see "Rulemap: Show Output").',
      'Rulemap: the language server is not running (see "Rulemap: Show Output").',
    ]);
  });
});

describe('WhyDocuments', () => {
  it('keeps each answer as a read-only markdown document', () => {
    const docs = new WhyDocuments();
    const uri = docs.add('# hi');
    expect(uri.scheme).toBe('rulemap-why');
    expect(uri.path.endsWith('.md')).toBe(true);
    expect(docs.provideTextDocumentContent(uri as never)).toBe('# hi');
    expect(docs.provideTextDocumentContent(Uri.parse('rulemap-why:/gone.md') as never)).toContain('no longer kept');
  });
});
