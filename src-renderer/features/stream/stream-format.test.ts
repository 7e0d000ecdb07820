import { describe, expect, it } from 'vitest';
import { readyModels, roleStatus, unconfiguredModels } from '../../testing/stream-fixtures.js';
import {
  baseUrlPlaceholder,
  checkModelForm,
  configureArgs,
  defaultSecretName,
  formatCost,
  formatTokens,
  messageTime,
  modelFieldOf,
  modelProblems,
  savedText,
  senderLabel,
  shortHash,
  testText,
  turnOutcomeText,
  workStatusLabel,
  workStatusTone,
  type ModelFormValues,
} from './stream-format.js';

const local: ModelFormValues = { provider: 'openai-compatible', model: 'llama3.1:8b', baseUrl: 'http://127.0.0.1:11434/v1', secretName: 'openai-compatible-key', secretEdited: false, apiKey: '' };
const openrouter: ModelFormValues = { provider: 'openrouter', model: 'anthropic/claude-sonnet-4.5', baseUrl: '', secretName: 'openrouter-key', secretEdited: false, apiKey: 'sk-or-1' };

describe('stream-format: conversation', () => {
  it('names senders and times messages', () => {
    expect(['person', 'silas', 'system'].map((s) => senderLabel(s as 'person'))).toEqual(['You', 'Silas', 'System']);
    expect(messageTime('2026-01-01T12:34:00.000Z')).toMatch(/\d{1,2}:34/);
    expect(messageTime('yesterday')).toBe('');
  });

  it('says every work status in words and gives it a tone', () => {
    expect(workStatusLabel('awaiting_approval')).toBe('awaiting approval');
    expect(workStatusLabel('verification_failed')).toBe('verification failed');
    expect(workStatusLabel('stuck')).toBe('stuck');
    expect(['awaiting_approval', 'running', 'done', 'declined'].map((s) => workStatusTone(s as 'done'))).toEqual(['waiting', 'active', 'ok', 'bad']);
    expect(shortHash('1a2b3c4d' + 'e'.repeat(56))).toBe('1a2b3c4d');
  });

  it('formats tokens, cost and outcome for the meter', () => {
    expect(formatTokens(1234567)).toBe('1,234,567');
    expect(formatCost(0.0012)).toBe('$0.0012');
    expect(formatCost(null)).toBe('not priced');
    expect(formatCost(0)).toBe('$0.00');
    expect(formatCost(0.00001)).toBe('< $0.0001');
    expect(formatCost(0.25)).toBe('$0.2500');
    expect(formatCost(3.456)).toBe('$3.46');
    expect(turnOutcomeText('cancelled')).toBe('stopped');
  });
});

describe('stream-format: model setup', () => {
  it('suggests the local address, the public endpoint and a secret name per provider', () => {
    expect(baseUrlPlaceholder('openai-compatible')).toBe('http://127.0.0.1:11434/v1');
    expect(baseUrlPlaceholder('openrouter')).toBe('https://openrouter.ai/api/v1');
    expect(defaultSecretName('anthropic')).toBe('anthropic-key');
  });

  it('checks what it can before asking the runtime, naming the field', () => {
    expect(checkModelForm(local)).toBeNull();
    expect(checkModelForm(openrouter)).toBeNull();
    expect(checkModelForm({ ...local, model: '  ' })?.field).toBe('model');
    expect(checkModelForm({ ...local, baseUrl: '' })).toMatchObject({ field: 'baseUrl', message: expect.stringContaining('http://127.0.0.1:11434/v1') });
    expect(checkModelForm({ ...openrouter, baseUrl: 'ftp://host' })?.field).toBe('baseUrl');
    expect(checkModelForm({ ...openrouter, secretName: '' })?.field).toBe('secretName');
    expect(checkModelForm({ ...openrouter, secretName: 'has space' })?.field).toBe('secretName');
    // A local server without a key needs no secret name at all.
    expect(checkModelForm({ ...local, secretName: '' })).toBeNull();
  });

  it('builds models.configure arguments: the secret name when a key is needed, never the key itself', () => {
    expect(configureArgs({ ...local, model: ' llama3.1:8b ' })).toEqual({ provider: 'openai-compatible', model: 'llama3.1:8b', base_url: 'http://127.0.0.1:11434/v1' });
    expect(configureArgs({ ...local, apiKey: 'k' })).toEqual({ provider: 'openai-compatible', model: 'llama3.1:8b', base_url: 'http://127.0.0.1:11434/v1', api_key_secret: 'openai-compatible-key' });
    expect(configureArgs({ ...local, secretName: 'vllm-key', secretEdited: true })).toMatchObject({ api_key_secret: 'vllm-key' });
    expect(configureArgs(openrouter)).toEqual({ provider: 'openrouter', model: 'anthropic/claude-sonnet-4.5', api_key_secret: 'openrouter-key' });
    expect(JSON.stringify(configureArgs(openrouter))).not.toContain('sk-or-1');
    expect(configureArgs({ ...openrouter, apiKey: '' })).toEqual({ provider: 'openrouter', model: 'anthropic/claude-sonnet-4.5', api_key_secret: 'openrouter-key' });
  });

  it('finds the field a runtime message is about', () => {
    expect(modelFieldOf('models.configure: args.model: write the model name the provider knows it by (E_INVALID_ARGS)')).toBe('model');
    expect(modelFieldOf('models.configure: args.base_url: "x" is not an http:// or https:// URL')).toBe('baseUrl');
    expect(modelFieldOf('the model configuration is not valid: models.proxy.baseUrl: required for provider "openai-compatible"')).toBe('baseUrl');
    expect(modelFieldOf('models.proxy.apiKeySecret: this looks like an API key')).toBe('secretName');
    expect(modelFieldOf('models.configure: args.api_key_secret: too long')).toBe('secretName');
    expect(modelFieldOf('models.configure: args.api_key: too long')).toBe('apiKey');
    expect(modelFieldOf('models.configure: args.provider: expected one of "openai-compatible"')).toBe('provider');
    // As the runtime's model setup words them (root "model").
    expect(modelFieldOf('model.baseUrl: required for provider "openai-compatible": write the server\'s OpenAI-compatible base URL')).toBe('baseUrl');
    expect(modelFieldOf('model.apiKeySecret: required for provider "openrouter": store the API key with `silas secrets set openrouter-key`')).toBe('secretName');
    expect(modelFieldOf('model.model: the model name is empty; write the name the provider knows the model by')).toBe('model');
    expect(modelFieldOf('the keyring is not available (E_KEYRING_UNAVAILABLE)')).toBeNull();
  });

  it('lists what is missing, the file first, then role by role', () => {
    expect(modelProblems(readyModels())).toEqual([]);
    expect(modelProblems({ ...unconfiguredModels(), problem: 'models.yaml: not valid YAML' })).toEqual([
      'models.yaml: not valid YAML',
      'Proxy: no model for the proxy role; set one up below',
      'Planner: no model for the planner role; set one up below',
      'Executor: no model for the executor role; set one up below',
      'Scorer: no model for the scorer role; set one up below',
    ]);
  });

  it('says what a save and a test did', () => {
    expect(savedText(readyModels())).toBe('Saved: llama3.1:8b (openai-compatible) answers for proxy, planner, executor and scorer. Silas can talk now.');
    const keyless = { ready: false, roles: [roleStatus('proxy', { provider: 'openrouter', model: 'm', key_secret: 'openrouter-key', problem: 'no key' })], problem: null };
    expect(savedText(keyless)).toBe('Saved: m (openrouter) answers for proxy. Silas cannot talk yet; see what is missing above.');
    expect(savedText(unconfiguredModels())).toBe('Saved, but no role has a model yet.');
    expect(testText({ ok: true, role: 'proxy', latency_ms: 320, message: 'openai-compatible answered with model "llama3.1:8b" in 320 ms' })).toBe(
      'Connection works: openai-compatible answered with model "llama3.1:8b" in 320 ms',
    );
    expect(testText({ ok: false, role: 'proxy', latency_ms: 0, message: 'connection refused' })).toBe('Connection failed: connection refused');
  });
});
