import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../app/logger.js';
import { buildRuntime } from '../../app/runtime.js';
import { MemorySecretStore } from '../../keys/secret-store.js';
import { useTempDirs } from '../../testing/temp.js';
import { MAX_POLICY_BYTES } from '../policy/load.js';

const tempDir = useTempDirs();
const cockpit = { transport: 'websocket' as const };

/** A policy of about `bytes` bytes: a long allowed_tools list, the cheapest way to make the parser work. */
function policyOf(bytes: number): string {
  const head = 'apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: big\nspec:\n  mode: enforce\n  allowed_tools:\n';
  const lines: string[] = [head];
  let size = head.length;
  for (let i = 0; ; i += 1) {
    const item = `    - tool_${String(i).padStart(7, '0')}_with_a_name_long_enough_to_fill_a_policy\n`;
    if (size + item.length > bytes) break;
    lines.push(item);
    size += item.length;
  }
  return lines.join('');
}

async function startRuntime() {
  const home = join(tempDir(), 'home');
  const runtime = await buildRuntime({ home, mode: 'desktop' }, { secretStore: new MemorySecretStore(), logger: silentLogger });
  await runtime.start();
  return { home, runtime };
}

// The attacks of docs/policy-editor.md, Limits: a huge draft, a huge planted policy file.
describe('policy size and the event loop', () => {
  it('a 1 MiB draft is refused by its size, naming the size, the cap and the fix', async () => {
    const { runtime } = await startRuntime();
    try {
      const huge = policyOf(1024 * 1024);
      const refused = await runtime.router.dispatch('policies.validate', { text: huge }, cockpit);
      expect(refused).toMatchObject({
        ok: true,
        value: { ok: false, hash: null, diagnostics: [{ line: 1, column: 1, severity: 'error', message: expect.stringMatching(new RegExp(`^the policy is ${Buffer.byteLength(huge)} bytes; the cap is ${MAX_POLICY_BYTES} bytes \\(256 KiB\\): .*remove`)) }] },
      });
    } finally {
      await runtime.stop('test');
    }
  });

  it('a draft near the cap is checked off the event loop: a call sent after it is answered first', async () => {
    const { runtime } = await startRuntime();
    try {
      // On the loop, the validation would be answered before the call sent after it could even start.
      const near = policyOf(MAX_POLICY_BYTES - 1024);
      const order: string[] = [];
      const validated = runtime.router.dispatch('policies.validate', { text: near }, cockpit).then((answer) => {
        order.push('draft validated');
        return answer;
      });
      await runtime.router.dispatch('runtime.info', {}, cockpit).then((answer) => {
        expect(answer).toMatchObject({ ok: true });
        order.push('runtime.info answered');
      });
      expect(await validated).toMatchObject({ ok: true, value: { ok: true, diagnostics: [], hash: expect.stringMatching(/^[0-9a-f]{64}$/) } });
      expect(order).toEqual(['runtime.info answered', 'draft validated']);
    } finally {
      await runtime.stop('test');
    }
  });

  it('a 1 MiB policy planted in HOME/policies is listed as too large without being parsed, and cannot be opened', async () => {
    const { home, runtime } = await startRuntime();
    try {
      mkdirSync(join(home, 'policies'), { recursive: true });
      const planted = join(home, 'policies', 'planted.yaml');
      writeFileSync(planted, policyOf(1024 * 1024));
      const listed = await runtime.router.dispatch('policies.list', {}, cockpit);
      expect(listed.ok).toBe(true);
      const status = (listed as { value: { policies: { path: string }[] } }).value.policies.find((policy) => policy.path === planted);
      expect(status).toMatchObject({ exists: true, loads: false, hash: null, textSha256: null, modifiedOutside: true, problem: expect.stringContaining(`the cap is ${MAX_POLICY_BYTES} bytes`) });
      const read = await runtime.router.dispatch('policies.read', { path: planted }, cockpit);
      expect(read).toMatchObject({ ok: false, error: { code: 'E_INVALID_ARGS', message: expect.stringContaining('cannot be opened in the editor') } });
      // Adopting it (signing it as it is) is refused by its size as well, and nothing is written.
      const adopted = await runtime.router.dispatch('policies.adopt', { path: planted }, { transport: 'ipc' as const });
      expect(adopted).toMatchObject({ ok: false, error: { message: expect.stringContaining('the cap is') } });
    } finally {
      await runtime.stop('test');
    }
  });
});
