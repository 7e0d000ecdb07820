import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openHome } from '../../app/home.js';
import { MemorySecretStore } from '../../keys/secret-store.js';
import { runSilas } from '../../testing/cli.js';
import { useTempDirs } from '../../testing/temp.js';

// `silas policy test` and `silas policy replay` (docs/policy-editor.md): a draft against a suite and
// against the calls a server's proxy recorded in the audit chain.
const tempDir = useTempDirs('silas-policy-trial-');

const policy = (spec: string) => `apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: trial\nspec:\n${spec}`;
const IN_FORCE = policy('  mode: enforce\n  allowed_tools: [read_file, write_file]\n');
const DRAFT = policy('  mode: enforce\n  allowed_tools: [read_file, write_file]\n  tool_rules:\n    - tool: write_file\n      action: ask\n');

function files(dir: string, suite: unknown) {
  const current = join(dir, 'current.yaml');
  const draft = join(dir, 'draft.yaml');
  const suiteFile = join(dir, 'draft.suite.json');
  writeFileSync(current, IN_FORCE);
  writeFileSync(draft, DRAFT);
  writeFileSync(suiteFile, typeof suite === 'string' ? suite : JSON.stringify(suite, null, 2));
  return { current, draft, suiteFile };
}

describe('silas policy test', () => {
  it('passes when every call gets its expected decision, and shows what changes against the policy in force', async () => {
    const dir = tempDir();
    const f = files(dir, {
      calls: [
        { name: 'reads are allowed', tool: 'read_file', args: { path: '/tmp/a' }, expect: 'ALLOW' },
        { name: 'writes now ask', tool: 'write_file', args: { path: '/tmp/a', content: 'x' }, expect: 'ASK' },
        { name: 'an unknown tool is blocked', tool: 'delete_file', args: {}, expect: 'BLOCK' },
      ],
    });
    const result = await runSilas(['policy', 'test', '--policy', f.draft, '--suite', f.suiteFile, '--current', f.current]);
    expect(result.code, result.err).toBe(0);
    expect(result.out).toContain('PASS  writes now ask: expected ASK, draft ASK');
    expect(result.out).toContain('(in force: ALLOW, CHANGES)');
    expect(result.out).toContain('3 passed, 0 failed');
    const json = JSON.parse((await runSilas(['policy', 'test', '--policy', f.draft, '--suite', f.suiteFile, '--json'])).out);
    expect(json).toMatchObject({ passed: 3, failed: 0 });
    expect(json.results[1].draft).toMatchObject({ decision: 'ASK', rule: expect.any(String) });
  });

  it('exits 1 when an expectation fails, naming the call and the reason', async () => {
    const f = files(tempDir(), { calls: [{ name: 'writes are free', tool: 'write_file', args: { path: '/tmp/a', content: 'x' }, expect: 'ALLOW' }] });
    const result = await runSilas(['policy', 'test', '--policy', f.draft, '--suite', f.suiteFile]);
    expect(result.code).toBe(1);
    expect(result.out).toContain('FAIL  writes are free: expected ALLOW, draft ASK');
    expect(result.out).toContain('0 passed, 1 failed');
  });

  it('a suite with bad JSON names the line; a wrong field names its path; nothing is evaluated', async () => {
    const dir = tempDir();
    const broken = files(dir, '{\n  "calls": [\n    { "name": "x", "tool": "read_file", "expect": "ALLOW" },\n    { "name": "y" "tool": "read_file" }\n  ]\n}\n');
    const bad = await runSilas(['policy', 'test', '--policy', broken.draft, '--suite', broken.suiteFile]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/draft\.suite\.json: line 4, column \d+: not valid JSON/);
    const wrong = files(tempDir(), { calls: [{ name: 'x', tool: 'read_file', expect: 'MAYBE' }] });
    const field = await runSilas(['policy', 'test', '--policy', wrong.draft, '--suite', wrong.suiteFile]);
    expect(field.code).toBe(1);
    expect(field.err).toContain('$.calls[0].expect: expected one of ALLOW, BLOCK, ASK, RATE_LIMITED, ALLOW_MONITOR');
  });

  it('a draft that does not load is reported with its line, and nothing runs', async () => {
    const dir = tempDir();
    const f = files(dir, { calls: [{ name: 'x', tool: 'read_file', expect: 'ALLOW' }] });
    writeFileSync(f.draft, policy('  mode: enforce\n  alowed_tools: [read_file]\n'));
    const result = await runSilas(['policy', 'test', '--policy', f.draft, '--suite', f.suiteFile]);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/draft\.yaml:\d+:\d+/);
    expect(result.err).toContain('does not load');
  });
});

describe('silas policy replay', () => {
  async function homeWithDecisions(): Promise<{ home: string; store: MemorySecretStore }> {
    const store = new MemorySecretStore();
    const home = join(tempDir(), 'home');
    expect((await runSilas(['init', '--home', home], { secretStore: store })).code).toBe(0);
    const ledger = openHome(home, { create: false, keys: 'signer', secretStore: store });
    const decision = (server: string, tool: string, args: Record<string, string>, decision: string) =>
      ledger.audit.append('aip.decision', { direction: 'upstream', decision, policy_mode: 'enforce', violation: decision !== 'ALLOW', method: 'tools/call', tool, args, server, session_id: 's1' });
    try {
      decision('files', 'read_file', { path: '/tmp/a' }, 'ALLOW');
      decision('files', 'write_file', { path: '/tmp/a', content: '[REDACTED:aws_access_key]' }, 'ALLOW');
      decision('other', 'write_file', { path: '/tmp/b' }, 'ALLOW');
      decision('files', 'delete_file', { path: '/tmp/a' }, 'BLOCK');
    } finally {
      ledger.close();
    }
    return { home, store };
  }

  it('shows the recorded calls the draft would decide differently, with their arguments as stored; exit 1', async () => {
    const { home, store } = await homeWithDecisions();
    const f = files(tempDir(), { calls: [] });
    const result = await runSilas(['policy', 'replay', '--policy', f.draft, '--server', 'files', '--home', home], { secretStore: store });
    expect(result.code, result.err).toBe(1);
    expect(result.out).toMatch(/CHANGES {2}#\d+ \S+ write_file: recorded ALLOW, draft ASK/);
    expect(result.out).toContain('3 recorded call(s) replayed; 1 would be decided differently');
    const json = JSON.parse((await runSilas(['policy', 'replay', '--policy', f.draft, '--server', 'files', '--home', home, '--json', '--last', '2'], { secretStore: store })).out);
    expect(json.replayed).toBe(2);
    expect(json.results.map((r: { call: { tool: string; args: unknown } }) => [r.call.tool, r.call.args])).toEqual([
      ['write_file', { path: '/tmp/a', content: '[REDACTED:aws_access_key]' }],
      ['delete_file', { path: '/tmp/a' }],
    ]);
  });

  it('exit 0 when nothing changes; a server with no recorded calls is named', async () => {
    const { home, store } = await homeWithDecisions();
    const f = files(tempDir(), { calls: [] });
    const same = await runSilas(['policy', 'replay', '--policy', f.current, '--server', 'files', '--home', home], { secretStore: store });
    expect(same.code, same.out).toBe(0);
    expect(same.out).toContain('0 would be decided differently');
    const none = await runSilas(['policy', 'replay', '--policy', f.draft, '--server', 'nobody', '--home', home], { secretStore: store });
    expect(none.code).toBe(1);
    expect(none.err).toContain('no recorded tool calls of server "nobody"');
  });
});
