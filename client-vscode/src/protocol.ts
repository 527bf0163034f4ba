// Types and method names of Rulemap's custom LSP extensions (docs/protocol.md).

export type Reason = 'project' | 'import' | 'rule' | 'nested' | 'scoped' | 'user' | 'requested';

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
  /** The agent's own loading step (profiles that load in numbered steps). */
  step?: number;
  tokens?: number;
  /** Cut by a per-file limit (as opposed to `cut` by a shared budget). */
  truncated?: boolean;
  /** 0-based line of the original file where the agent stops reading. */
  cutLine?: number;
  bytes?: number;
  /** The profile's remark on this file (shown in tooltips). */
  note?: string;
}

/** How the profile limits what it loads. */
export interface Budget {
  kind: 'shared' | 'per-file' | 'none' | string;
  unit: 'chars' | 'bytes' | 'tokens' | string;
  limit: number | null;
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
  /** Absent from servers older than the profile registry (then: a shared budget of `maxChars`). */
  budget?: Budget;
  files: LoadedFile[];
  leftOut: string[];
  /** URIs of `leftOut`, in the same order. */
  leftOutUris?: string[];
  skipped: SkippedFile[];
  /** The server's verdict: something is cut or left out. */
  overBudget?: boolean;
  /** The profile's decisions, shown under the tree (e.g. "the walk stops at the workspace root"). */
  notes?: string[];
  /** Present on `rulemap/effectiveInstructions` results (not inside `rulemap/compare` columns). */
  uri?: string;
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
  /** The workspace default (settings, else rulemap.toml, else the server's default). */
  active: string;
  /** The profiles checks run for in this workspace. */
  selected?: string[];
}

export interface CompareParams {
  uri: string;
  profiles?: string[];
}

export interface CompareColumn {
  profile: string;
  title: string;
  /** A short summary written by the server, e.g. "3 files · 1.2k/32k". */
  summary: string;
  overBudget: boolean;
  explanation: EffectiveInstructions;
}

export interface CompareResult {
  uri: string;
  target: string | null;
  columns: CompareColumn[];
}

export interface GraphChangedParams {
  uris: string[];
  /** Rule matches may have moved (absent from older servers: assume they did). */
  rulesChanged?: boolean;
}

export const Methods = {
  effectiveInstructions: 'rulemap/effectiveInstructions',
  rulesForFile: 'rulemap/rulesForFile',
  instructionFiles: 'rulemap/instructionFiles',
  graph: 'rulemap/graph',
  profiles: 'rulemap/profiles',
  compare: 'rulemap/compare',
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
  /** `uri`: answer for the workspace folder of that file (its default and selected profiles). */
  profiles(uri?: string): Promise<ProfilesResult | null | undefined>;
  /** `null`: the URI is not a file of a workspace folder; `undefined`: no answer. */
  compare(params: CompareParams): Promise<CompareResult | null | undefined>;
  /** True when a server is running and ready to answer. */
  readonly isReady: boolean;
}
