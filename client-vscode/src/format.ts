// Small formatting helpers shared by the views and the status bar (pure).

/** 812 → "812", 12300 → "12.3k", 32000 → "32k", 1250000 → "1.3M". */
export function formatChars(n: number): string {
  if (!Number.isFinite(n)) {
    return '?';
  }
  const abs = Math.abs(n);
  if (abs < 1000) {
    return String(Math.round(n));
  }
  if (abs < 999_950) {
    return trimZero((n / 1000).toFixed(1)) + 'k';
  }
  return trimZero((n / 1_000_000).toFixed(1)) + 'M';
}

function trimZero(s: string): string {
  return s.endsWith('.0') ? s.slice(0, -2) : s;
}

/** 32000 → "32,000" (independent of the host's locale). */
export function formatInt(n: number): string {
  return Math.round(n)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function plural(n: number, one: string, many = one + 's'): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The last path segment of a `/`-separated path. */
export function basename(p: string): string {
  const i = p.replace(/\/+$/, '').lastIndexOf('/');
  return i === -1 ? p : p.slice(i + 1);
}

export const REASON_LABELS: Record<string, string> = {
  project: 'project instructions',
  import: 'imported',
  rule: 'rule (always loaded)',
  nested: 'nested instructions',
  scoped: 'path-scoped rule',
  user: 'user-level instructions',
};

export function reasonLabel(reason: string): string {
  return REASON_LABELS[reason] ?? reason;
}
