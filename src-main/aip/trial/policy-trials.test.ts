import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../app/logger.js';
import { buildRuntime } from '../../app/runtime.js';
import type { Runtime } from '../../app/types.js';
import { MemorySecretStore } from '../../keys/secret-store.js';
import { useTempDirs } from '../../testing/temp.js';

// The cockpit's test bench through the contract (docs/policy-editor.md "Test bench"): a typed call,
// recorded calls and the suite beside the policy, each under the draft beside the policy in force.
const tempDir = useTempDirs('silas-policy-trials-');
let runtime: Runtime | null = null;
afterEach(async () => {
  await runtime?.stop('test');
  runtime = null;
});

const policy = (spec: string) => `apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: files\nspec:\n  mode: enforce\n${spec}`;
const IN_FORCE = policy('  allowed_tools: [read_file, write_file]\n');
const DRAFT = policy('  allowed_tools: [read_file, write_file]\n  tool_rules:\n    - tool: write_file\n      action: ask\n  dlp:\n    scan_requests: true\n    on_request_match: block\n    patterns:\n      - name: AWS key\n        regex: "AKIA[0-9A-Z]{16}"\n');

async function setup() {
  const dir = tempDir();
  const home = join(dir, 'home');
  runtime = await buildRuntime({ home, mode: 'desktop' }, { secretStore: new MemorySecretStore(), logger: silentLogger, clientLocations: { platform: 'linux', env: {}, home: join(dir, 'user') } });
  await runtime.start();
  mkdirSync(join(home, 'policies'));
  const path = join(home, 'policies', 'files.yaml');
  writeFileSync(path, IN_FORCE);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- results are checked with toMatchObject
  const call = (name: string, args: unknown) => runtime!.router.dispatch(name, args, { transport: 'ipc', session: 'session-ipc' }) as Promise<{ ok: boolean; value: Record<string, any>; error?: { code: string; message: string } }>;
  return { home, path, call, r: runtime };
}

describe('policies.try | replay | suite', () => {
  it('a typed call under the draft and the policy in force: the deciding rule, DLP matches, the change', async () => {
    const { path, call } = await setup();
    const asked = await call('policies.try', { text: DRAFT, path, call: { tool: 'write_file', args: { path: '/tmp/x', content: 'hello' } } });
    expect(asked.value).toMatchObject({ draft: { decision: 'ASK', rule: 'tool_rules[write_file] (ask)' }, current: { decision: 'ALLOW', rule: 'allowed_tools' } });
    const leaked = await call('policies.try', { text: DRAFT, path, call: { tool: 'write_file', args: { path: '/tmp/x', content: 'AKIAABCDEFGHIJKLMNOP' } } });
    expect(leaked.value.draft).toMatchObject({ decision: 'BLOCK', dlp: { action: 'block', rules: ['AWS key'] } });
    const broken = await call('policies.try', { text: DRAFT.replace('allowed_tools', 'alowed_tools'), path, call: { tool: 'read_file' } });
    expect(broken).toMatchObject({ ok: false, error: { code: 'E_INVALID_ARGS', message: expect.stringContaining('did you mean "allowed_tools"') } });
  });

  it("replays a server's recorded calls and marks the ones whose decision changes", async () => {
    const { path, call, r } = await setup();
    for (const [tool, args] of [['read_file', { path: '/a' }], ['write_file', { path: '/a', content: 'x' }]] as const) {
      r.audit.append('aip.decision', { direction: 'upstream', decision: 'ALLOW', policy_mode: 'enforce', violation: false, method: 'tools/call', tool, args, server: 'files' });
    }
    const replayed = await call('policies.replay', { text: DRAFT, path, server: 'files', last: 10 });
    expect(replayed.value.results.map((x: { call: { tool: string }; changed: boolean }) => [x.call.tool, x.changed])).toEqual([
      ['read_file', false],
      ['write_file', true],
    ]);
  });

  it("a long replay gives the event loop turns: a call made meanwhile is answered before it ends", async () => {
    const { path, call, r } = await setup();
    const calls = Array.from({ length: 3000 }, (_, i) => ({ event: 'aip.decision' as const, data: { direction: 'upstream' as const, decision: 'ALLOW', policy_mode: 'enforce', violation: false, method: 'tools/call', tool: 'write_file', args: { path: `/a/${i}`, content: 'x' }, server: 'files' } }));
    r.audit.appendBatch(calls);
    const order: string[] = [];
    const replayed = call('policies.replay', { text: DRAFT, path, server: 'files', last: 3000 }).then((x) => order.push(`replay ${x.value.results.length}`));
    const info = call('runtime.info', {}).then(() => order.push('info'));
    await Promise.all([replayed, info]);
    expect(order).toEqual(['info', 'replay 3000']);
  });

  it('runs the suite kept beside the policy; a missing or broken suite is named', async () => {
    const { path, call } = await setup();
    const missing = await call('policies.suite', { text: DRAFT, path });
    expect(missing).toMatchObject({ ok: false, error: { code: 'E_NOT_FOUND', message: expect.stringContaining('files.suite.json') } });
    writeFileSync(path.replace('.yaml', '.suite.json'), JSON.stringify({ calls: [{ name: 'writes ask', tool: 'write_file', args: { path: '/a', content: 'x' }, expect: 'ASK' }, { name: 'reads pass', tool: 'read_file', args: { path: '/a' }, expect: 'ALLOW' }] }));
    const ran = await call('policies.suite', { text: DRAFT, path });
    expect(ran.value.results.map((x: { name: string; passed: boolean; changed: boolean }) => [x.name, x.passed, x.changed])).toEqual([
      ['writes ask', true, true],
      ['reads pass', true, false],
    ]);
    writeFileSync(path.replace('.yaml', '.suite.json'), '{\n  "calls": [\n    oops\n  ]\n}');
    expect(await call('policies.suite', { text: DRAFT, path })).toMatchObject({ ok: false, error: { message: expect.stringContaining('line 3, column 5') } });
    // Only the policies of this installation: a suite path elsewhere is refused.
    expect(await call('policies.suite', { text: DRAFT, path: '/etc/passwd.yaml' })).toMatchObject({ ok: false, error: { code: 'E_UNAUTHORIZED' } });
  });
});
