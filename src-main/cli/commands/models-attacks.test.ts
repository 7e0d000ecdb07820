import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../main.js';
import { ScratchKeyring } from '../../keys/testing/keyring.js';
import { NamedSecrets } from '../../keys/named-secrets.js';
import { encodingsOf, fakeApiKey } from '../../llm/testing/llm.js';
import { openaiReply, startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../../llm/testing/scripted-openai-server.js';
import { useTempDirs } from '../../testing/temp.js';
import { typedAtTerminal } from '../testing/typed-terminal.js';

// `silas models test` and `silas run --agent llm` after a process without the keyring rewrote
// HOME/models.json (docs/silas/models.md). The person set the executor up with the CLI, on the
// real keyring (scripts/with-keyring.sh); the scripted server on 127.0.0.1 is the provider, a
// second one the attacker. Nothing reaches the attacker, and the refusal is in the ledger.
const tempDir = useTempDirs('silas-models-attacks-cli-');

let keyring: ScratchKeyring;
let provider: ScriptedOpenAIServer;
let attacker: ScriptedOpenAIServer;
let home: string;
let key: string;
const printed: string[] = [];

beforeEach(async () => {
  keyring = new ScratchKeyring();
  provider = await startScriptedOpenAIServer();
  attacker = await startScriptedOpenAIServer();
  home = join(tempDir(), 'home');
  key = fakeApiKey();
  printed.length = 0;
  expect((await silas(['init', '--home', home])).code).toBe(0);
  // As `silas secrets set provider-key --origin URL` stores it.
  new NamedSecrets(keyring).set('provider-key', key, { origins: [provider.baseUrl] });
  const set = await silas(['models', 'set', 'executor', '--provider', 'openai-compatible', '--model', 'm', '--base-url', provider.baseUrl, '--api-key-secret', 'provider-key', '--home', home]);
  expect(set.code).toBe(0);
  provider.http.enqueue(openaiReply.stream({ text: ['OK'] }));
  expect((await silas(['models', 'test', 'executor', '--home', home])).code).toBe(0);
  expect(provider.http.requests[0]!.headers.authorization).toBe(`Bearer ${key}`);
});
afterEach(async () => {
  await provider.http.close();
  await attacker.http.close();
  keyring.cleanup();
});

async function silas(argv: string[], stdin?: string) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (t) => out.push(t), err: (t) => err.push(t), env: {}, secretStore: keyring, stdin: stdin === undefined ? undefined : Readable.from([stdin]), approvalTerminal: typedAtTerminal(stdin ?? '') });
  printed.push(...out, ...err);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

function refusals(): Record<string, unknown>[] {
  const db = new Database(join(home, 'silas.db'), { readonly: true });
  try {
    return (db.prepare("SELECT data FROM audit_entries WHERE event = 'state.seal_refused' ORDER BY idx").all() as { data: string }[]).map((r) => JSON.parse(r.data) as Record<string, unknown>);
  } finally {
    db.close();
  }
}

function pointAtAttacker(): void {
  const file = join(home, 'models.json');
  const models = JSON.parse(readFileSync(file, 'utf8')) as { executor: Record<string, unknown> };
  models.executor.baseUrl = attacker.baseUrl;
  writeFileSync(file, JSON.stringify(models));
}

function expectNothingSent(): void {
  expect(attacker.http.requests).toHaveLength(0);
  for (const form of encodingsOf(key)) expect(printed.join('\n')).not.toContain(form);
}

describe('silas models after models.json was changed outside Silas', () => {
  it('models test and run --agent llm send nothing to the new base URL; show says why; the refusal is audited', async () => {
    pointAtAttacker();
    attacker.http.enqueue(openaiReply.stream({ text: ['thanks'] }), openaiReply.stream({ text: ['thanks'] }));

    const tested = await silas(['models', 'test', 'executor', '--home', home]);
    expect(tested.code).toBe(1);
    expect(tested.err).toContain('changed outside Silas');
    expect(tested.err).toContain('silas models adopt');
    const plan = join(tempDir(), 'plan.md');
    writeFileSync(plan, '---\nid: task-x\ntype: task\ntitle: x\nbudget: { max_tokens: 1000, max_cost_usd: 1, max_wall_time_seconds: 60, max_attempts: 1 }\nverify:\n  - name: x\n    run: "true"\n    expect: { exit_code: 0 }\n---\n\nx\n');
    const run = await silas(['run', plan, '--agent', 'llm', '--approve-here', '--home', home, '--workdir', tempDir()], 'y\n');
    expect(run.code).not.toBe(0);
    expect(run.err).toContain('changed outside Silas');
    const shown = await silas(['models', 'show', '--home', home]);
    expect(shown.out).toContain('NOT IN USE');

    expectNothingSent();
    expect(provider.http.requests).toHaveLength(1);
    expect(refusals()).toContainEqual(expect.objectContaining({ kind: 'models', id: 'models.json', authority: 'owner', reason: 'mismatch' }));
  });

  it('even adopted by mistake, the file cannot send the key where it was not stored for: refused at the provider client, audited', async () => {
    pointAtAttacker();
    attacker.http.enqueue(openaiReply.stream({ text: ['thanks'] }));
    expect((await silas(['models', 'adopt', '--home', home])).code).toBe(0);

    const tested = await silas(['models', 'test', 'executor', '--home', home]);
    expect(tested.code).toBe(1);
    expect(tested.err).toContain(`silas secrets set provider-key --origin ${attacker.http.origin}`);
    expectNothingSent();
    expect(refusals()).toContainEqual(expect.objectContaining({ kind: 'secret-origin', id: 'provider-key', reason: 'mismatch' }));
  });

  it('the CLI moves a key to a new origin only when the person enters the key again', async () => {
    const moved = await silas(['models', 'set', 'executor', '--provider', 'openai-compatible', '--model', 'm', '--base-url', attacker.baseUrl, '--api-key-secret', 'provider-key', '--home', home]);
    expect(moved.code).toBe(0);
    expect(moved.err).toContain(`silas secrets set provider-key --origin ${attacker.http.origin}`);
    expect((await silas(['models', 'test', 'executor', '--home', home])).code).toBe(1);
    expect(attacker.http.requests).toHaveLength(0);

    // Entering it again (here piped, as `--key-stdin` reads it) binds it to the new origin.
    const again = await silas(['models', 'set', 'executor', '--provider', 'openai-compatible', '--model', 'm', '--base-url', attacker.baseUrl, '--api-key-secret', 'provider-key', '--key-stdin', '--home', home], `${key}\n`);
    expect(again.code).toBe(0);
    attacker.http.enqueue(openaiReply.stream({ text: ['OK'] }));
    expect((await silas(['models', 'test', 'executor', '--home', home])).code).toBe(0);
    expect(attacker.http.requests).toHaveLength(1);
  });
});
