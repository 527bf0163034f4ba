// A small stand-in for the `vscode` module: enough of the API for the pure view, decoration and
// status-bar modules to run under vitest.

import * as path from 'path';

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly authority: string,
    readonly path: string,
    readonly query: string,
    readonly fragment: string,
  ) {}

  static file(p: string): Uri {
    return new Uri('file', '', p.replace(/\\/g, '/'), '', '');
  }

  static parse(value: string): Uri {
    const m = /^([a-zA-Z][\w+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/.exec(value);
    if (!m) throw new Error(`bad uri ${value}`);
    return new Uri(m[1], m[2] ?? '', decodeURIComponent(m[3] ?? ''), m[4] ?? '', m[5] ?? '');
  }

  static from(c: { scheme: string; authority?: string; path?: string; query?: string; fragment?: string }): Uri {
    return new Uri(c.scheme, c.authority ?? '', c.path ?? '', c.query ?? '', c.fragment ?? '');
  }

  static joinPath(base: Uri, ...segments: string[]): Uri {
    return new Uri(base.scheme, base.authority, path.posix.join(base.path, ...segments), base.query, base.fragment);
  }

  get fsPath(): string {
    return this.path;
  }

  toString(): string {
    const auth = this.scheme === 'file' || this.authority ? `//${this.authority}` : '';
    const p = this.path
      .split('/')
      .map((s) => encodeURIComponent(s))
      .join('/');
    return `${this.scheme}:${auth}${p}${this.query ? `?${this.query}` : ''}${this.fragment ? `#${this.fragment}` : ''}`;
  }
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export class ThemeIcon {
  static readonly File = new ThemeIcon('file');
  static readonly Folder = new ThemeIcon('folder');
  constructor(
    readonly id: string,
    readonly color?: ThemeColor,
  ) {}
}

export class MarkdownString {
  constructor(public value = '') {}
  appendMarkdown(s: string): this {
    this.value += s;
    return this;
  }
}

export enum TreeItemCollapsibleState {
  None = 0,
  Collapsed = 1,
  Expanded = 2,
}

export class TreeItem {
  id?: string;
  description?: string | boolean;
  tooltip?: string | MarkdownString;
  iconPath?: ThemeIcon;
  contextValue?: string;
  command?: { command: string; title: string; arguments?: unknown[] };
  resourceUri?: Uri;
  constructor(
    public label: string,
    public collapsibleState: TreeItemCollapsibleState = TreeItemCollapsibleState.None,
  ) {}
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(sl: number, sc: number, el: number, ec: number) {
    this.start = new Position(sl, sc);
    this.end = new Position(el, ec);
  }
}

export class FileDecoration {
  propagate?: boolean;
  color?: ThemeColor;
  constructor(
    public badge?: string,
    public tooltip?: string,
  ) {}
}

type Listener<T> = (e: T) => unknown;

export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];
  readonly event = (l: Listener<T>) => {
    this.listeners.push(l);
    return { dispose: () => (this.listeners = this.listeners.filter((x) => x !== l)) };
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners = [];
  }
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}

export class MockStatusBarItem {
  text = '';
  tooltip: string | MarkdownString | undefined;
  command: string | undefined;
  backgroundColor: ThemeColor | undefined;
  name: string | undefined;
  visible = false;
  disposed = false;
  constructor(
    readonly id: string,
    readonly alignment: StatusBarAlignment,
    readonly priority: number,
  ) {}
  show(): void {
    this.visible = true;
  }
  hide(): void {
    this.visible = false;
  }
  dispose(): void {
    this.disposed = true;
  }
}

export const window = {
  createStatusBarItem: (id: string, alignment: StatusBarAlignment, priority: number) =>
    new MockStatusBarItem(id, alignment, priority),
};

export enum ConfigurationTarget {
  Global = 1,
  Workspace = 2,
  WorkspaceFolder = 3,
}

/** Settings values per scope (`section.key` → value), for `workspace.getConfiguration`. */
export const settingsScopes = {
  user: new Map<string, unknown>(),
  workspace: new Map<string, unknown>(),
  /** Every `update` call, in order. */
  writes: [] as { key: string; value: unknown; target: ConfigurationTarget | undefined }[],
  reset(): void {
    this.user.clear();
    this.workspace.clear();
    this.writes.length = 0;
  },
};

export const workspace = {
  getConfiguration(section: string) {
    const full = (key: string) => `${section}.${key}`;
    return {
      get<T>(key: string): T | undefined {
        const k = full(key);
        return (settingsScopes.workspace.has(k) ? settingsScopes.workspace.get(k) : settingsScopes.user.get(k)) as T | undefined;
      },
      inspect<T>(key: string): { key: string; globalValue?: T; workspaceValue?: T } {
        const k = full(key);
        return { key: k, globalValue: settingsScopes.user.get(k) as T | undefined, workspaceValue: settingsScopes.workspace.get(k) as T | undefined };
      },
      update(key: string, value: unknown, target?: ConfigurationTarget): Promise<void> {
        const k = full(key);
        settingsScopes.writes.push({ key: k, value, target });
        const scope = target === ConfigurationTarget.Global ? settingsScopes.user : settingsScopes.workspace;
        if (value === undefined) scope.delete(k);
        else scope.set(k, value);
        return Promise.resolve();
      },
    };
  },
  workspaceFolders: [] as { name: string; uri: Uri; index: number }[],
  getWorkspaceFolder(uri: Uri) {
    return this.workspaceFolders.find((f) => uri.path === f.uri.path || uri.path.startsWith(f.uri.path + '/'));
  },
  textDocuments: [] as { uri: Uri }[],
};

export enum QuickPickItemKind {
  Separator = -1,
  Default = 0,
}
