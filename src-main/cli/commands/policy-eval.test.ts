import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MemorySecretStore } from '../../keys/secret-store.js';
import { runSilas } from '../../testing/cli.js';
import { useTempDirs } from '../../testing/temp.js';

const tempDir = useTempDirs();

function policyFile(spec: string): string {
  const file = join(tempDir(), 'policy.yaml');
  writeFileSync(file, `apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: eval-test\nspec:\n${spec.replace(/^/gm, '  ')}\n`);
  return file;
}

async function evalWithoutInput(file: string) {
  return runSilas(['policy', 'eval', '--policy', file], { secretStore: new MemorySecretStore() });
}

describe('silas policy eval', () => {
  it('writes one decision per input line with the documented fields', async () => {
    const file = policyFile('allowed_tools: [read_file]\ntool_rules:\n  - tool: fetch\n    allow_args:\n      url: "^https://"\n  - tool: limited\n    rate_limit: "1/minute"\n  - tool: deploy\n    action: ask');
    const input = [
      { method: 'tools/call', tool: 'read_file', args: { path: '/tmp/x' }, request_id: 1 },
      { method: 'tools/call', tool: 'fetch', args: { url: 'http://plain' }, request_id: 'r2' },
      { method: 'tools/call', tool: 'limited', args: {}, context: { previous_calls: 1 }, request_id: 3 },
      { method: 'tools/call', tool: 'deploy', args: {}, context: { user_response: 'timeout' }, request_id: 4 },
      { method: 'resources/read', request_id: 5 },
    ];
    const out: string[] = [];
    const { runCli } = await import('../main.js');
    const code = await runCli(['policy', 'eval', '--policy', file], {
      out: (t) => out.push(t),
      err: () => {},
      env: {},
      stdin: Readable.from(input.map((i) => `${JSON.stringify(i)}\n`)),
    });
    expect(code).toBe(0);
    const decisions = out.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(decisions).toHaveLength(5);
    expect(Object.keys(decisions[0]!)).toEqual(['decision', 'error_code', 'violation', 'reason', 'failed_arg', 'failed_rule', 'response']);
    expect(decisions[0]).toMatchObject({ decision: 'ALLOW', error_code: null, violation: false, response: null });
    expect(decisions[1]).toMatchObject({ decision: 'BLOCK', error_code: -32001, failed_arg: 'url', failed_rule: '^https://', response: { jsonrpc: '2.0', id: 'r2', error: { code: -32001, message: 'Forbidden' } } });
    expect(decisions[2]).toMatchObject({ decision: 'RATE_LIMITED', error_code: -32002, response: { id: 3 } });
    expect(decisions[3]).toMatchObject({ decision: 'BLOCK', error_code: -32005 });
    expect(decisions[4]).toMatchObject({ decision: 'BLOCK', error_code: -32006 });
  });

  it('denies malformed lines with -32600 and carries on, exiting 1', async () => {
    const file = policyFile('allowed_tools: [a]');
    const out: string[] = [];
    const { runCli } = await import('../main.js');
    const code = await runCli(['policy', 'eval', '--policy', file], {
      out: (t) => out.push(t),
      err: () => {},
      env: {},
      stdin: Readable.from(['{not json\n', '[1,2]\n', '{"method":5}\n', '{"method":"tools/call","tool":"a"}\n']),
    });
    expect(code).toBe(1);
    const decisions = out.map((l) => JSON.parse(l) as { decision: string; error_code: number | null; reason: string });
    expect(decisions.map((d) => d.error_code)).toEqual([-32600, -32600, -32600, null]);
    expect(decisions[2]!.reason).toContain('"method" must be a string');
    expect(decisions[3]!.decision).toBe('ALLOW');
  });

  it('refuses an invalid policy with FILE:LINE:COL errors and evaluates nothing', async () => {
    const file = policyFile('allowed_tools: [a]\ntool_rules:\n  - tool: a\n    alow_args: {}');
    const result = await evalWithoutInput(file);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+ `));
    expect(result.out).toBe('');
  });

  it('needs --policy', async () => {
    expect((await runSilas(['policy', 'eval'])).code).toBe(2);
  });
});
