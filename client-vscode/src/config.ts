import * as vscode from 'vscode';

/** The profile chosen in settings (undefined: the server's default). */
export function configuredProfile(scope?: vscode.Uri): string | undefined {
  const p = vscode.workspace.getConfiguration('rulemap', scope).get<string>('profile');
  return p ? p : undefined;
}
