import { describe, expect, it } from 'vitest';
import type { SessionResult } from '../src/protocol';
import {
  buildSessionTree,
  joinedDescription,
  SessionNode,
  SessionProvider,
  sessionTreeItem,
  sessionViewHeader,
  stepDescription,
  stepLabel,
} from '../src/views/session';
import { fakeApi, ROOT } from './fixtures';
import { MarkdownString, ThemeIcon, TreeItemCollapsibleState } from './vscode-mock';

// A `rulemap/session` answer shaped like the contract (names and numbers are test data only).
const replay: SessionResult = {
  profile: 'alpha',
  title: 'Alpha Agent',
  hasStepModel: true,
  note: null,
  budget: { kind: 'shared', unit: 'chars', limit: 4000 },
  steps: [
    {
      index: 0,
      kind: 'start',
      paths: [],
      joined: [{ path: 'main.md', reason: 'project', importedBy: null, chars: 1200, cut: false, step: 0 }],
      leftOut: [],
      used: 1200,
      left: 2800,
    },
    {
      index: 1,
      kind: 'read',
      paths: ['src/a.ts'],
      joined: [
        { path: 'src/main.md', reason: 'nested', importedBy: null, chars: 900, cut: false, step: 1 },
        { path: 'docs/style.md', reason: 'import', importedBy: 'src/main.md', chars: 300, cut: false, step: 1 },
      ],
      leftOut: [],
      used: 2400,
      left: 1600,
    },
    {
      index: 2,
      kind: 'edit',
      paths: ['packages/api/server/handlers/x.py', 'packages/api/y.py'],
      joined: [{ path: 'packages/api/main.md', reason: 'nested', importedBy: null, chars: 1600, cut: true, step: 2 }],
      leftOut: ['packages/api/server/handlers/deep/nested/rules.md'],
      used: 4000,
      left: 0,
    },
  ],
  firstCutStep: 2,
  notice: 'The instructions were truncated to fit 4,000 characters.',
  problems: [{ line: 7, message: 'not JSON' }],
};

type Kinds = SessionNode['kind'];

describe('buildSessionTree', () => {
  const tree = buildSessionTree(replay, ROOT);

  it('one row per step in order, the first-cut row right before its step, problems last', () => {
    expect(tree.map((n) => n.kind)).toEqual<Kinds[]>(['step', 'step', 'firstCut', 'step', 'problems']);
    const steps = tree.filter((n): n is Extract<SessionNode, { kind: 'step' }> => n.kind === 'step');
    expect(steps.map((s) => s.step.index)).toEqual([0, 1, 2]);
    expect(steps.map((s) => s.cutsHere)).toEqual([false, false, true]);
  });

  it("a step's children are what joins (in order), then what it left out; paths open in the workspace", () => {
    const last = tree[3] as Extract<SessionNode, { kind: 'step' }>;
    expect(last.children.map((c) => c.kind)).toEqual<Kinds[]>(['joined', 'leftOut']);
    const joined = last.children[0] as Extract<SessionNode, { kind: 'joined' }>;
    expect(joined.uri).toBe('file:///ws/packages/api/main.md');
    const second = tree[1] as Extract<SessionNode, { kind: 'step' }>;
    expect(second.children.map((c) => (c.kind === 'joined' ? c.file.path : ''))).toEqual(['src/main.md', 'docs/style.md']);
  });

  it('is empty without an answer, and has no cut row when nothing is cut', () => {
    expect(buildSessionTree(undefined, ROOT)).toEqual([]);
    expect(buildSessionTree(null, ROOT)).toEqual([]);
    const calm = buildSessionTree({ ...replay, firstCutStep: null, problems: [] }, ROOT);
    expect(calm.map((n) => n.kind)).toEqual<Kinds[]>(['step', 'step', 'step']);
  });

  it('uses the uri the server sends when it sends one', () => {
    const withUri = { ...replay, steps: [{ ...replay.steps[0], joined: [{ ...replay.steps[0].joined[0], uri: 'file:///elsewhere/main.md' }] }] };
    const step = buildSessionTree(withUri, ROOT)[0] as Extract<SessionNode, { kind: 'step' }>;
    expect((step.children[0] as Extract<SessionNode, { kind: 'joined' }>).uri).toBe('file:///elsewhere/main.md');
  });
});

describe('labels stay short (the default sidebar width)', () => {
  it('step labels: "Step 1 · read a.ts" (the file name; long ones shortened in the middle), +N for more paths', () => {
    expect(stepLabel(replay.steps[1])).toBe('Step 1 · read a.ts');
    expect(stepLabel(replay.steps[0])).toBe('Step 0 · start');
    expect(stepLabel(replay.steps[2])).toBe('Step 2 · edit x.py +1');
    const long = stepLabel({ ...replay.steps[1], paths: ['src/components/a-very-long-component-name.tsx'] });
    expect(long).toBe('Step 1 · read a-very-long…me.tsx');
    // a directory a search ran over keeps its trailing slash
    expect(stepLabel({ ...replay.steps[1], kind: 'read', paths: ['src/api/'] })).toBe('Step 1 · read api/');
  });

  it('step descriptions: files joined, budget used, left out', () => {
    const [s0, , , s2] = buildSessionTree(replay, ROOT) as Extract<SessionNode, { kind: 'step' }>[];
    expect(stepDescription(s0)).toBe('+1 · 1.2k');
    expect(stepDescription(s2)).toBe('+1 · 4k · 1 out');
  });

  it('file descriptions: size, cut (the icon tells the reason)', () => {
    const s2 = buildSessionTree(replay, ROOT)[3] as Extract<SessionNode, { kind: 'step' }>;
    expect(joinedDescription(s2.children[0] as Extract<SessionNode, { kind: 'joined' }>)).toBe('1.6k · cut');
  });
});

describe('sessionTreeItem', () => {
  const tree = buildSessionTree(replay, ROOT);

  it('puts the details in tooltips', () => {
    const step = sessionTreeItem(tree[3]);
    expect(step.collapsibleState).toBe(TreeItemCollapsibleState.Expanded);
    const tip = (step.tooltip as MarkdownString).value;
    expect(tip).toContain('`packages/api/server/handlers/x.py`');
    expect(tip).toContain('`packages/api/y.py`');
    expect(tip).toContain('Used 4,000 characters · 0 characters left of 4,000 characters');
    expect(tip).toContain('first cuts');
    expect((step.iconPath as ThemeIcon).id).toBe('warning');

    const file = sessionTreeItem((tree[1] as Extract<SessionNode, { kind: 'step' }>).children[1]);
    expect(file.label).toBe('docs/style.md');
    const fileTip = (file.tooltip as MarkdownString).value;
    expect(fileTip).toContain('Imported by `src/main.md`');
    expect(fileTip).toContain('Joins at step 1');
    expect(file.command?.command).toBe('vscode.open');

    const leftOut = sessionTreeItem((tree[3] as Extract<SessionNode, { kind: 'step' }>).children[1]);
    expect(leftOut.description).toBe('left out');
    expect(String(leftOut.label).length).toBeLessThanOrEqual(28);
    expect((leftOut.tooltip as MarkdownString).value).toContain('packages/api/server/handlers/deep/nested/rules.md');
  });

  it('an agent without a shared budget: "no shared budget", never "of 0"', () => {
    const none = { ...replay, budget: { kind: 'none', unit: 'chars', limit: 0 } } as SessionResult;
    const step = sessionTreeItem(buildSessionTree(none, ROOT)[0]);
    const tip = (step.tooltip as MarkdownString).value;
    expect(tip).toContain('Used 1,200 characters');
    expect(tip).toContain('no shared budget');
    expect(tip).not.toContain('of 0');
  });

  it('marks the first cut with its own row', () => {
    const cut = sessionTreeItem(tree[2]);
    expect(cut.label).toBe('First cut · step 2');
    expect((cut.tooltip as MarkdownString).value).toContain('4,000 characters');
  });

  it('lists transcript problems by line', () => {
    const problems = tree[4] as Extract<SessionNode, { kind: 'problems' }>;
    expect(sessionTreeItem(problems).label).toBe('Problems (1)');
    const one = sessionTreeItem(problems.children[0]);
    expect(one.label).toBe('Line 7');
    expect(one.description).toBe('not JSON');
  });
});

describe('sessionViewHeader', () => {
  it('summarises the replay; the profile in the description', () => {
    const h = sessionViewHeader(replay, { transcript: '/ws/logs/run.jsonl', asked: true });
    expect(h.description).toBe('Alpha Agent');
    expect(h.message).toBe('run.jsonl: 3 steps · first cut at step 2 · 1 skipped line — The instructions were truncated to fit 4,000 characters.');
  });

  it("says plainly when the profile has no per-step model (the server's note)", () => {
    const h = sessionViewHeader(
      { ...replay, hasStepModel: false, note: 'Beta loads once at start; it has no per-step model.', notice: null, firstCutStep: null, problems: [] },
      { transcript: 'C:\\logs\\s.json', asked: true },
    );
    expect(h.message).toBe('s.json: 3 steps — Beta loads once at start; it has no per-step model.');
  });

  it('nothing before a replay; a clear message without an answer', () => {
    expect(sessionViewHeader(undefined, { asked: false })).toEqual({ description: undefined, message: undefined });
    expect(sessionViewHeader(undefined, { asked: true }).message).toMatch(/did not replay/);
    expect(sessionViewHeader(null, { asked: true }).message).toMatch(/not inside a workspace folder/);
  });
});

describe('SessionProvider', () => {
  it('sends rulemap/session with the transcript and shows the answer; replays for another profile', async () => {
    const api = fakeApi({
      session: async (params: unknown) => {
        api.calls.push({ method: 'session', params });
        return replay;
      },
    });
    const view: { description?: string; message?: string } = {};
    const provider = new SessionProvider(api, () => ROOT);
    provider.attach(view);
    let fired = 0;
    provider.onDidChangeTreeData(() => fired++);
    await provider.replay({ uri: 'file:///ws', transcript: '/ws/logs/run.jsonl' });
    expect(api.calls).toEqual([{ method: 'session', params: { uri: 'file:///ws', transcript: '/ws/logs/run.jsonl' } }]);
    expect(provider.getChildren().map((n) => n.kind)).toEqual<Kinds[]>(['step', 'step', 'firstCut', 'step', 'problems']);
    expect(provider.getChildren(provider.getChildren()[1]).length).toBe(2);
    expect(view.description).toBe('Alpha Agent');
    expect(fired).toBe(1);

    await provider.replayFor('gamma');
    expect(api.calls[1].params).toEqual({ uri: 'file:///ws', transcript: '/ws/logs/run.jsonl', profile: 'gamma' });
    await provider.replayFor(undefined);
    expect(api.calls[2].params).toEqual({ uri: 'file:///ws', transcript: '/ws/logs/run.jsonl' });
  });

  it('replays nothing for a profile change before any session was replayed', async () => {
    const api = fakeApi();
    const provider = new SessionProvider(api, () => ROOT);
    await provider.replayFor('gamma');
    expect(api.calls).toEqual([]);
    expect(provider.getChildren()).toEqual([]);
  });
});

describe('the server shape of docs/protocol.md', () => {
  const real: SessionResult = {
    ...replay,
    root: '/abs/root',
    cwd: '.',
    steps: [{ ...replay.steps[0], kind: 'start-up', cut: [], notice: null }, ...replay.steps.slice(1)],
    problems: [{ line: null, message: 'the input is empty' }],
    notes: [],
  };

  it("resolves paths against the answer's root, labels the start-up step", () => {
    const tree = buildSessionTree(real, ROOT);
    const first = tree[0] as Extract<SessionNode, { kind: 'step' }>;
    expect(stepLabel(first.step)).toBe('Step 0 · start-up');
    expect((first.children[0] as Extract<SessionNode, { kind: 'joined' }>).uri).toBe('file:///abs/root/main.md');
  });

  it('a problem of the whole input (line null) reads "Input"', () => {
    const problems = buildSessionTree(real, ROOT).at(-1) as Extract<SessionNode, { kind: 'problems' }>;
    expect(sessionTreeItem(problems.children[0]).label).toBe('Input');
  });

  it("shows the server's refusal (unreadable transcript, unknown profile) in the view", async () => {
    expect(buildSessionTree({ error: 'x' }, ROOT)).toEqual([]);
    expect(sessionViewHeader({ error: 'transcript /t.jsonl: no such file' }, { asked: true }).message).toBe(
      'Rulemap could not replay it: transcript /t.jsonl: no such file',
    );
    const api = fakeApi({ session: async () => ({ error: 'unknown profile "zeta"' }) });
    const view: { description?: string; message?: string } = {};
    const provider = new SessionProvider(api, () => ROOT);
    provider.attach(view);
    await provider.replay({ uri: 'file:///ws', transcript: '/ws/t.jsonl', profile: 'zeta' });
    expect(view.message).toContain('unknown profile "zeta"');
    expect(provider.getChildren()).toEqual([]);
  });
});
