import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ScratchKeyring } from '../../keys/testing/keyring.js';
import { NamedSecrets } from '../../keys/named-secrets.js';
import { encodingsOf, fakeApiKey } from '../../llm/testing/llm.js';
import { openaiReply, startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../../llm/testing/scripted-openai-server.js';
import { planHash } from '../../silas/work/hashes.js';
import { parsePlan } from '../../silas/work/plan-parser.js';
import { runSilas } from '../../testing/cli.js';
import { useTempDirs } from '../../testing/temp.js';
import { runCli } from '../main.js';
import { typedAtTerminal } from '../testing/typed-terminal.js';

// `silas run --agent llm` end to end: the real CLI, ledger, approval engine, sandbox and
// verification; the executor model is the scripted OpenAI-compatible server, its API key and
// the owner key are in the real OS keyring (scripts/with-keyring.sh) under a scratch service.
const tempDir = useTempDirs('silas-run-llm-');

const PLAN = `---
id: task-greeting
type: task
title: Write the greeting file
budget: { max_tokens: 100000, max_cost_usd: 1.00, max_wall_time_seconds: 600, max_attempts: 1 }
verify:
  - name: greeting
    run: cat hello.txt
    expect: { equals: "hello" }
---

# What to do

Write hello.txt containing exactly "hello".
`;

let keyring: ScratchKeyring;
let server: ScriptedOpenAIServer;
let key: string;
let home: string;
let workDir: string;
let planFile: string;

beforeEach(async () => {
  keyring = new ScratchKeyring();
  server = await startScriptedOpenAIServer();
  key = fakeApiKey();
  const dir = tempDir();
  home = join(dir, 'home');
  workDir = join(dir, 'work');
  mkdirSync(workDir);
  planFile = join(dir, 'greeting.md');
  writeFileSync(planFile, PLAN);
  expect((await runSilas(['init', '--home', home], { secretStore: keyring })).code).toBe(0);
});

afterEach(async () => {
  await server.http.close();
  keyring.cleanup();
});

const confirmation = () => `${planHash(parsePlan(PLAN)).slice(0, 8)}\n`;

async function silas(argv: string[], stdin?: string) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (t) => out.push(t), err: (t) => err.push(t), env: {}, secretStore: keyring, stdin: stdin === undefined ? undefined : Readable.from([stdin]), approvalTerminal: typedAtTerminal(stdin ?? '') });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const runLlm = (stdin = confirmation()) => silas(['run', planFile, '--agent', 'llm', '--approve-here', '--json', '--home', home, '--workdir', workDir], stdin);

async function configureExecutor(secret = 'local-llm-key') {
  const set = await silas(['models', 'set', 'executor', '--provider', 'openai-compatible', '--model', 'llama3.1:8b', '--base-url', server.baseUrl, '--api-key-secret', secret, '--price-in', '1', '--price-out', '2', '--home', home]);
  expect(set.code).toBe(0);
}

function ledger(): { id: string; event: string; data: Record<string, unknown>; text: string }[] {
  const db = new Database(join(home, 'silas.db'), { readonly: true });
  try {
    return (db.prepare('SELECT id, event, data FROM audit_entries ORDER BY idx').all() as { id: string; event: string; data: string }[]).map((r) => ({ ...r, data: JSON.parse(r.data), text: `${r.event} ${r.data}` }));
  } finally {
    db.close();
  }
}

const turn = (value: unknown, prompt: number, completion: number) => openaiReply.object(value, { prompt_tokens: prompt, completion_tokens: completion });

describe('silas run --agent llm', () => {
  it('runs the plan with the executor model: a repaired answer, a tool call, the end; verified, audited, and the key nowhere', async () => {
    new NamedSecrets(keyring).set('local-llm-key', key, { origins: [server.baseUrl] });
    await configureExecutor();
    server.http.enqueue(
      openaiReply.completion({ content: 'Sure! I will write the file now.', usage: { prompt_tokens: 500, completion_tokens: 9 } }),
      turn({ action: 'tool_call', tool: 'shell_exec', args: { command: ['sh', '-c', 'printf hello > hello.txt'] } }, 520, 30),
      turn({ action: 'finish', output: { summary: 'wrote hello.txt', artifact_refs: ['hello.txt'], next_steps: [] } }, 600, 25),
    );

    const result = await runLlm();

    expect(result.code).toBe(0);
    const output = JSON.parse(result.out);
    expect(output).toMatchObject({ status: 'done', verification_results: [expect.objectContaining({ name: 'greeting', passed: true })] });
    expect(readFileSync(join(workDir, 'hello.txt'), 'utf8')).toBe('hello');
    expect(result.err).toContain(`Agent: executor model "llama3.1:8b" (openai-compatible at ${server.baseUrl})`);

    // The model was asked three times; the second request is the first one plus the repair note.
    expect(server.http.pending).toBe(0);
    const bodies = server.http.requests.map((r) => r.json as { messages: { role: string; content: string }[] });
    expect(bodies[1]!.messages.slice(0, -1)).toEqual(bodies[0]!.messages);
    expect(bodies[1]!.messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringContaining('[SCHEMA VALIDATION ERROR]\n$: the answer is not JSON') });
    expect(server.http.requests.every((r) => r.headers.authorization === `Bearer ${key}`)).toBe(true);

    const entries = ledger();
    const ours = entries.filter((e) => output.audit_ids.includes(e.id));
    expect(ours.filter((e) => e.event === 'silas.agent.output_repaired').map((e) => e.data)).toEqual([
      { work_item_id: 'task-greeting', agent: 'executor', first_error: '$: the answer is not JSON; answer with one JSON object and nothing else' },
    ]);
    const usage = ours.filter((e) => e.event === 'silas.agent.model_usage').map((e) => e.data);
    const call = { work_item_id: 'task-greeting', agent: 'executor', role: 'executor', provider: 'openai-compatible', model: 'llama3.1:8b' };
    expect(usage).toEqual([
      { ...call, input_tokens: 500, output_tokens: 9, cost_usd: (500 + 9 * 2) / 1e6, repair: false },
      { ...call, input_tokens: 520, output_tokens: 30, cost_usd: (520 + 30 * 2) / 1e6, repair: true },
      { ...call, input_tokens: 600, output_tokens: 25, cost_usd: (600 + 25 * 2) / 1e6, repair: false },
    ]);
    expect(ours.some((e) => e.event === 'silas.agent.output_fallback')).toBe(false);
    // Every call's tokens reached the work item's budget.
    const budget = ours.filter((e) => e.event === 'silas.work_item.status_changed').at(-1)!.data.budget_used as { tokens: number };
    expect(budget.tokens).toBe(500 + 9 + 520 + 30 + 600 + 25);
    expect(ours.findIndex((e) => e.event === 'silas.approval.consumed')).toBeLessThan(ours.findIndex((e) => e.event === 'silas.agent.model_usage'));

    // The key: not in any entry, not in the database's files, not in anything printed.
    const stored = ['silas.db', 'silas.db-wal'].map((f) => join(home, f)).filter((f) => existsSync(f)).map((f) => readFileSync(f).toString('latin1'));
    for (const form of encodingsOf(key)) {
      for (const entry of entries) expect(entry.text).not.toContain(form);
      for (const bytes of stored) expect(bytes).not.toContain(form);
      expect(result.out).not.toContain(form);
      expect(result.err).not.toContain(form);
    }
  });

  it('says how to configure the executor model when none is, before anyone is asked to approve', async () => {
    const result = await runLlm();
    expect(result.code).toBe(1);
    expect(result.err).toContain('no model configured for the executor role: run `silas models set executor --provider … --model …`');
    expect(JSON.parse(result.out)).toMatchObject({ status: 'blocked' });
    expect(ledger().some((e) => e.event.startsWith('silas.run.') || e.event.startsWith('silas.approval.'))).toBe(false);
  });

  it('says how to store a missing API key, before anyone is asked to approve', async () => {
    await configureExecutor('absent-key');
    const result = await runLlm();
    expect(result.code).toBe(1);
    expect(result.err).toContain('secret "absent-key", which is not in the OS keyring');
    expect(result.err).toContain('run `silas secrets set absent-key`');
    expect(server.http.requests).toHaveLength(0);
    expect(ledger().some((e) => e.event.startsWith('silas.run.') || e.event.startsWith('silas.approval.'))).toBe(false);
  });

  it('audits the fallback when the model never answers in shape, and the task fails with the §5.1.0 reason', async () => {
    new NamedSecrets(keyring).set('local-llm-key', key, { origins: [server.baseUrl] });
    await configureExecutor();
    server.http.enqueue(openaiReply.completion({ content: 'let me think' }), openaiReply.completion({ content: `still thinking; my key is ${key}` }));

    const result = await runLlm();

    expect(result.code).toBe(1);
    expect(JSON.parse(result.out).status).not.toBe('done');
    expect(existsSync(join(workDir, 'hello.txt'))).toBe(false);
    const entries = ledger();
    expect(entries.filter((e) => e.event === 'silas.agent.output_fallback').map((e) => e.data)).toEqual([
      expect.objectContaining({ work_item_id: 'task-greeting', agent: 'executor', reason: 'schema_invalid_twice', raw_excerpt: expect.stringContaining('still thinking') }),
    ]);
    expect(entries.filter((e) => e.event === 'silas.executor.attempt_failed').map((e) => e.data.reason)).toEqual([expect.stringContaining('executor_structured_output_invalid')]);
    // A model that echoes the key gets it redacted before anything is recorded.
    for (const form of encodingsOf(key)) for (const entry of entries) expect(entry.text).not.toContain(form);
  });
});
