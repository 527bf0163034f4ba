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

/**
 * A path short enough for a tree row at the default sidebar width: kept whole up to `max`
 * characters, else its first folder, `…` and as many trailing segments as fit (the file name
 * always whole: "packages/…/web/notes.md"). The full path goes in the tooltip.
 */
export function shortPath(p: string, max = 28): string {
  if (p.length <= max) return p;
  const parts = p.split('/');
  const name = parts.pop() ?? p;
  if (parts.length === 0) return name;
  const first = parts.shift() ?? '';
  const tail: string[] = [];
  let length = first.length + 2 + name.length + 1; // "first/…/" + name
  while (parts.length) {
    const seg = parts[parts.length - 1];
    if (length + seg.length + 1 > max) break;
    tail.unshift(seg);
    length += seg.length + 1;
    parts.pop();
  }
  if (parts.length === 0) return [first, ...tail, name].join('/');
  const head = length > max ? '…' : `${first}/…`;
  return [head, ...tail, name].join('/');
}

/** A file name of at most `max` characters, shortened in the middle ("a-long-na…me.md"). */
export function shortName(name: string, max = 18): string {
  if (name.length <= max) return name;
  const keep = max - 1;
  const head = Math.ceil(keep * 0.6);
  return `${name.slice(0, head)}…${name.slice(name.length - (keep - head))}`;
}
