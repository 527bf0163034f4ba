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

/** One selected agent and why it was selected (the server's words: its file, or what named it). */
export interface SelectedAgent {
  name: string;
  title: string;
  why: string;
}

/** The agent the views speak for when no rulemap.profile is set, why, and what to pick instead. */
export interface LeadAgent {
  name: string;
  why: string;
  note?: string;
}

export interface ProfilesResult {
  profiles: ProfileInfo[];
  /** The agent the views show (your rulemap.profile, else the lead agent). */
  active: string;
  /** The profiles checks run for in this workspace. */
  selected?: string[];
  /** The same, each with why it was selected (absent before the folder is indexed). */
  selection?: SelectedAgent[];
  /** The lead agent (absent before the folder is indexed). */
  lead?: LeadAgent;
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

/** One tool access of a session: `read` / `edit` (or what the transcript named) of some paths. */
export interface SessionAccess {
  kind: string;
  paths: string[];
}

export interface SessionParams {
  /** A file or folder of the workspace the session ran in. */
  uri: string;
  /** Path of a transcript (Claude Code JSON lines, a message list, or a JSON list of steps). */
  transcript?: string;
  steps?: SessionAccess[];
  profile?: string;
  cwd?: string;
}

/** A file that joins the context at a step (as `files` of an explanation). */
export interface SessionFile {
  path: string;
  reason: Reason | string;
  importedBy: string | null;
  depth?: number;
  /** What is kept (a cut file's kept part). */
  chars: number;
  cut: boolean;
  step?: number;
  tokens?: number;
  truncated?: boolean;
  cutLine?: number;
  note?: string;
  /** Absent from the spec; used when the server sends it, else resolved against the workspace. */
  uri?: string;
}

export interface SessionStep {
  /** 0: the start-up load (`kind` "start-up"); i ≥ 1: the i-th tool step. */
  index: number;
  kind: string;
  /** Workspace-relative; a directory a search ran over ends in `/`. */
  paths: string[];
  joined: SessionFile[];
  /** Paths the step brought past the budget (or file objects, from other servers). */
  leftOut: (string | SessionFile)[];
  /** The joined files the budget cut. */
  cut?: string[];
  /** Budget used after this step, in `budget.unit`; `left`: of a shared budget, else null. */
  used: number;
  left: number | null;
  notice?: string | null;
}

export interface SessionProblem {
  /** 1-based line (transcripts) or entry (JSON lists); null: the input as a whole. */
  line: number | null;
  message: string;
}

export interface SessionResult {
  profile: string;
  title: string;
  /** The folder's absolute path: a joined file is at `root/path`. */
  root?: string;
  cwd?: string;
  /** False: the profile has no per-step model (`note` says what it does instead). */
  hasStepModel: boolean;
  note: string | null;
  budget: Budget;
  steps: SessionStep[];
  /** The index of the step at which the budget first cuts or leaves something out. */
  firstCutStep: number | null;
  notice: string | null;
  /** Unknown or malformed transcript lines (skipped). */
  problems: SessionProblem[];
  /** The profile's notes on the run. */
  notes?: string[];
}

/** The server refused (unreadable transcript, unknown profile): its message. */
export interface SessionError {
  error: string;
}

export interface GraphChangedParams {
  uris: string[];
  /** Rule matches may have moved (absent from older servers: assume they did). */
  rulesChanged?: boolean;
}

export interface ReachParams {
  uri: string;
  /** 0-based. */
  line?: number;
  profiles?: string[];
}

/** A directory (ends in `/`) or a file, and how many workspace files of it load the file. */
export interface ReachArea {
  path: string;
  files: number;
}

/** One way an agent's loads hold the file (the same reason, place and cut for `files` files). */
/** The other name an agent reads a file's text under (a symlink either way). */
export interface ReachThrough {
  /** The name it reads. */
  path: string;
  how: string;
  /** The file both names lead to. */
  real: string;
  /** The server's sentence (the other name the agent reads the text under), shown as is. */
  text: string;
}

export interface ReachWay {
  reason: Reason | string;
  /** The other name the agent reads the file under (null or absent: its own). */
  through?: ReachThrough | null;
  /** The other names the same load reads the file under again. */
  alsoAs?: string[];
  importedBy: string | null;
  /** 1-based place in the load. */
  position: number;
  /** The size of what comes before it in the load, in the agent's `unit`. */
  before: number;
  /** Its own size in that load (after any cut), in the agent's `unit`. */
  size: number;
  /** 1-based line where the agent stops reading it; null: read whole. */
  cutLine: number | null;
  seen: boolean;
  /** The start-up load (every file). */
  startUp: boolean;
  files: number;
  /** The deepest directory holding them all ('' = the root). */
  under: string;
  everyFileUnder: boolean;
  areas: ReachArea[];
  example: string | null;
}

export interface ReachLeftOut {
  files: number;
  under: string;
  areas: ReachArea[];
}

export interface ReachAgent {
  profile: string;
  title: string;
  /** The agent's budget unit: chars, bytes or tokens. */
  unit: string;
  limit: number | null;
  /** The agent's own name of its limit (e.g. a config key), or null. */
  setting: string | null;
  /** Workspace files whose load includes the file. */
  files: number;
  seen: number;
  /** Files whose load cuts it. */
  cut: number;
  ways: ReachWay[];
  leftOut: ReachLeftOut | null;
  /** Why no file's load includes it (null: some do). */
  never: string | null;
}

/** `rulemap/reach`: `rulemap reach --json` plus `uri`. */
export interface ReachResult {
  path: string;
  /** 1-based, when a line was asked about. */
  line: number | null;
  workspaceFiles: number;
  cwd: string;
  agents: ReachAgent[];
  uri: string;
}

export interface UnseenLinesParams {
  uri: string;
  profiles?: string[];
}

/** Lines (0-based, inclusive) an agent never brings to the model for `files` files. */
export interface UnseenRange {
  start: number;
  end: number;
  kind: 'stripped' | 'cut' | string;
  files: number;
  why: string;
}

export interface UnseenAgent {
  profile: string;
  title: string;
  files: number;
  /** Set: the agent loads the file for no file at all (the whole file unseen). */
  never: string | null;
  ranges: UnseenRange[];
}

export interface UnseenLinesResult {
  uri: string;
  path: string;
  agents: UnseenAgent[];
}

export interface WhyParams {
  /** The file the text is in (or a folder of the workspace). */
  uri: string;
  text: string;
  /** Workspace-relative path or file URI of the file the agent works on; omitted: start-up. */
  target?: string;
  profiles?: string[];
}

export interface WhyPlace {
  path: string;
  /** 1-based. */
  line: number;
  exact: boolean;
}

export interface WhyAgent {
  profile: string;
  title: string;
  seen: boolean;
  path: string | null;
  /** 1-based. */
  line: number | null;
  /** A sentence for people, shown as is. */
  why: string;
  also: { path: string; line: number }[];
  /** Where the agent would read the text (it never reads the file it is in), best first; never
   * a file holding it. `new`: no such file exists yet. Already worded in `why`. */
  advice?: { path: string; how: string; new: boolean }[];
}

/** `rulemap/why`: `rulemap why --json` plus `uri`. */
export interface WhyResult {
  text: string;
  target: string | null;
  cwd: string;
  places: WhyPlace[];
  agents: WhyAgent[];
  seenByAll: boolean;
  uri?: string;
}

export interface MapParams {
  uri: string;
  profiles?: string[];
  /** The webview's own source (`webview.cspSource`): the page's policy lets images come from it besides `data:`. */
  cspSource?: string;
}

export interface MapResult {
  /** A self-contained HTML page (inline scripts and data), headed by a strict Content-Security-Policy whose nonces its scripts and styles carry. */
  html: string;
}

/** The server refused or failed: its message. */
export interface RequestError {
  error: string;
}

export const Methods = {
  effectiveInstructions: 'rulemap/effectiveInstructions',
  rulesForFile: 'rulemap/rulesForFile',
  instructionFiles: 'rulemap/instructionFiles',
  graph: 'rulemap/graph',
  profiles: 'rulemap/profiles',
  compare: 'rulemap/compare',
  session: 'rulemap/session',
  reach: 'rulemap/reach',
  unseenLines: 'rulemap/unseenLines',
  why: 'rulemap/why',
  map: 'rulemap/map',
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
  /** `null`: the URI is not in a workspace folder; `undefined`: no answer (or an error, logged). */
  session(params: SessionParams): Promise<SessionResult | SessionError | null | undefined>;
  /** `null`: not a file of a workspace folder (or `line` past its end); `undefined`: no answer. */
  reach(params: ReachParams): Promise<ReachResult | null | undefined>;
  /** `null`: not a file of a workspace folder; `undefined`: no answer (not running, error, an older server). */
  unseenLines(params: UnseenLinesParams): Promise<UnseenLinesResult | null | undefined>;
  /** `null`: not in a workspace folder; `{error}`: the server refused (its message); `undefined`: not running. */
  why(params: WhyParams): Promise<WhyResult | RequestError | null | undefined>;
  /** `null`: not in a workspace folder; `{error}`: the server refused or failed; `undefined`: not running. */
  map(params: MapParams): Promise<MapResult | RequestError | null | undefined>;
  /** True when a server is running and ready to answer. */
  readonly isReady: boolean;
}
