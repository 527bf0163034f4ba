import { describe, expect, it } from 'vitest';
import { fetchInstructionsText, instructionsUri, InstructionsDocumentProvider, targetOf } from '../src/virtualDocument';
import { fakeApi, result } from './fixtures';
import { Uri, workspace } from './vscode-mock';

describe('virtual instructions documents', () => {
  it('round-trips the target through the document URI', () => {
    const target = Uri.file('/ws/src/api/my handler.ts');
    const doc = instructionsUri(target as never);
    expect(doc.scheme).toBe('rulemap');
    expect(doc.path).toBe('/my handler.ts (effective instructions).md');
    expect(targetOf(doc)?.toString()).toBe(target.toString());
  });

  it('asks for the text with includeText and the profile', async () => {
    const api = fakeApi({
      effectiveInstructions: async (params) => {
        api.calls.push({ method: 'effectiveInstructions', params });
        return result({ text: '# Project\n\n[Rulemap: instructions truncated at 32000 characters.]' });
      },
    });
    const p = new InstructionsDocumentProvider(api, () => 'mastra');
    const text = await p.provideTextDocumentContent(instructionsUri(Uri.file('/ws/a.ts') as never));
    expect(text).toBe('# Project\n\n[Rulemap: instructions truncated at 32000 characters.]');
    expect(api.calls[0].params).toEqual({ uri: 'file:///ws/a.ts', includeText: true, profile: 'mastra' });
  });

  it('explains why there is no text', async () => {
    const target = Uri.file('/elsewhere/a.ts') as never;
    expect((await fetchInstructionsText(fakeApi({ isReady: false }), target, undefined)).text).toMatch(/not running/);
    expect((await fetchInstructionsText(fakeApi({ effectiveInstructions: async () => null }), target, undefined)).text).toMatch(
      /not inside a workspace folder/,
    );
    const noText = await fetchInstructionsText(fakeApi(), target, undefined);
    expect(noText.ok).toBe(false);
  });

  it('refreshes only open instruction documents', () => {
    const p = new InstructionsDocumentProvider(fakeApi(), () => undefined);
    const fired: string[] = [];
    p.onDidChange((u) => fired.push(u.toString()));
    workspace.textDocuments = [
      { uri: instructionsUri(Uri.file('/ws/a.ts') as never) as unknown as Uri },
      { uri: Uri.file('/ws/AGENTS.md') },
    ];
    p.refreshOpen();
    expect(fired.length).toBe(1);
    expect(fired[0]).toMatch(/^rulemap:/);
    workspace.textDocuments = [];
  });
});
