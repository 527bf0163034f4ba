// Bundle the extension with esbuild: dist/extension.js (CommonJS, vscode external), and copy the
// Rulemap server's Python sources beside it (dist/rulemap-server/) so "Create Environment" can
// pip-install the server that matches this extension without a clone of the repository.
// Run by `npm run build` and by vsce itself (`vscode:prepublish`).
import * as esbuild from 'esbuild';
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const client = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repo = resolve(client, '..');
const dev = process.argv.includes('--dev');

await esbuild.build({
  entryPoints: [join(client, 'src/extension.ts')],
  bundle: true,
  outfile: join(client, 'dist/extension.js'),
  external: ['vscode'],
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: dev ? 'inline' : false,
  minify: !dev,
  logLevel: 'warning',
});
console.log(`built dist/extension.js${dev ? ' (dev)' : ''}`);

// The server: pyproject.toml (with the README and LICENSE it names) and server/rulemap, the
// layout pyproject's `packages.find where = ["server"]` expects. Outside a full checkout (only
// client-vscode/ copied somewhere) there is nothing to bundle: the extension then offers the
// workspace's own Rulemap or the settings instead.
const out = join(client, 'dist/rulemap-server');
rmSync(out, { recursive: true, force: true });
if (existsSync(join(repo, 'pyproject.toml')) && existsSync(join(repo, 'server/rulemap/__init__.py'))) {
  mkdirSync(out, { recursive: true });
  for (const f of ['pyproject.toml', 'README.md', 'LICENSE']) {
    if (existsSync(join(repo, f))) cpSync(join(repo, f), join(out, f));
  }
  cpSync(join(repo, 'server/rulemap'), join(out, 'server/rulemap'), {
    recursive: true,
    filter: (src) => !/(__pycache__|\.pyc$|\.egg-info)/.test(src),
  });
  console.log('bundled the server sources in dist/rulemap-server');
} else {
  console.warn(`build: no Rulemap server at ${repo} (pyproject.toml, server/rulemap): the vsix will not bundle it`);
}
