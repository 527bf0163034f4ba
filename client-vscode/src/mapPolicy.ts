// The Instruction Map's Content-Security-Policy, as the extension checks it (docs/security.md,
// "The map page's Content-Security-Policy"). The server writes the policy and the nonces into
// its page (it asks for the webview's own source, `webview.cspSource`, for images); the
// extension shows a page only when that policy is strict: a page without one — an older or
// a broken server — is never given a webview with scripts enabled.

import { randomBytes } from 'crypto';

/** A fresh nonce (128 random bits, base64) for a page the extension itself writes. */
export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&quot;': '"', '&#39;': "'", '&#x27;': "'", '&lt;': '<', '&gt;': '>' };

/** Pure: a policy's directives (name, lower case → its source tokens); the first of a name counts, as in browsers. */
export function parsePolicy(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of text.split(';')) {
    const words = part.trim().split(/[\t\n\f\r ]+/).filter((w) => w !== '');
    const name = words[0]?.toLowerCase();
    if (name !== undefined && !out.has(name)) out.set(name, words.slice(1));
  }
  return out;
}

// What may come before the policy: anything else (an element of the body, a script, a style)
// would be outside its reach, or would put the meta tag in the body, where browsers ignore it.
const PRELUDE = /\s+|<!--[\s\S]*?-->|<!doctype\b[^>]*>|<html\b[^>]*>|<head\b[^>]*>|<title\b[^>]*>[^<]*<\/title\s*>|<meta\b[^>]*>/iy;

/** Pure: the text of the page's Content-Security-Policy meta tag, when it comes before anything it governs (undefined: it does not). */
export function pagePolicy(html: string): string | undefined {
  const prelude = new RegExp(PRELUDE.source, PRELUDE.flags); // its own lastIndex
  for (let m = prelude.exec(html); m !== null; m = prelude.exec(html)) {
    const tag = m[0];
    if (!/^<meta\b/i.test(tag) || !/\bhttp-equiv\s*=\s*(["']?)content-security-policy\1/i.test(tag)) continue;
    const content = /\bcontent\s*=\s*(?:"([^"]*)"|'([^']*)')/i.exec(tag);
    if (!content) return undefined;
    return (content[1] ?? content[2] ?? '').replace(/&(amp|quot|#39|#x27|lt|gt);/g, (e) => ENTITIES[e] ?? e);
  }
  return undefined;
}

const NONCE = /^'nonce-[A-Za-z0-9+/_-]{22,}={0,2}'$/;

/**
 * Pure: why the page's policy is not strict enough to show it in a webview with scripts
 * enabled (undefined: it is). Strict: `default-src 'none'`; scripts and styles by nonce only
 * (no 'unsafe-inline', 'unsafe-eval', host or scheme); images from `data:` and `cspSource`
 * (which it must name); any other directive `'none'` or `cspSource`.
 */
export function policyProblem(html: string, cspSource: string): string | undefined {
  const text = pagePolicy(html);
  if (text === undefined) return 'the page has no Content-Security-Policy before its first script or style';
  const policy = parsePolicy(text);
  const own = cspSource.split(' ').filter((s) => s !== '');
  const defaults = policy.get('default-src');
  if (!defaults || defaults.length !== 1 || defaults[0] !== "'none'") return "its policy's default-src is not 'none'";
  for (const name of ['script-src', 'style-src']) {
    const tokens = policy.get(name);
    if (!tokens || tokens.length === 0) return `its policy has no ${name}`;
    const loose = tokens.find((t) => !NONCE.test(t));
    if (loose !== undefined) return `its policy's ${name} allows ${loose} (a nonce only)`;
  }
  const images = policy.get('img-src') ?? [];
  if (!own.every((s) => images.includes(s))) return `its policy's img-src does not name the webview's source ${cspSource}`;
  for (const [name, tokens] of policy) {
    if (name === 'default-src' || name === 'script-src' || name === 'style-src') continue;
    // script-src-elem, style-src-attr, …: as their parent, a nonce only (or 'none')
    const byNonce = name.startsWith('script-src') || name.startsWith('style-src');
    const allowed = new Set(["'none'", ...(byNonce ? [] : own), ...(name === 'img-src' ? ['data:'] : [])]);
    const loose = tokens.find((t) => !allowed.has(t) && !(byNonce && NONCE.test(t)));
    if (loose !== undefined) return `its policy's ${name} allows ${loose}`;
  }
  return undefined;
}
