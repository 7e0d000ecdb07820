import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src-shared/errors.js';
import { homePaths } from '../../src-main/home/paths.js';
import { probe } from './testing/alias-probe.js';
import { ROOT } from './resolve.js';

// The @main/* and @shared/* path aliases (tsconfig.base.json, docs/architecture.md §4) resolve to
// the same modules under every loader the repository uses: vitest (this file), tsx (bin/silas.js
// from source) and esbuild (scripts/build-cli.js). tsc checks the probe with the rest of scripts/.
const probeFile = join(ROOT, 'scripts/lint/testing/alias-probe.ts');

describe('path aliases', () => {
  it('resolve under vitest to the modules a relative import reaches', () => {
    expect(probe.ErrorCode).toBe(ErrorCode);
    expect(probe.homePaths).toBe(homePaths);
  });

  it('resolve under tsx registered with tsconfig.node.json, as bin/silas.js does, from any directory', () => {
    const tsx = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/esm/api/index.mjs')).href;
    const script = `const { register } = await import(${JSON.stringify(tsx)});
register({ tsconfig: ${JSON.stringify(join(ROOT, 'tsconfig.node.json'))} });
const { probe } = await import(${JSON.stringify(pathToFileURL(probeFile).href)});
console.log(typeof probe.homePaths, typeof probe.ErrorCode);`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: '/' });
    expect(out.toString().trim()).toBe('function object');
  });

  it('resolve under esbuild with the tsconfig scripts/build-cli.js names', async () => {
    const result = await build({ absWorkingDir: ROOT, entryPoints: [probeFile], bundle: true, write: false, platform: 'node', format: 'esm', tsconfig: 'tsconfig.node.json', metafile: true, logLevel: 'silent' });
    expect(Object.keys(result.metafile.inputs)).toEqual(expect.arrayContaining(['src-main/home/paths.ts', 'src-shared/errors.ts']));
  });
});
