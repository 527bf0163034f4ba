// Bundle the extension with esbuild: dist/extension.js (CommonJS, vscode external).
import * as esbuild from 'esbuild';

const dev = process.argv.includes('--dev');
await esbuild.build({
  entryPoints: ['src/extension.ts'],
  bundle: true,
  outfile: 'dist/extension.js',
  external: ['vscode'],
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: dev ? 'inline' : false,
  minify: !dev,
  logLevel: 'warning',
});
console.log(`built dist/extension.js${dev ? ' (dev)' : ''}`);
