import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../app/logger.js';
import { buildRuntime } from '../app/runtime.js';
import type { Runtime } from '../app/types.js';
import { NamedSecrets } from '../keys/named-secrets.js';
import { MemorySecretStore } from '../keys/secret-store.js';
import { fakeApiKey } from '../llm/testing/llm.js';
import { useTempDirs } from '../testing/temp.js';

// §8.1 secure input on the headless cockpit: `POST /secrets/NAME` puts a secret in the OS keyring
// for the cockpit page only (its Origin and credential), and never echoes it. Attacker's side:
// another local page, a process without the cockpit credential, oversized and malformed bodies.
const tempDir = useTempDirs('silas-secure-input-');
let runtime: Runtime | null = null;
let store: MemorySecretStore;

afterEach(async () => {
  await runtime?.stop('test');
  runtime = null;
});

async function start() {
  store = new MemorySecretStore();
  runtime = await buildRuntime({ home: join(tempDir(), 'home'), mode: 'headless', port: 0, cockpitDir: null, auditPollMs: 20 }, { secretStore: store, logger: silentLogger });
  await runtime.start();
  const cockpit = runtime.cockpit!;
  const origin = cockpit.url.replace(/\/$/, '');
  const post = (name: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${origin}/secrets/${name}`, { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: origin, Authorization: `Bearer ${cockpit.token}`, ...headers }, body });
  return { runtime, origin, post };
}

const secretEvents = (r: Runtime) => r.audit.tail(100).filter((e) => e.event === 'operator.secret_stored' || e.event === 'control.auth_failed');

describe('POST /secrets/NAME', () => {
  it('stores the value in the keyring under its name, answers {"stored":true} and records the name only', async () => {
    const { runtime: r, post } = await start();
    const key = fakeApiKey();
    const response = await post('openrouter-key', JSON.stringify({ value: key }));
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ stored: true });
    expect(text).not.toContain(key);
    expect(new NamedSecrets(store).get('openrouter-key')).toBe(key);
    expect(secretEvents(r).map((e) => [e.event, e.data])).toEqual([['operator.secret_stored', { name: 'openrouter-key', channel: 'https-secure-input' }]]);
    expect(JSON.stringify(r.audit.tail(100))).not.toContain(key);
  });

  it('refuses a foreign Origin, a missing or wrong credential, and audits each; nothing is stored', async () => {
    const { runtime: r, post } = await start();
    const body = JSON.stringify({ value: 'sk-attacker-value' });
    expect((await post('planted', body, { Origin: 'http://127.0.0.1:1' })).status).toBe(403);
    expect((await post('planted', body, { Authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await post('planted', body, { Authorization: '' })).status).toBe(401);
    const askToken = JSON.parse((await import('node:fs')).readFileSync(join(r.home, 'control.json'), 'utf8')).token as string;
    expect((await post('planted', body, { Authorization: `Bearer ${askToken}` })).status).toBe(401);
    expect(new NamedSecrets(store).get('planted')).toBeNull();
    expect(secretEvents(r).map((e) => (e.data as { reason: string }).reason)).toEqual([
      'secure input: foreign or missing Origin',
      'secure input: wrong or missing cockpit credential',
      'secure input: wrong or missing cockpit credential',
      'secure input: wrong or missing cockpit credential',
    ]);
  });

  it('bad input gets a clear answer that never quotes the value; the keyring is untouched', async () => {
    const { post, origin } = await start();
    const cases: [string, string, Record<string, string>, number, RegExp][] = [
      ['k', '{"value": "sk-unterminated', {}, 400, /not valid JSON/],
      ['k', JSON.stringify({ value: 'x', extra: 1 }), {}, 400, /send \{"value": "…"\} and nothing else/],
      ['k', JSON.stringify({ value: '' }), {}, 400, /value: the secret is empty/],
      ['k', JSON.stringify({ value: 'x'.repeat(50_000) }), {}, 413, /too large/],
      ['bad%20name', JSON.stringify({ value: 'x' }), {}, 400, /^name: a secret name is/],
      ['k', JSON.stringify({ value: 'x' }), { 'Content-Type': 'text/plain' }, 415, /as JSON/],
    ];
    for (const [name, body, headers, status, message] of cases) {
      const response = await post(name, body, headers);
      const text = await response.text();
      expect([status, text], `${name} ${body.slice(0, 40)}`).toEqual([status, expect.stringMatching(message)]);
      expect(text).not.toContain('sk-unterminated');
    }
    const get = await fetch(`${origin}/secrets/k`);
    expect(get.status).toBe(405);
    expect(new NamedSecrets(store).get('k')).toBeNull();
  });

  it('the secrets.store call is refused over the WebSocket and accepted over IPC', async () => {
    const { runtime: r } = await start();
    expect(await r.router.dispatch('secrets.store', { name: 'a-key', value: 'v1' }, { transport: 'websocket', session: 's' })).toMatchObject({ ok: false, error: { code: 'E_UNAUTHORIZED', message: expect.stringContaining('POST /secrets/NAME') } });
    expect(await r.router.dispatch('secrets.store', { name: 'a-key', value: 'v1' }, { transport: 'local-socket', session: 's' })).toMatchObject({ ok: false, error: { code: 'E_UNAUTHORIZED' } });
    expect(await r.router.dispatch('secrets.store', { name: 'a-key', value: 'v2' }, { transport: 'ipc', session: 's' })).toEqual({ ok: true, value: { stored: true } });
    expect(new NamedSecrets(store).get('a-key')).toBe('v2');
  });
});
