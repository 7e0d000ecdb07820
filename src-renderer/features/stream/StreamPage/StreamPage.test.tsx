import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeTransport } from '../../../testing/fake-transport.js';
import { flush, renderCockpit } from '../../../testing/render-cockpit.js';
import { emitStream, renderStream } from '../../../testing/render-stream.js';
import { event, message, opened, readyModels, SCOPE, unconfiguredModels, usage, workEvent } from '../../../testing/stream-fixtures.js';
import { StreamPage } from './StreamPage.js';

afterEach(cleanup);

const log = () => screen.queryByRole('log', { name: 'Conversation' });
const composer = () => screen.queryByRole('textbox', { name: 'Message to Silas' });
const setupForm = () => screen.queryByRole('form', { name: 'Set up a model' });

const unavailable = () => ({ ok: false as const, error: { code: 'E_UNAVAILABLE', message: 'the Stream is not running in this runtime; restart Silas' } });

function runtime(): FakeTransport {
  return new FakeTransport('connected')
    .handle('stream.send', () => ({ ok: true, value: { turn_id: 't1', queued_behind: 0 } }))
    .handle('models.configure', () => ({ ok: true, value: readyModels() }))
    .handle('models.test', () => ({ ok: true, value: { ok: true, role: 'proxy', latency_ms: 90, message: 'openai-compatible answered with model "llama3.1:8b" in 90 ms' } }));
}

describe('StreamPage', () => {
  it('asks for a model first, then shows the conversation once the model is ready', async () => {
    const harness = await renderStream(<StreamPage />, opened({ models: unconfiguredModels() }), runtime());
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Stream');
    expect(setupForm()).toBeTruthy();
    expect(composer()).toBeNull();
    expect(log()).toBeNull();

    fireEvent.change(screen.getByRole('textbox', { name: 'Model' }), { target: { value: 'llama3.1:8b' } });
    fireEvent.change(screen.getByRole('textbox', { name: 'Base URL' }), { target: { value: 'http://127.0.0.1:11434/v1' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await flush();
    expect(log()).toBeTruthy();
    expect(composer()).toBeTruthy();
    // The setup stays until the person is done with it, so the connection can be tested.
    fireEvent.click(screen.getByRole('button', { name: 'Test connection' }));
    await flush();
    expect(screen.getByRole('status', { name: 'Model test' }).textContent).toContain('Connection works');
    fireEvent.click(screen.getByRole('button', { name: 'Done' }));
    expect(setupForm()).toBeNull();

    fireEvent.click(screen.getByRole('button', { name: 'Model settings' }));
    expect(setupForm()).toBeTruthy();
    expect(harness.transport.callsTo('models.configure')).toHaveLength(1);
  });

  it('runs a whole turn: the message, the streamed answer, chips, a plan waiting in Review and the usage', async () => {
    const harness = await renderStream(<StreamPage />, opened(), runtime());
    expect(setupForm()).toBeNull();
    fireEvent.change(composer()!, { target: { value: 'Archive last year’s invoices' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect(harness.transport.callsTo('stream.send')).toEqual([{ scope: SCOPE, text: 'Archive last year’s invoices' }]);
    await flush();

    emitStream(
      harness,
      event('turn_started', { turn_id: 't1', turn: 1, message: message(1, 'person', 'Archive last year’s invoices') }),
      event('draft', { turn_id: 't1', delta: 'I can move them' }),
    );
    expect(screen.getByRole('button', { name: 'Stop' })).toBeTruthy();
    expect(log()!.getAttribute('aria-busy')).toBe('true');

    emitStream(
      harness,
      event('message', { turn_id: 't1', message: message(2, 'silas', 'I planned it. Shall I also empty the trash?'), chips: [{ value: 'yes, empty the trash', label: 'Yes' }] }),
      workEvent('w1', { title: 'Archive 2025 invoices' }),
      event('turn_finished', { turn_id: 't1', outcome: 'planned', usage: usage(), error: null }),
    );
    expect(within(log()!).getAllByRole('listitem')).toHaveLength(2);
    expect(screen.queryByRole('button', { name: 'Stop' })).toBeNull();
    expect(within(screen.getByRole('group', { name: 'Suggested replies' })).getByRole('button', { name: 'Yes' })).toBeTruthy();
    const card = screen.getByRole('article', { name: 'Archive 2025 invoices' });
    expect(within(card).getByText('awaiting approval')).toBeTruthy();
    expect(within(screen.getByRole('region', { name: 'Turn usage' })).getByText('$0.0012')).toBeTruthy();

    fireEvent.click(within(card).getByRole('link', { name: 'Open in Review' }));
    expect(harness.store.getState().navigation.route).toBe('review');
  });

  it('says why a turn ended without an answer', async () => {
    const harness = await renderStream(<StreamPage />);
    emitStream(harness, event('turn_finished', { turn_id: 't1', outcome: 'failed', usage: usage({ cost_usd: null }), error: 'the model did not answer within 120 s' }));
    expect(screen.getByRole('alert').textContent).toBe('Silas could not finish the last turn: the model did not answer within 120 s');
  });

  it('keeps a resumed conversation readable while no model is ready', async () => {
    await renderStream(<StreamPage />, opened({ resumed: true, history: [message(1, 'person', 'Earlier question')], models: unconfiguredModels() }));
    expect(within(log()!).getByText('Earlier question')).toBeTruthy();
    expect(setupForm()).toBeTruthy();
    expect(composer()).toBeNull();
  });

  it('says why the conversation could not be opened', async () => {
    renderCockpit(<StreamPage />, { transport: new FakeTransport('connected').handle('stream.open', unavailable) });
    await flush();
    expect(screen.getByRole('alert').textContent).toBe('Could not open the conversation: the Stream is not running in this runtime; restart Silas (E_UNAVAILABLE)');
    expect(log()).toBeNull();
    expect(composer()).toBeNull();
  });

  it('keeps the conversation on screen when reopening it after a reconnect fails', async () => {
    const harness = await renderStream(<StreamPage />, opened({ history: [message(1, 'person', 'Still here')] }));
    harness.transport.handle('stream.open', unavailable);
    act(() => harness.transport.setState('reconnecting'));
    act(() => harness.transport.setState('connected'));
    await flush();
    expect(screen.getByRole('alert').textContent).toContain('Could not open the conversation');
    expect(within(log()!).getByText('Still here')).toBeTruthy();
  });
});
