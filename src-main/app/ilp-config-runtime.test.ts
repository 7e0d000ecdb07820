import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemorySecretStore } from '../keys/secret-store.js';
import { NamedSecrets } from '../keys/named-secrets.js';
import { homePaths } from '../home/paths.js';
import { openaiReply, type ScriptedOpenAIServer } from '../llm/testing/scripted-openai-server.js';
import { startIlpRuntime, type IlpTestRuntime } from './testing/ilp-runtime.js';
import { ilpHttpServer } from '../ilp/testing/transports.js';
import { testComposition } from '../ilp/testing/composition.js';
import { insight } from '../ilp/testing/fake-model.js';
import { runSilas } from '../testing/cli.js';
import { useTempDirs } from '../testing/temp.js';
import type { Runtime } from './types.js';

/*
 * HOME/ilp.yaml in the running runtime (docs/ilp.md "Configuration"), put in force the way the
 * owner does it, with `silas ilp config apply` from a shell: a custom principle refuses an answer
 * with 403, a forbidden translation is a 451, and a remote specialist on another loopback port,
 * its credential in the keyring, is composed like a local one. From the attacker's side: the file
 * rewritten or removed by a process without the keyring stops ILP with a 503 naming the fix, and
 * the refusal is in the ledger; the owner's apply puts it back.
 */

const tempDir = useTempDirs();
const USAGE = { prompt_tokens: 1000, completion_tokens: 100 };
const LIMITS = JSON.stringify({ domain: 'meta', depth: 0, budget_usd: 0 });

let server: ScriptedOpenAIServer;
let runtime: Runtime;
let home: string;
let store: MemorySecretStore;
let started: IlpTestRuntime;
let remote: { url: string; close: () => Promise<void> };
let remoteSide: ReturnType<typeof testComposition>;

beforeEach(async () => {
  started = await startIlpRuntime(tempDir());
  ({ server, runtime, home, store } = started);
  remoteSide = testComposition();
  remote = await ilpHttpServer(remoteSide.service, 'remote-token');
  // As `silas secrets set remote-token --origin URL` stores it.
  new NamedSecrets(store).set('remote-token', 'remote-token', { origins: [remote.url] });
});
afterEach(async () => {
  await started.stop();
  await remote.close();
});

const configText = () => `version: 1
principles:
  - id: no_guarantees
    description: Finance answers never promise returns
    severity: error
    domains: [finance]
    forbidden_words: [guaranteed returns]
    suggested_action: Describe risk instead of promising a return
forbidden_translations:
  - from: finance
    to: biology
specialists:
  - id: remote-systems
    domain: control
    url: ${remote.url}/ilp/systems-agent
    credential_secret: remote-token
`;

async function silas(...argv: string[]) {
  return runSilas([...argv, '--home', home], { secretStore: store });
}

async function apply(text: string) {
  const file = join(tempDir(), 'ilp.yaml');
  writeFileSync(file, text);
  return silas('ilp', 'config', 'apply', file);
}

async function send(agent: string, method: string, body: unknown) {
  const { token, url } = JSON.parse(readFileSync(homePaths(home).controlFile, 'utf8')) as { token: string; url: string };
  const res = await fetch(`${url}ilp/${agent}/insight`, { method: 'POST', headers: { 'ILP-Method': method, Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Constitutional-Header': LIMITS }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const specialistAnswer = (answer: string) => ({ answer, concepts: ['budget'], confidence: 0.9, reasoning: 'The budgeting slice describes how a fixed share of income saved compounds over the years.', sources: ['budgeting-basics'], suggestions_to_invoke: [] });
const entries = (event: string) => runtime.audit.tail(500).filter((e) => e.event === event);

describe('HOME/ilp.yaml in the running runtime', () => {
  it('puts custom principles, forbidden translations and remote specialists in force from the next request', async () => {
    const applied = await apply(configText());
    expect(applied.code, applied.err).toBe(0);
    expect(applied.out).toContain('remote-systems');
    expect(entries('ilp.config_applied').map((e) => e.data)).toEqual([expect.objectContaining({ principles: ['no_guarantees'], forbidden_translations: 1, specialists: ['remote-systems'] })]);

    server.http.enqueue(openaiReply.object(specialistAnswer('Index funds give guaranteed returns of 7% a year.'), USAGE));
    const refused = await send('finance-agent', 'THINK', { query: 'Where should I put my savings?' });
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.body)).toContain('no_guarantees');

    const translation = await send('meta-agent', 'TRANSLATE', { from: 'finance', to: 'biology', concepts: ['interest'] });
    expect(translation.status).toBe(451);

    server.http.enqueue(
      openaiReply.object({ domains: ['control'], reasoning: 'A question about holding a level steady.' }, USAGE),
      openaiReply.object({ answer: 'Sense, compare with the set point, correct: that loop holds the level.', concepts: ['feedback_loop'], confidence: 0.9, reasoning: 'The remote control specialist described the loop; nothing else was needed here.', emergent_insights: [] }, USAGE),
    );
    remoteSide.model.reply(insight('Sense, compare, correct.', { sources: ['feedback-loops'] }));
    const composed = await send('meta-agent', 'THINK', { query: 'How does a thermostat hold a temperature?' });
    expect(composed.status).toBe(200);
    const hops = entries('ilp.request').map((e) => e.data as { agent: string; kind: string; status: number });
    expect(hops).toEqual(expect.arrayContaining([expect.objectContaining({ agent: 'remote-systems', kind: 'remote', status: 200 })]));

    const agents = await silas('ilp', 'agents', '--json');
    expect(agents.code, agents.err).toBe(0);
    expect(JSON.parse(agents.out)).toMatchObject({ agents: expect.arrayContaining([expect.objectContaining({ id: 'remote-systems', kind: 'remote', domain: 'control', uri: 'ilp://remote-systems/insight' })]), remote_problem: null });

    const shown = await silas('ilp', 'config', 'show', '--json');
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.out)).toMatchObject({ in_force: true, config: { specialists: [{ id: 'remote-systems' }] } });
  });

  it('stops ILP with a 503 naming the fix when HOME/ilp.yaml is rewritten or removed outside Silas, until the owner applies it', async () => {
    expect((await apply(configText())).code).toBe(0);
    const path = homePaths(home).ilpConfigFile;
    // A process without the keyring drops the owner's principle.
    writeFileSync(path, 'version: 1\n');
    const stopped = await send('finance-agent', 'THINK', { query: 'Where should I put my savings?' });
    expect(stopped.status).toBe(503);
    expect(JSON.stringify(stopped.body)).toContain('silas ilp config apply');
    expect(entries('state.seal_refused').map((e) => e.data)).toEqual([expect.objectContaining({ kind: 'ilp-config' })]);
    const shown = await silas('ilp', 'config', 'show');
    expect(shown.code).toBe(1);
    expect(shown.out).toContain('NOT IN FORCE');

    rmSync(path);
    const removed = await send('meta-agent', 'TRANSLATE', { from: 'finance', to: 'systems', concepts: [] });
    expect(removed.status).toBe(503);
    expect(JSON.stringify(removed.body)).toContain('removed outside Silas');

    expect((await apply(configText())).code).toBe(0);
    expect((await send('meta-agent', 'TRANSLATE', { from: 'finance', to: 'systems', concepts: [] })).status).toBe(200);
    expect((await send('meta-agent', 'TRANSLATE', { from: 'finance', to: 'biology', concepts: [] })).status).toBe(451);
  });

  it('refuses a file with a mistake with its line and column, and applies nothing', async () => {
    const applied = await apply('version: 1\nprinciples:\n  - id: safety\n    description: x\n    severity: error\n    forbidden_words: [x]\n');
    expect(applied.code).toBe(1);
    expect(applied.err).toContain(':3:');
    expect(applied.err).toContain('cannot be redefined');
    expect(entries('ilp.config_applied')).toEqual([]);
    const checked = await silas('ilp', 'config', 'check', join(tempDir(), 'missing.yaml'));
    expect(checked.code).toBe(1);
    expect(checked.err).toContain('no such file');
  });
});
