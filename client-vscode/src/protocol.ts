// Types and method names of Rulemap's custom LSP extensions (docs/protocol.md).

export type Reason = 'project' | 'import' | 'rule' | 'nested' | 'scoped';

export interface LoadedFile {
  path: string;
  uri: string;
  reason: Reason | string;
  importedBy: string | null;
  depth: number;
  chars: number;
  cut: boolean;
  /** 0-based line of the `@import` in the importer (imports only). */
  line?: number;
}

export interface SkippedFile {
  path: string;
  why: string;
  uri?: string;
}

export interface EffectiveInstructions {
  profile: string;
  root: string;
  cwd: string;
  target: string | null;
  maxChars: number;
  totalChars: number;
  files: LoadedFile[];
  leftOut: string[];
  skipped: SkippedFile[];
  uri: string;
  text?: string;
}

export interface EffectiveInstructionsParams {
  uri: string;
  profile?: string;
  includeText?: boolean;
}

export interface MatchingRule {
  path: string;
  uri: string;
  globs: string[];
  matchedBy: string;
}

export interface RulesForFileResult {
  rules: MatchingRule[];
}

export interface ProblemCounts {
  error: number;
  warning: number;
  information: number;
  hint: number;
}

export interface InstructionFileInfo {
  path: string;
  uri: string;
  kind: 'instruction' | 'rule' | string;
  scoped: boolean;
  problems: ProblemCounts;
  matches: number | null;
  chars: number;
}

export interface InstructionFilesResult {
  files: InstructionFileInfo[];
}

export interface ProfileInfo {
  name: string;
  title: string;
  description: string;
}

export interface ProfilesResult {
  profiles: ProfileInfo[];
  active: string;
}

export interface GraphChangedParams {
  uris: string[];
}

export const Methods = {
  effectiveInstructions: 'rulemap/effectiveInstructions',
  rulesForFile: 'rulemap/rulesForFile',
  instructionFiles: 'rulemap/instructionFiles',
  graph: 'rulemap/graph',
  profiles: 'rulemap/profiles',
  graphChanged: 'rulemap/graphChanged',
} as const;

/**
 * What the views, decorations and status bar need from the language server.
 * Implemented by the client manager; mocked in unit tests.
 */
export interface RulemapApi {
  /** `null`: the server says the URI is not a file of a workspace folder; `undefined`: no answer (not running, error). */
  effectiveInstructions(params: EffectiveInstructionsParams): Promise<EffectiveInstructions | null | undefined>;
  rulesForFile(uri: string): Promise<RulesForFileResult | null | undefined>;
  instructionFiles(): Promise<InstructionFilesResult | null | undefined>;
  profiles(): Promise<ProfilesResult | null | undefined>;
  /** True when a server is running and ready to answer. */
  readonly isReady: boolean;
}
