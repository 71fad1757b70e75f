// Bundles src/extension.ts (+ vscode-languageclient) into dist/extension.js with esbuild and copies
// the manifest's JSON Schema into schemas/ (contributed through yamlValidation).
import * as esbuild from 'esbuild';
import fs from 'fs';
import path from 'path';
import { fileURLToPath } from 'url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

function copySchema() {
  const src = path.resolve(root, '..', 'schemas', 'workflow.schema.json');
  const dst = path.join(root, 'schemas', 'workflow.schema.json');
  fs.mkdirSync(path.dirname(dst), { recursive: true });
  if (fs.existsSync(src)) {
    fs.copyFileSync(src, dst);
  } else if (!fs.existsSync(dst)) {
    console.warn(`warning: ${src} not found; writing a permissive placeholder schema`);
    fs.writeFileSync(dst, JSON.stringify({ $schema: 'http://json-schema.org/draft-07/schema#', title: 'stepsmith workflow (placeholder)', type: 'object' }, null, 2) + '\n');
  }
}

copySchema();
const options = {
  entryPoints: [path.join(root, 'src', 'extension.ts')],
  bundle: true,
  outfile: path.join(root, 'dist', 'extension.js'),
  external: ['vscode'],
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: !production,
  minify: production,
  logLevel: 'info',
};
if (watch) {
  const ctx = await esbuild.context(options);
  await ctx.watch();
} else {
  await esbuild.build(options);
  if (production) {
    fs.rmSync(options.outfile + '.map', { force: true });
  }
}
