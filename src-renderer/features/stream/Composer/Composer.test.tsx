import { cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeTransport } from '../../../testing/fake-transport.js';
import { flush } from '../../../testing/render-cockpit.js';
import { emitStream, renderStream } from '../../../testing/render-stream.js';
import { event, message, opened, SCOPE, usage } from '../../../testing/stream-fixtures.js';
import { Composer } from './Composer.js';

afterEach(cleanup);

const input = () => screen.getByRole('textbox', { name: 'Message to Silas' }) as HTMLTextAreaElement;
const sendButton = () => screen.getByRole('button', { name: 'Send' }) as HTMLButtonElement;
const type = (text: string) => fireEvent.change(input(), { target: { value: text } });

function accepting(): FakeTransport {
  return new FakeTransport('connected').handle('stream.send', () => ({ ok: true, value: { turn_id: 't1', queued_behind: 0 } }));
}

describe('Composer', () => {
  it('sends with the Send button, enabled only once something is typed', async () => {
    const harness = await renderStream(<Composer />, opened(), accepting());
    expect(sendButton().disabled).toBe(true);
    type('   ');
    expect(sendButton().disabled).toBe(true);
    type('Tidy my downloads folder');
    expect(sendButton().disabled).toBe(false);
    fireEvent.click(sendButton());
    expect(harness.transport.callsTo('stream.send')).toEqual([{ scope: SCOPE, text: 'Tidy my downloads folder' }]);
    expect(input().value).toBe('');
    await flush();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('sends on Enter and keeps Shift+Enter for a new line', async () => {
    const harness = await renderStream(<Composer />, opened(), accepting());
    type('line one');
    fireEvent.keyDown(input(), { key: 'Enter', shiftKey: true });
    expect(harness.transport.callsTo('stream.send')).toEqual([]);
    expect(input().value).toBe('line one');
    type('line one\nline two');
    fireEvent.keyDown(input(), { key: 'Enter' });
    expect(harness.transport.callsTo('stream.send')).toEqual([{ scope: SCOPE, text: 'line one\nline two' }]);
    await flush();
  });

  it('names the problem in an alert when the runtime refuses the message, and gives the text back', async () => {
    const transport = new FakeTransport('connected').handle('stream.send', () => ({
      ok: false,
      error: { code: 'E_INVALID_ARGS', message: 'stream.send: args.text: a message has at most 20000 characters; split it or attach a file to a plan instead' },
    }));
    await renderStream(<Composer />, opened(), transport);
    type('a very long message');
    fireEvent.click(sendButton());
    await flush();
    expect(screen.getByRole('alert').textContent).toBe(
      'Could not send your message: stream.send: args.text: a message has at most 20000 characters; split it or attach a file to a plan instead (E_INVALID_ARGS)',
    );
    expect(input().value).toBe('a very long message');
    expect(input().getAttribute('aria-describedby')).toContain(screen.getByRole('alert').id);
  });

  it('offers Stop only while a turn runs, and stops it with stream.cancel', async () => {
    const transport = new FakeTransport('connected').handle('stream.cancel', () => ({ ok: true, value: { cancelled: true } }));
    const harness = await renderStream(<Composer />, opened(), transport);
    expect(screen.queryByRole('button', { name: 'Stop' })).toBeNull();
    emitStream(harness, event('turn_started', { turn_id: 't1', turn: 1, message: message(1, 'person') }));
    fireEvent.click(screen.getByRole('button', { name: 'Stop' }));
    expect(harness.transport.callsTo('stream.cancel')).toEqual([{ scope: SCOPE }]);
    await flush();
    emitStream(harness, event('turn_finished', { turn_id: 't1', outcome: 'cancelled', usage: usage(), error: null }));
    expect(screen.queryByRole('button', { name: 'Stop' })).toBeNull();
  });

  it('says when a turn could not be stopped', async () => {
    const transport = new FakeTransport('connected').handle('stream.cancel', () => ({ ok: false, error: { code: 'E_UNAVAILABLE', message: 'runtime gone' } }));
    await renderStream(<Composer />, opened({ busy: true }), transport);
    fireEvent.click(screen.getByRole('button', { name: 'Stop' }));
    await flush();
    expect(screen.getByRole('alert').textContent).toBe('Could not stop the turn: runtime gone (E_UNAVAILABLE)');
  });
});
