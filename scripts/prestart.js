#!/usr/bin/env node
// Before `npm start`: build the browser cockpit, and the desktop app too when Electron is
// installed (it is optional; without it `silas start` serves the cockpit to a browser).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

function run(script) {
  const result = spawnSync('npm', ['run', '--silent', script], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

run('build:cockpit');
let electronPresent = false;
try {
  const binary = createRequire(import.meta.url)('electron');
  electronPresent = typeof binary === 'string';
} catch {
  electronPresent = false;
}
if (electronPresent) run('build:desktop');
