import { describe, expect, it } from 'vitest';
import { newNonce, pagePolicy, parsePolicy, policyProblem } from '../src/mapPolicy';

const SOURCE = 'https://*.vscode-cdn.net';
const NONCE = 'q1w2e3r4t5y6u7i8o9p0a1s2';
const STRICT = `default-src 'none'; script-src 'nonce-${NONCE}'; style-src 'nonce-${NONCE}'; img-src data: ${SOURCE}; base-uri 'none'; form-action 'none'`;

/** A page as the server writes it (its prelude), with `policy`. */
function page(policy: string, before = ''): string {
  return `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n${before}<meta http-equiv="Content-Security-Policy" content="${policy}">\n<title>Instruction map — repo</title>\n<style nonce="${NONCE}">body{}</style></head><body><script nonce="${NONCE}">1</script></body></html>`;
}

describe('policyProblem', () => {
  it("accepts the server's strict policy", () => {
    expect(policyProblem(page(STRICT), SOURCE)).toBeUndefined();
    // the attribute's entities are read as the browser reads them
    expect(policyProblem(page(STRICT.replace(/'/g, '&#x27;')), SOURCE)).toBeUndefined();
  });

  it('refuses a page with no policy, or one that comes after what it governs', () => {
    expect(policyProblem('<!DOCTYPE html><html><body><script>1</script></body></html>', SOURCE)).toMatch(/no Content-Security-Policy/);
    expect(policyProblem(page(STRICT, '<style>b{}</style>'), SOURCE)).toMatch(/no Content-Security-Policy/);
    // an element of the body first puts the meta tag in the body, where it is ignored
    expect(policyProblem(page(STRICT, '<div></div>'), SOURCE)).toMatch(/no Content-Security-Policy/);
    // a policy inside a comment is no policy
    expect(policyProblem(`<!DOCTYPE html><html><head><!-- <meta http-equiv="Content-Security-Policy" content="${STRICT}"> --><script>1</script>`, SOURCE)).toMatch(/no Content-Security-Policy/);
  });

  it('refuses whatever loosens it', () => {
    const loose: [string, RegExp][] = [
      [STRICT.replace("default-src 'none'", "default-src 'self'"), /default-src is not 'none'/],
      [STRICT.replace("script-src 'nonce-", "script-src 'unsafe-inline' 'nonce-"), /script-src allows 'unsafe-inline'/],
      [STRICT.replace("script-src 'nonce-", "script-src 'unsafe-eval' 'nonce-"), /script-src allows 'unsafe-eval'/],
      [STRICT.replace("style-src 'nonce-", "style-src 'unsafe-inline' 'nonce-"), /style-src allows 'unsafe-inline'/],
      [STRICT.replace(`script-src 'nonce-${NONCE}'`, 'script-src https://cdn.test'), /script-src allows https:\/\/cdn.test/],
      [STRICT.replace(`script-src 'nonce-${NONCE}'; `, ''), /no script-src/],
      [STRICT.replace(`style-src 'nonce-${NONCE}'`, "style-src 'nonce-short'"), /style-src allows 'nonce-short'/],
      [STRICT.replace('img-src data:', 'img-src * data:'), /img-src allows \*/],
      [STRICT.replace(`img-src data: ${SOURCE}`, 'img-src data:'), /does not name the webview's source/],
      [`${STRICT}; connect-src https://collector.test`, /connect-src allows https:\/\/collector.test/],
      [`${STRICT}; script-src-attr 'unsafe-inline'`, /script-src-attr allows 'unsafe-inline'/],
      [`${STRICT}; style-src-elem ${SOURCE}`, /style-src-elem allows/],
    ];
    for (const [policy, why] of loose) expect(policyProblem(page(policy), SOURCE), policy).toMatch(why);
  });

  it('lets other directives name only the webview itself', () => {
    expect(policyProblem(page(`${STRICT}; font-src ${SOURCE}; connect-src 'none'`), SOURCE)).toBeUndefined();
  });
});

describe('parsePolicy and pagePolicy', () => {
  it('reads directives as browsers do: names in any case, the first of a name counts', () => {
    const p = parsePolicy("Default-Src 'none';  img-src  data: ;;img-src *");
    expect(p.get('default-src')).toEqual(["'none'"]);
    expect(p.get('img-src')).toEqual(['data:']);
  });

  it('finds the meta tag in the prelude, with either quote', () => {
    expect(pagePolicy(`<html><head><meta http-equiv='content-security-policy' content='default-src &apos;none&apos;'>`)).toBe('default-src &apos;none&apos;');
    expect(pagePolicy('<head><meta http-equiv="Content-Security-Policy">')).toBeUndefined();
  });
});

describe('newNonce', () => {
  it('is 128 random bits, a new one each time', () => {
    const a = newNonce();
    expect(Buffer.from(a, 'base64').length).toBe(16);
    expect(newNonce()).not.toBe(a);
  });
});
