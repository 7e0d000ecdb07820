import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelsStatus, ModelsTestResult, StreamOpenResult } from '../../../src-shared/schemas/stream.js';
import { NamedSecrets } from '../../keys/named-secrets.js';
import { encodingsOf, fakeApiKey } from '../../llm/testing/llm.js';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../../llm/testing/scripted-openai-server.js';
import { useTempDirs } from '../../testing/temp.js';
import { directRoute, homeIn, startStreamHarness, streamedJson, type StreamHarness, type TestConnection } from './testing/stream.js';

// HOME/models.json from the side of a local process that can write the data home but cannot reach
// the OS keyring (docs/silas/models.md, "models.json is sealed" and "Where a key may go"). The
// person sets up a model in the cockpit; the scripted server on 127.0.0.1 is the real provider and
// a second one is the attacker. Whatever the file is changed to, the attacker receives nothing,
// the turn fails closed with a message that says what happened and how to fix it, and the refusal
// is in the ledger.
const tempDir = useTempDirs('silas-models-attacks-');
let harness: StreamHarness | null = null;
let attacker: ScriptedOpenAIServer | null = null;

afterEach(async () => {
  await harness?.close();
  await attacker?.http.close();
  harness = null;
  attacker = null;
});

const ROLES = ['proxy', 'planner', 'executor'] as const;

interface Scene {
  h: StreamHarness;
  attacker: ScriptedOpenAIServer;
  key: string;
  cockpit: TestConnection;
  owner: TestConnection;
  scope: string;
  modelsFile: string;
}

/** The person's first run, as the cockpit does it: the key through secure input, then the model form; one turn reaches the provider. */
async function configured(): Promise<Scene> {
  const h = (harness = await startStreamHarness(homeIn(tempDir()), { configure: false }));
  const evil = (attacker = await startScriptedOpenAIServer());
  const cockpit = h.connect('session-ipc', 'ipc');
  const key = fakeApiKey();
  expect(await cockpit.ok('secrets.store', { name: 'provider-key', value: key })).toEqual({ stored: true });
  const status = await cockpit.ok<ModelsStatus>('models.configure', { provider: 'openai-compatible', model: 'scripted-model', base_url: h.server.baseUrl, api_key_secret: 'provider-key', roles: [...ROLES] });
  expect(status.ready).toBe(true);
  const owner = h.connect('session-owner');
  const { scope } = await owner.ok<StreamOpenResult>('stream.open', {});
  h.server.http.enqueue(streamedJson(directRoute('Hello.')));
  await turn(owner, scope, 'hello');
  expect(h.server.http.requests).toHaveLength(1);
  expect(h.server.http.requests[0]!.headers.authorization).toBe(`Bearer ${key}`);
  return { h, attacker: evil, key, cockpit, owner, scope, modelsFile: join(h.home, 'models.json') };
}

async function turn(connection: TestConnection, scope: string, text: string) {
  return connection.turn((await connection.ok<{ turn_id: string }>('stream.send', { scope, text })).turn_id);
}

/** What a process without the keyring does: rewrite the file in place. */
function rewrite(file: string, change: (role: Record<string, unknown>) => void): void {
  const models = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, unknown>>;
  for (const role of ROLES) change(models[role]!);
  writeFileSync(file, JSON.stringify(models, null, 2));
}

const refusals = (h: StreamHarness) => h.runtime.audit.tail(500).filter((e) => e.event === 'state.seal_refused').map((e) => e.data as Record<string, unknown>);

/** The attacker got nothing, and no form of any key reached it or the person's screens. */
function expectNothingSent(scene: Scene, keys: string[], seen: unknown): void {
  expect(scene.attacker.http.requests).toHaveLength(0);
  for (const key of keys) for (const form of encodingsOf(key)) expect(JSON.stringify(seen)).not.toContain(form);
}

describe('models.json changed by a process without the keyring', () => {
  it('a base URL pointed at another server: the next turn and the cockpit\'s test send nothing there, fail closed, and the refusal is audited', async () => {
    const scene = await configured();
    rewrite(scene.modelsFile, (role) => (role.baseUrl = scene.attacker.baseUrl));
    scene.attacker.http.enqueue(streamedJson(directRoute('Thanks for the key.')));

    const events = await turn(scene.owner, scene.scope, 'what is next?');
    const tested = await scene.cockpit.ok<ModelsTestResult>('models.test', { role: 'proxy' });
    const status = await scene.cockpit.ok<ModelsStatus>('models.status', {});

    expectNothingSent(scene, [scene.key], [events, tested, status]);
    expect(scene.h.server.http.requests).toHaveLength(1);
    // The person is told what happened and how to fix it.
    const said = JSON.stringify(events);
    expect(said).toContain('changed outside Silas');
    expect(said).toContain('silas models set');
    expect(tested).toMatchObject({ ok: false, message: expect.stringContaining('changed outside Silas') });
    expect(status.ready).toBe(false);
    expect(refusals(scene.h)).toContainEqual(expect.objectContaining({ kind: 'models', id: 'models.json', authority: 'owner', reason: 'mismatch' }));

    // Saving the model again in the cockpit is the fix.
    await scene.cockpit.ok('models.configure', { provider: 'openai-compatible', model: 'scripted-model', base_url: scene.h.server.baseUrl, api_key_secret: 'provider-key', roles: [...ROLES] });
    scene.h.server.http.enqueue(streamedJson(directRoute('Back.')));
    await turn(scene.owner, scene.scope, 'again');
    expect(scene.h.server.http.requests).toHaveLength(2);
    expect(scene.attacker.http.requests).toHaveLength(0);
  });

  it('apiKeySecret switched to an MCP server\'s token: that token is sent nowhere', async () => {
    const scene = await configured();
    // Stored as `silas secrets set github-token` stores it: for an MCP server, not for a model provider.
    const token = `ghp_${fakeApiKey('x').slice(2)}`;
    new NamedSecrets(scene.h.store).set('github-token', token);
    rewrite(scene.modelsFile, (role) => {
      role.baseUrl = scene.attacker.baseUrl;
      role.apiKeySecret = 'github-token';
    });
    scene.attacker.http.enqueue(streamedJson(directRoute('Thanks for the token.')));

    const events = await turn(scene.owner, scene.scope, 'what is next?');
    const tested = await scene.cockpit.ok<ModelsTestResult>('models.test', { role: 'proxy' });

    expectNothingSent(scene, [scene.key, token], [events, tested]);
    expect(tested.ok).toBe(false);
    expect(refusals(scene.h)).toContainEqual(expect.objectContaining({ kind: 'models', reason: 'mismatch' }));
  });

  it('an older models.json that Silas had sealed, put back with its seal: refused as not the one in force', async () => {
    const h = (harness = await startStreamHarness(homeIn(tempDir()), { configure: false }));
    const old = (attacker = await startScriptedOpenAIServer());
    const cockpit = h.connect('session-ipc', 'ipc');
    const key = fakeApiKey();
    await cockpit.ok('secrets.store', { name: 'provider-key', value: key });
    // The person once used another server (since taken over by the attacker), then moved to the real provider.
    await cockpit.ok('models.configure', { provider: 'openai-compatible', model: 'scripted-model', base_url: old.baseUrl, api_key_secret: 'provider-key', roles: [...ROLES] });
    const modelsFile = join(h.home, 'models.json');
    const saved = join(h.home, '..', 'models.json.old');
    copyFileSync(modelsFile, saved);
    if (existsSync(`${modelsFile}.seal`)) copyFileSync(`${modelsFile}.seal`, `${saved}.seal`);
    await cockpit.ok('models.configure', { provider: 'openai-compatible', model: 'scripted-model', base_url: h.server.baseUrl, api_key_secret: 'provider-key', roles: [...ROLES] });

    // The attacker puts the older copy (and its seal) back.
    copyFileSync(saved, modelsFile);
    if (existsSync(`${saved}.seal`)) copyFileSync(`${saved}.seal`, `${modelsFile}.seal`);
    old.http.enqueue(streamedJson(directRoute('Thanks for the key.')));
    const owner = h.connect('session-owner');
    const { scope } = await owner.ok<StreamOpenResult>('stream.open', {});
    const events = await turn(owner, scope, 'hello');

    expect(old.http.requests).toHaveLength(0);
    expect(h.server.http.requests).toHaveLength(0);
    expect(JSON.stringify(events)).toContain('older copy');
    expect(refusals(h)).toContainEqual(expect.objectContaining({ kind: 'models', id: 'models.json', reason: 'not-anchored' }));
  });
});
