import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_VERSION } from '../app/version.js';
import { COMMANDS } from './commands/registry.js';
import { buildCopy, copyCheckout } from './testing/startup.js';

/*
 * bin/silas.js runs the JavaScript from scripts/build-cli.js when it is fresh, the sources through
 * tsx when it is missing or stale, and loads a command's module only when that command runs. Each
 * case runs a copy of the working tree (testing/startup.ts) so that building, touching and
 * deleting never disturb the repository. A module-resolution hook records every module the
 * process loads, which is how "imports no command" is observed from outside.
 */

const TRACE_HOOKS = `
import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(file, result.url + '\\n');
  return result;
}`;
const TRACE_REGISTER = `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(TRACE_HOOKS)}), { data: { file: process.env.SILAS_TEST_TRACE } });`;

/** Runs the copy's `silas` and returns its output and every module URL it loaded, relative to the copy. */
function silas(root: string, argv: string[], env: Record<string, string> = {}) {
  const trace = join(root, `trace-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(trace, '');
  const run = spawnSync(process.execPath, ['--import', join(root, 'trace.mjs'), join(root, 'bin/silas.js'), ...argv], {
    encoding: 'utf8',
    env: { ...process.env, SILAS_FROM_SOURCE: '', ...env, SILAS_TEST_TRACE: trace },
    timeout: 60_000,
  });
  const base = `file://${root}/`;
  const loaded = readFileSync(trace, 'utf8')
    .split('\n')
    .filter((url) => url.startsWith(base))
    .map((url) => url.slice(base.length));
  return { code: run.status, out: run.stdout, err: run.stderr, loaded };
}

const COMMAND_FILES = new Set(COMMANDS.flatMap((entry) => [`out/cli/${entry.name}.js`, `src-main/cli/commands/${entry.name}.ts`]));
/** The command modules among the loaded files, each once. */
const commandModules = (loaded: string[]) => [...new Set(loaded.filter((path) => COMMAND_FILES.has(path)))];
const fromSources = (loaded: string[]) => loaded.some((path) => path.startsWith('src-main/') || path.includes('node_modules/tsx/'));

describe('silas start-up: built JavaScript, lazy commands, tsx fallback', () => {
  let root: string;
  beforeAll(() => {
    // One copy for the whole file (building it is the slow part); the cases run in order.
    root = mkdtempSync(join(tmpdir(), 'silas-build-test-'));
    copyCheckout(root);
    writeFileSync(join(root, 'trace.mjs'), TRACE_REGISTER);
    buildCopy(root);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('runs the build for --version and --help and imports no command', () => {
    const version = silas(root, ['--version']);
    expect(version).toMatchObject({ code: 0, out: `${APP_VERSION}\n`, err: '' });
    expect(version.loaded).toContain('out/cli/main.js');
    expect(fromSources(version.loaded)).toBe(false);
    expect(commandModules(version.loaded)).toEqual([]);

    const help = silas(root, ['--help']);
    expect(help.code).toBe(0);
    for (const entry of COMMANDS) expect(help.out).toContain(`${entry.name}`);
    expect(help.loaded).toContain('out/cli/main.js');
    expect(commandModules(help.loaded)).toEqual([]);
  });

  it('loads only the command that runs, and built code finds files beside its sources', () => {
    mkdirSync(join(root, 'out/cockpit'), { recursive: true });
    writeFileSync(join(root, 'out/cockpit/index.html'), '<!doctype html>');
    const doctor = silas(root, ['doctor', '--home', join(root, 'no-home')]);
    expect(doctor.out).toContain(`cockpit: built at ${join(root, 'out/cockpit')}/`);
    expect(commandModules(doctor.loaded)).toEqual(['out/cli/doctor.js']);
    expect(fromSources(doctor.loaded)).toBe(false);
  });

  it('falls back to the sources through tsx, silently on stdout, when a source is newer than the build', () => {
    const edited = join(root, 'src-main/cli/args.ts');
    const before = statSync(edited);
    utimesSync(edited, new Date(), new Date());
    try {
      const stale = silas(root, ['--version']);
      expect(stale).toMatchObject({ code: 0, out: `${APP_VERSION}\n`, err: '' });
      expect(stale.loaded).toContain('src-main/cli/main.ts');
      expect(stale.loaded).not.toContain('out/cli/main.js');
      // Lazy on the source path too.
      expect(commandModules(stale.loaded)).toEqual([]);
    } finally {
      utimesSync(edited, before.atime, before.mtime);
    }
    // The file as it was when built: the build runs again.
    expect(silas(root, ['--version']).loaded).toContain('out/cli/main.js');
  });

  it('falls back to the sources when the build is missing or SILAS_FROM_SOURCE=1', () => {
    const forced = silas(root, ['--version'], { SILAS_FROM_SOURCE: '1' });
    expect(forced).toMatchObject({ code: 0, out: `${APP_VERSION}\n`, err: '' });
    expect(forced.loaded).not.toContain('out/cli/main.js');
    expect(fromSources(forced.loaded)).toBe(true);

    rmSync(join(root, 'out/cli'), { recursive: true });
    const missing = silas(root, ['policy', '--help']);
    expect(missing.code).toBe(0);
    expect(missing.out).toContain('Usage: silas policy');
    expect(missing.loaded).toContain('src-main/cli/main.ts');
    expect(commandModules(missing.loaded)).toEqual(['src-main/cli/commands/policy.ts']);
  });
});
