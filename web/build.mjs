// Builds the viewer into one folder: index.html and viewer.js (three.js and the viewer in one
// classic script, so a copy opens from disk). Usage: node build.mjs OUT_DIR
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2] || join(here, 'dist');
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(here, 'src', 'main.js')],
  bundle: true,
  format: 'iife',
  minify: true,
  sourcemap: false,
  target: ['chrome100', 'firefox100', 'safari15'],
  outfile: join(out, 'viewer.js'),
  logLevel: 'warning',
});
copyFileSync(join(here, 'src', 'index.html'), join(out, 'index.html'));
console.log(`viewer built in ${out}`);
