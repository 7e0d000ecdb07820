import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runSilas, runSilasProcess } from '../../testing/cli.js';
import { useTempDirs } from '../../testing/temp.js';

// The RFC's example messages live beside the repository (../shared), as in CI.
const MESSAGES = fileURLToPath(new URL('../../../../shared/conformance/ilp/rfc-examples/messages/', import.meta.url));
const tempDir = useTempDirs('silas-ilp-');

describe('silas ilp parse', () => {
  it('prints a request as one JSON object, from a shell, exit 0', () => {
    const { code, out } = runSilasProcess(['ilp', 'parse', join(MESSAGES, '13.4-loop-detection.request.ilp'), '--json']);
    expect(code).toBe(0);
    const message = JSON.parse(out) as Record<string, unknown>;
    expect(Object.keys(message)).toEqual(['kind', 'method', 'path', 'version', 'status', 'reason', 'headers', 'body']);
    expect(message).toMatchObject({ kind: 'request', method: 'THINK', path: '/insight', version: '1.0', status: null, reason: null });
    expect(message.headers).toMatchObject({ 'Constitutional-Header': { domain: 'meta', depth: 3, max_depth: 5 }, 'Content-Type': 'application/json' });
    expect(message.body).toMatchObject({ context: { previous_agents: ['meta', 'financial', 'financial', 'financial'] } });
  });

  it('prints a response with its status and reason', async () => {
    const { code, out } = await runSilas(['ilp', 'parse', join(MESSAGES, '13.5-budget-exceeded.response-429.ilp'), '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ kind: 'response', method: null, path: null, status: 429, reason: 'Budget Exceeded', headers: { 'Constitutional-Status': 'VIOLATION' }, body: { error: { principle_id: 'recursion_budget' } } });
  });

  it('a malformed message exits 1 with the 400 naming the field', async () => {
    const { code, out } = await runSilas(['ilp', 'parse', join(MESSAGES, '5.3-think-request.ilp'), '--json']);
    expect(code).toBe(1);
    expect(JSON.parse(out)).toEqual({ error: { status: 400, field: 'Content-Length', message: "Content-Length declares 156 bytes but the body has 151; declare the body's exact length in bytes" } });
    const plain = await runSilas(['ilp', 'parse', join(MESSAGES, '5.3-think-request.ilp')]);
    expect(plain.code).toBe(1);
    expect(plain.err).toMatch(/^not a valid ILP message \(400\): Content-Length: Content-Length declares 156/);
  });

  it('what is not a message file is refused before it is read: a folder, a FIFO, a missing file', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'folder'));
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    for (const [name, reason] of [
      ['folder', /is not a regular file/],
      ['pipe', /is not a regular file/],
      ['missing.ilp', /no such file/],
    ] as const) {
      const { code, out } = await runSilas(['ilp', 'parse', join(dir, name), '--json']);
      expect(code, name).toBe(1);
      expect(JSON.parse(out)).toMatchObject({ error: { status: 400, field: 'file', message: expect.stringMatching(reason) } });
    }
  });

  it('shows a hostile message safely on a terminal', async () => {
    const file = join(tempDir(), 'hostile.ilp');
    writeFileSync(file, 'THINK /insight ILP/1.0\nContent-Type: application/json\n\n{"query":"\\u001b[2J\\u202egnp.exe"}');
    const { code, out } = await runSilas(['ilp', 'parse', file]);
    expect(code).toBe(0);
    // eslint-disable-next-line no-control-regex -- the test looks for them
    expect(out).not.toMatch(/[\u001b\u202e]/);
    // JSON writes the escape as \u001b; the override JSON leaves raw is spelled out.
    expect(out).toContain('\\u001b[2J\\u{202e}gnp.exe');
  });

  it('bad usage exits 2 with the usage', async () => {
    const none = await runSilas(['ilp', 'parse']);
    expect(none.code).toBe(2);
    expect((await runSilas(['ilp', 'parse', 'a', '--yaml'])).code).toBe(2);
    const help = await runSilas(['ilp', '--help']);
    expect(help).toMatchObject({ code: 0, out: expect.stringContaining('silas ilp parse FILE [--json]') });
  });
});
