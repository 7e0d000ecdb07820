import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Ledger } from '../../app/home.js';
import { useTempDirs } from '../../testing/temp.js';
import { libraryHome } from '../../testing/policy-library-home.js';
import { type PolicyLibraryDeps } from './policy-library.js';
import { PolicyChecker } from '../trial/policy-checker.js';

// Every parse the library makes, counted: a large policy planted in HOME/policies (under the size
// cap) used to be parsed again on every Policies listing, stalling the runtime each time.
const parses = vi.hoisted(() => ({ count: 0 }));
vi.mock('../policy/load.js', async (original) => {
  const actual = await original<typeof import('../policy/load.js')>();
  return { ...actual, loadPolicyText: (...args: Parameters<typeof actual.loadPolicyText>) => (parses.count++, actual.loadPolicyText(...args)) };
});

const tempDir = useTempDirs('silas-policy-listing-');
const open: Ledger[] = [];
afterEach(() => {
  for (const ledger of open.splice(0)) ledger.close();
});

/** A home whose HOME/policies holds a large policy (2,000 rules, under the cap) and the library over it. */
function plantedHome(judgeOffLoop?: PolicyLibraryDeps['judgeOffLoop']) {
  const { policiesDir, ledger, library } = libraryHome(tempDir(), (dir) => [join(dir, 'planted.yaml'), join(dir, 'broken.yaml')], judgeOffLoop ? { judgeOffLoop } : {});
  open.push(ledger);
  const planted = join(policiesDir, 'planted.yaml');
  const rules = Array.from({ length: 2_000 }, (_, i) => `    - tool: tool_${i}\n      action: block\n`).join('');
  writeFileSync(planted, `apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: planted\nspec:\n  tool_rules:\n${rules}`);
  const broken = join(policiesDir, 'broken.yaml');
  writeFileSync(broken, 'apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata: {name: broken}\nspec: [not, a, mapping]\n');
  return { library, planted, broken };
}

describe('the Policies listing', () => {
  it('parses a planted policy once, not on every listing; a change is parsed again', async () => {
    const { library, planted } = plantedHome();
    parses.count = 0;
    for (let i = 0; i < 5; i += 1) expect(await library.list()).toHaveLength(2);
    expect(parses.count).toBe(2);
    writeFileSync(planted, `apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: planted\nspec:\n  allowed_tools: [read_file]\n`);
    expect((await library.list()).find((status) => status.path === planted)).toMatchObject({ loads: true, signature: 'unsigned' });
    expect(parses.count).toBe(3);
  });

  it('with the checker thread, the runtime thread parses nothing: the planted policy is judged off the loop, and listed the same', async () => {
    const checker = new PolicyChecker();
    try {
      const { library, planted, broken } = plantedHome((path, text, keys) => checker.judge(path, text, keys));
      parses.count = 0;
      const listed = await library.list();
      expect(listed.map((status) => [status.path, status.loads, status.signature])).toEqual([
        [broken, false, 'unsigned'],
        [planted, true, 'unsigned'],
      ]);
      expect(parses.count).toBe(0);
    } finally {
      await checker.close();
    }
  });
});
