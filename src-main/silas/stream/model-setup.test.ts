import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelsStatus, ModelsTestResult } from '../../../src-shared/schemas/stream.js';
import { NamedSecrets } from '../../keys/named-secrets.js';
import { encodingsOf, fakeApiKey } from '../../llm/testing/llm.js';
import { openaiReply } from '../../llm/testing/scripted-openai-server.js';
import { useTempDirs } from '../../testing/temp.js';
import { homeIn, startStreamHarness, type StreamHarness } from './testing/stream.js';

// First run from the cockpit (§1.5): models.configure, models.status, models.test.
const tempDir = useTempDirs('silas-model-setup-');
let harness: StreamHarness | null = null;

afterEach(async () => {
  await harness?.close();
  harness = null;
});

describe('model setup from the cockpit', () => {
  it('stores the key in the keyring only, writes the roles, and a test call reaches the provider with it', async () => {
    const h = (harness = await startStreamHarness(homeIn(tempDir()), { configure: false }));
    const cockpit = h.connect('session-ipc', 'ipc');
    const before = await cockpit.ok<ModelsStatus>('models.status', {});
    expect(before.ready).toBe(false);
    const key = fakeApiKey();
    expect(await cockpit.ok('secrets.store', { name: 'openrouter-key', value: key })).toEqual({ stored: true });
    const status = await cockpit.ok<ModelsStatus>('models.configure', { provider: 'openrouter', model: 'meta-llama/llama-3.1-8b-instruct', base_url: h.server.baseUrl, api_key_secret: 'openrouter-key' });
    expect(status.ready).toBe(true);
    expect(status.roles.map((r) => [r.role, r.provider, r.key_secret, r.key_present])).toEqual([
      ['proxy', 'openrouter', 'openrouter-key', true],
      ['planner', 'openrouter', 'openrouter-key', true],
      ['executor', 'openrouter', 'openrouter-key', true],
      ['scorer', 'openrouter', 'openrouter-key', true],
    ]);
    expect(new NamedSecrets(h.store).get('openrouter-key')).toBe(key);
    const file = readFileSync(join(h.home, 'models.json'), 'utf8');
    expect(JSON.parse(file).proxy).toEqual({ provider: 'openrouter', model: 'meta-llama/llama-3.1-8b-instruct', baseUrl: h.server.baseUrl, apiKeySecret: 'openrouter-key' });
    expect(h.runtime.audit.tail(50).filter((e) => e.event === 'operator.models_configured').map((e) => e.data)).toEqual([
      { roles: ['proxy', 'planner', 'executor', 'scorer'], provider: 'openrouter', model: 'meta-llama/llama-3.1-8b-instruct', key_secret: 'openrouter-key' },
    ]);

    h.server.http.enqueue(openaiReply.stream({ text: ['OK'], usage: { prompt_tokens: 5, completion_tokens: 1 } }));
    const tested = await cockpit.ok<ModelsTestResult>('models.test', { role: 'proxy' });
    expect(tested).toMatchObject({ ok: true, role: 'proxy', message: expect.stringContaining('answered with model "meta-llama/llama-3.1-8b-instruct"') });
    expect(h.server.http.requests[0]!.headers.authorization).toBe(`Bearer ${key}`);
    h.server.http.enqueue(openaiReply.error(401, 'bad key'));
    const rejected = await cockpit.ok<ModelsTestResult>('models.test', { role: 'proxy' });
    expect(rejected).toMatchObject({ ok: false, message: expect.stringContaining('silas secrets set openrouter-key') });

    const everything = JSON.stringify([before, status, tested, rejected, cockpit.events, h.runtime.audit.tail(100)]) + file;
    for (const form of encodingsOf(key)) expect(everything).not.toContain(form);
  });

  it('refuses a configuration that names its field, or that carries a key, and then leaves the keyring and the file as they were', async () => {
    const h = (harness = await startStreamHarness(homeIn(tempDir()), { configure: false }));
    const cockpit = h.connect('session-ipc', 'ipc');
    const refused = await cockpit.call('models.configure', { provider: 'openai-compatible', model: 'llama3.1:8b' });
    expect(refused).toMatchObject({ ok: false, error: { code: 'E_INVALID_ARGS', message: expect.stringContaining('model.baseUrl: required for provider "openai-compatible"') } });
    const key = fakeApiKey();
    const withKey = await cockpit.call('models.configure', { provider: 'openrouter', model: 'm', api_key_secret: 'openrouter-key', api_key: key });
    expect(withKey).toMatchObject({ ok: false, error: { code: 'E_INVALID_ARGS', message: expect.stringContaining('api_key') } });
    expect(JSON.stringify(withKey)).not.toContain(key);
    expect(new NamedSecrets(h.store).get('openrouter-key')).toBeNull();
    expect(() => readFileSync(join(h.home, 'models.json'))).toThrow();
    // Only the cockpit may configure: the local socket's ask credential cannot.
    const terminal = h.connect('session-local', 'local-socket');
    expect(await terminal.call('models.configure', { provider: 'openai-compatible', model: 'm', base_url: 'http://127.0.0.1:1/v1' })).toMatchObject({ ok: false, error: { code: 'E_UNAUTHORIZED' } });
  });
});
