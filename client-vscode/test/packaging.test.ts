// Issue #10: plain `vsce package` works — a vscode:prepublish build, a real repository (README
// images resolve), everything bundled (no node_modules in the vsix), vsce installed by `npm ci`.
import { existsSync, readFileSync } from 'fs';
import { describe, expect, it } from 'vitest';

const read = (rel: string) => readFileSync(new URL(`../${rel}`, import.meta.url), 'utf8');
const pkg = JSON.parse(read('package.json'));
const lock = JSON.parse(read('package-lock.json'));
const ignore = read('.vscodeignore')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));

describe('packaging with plain `vsce package`', () => {
  it('builds the bundle before packaging (vscode:prepublish → scripts/build.mjs)', () => {
    expect(pkg.scripts['vscode:prepublish']).toMatch(/node scripts\/build\.mjs/);
    expect(existsSync(new URL('../scripts/build.mjs', import.meta.url))).toBe(true);
    expect(read('scripts/build.mjs')).toContain("outfile: join(client, 'dist/extension.js')");
    expect(pkg.main).toBe('./dist/extension.js');
  });

  it('names the real repository (no placeholder), so vsce rewrites README links to it', () => {
    expect(pkg.repository.url).toBe('https://github.com/rulemap/rulemap.git');
    expect(JSON.stringify(pkg)).not.toMatch(/example\.(invalid|com)|TODO|placeholder/i);
    // the extension lives in a subfolder: vsce takes its link bases from `vsce` in package.json
    expect(pkg.vsce.baseImagesUrl).toBe('https://github.com/rulemap/rulemap/raw/HEAD/client-vscode');
    expect(pkg.vsce.baseContentUrl).toBe('https://github.com/rulemap/rulemap/blob/HEAD/client-vscode');
  });

  it('bundles everything: no dependencies in the vsix, with or without --no-dependencies', () => {
    expect(pkg.vsce.dependencies).toBe(false);
    expect(pkg.scripts.package).toMatch(/^vsce package --no-dependencies\b/);
    expect(read('scripts/build.mjs')).toMatch(/bundle: true/);
  });

  it('gets vsce from npm ci (a pinned devDependency, in the lock file)', () => {
    expect(pkg.devDependencies['@vscode/vsce']).toMatch(/^3\.\d+\.\d+$/);
    expect(lock.packages['node_modules/@vscode/vsce']?.version).toBe(pkg.devDependencies['@vscode/vsce']);
    expect(lock.packages[''].devDependencies['@vscode/vsce']).toBe(pkg.devDependencies['@vscode/vsce']);
  });

  it('.vscodeignore keeps the vsix small: everything out, then only what runs and shows', () => {
    expect(ignore[0]).toBe('**');
    const kept = ignore.filter((l) => l.startsWith('!')).map((l) => l.slice(1));
    expect(kept).toContain('dist/extension.js');
    expect(kept).toContain('package.json');
    expect(kept).toContain('README.md');
    expect(kept).toContain('LICENSE');
    for (const k of kept) expect(k, k).not.toMatch(/^(src|test|e2e|scripts|node_modules)\b|\.ts$|\.map$/);
  });

  it("every image the README shows exists in the repository (vsce links it to the repository's copy)", () => {
    const readme = read('README.md');
    const images = [...readme.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]);
    expect(images.length).toBeGreaterThan(0);
    for (const img of images) {
      expect(img, img).not.toMatch(/^[a-z]+:\/\//); // relative: rewritten by vsce, shown by GitHub
      expect(existsSync(new URL(`../${img}`, import.meta.url)), img).toBe(true);
    }
  });

  it('the Makefile runs plain `vsce package` in the test flow (CI)', () => {
    const make = read('../Makefile');
    const target = make.slice(make.indexOf('test-vscode:'));
    expect(target).toMatch(/npx --no-install vsce package/);
  });
});
