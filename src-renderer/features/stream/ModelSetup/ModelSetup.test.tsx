import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeTransport } from '../../../testing/fake-transport.js';
import { flush } from '../../../testing/render-cockpit.js';
import { renderStream } from '../../../testing/render-stream.js';
import { opened, readyModels, roleStatus, unconfiguredModels } from '../../../testing/stream-fixtures.js';
import { ModelSetup } from './ModelSetup.js';

afterEach(cleanup);

const textbox = (name: string) => screen.getByRole('textbox', { name }) as HTMLInputElement;
const apiKey = () => screen.getByLabelText('API key') as HTMLInputElement;
const provider = () => screen.getByRole('combobox', { name: 'Provider' }) as HTMLSelectElement;
const fill = (element: HTMLElement, value: string) => fireEvent.change(element, { target: { value } });
const save = () => fireEvent.click(screen.getByRole('button', { name: 'Save' }));

function runtime(): FakeTransport {
  return new FakeTransport('connected')
    .handle('models.configure', () => ({ ok: true, value: readyModels() }))
    .handle('secrets.store', () => ({ ok: true, value: { stored: true } }))
    .handle('models.test', () => ({ ok: true, value: { ok: true, role: 'proxy', latency_ms: 412, message: 'openai-compatible answered with model "llama3.1:8b" in 412 ms' } }))
    .handle('models.status', () => ({ ok: true, value: readyModels() }));
}

const renderSetup = (transport = runtime(), models = unconfiguredModels()) => renderStream(<ModelSetup />, opened({ models }), transport);

describe('ModelSetup', () => {
  it('walks the person through a local model: provider, model, base URL, no key needed', async () => {
    await renderSetup();
    expect(screen.getByRole('form', { name: 'Set up a model' })).toBeTruthy();
    expect(within(provider()).getAllByRole('option').map((o) => o.textContent)).toEqual([
      'Local or OpenAI-compatible (Ollama, LM Studio, vLLM, llama.cpp)',
      'OpenRouter',
      'Anthropic',
    ]);
    expect(provider().value).toBe('openai-compatible');
    expect(textbox('Base URL').placeholder).toBe('http://127.0.0.1:11434/v1');
    expect(textbox('Base URL').required).toBe(true);
    expect(textbox('Keyring secret name').value).toBe('openai-compatible-key');
    expect(apiKey().type).toBe('password');
    expect(apiKey().getAttribute('autocomplete')).toBe('off');
    expect((screen.getByRole('button', { name: 'Test connection' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('lists what is missing, role by role', async () => {
    await renderSetup(runtime(), { ...unconfiguredModels(), problem: 'models.yaml is not valid YAML; fix line 3' });
    const missing = screen.getByRole('list', { name: 'What is missing' });
    expect(within(missing).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'models.yaml is not valid YAML; fix line 3',
      'Proxy: no model for the proxy role; set one up below',
      'Planner: no model for the planner role; set one up below',
      'Executor: no model for the executor role; set one up below',
      'Scorer: no model for the scorer role; set one up below',
    ]);
  });

  it('names the field it can check before asking the runtime, and asks nothing', async () => {
    const harness = await renderSetup();
    save();
    expect(screen.getByRole('alert').textContent).toBe('Could not save the model. Model: Write the model name the provider knows it by, e.g. "llama3.1:8b".');
    expect(textbox('Model').getAttribute('aria-invalid')).toBe('true');
    expect(textbox('Model').getAttribute('aria-describedby')).toContain(screen.getByRole('alert').id);
    fill(textbox('Model'), 'llama3.1:8b');
    save();
    expect(screen.getByRole('alert').textContent).toContain('Base URL: A local or OpenAI-compatible server needs its base URL');
    expect(textbox('Base URL').getAttribute('aria-invalid')).toBe('true');
    expect(textbox('Model').getAttribute('aria-invalid')).toBeNull();
    expect(harness.transport.callsTo('models.configure')).toEqual([]);
  });

  it('saves, then tests the connection and shows the answer', async () => {
    const harness = await renderSetup();
    fill(textbox('Model'), 'llama3.1:8b');
    fill(textbox('Base URL'), 'http://127.0.0.1:11434/v1');
    save();
    await flush();
    expect(harness.transport.callsTo('models.configure')).toEqual([{ provider: 'openai-compatible', model: 'llama3.1:8b', base_url: 'http://127.0.0.1:11434/v1' }]);
    expect(harness.transport.callsTo('secrets.store')).toEqual([]);
    expect(screen.getByText(/^Saved: llama3\.1:8b \(openai-compatible\) answers for proxy, planner, executor and scorer\./)).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Test connection' }));
    expect(screen.getByRole('status', { name: 'Model test' }).textContent).toBe('Testing the connection…');
    await flush();
    expect(harness.transport.callsTo('models.test')).toEqual([{ role: 'proxy' }]);
    expect(screen.getByRole('status', { name: 'Model test' }).textContent).toBe('Connection works: openai-compatible answered with model "llama3.1:8b" in 412 ms');
  });

  it('sends an API key once, through secure input only (never with the configuration), and empties the field', async () => {
    window.sessionStorage.clear();
    const harness = await renderSetup();
    fireEvent.change(provider(), { target: { value: 'openrouter' } });
    expect(textbox('Keyring secret name').value).toBe('openrouter-key');
    expect(textbox('Base URL').required).toBe(false);
    expect(textbox('Base URL').placeholder).toBe('https://openrouter.ai/api/v1');
    fill(textbox('Model'), 'anthropic/claude-sonnet-4.5');
    const secret = 'sk-or-v1-abcdef0123456789';
    fill(apiKey(), secret);
    save();
    expect(apiKey().value).toBe('');
    await flush();
    expect(harness.transport.callsTo('secrets.store')).toEqual([{ name: 'openrouter-key', value: secret }]);
    expect(harness.transport.callsTo('models.configure')).toEqual([{ provider: 'openrouter', model: 'anthropic/claude-sonnet-4.5', api_key_secret: 'openrouter-key' }]);
    expect(JSON.stringify(harness.transport.callsTo('models.configure'))).not.toContain(secret);
    expect(JSON.stringify(harness.store.getState())).not.toContain(secret);
    expect(JSON.stringify({ ...window.sessionStorage })).not.toContain(secret);
    expect(document.body.innerHTML).not.toContain(secret);
  });

  it('shows a refused configuration naming the field the runtime names', async () => {
    const transport = runtime().handle('models.configure', () => ({
      ok: false,
      error: { code: 'E_CFG_INVALID', message: 'the model configuration is not valid: models.proxy.apiKeySecret: this looks like an API key; write the NAME of a keyring secret here' },
    }));
    await renderSetup(transport);
    fireEvent.change(provider(), { target: { value: 'anthropic' } });
    fill(textbox('Model'), 'claude-sonnet-4-5');
    fill(textbox('Keyring secret name'), 'sk-ant-pasted');
    fill(apiKey(), 'sk-ant-real');
    save();
    await flush();
    expect(screen.getByRole('alert').textContent).toBe(
      'Could not save the model. Keyring secret name: the model configuration is not valid: models.proxy.apiKeySecret: this looks like an API key; write the NAME of a keyring secret here (E_CFG_INVALID)',
    );
    expect(textbox('Keyring secret name').getAttribute('aria-invalid')).toBe('true');
    expect(apiKey().value).toBe('');
  });

  it('shows a failed test in the status region and a failed call in an alert', async () => {
    const transport = runtime().handle('models.test', () => ({ ok: true, value: { ok: false, role: 'proxy', latency_ms: 3, message: 'connection refused at http://127.0.0.1:11434/v1' } }));
    const models = { ...unconfiguredModels(), roles: [roleStatus('proxy', { problem: 'the planner has no model' })] };
    await renderSetup(transport, models);
    fireEvent.click(screen.getByRole('button', { name: 'Test connection' }));
    await flush();
    expect(screen.getByRole('status', { name: 'Model test' }).textContent).toBe('Connection failed: connection refused at http://127.0.0.1:11434/v1');

    transport.handle('models.test', () => ({ ok: false, error: { code: 'E_UNAVAILABLE', message: 'model setup is not running in this runtime; restart Silas' } }));
    fireEvent.click(screen.getByRole('button', { name: 'Test connection' }));
    await flush();
    expect(screen.getByRole('alert').textContent).toBe('Could not test the connection: model setup is not running in this runtime; restart Silas (E_UNAVAILABLE)');
  });

  it('starts from the configured model and reads the status again on request', async () => {
    const harness = await renderSetup(runtime(), { ...readyModels(), ready: false });
    expect(textbox('Model').value).toBe('llama3.1:8b');
    expect(textbox('Base URL').value).toBe('http://127.0.0.1:11434/v1');
    expect(screen.queryByRole('button', { name: 'Done' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Check again' }));
    await flush();
    expect(harness.transport.callsTo('models.status')).toEqual([{}]);
    expect(harness.store.getState().stream.models?.ready).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Done' }));
    expect(harness.store.getState().stream.setup.open).toBe(false);
  });
});
