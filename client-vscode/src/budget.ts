// Presenting the budget the server reports (pure). Which budget an agent has, in which unit, and
// whether a load is over it are the server's facts (`budget`, `overBudget`): nothing here
// decides them, it only formats them.

import { Budget, EffectiveInstructions, LoadedFile } from './protocol';
import { formatChars, formatInt } from './format';

/** The result's budget; servers older than the profile registry only sent `maxChars`. */
export function budgetOf(r: EffectiveInstructions): Budget {
  return r.budget ?? { kind: 'shared', unit: 'chars', limit: r.maxChars };
}

/** Is anything of this load cut or left out? The server says; older servers did not. */
export function isOverBudget(r: EffectiveInstructions): boolean {
  if (typeof r.overBudget === 'boolean') {
    return r.overBudget;
  }
  return r.files.some(isCut) || r.leftOut.length > 0 || r.totalChars > r.maxChars;
}

/** Did the agent stop reading this file early (a shared budget's cut or a per-file limit)? */
export function isCut(f: LoadedFile): boolean {
  return f.cut || f.truncated === true;
}

/** 812 → "812B", 32768 → "32KiB" (byte limits are powers of two, so KiB reads cleanly). */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n)) {
    return '?';
  }
  if (Math.abs(n) < 1024) {
    return `${Math.round(n)}B`;
  }
  if (Math.abs(n) < 1024 * 1024) {
    return `${trimZero((n / 1024).toFixed(1))}KiB`;
  }
  return `${trimZero((n / (1024 * 1024)).toFixed(1))}MiB`;
}

function trimZero(s: string): string {
  return s.endsWith('.0') ? s.slice(0, -2) : s;
}

/** A number in a unit, short: chars "3.1k", bytes "3KiB", tokens "3.1k tok". */
export function formatAmount(n: number, unit: string): string {
  if (unit === 'bytes') return formatBytes(n);
  if (unit === 'tokens') return `${formatChars(n)} tok`;
  return formatChars(n);
}

export function unitWord(unit: string): string {
  if (unit === 'bytes') return 'bytes';
  if (unit === 'tokens') return 'tokens';
  return 'characters';
}

/** The size of a file in the budget's unit, when the server gave it. */
export function sizeIn(f: LoadedFile, unit: string): number | undefined {
  if (unit === 'bytes') return f.bytes;
  if (unit === 'tokens') return f.tokens;
  return f.chars;
}

/** Short size of one file, in the budget's unit when the server gave it, else in characters. */
export function fileSize(f: LoadedFile, unit: string): string {
  const n = sizeIn(f, unit);
  return n === undefined ? formatChars(f.chars) : formatAmount(n, unit);
}

/** What a shared budget has used, in its unit (undefined when a file lacks that size). */
export function usedIn(r: EffectiveInstructions, unit: string): number | undefined {
  if (unit === 'chars') {
    return r.totalChars;
  }
  let sum = 0;
  for (const f of r.files) {
    const n = sizeIn(f, unit);
    if (n === undefined) return undefined;
    sum += n;
  }
  return sum;
}

/**
 * Short budget text for the status bar and the view description: "12.3k/32k" (shared),
 * "812 tok · 8k tok/file" (per-file, in its unit when every file has that size), "1.2k · no
 * shared budget" (none: an agent without a shared limit is never shown "of 0"; `compact`:
 * "1.2k chars", for a Compare Agents row whose tooltip says the rest).
 */
export function budgetShort(r: EffectiveInstructions, compact = false): string {
  const b = budgetOf(r);
  if (b.kind === 'shared' && b.limit !== null && b.limit !== undefined) {
    const used = usedIn(r, b.unit);
    const limit = formatAmount(b.limit, b.unit);
    if (used === undefined) {
      return `${formatChars(r.totalChars)} · ${limit}`;
    }
    // "812/8k tok": the token suffix once, at the end ("12.3k/32k", "12KiB/32KiB" read as is)
    const usedText = b.unit === 'tokens' ? formatChars(used) : formatAmount(used, b.unit);
    return `${usedText}/${limit}`;
  }
  if (b.kind === 'per-file' && b.limit !== null && b.limit !== undefined) {
    const used = r.files.length ? usedIn(r, b.unit) : undefined;
    const usedText = used === undefined ? formatChars(r.totalChars) : formatAmount(used, b.unit);
    return `${usedText} · ${formatAmount(b.limit, b.unit)}/file`;
  }
  if (b.kind === 'none') {
    const used = r.files.length ? usedIn(r, b.unit) : undefined;
    const size = used === undefined ? formatChars(r.totalChars) : formatAmount(used, b.unit);
    // `compact`: a row among others at the default sidebar width, its tooltip says the rest
    return compact ? `${size} ${b.unit === 'chars' ? 'chars' : ''}`.trim() : `${size} · no shared budget`;
  }
  return formatChars(r.totalChars);
}

/** Long budget text for tooltips, e.g. "12,300 of 32,000 characters". */
export function budgetLong(r: EffectiveInstructions): string {
  const b = budgetOf(r);
  const chars = `${formatInt(r.totalChars)} characters`;
  if (b.kind === 'shared' && b.limit !== null && b.limit !== undefined) {
    const used = usedIn(r, b.unit);
    return used === undefined
      ? `${chars}; budget ${formatInt(b.limit)} ${unitWord(b.unit)} shared by all files`
      : `${formatInt(used)} of ${formatInt(b.limit)} ${unitWord(b.unit)}`;
  }
  if (b.kind === 'per-file' && b.limit !== null && b.limit !== undefined) {
    const used = r.files.length ? usedIn(r, b.unit) : undefined;
    const size = used === undefined ? chars : `${formatInt(used)} ${unitWord(b.unit)}`;
    return `${size}; each file is read up to ${formatInt(b.limit)} ${unitWord(b.unit)}`;
  }
  return `${chars}; no shared budget`;
}
