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
    expect(plain.err).toMatch(/^refused \(400\): Content-Length: Content-Length declares 156/);
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

describe('silas ilp enforce', () => {
  const REASONING = 'A reserve absorbs shocks the way a buffer absorbs load in a control loop.';
  function files(response: unknown, context?: unknown) {
    const dir = tempDir();
    writeFileSync(join(dir, 'response.json'), JSON.stringify(response));
    if (context !== undefined) writeFileSync(join(dir, 'context.json'), JSON.stringify(context));
    return { response: join(dir, 'response.json'), context: join(dir, 'context.json'), dir };
  }
  const good = { answer: 'Keep a reserve.', concepts: ['reserve'], confidence: 0.9, reasoning: REASONING, cost_usd: 0.01 };

  it('answers 409 for §13.4 from the request body\'s own agent chain, from a shell', () => {
    const { response } = files(good);
    const { code, out } = runSilasProcess(['ilp', 'enforce', '--request', join(MESSAGES, '13.4-loop-detection.request.ilp'), '--response', response, '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({ status: 409, constitutional_status: 'VIOLATION', violations: [{ principle: 'loop_prevention', severity: 'error', message: 'Same agent invoked 3 times consecutively', suggested_action: 'Invoke a different agent for an alternative approach' }], warnings: [] });
  });

  it('answers 429 at the header\'s max_depth (§13.5), and 200 when the context says the invocation is shallower', async () => {
    const { response, context } = files(good, { depth: 2, invocations: 3, cost_usd: 0.02 });
    const deep = await runSilas(['ilp', 'enforce', '--request', join(MESSAGES, '13.5-budget-exceeded.request.ilp'), '--response', response, '--json']);
    expect(JSON.parse(deep.out)).toMatchObject({ status: 429, violations: [{ principle: 'recursion_budget', message: 'Max recursion depth reached (5/5)' }] });
    const shallow = await runSilas(['ilp', 'enforce', '--request', join(MESSAGES, '13.2-cross-domain.request.ilp'), '--response', response, '--context', context, '--json']);
    expect(JSON.parse(shallow.out)).toMatchObject({ status: 200, constitutional_status: 'PASSED' });
  });

  it('a request without a Constitutional-Header is refused, never defaulted (exit 1)', async () => {
    const { response } = files(good);
    const { code, out } = await runSilas(['ilp', 'enforce', '--request', join(MESSAGES, '13.6-trace-export.request.ilp'), '--response', response, '--json']);
    expect(code).toBe(1);
    expect(JSON.parse(out)).toMatchObject({ error: { status: 400, field: 'Constitutional-Header' } });
  });

  it('a bad response or context names its field', async () => {
    const bad = files({ ...good, confidence: 1.5 }, { depth: -1 });
    const response = await runSilas(['ilp', 'enforce', '--request', join(MESSAGES, '13.2-cross-domain.request.ilp'), '--response', bad.response, '--json']);
    expect(response.code).toBe(1);
    expect(JSON.parse(response.out)).toMatchObject({ error: { field: 'response.confidence' } });
    const context = await runSilas(['ilp', 'enforce', '--request', join(MESSAGES, '13.2-cross-domain.request.ilp'), '--response', files(good).response, '--context', bad.context, '--json']);
    expect(JSON.parse(context.out)).toMatchObject({ error: { field: 'context.depth' } });
    const notJson = join(bad.dir, 'notes.txt');
    writeFileSync(notJson, 'not json');
    expect(JSON.parse((await runSilas(['ilp', 'enforce', '--request', join(MESSAGES, '13.2-cross-domain.request.ilp'), '--response', notJson, '--json'])).out)).toMatchObject({ error: { field: 'response', message: /is not JSON/ } });
    expect((await runSilas(['ilp', 'enforce', '--request', join(MESSAGES, '13.2-cross-domain.request.ilp')])).code).toBe(2);
  });
});

