import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeTransport } from '../../../testing/fake-transport.js';
import { flush } from '../../../testing/render-cockpit.js';
import { renderStream } from '../../../testing/render-stream.js';
import { contextView, subscriptionItem, withContext } from '../../../testing/stream-context-fixtures.js';
import { opened, SCOPE } from '../../../testing/stream-fixtures.js';
import { StreamPage } from '../StreamPage/StreamPage.js';

afterEach(cleanup);

const panel = () => screen.getByRole('region', { name: 'Context inspector' });
const kept = () => within(panel()).getByRole('region', { name: 'Kept in context' });

async function openPanel(transport: FakeTransport, view: () => ReturnType<typeof contextView>) {
  const harness = await renderStream(<StreamPage />, opened(), withContext(transport, view));
  fireEvent.click(screen.getByRole('button', { name: 'Show context' }));
  await flush();
  return harness;
}

describe('ContextSubscriptions (Keep in context)', () => {
  it('keeps a file line range in context through stream.subscribe and lists it after the context is read again', async () => {
    let subscriptions = [] as ReturnType<typeof subscriptionItem>[];
    const transport = new FakeTransport('connected').handle('stream.subscribe', () => {
      subscriptions = [subscriptionItem('s1', { sub_type: 'file_lines', target: '/home/me/app/auth.py:10-45', last_changed: null, tokens: 0 })];
      return { ok: true, value: { sub_id: 's1', subscription: subscriptions[0]! } };
    });
    await openPanel(transport, () => contextView({ subscriptions }));
    expect(within(kept()).getByText('Nothing is kept in context.')).toBeTruthy();

    fireEvent.change(within(kept()).getByLabelText('Keep'), { target: { value: 'file_lines' } });
    fireEvent.change(within(kept()).getByLabelText('File path'), { target: { value: '/home/me/app/auth.py' } });
    fireEvent.change(within(kept()).getByLabelText('From line'), { target: { value: '10' } });
    fireEvent.change(within(kept()).getByLabelText('To line'), { target: { value: '45' } });
    fireEvent.click(within(kept()).getByRole('button', { name: 'Keep in context' }));
    await flush();

    expect(transport.callsTo('stream.subscribe')).toEqual([{ scope: SCOPE, sub_type: 'file_lines', target: '/home/me/app/auth.py:10-45' }]);
    const [row] = within(kept()).getAllByRole('listitem');
    expect(row!.textContent).toContain('lines');
    expect(row!.textContent).toContain('/home/me/app/auth.py:10-45');
    expect(row!.textContent).toContain('active');
    expect(row!.textContent).toContain('not read yet');
  });

  it("shows the runtime's refusal naming the field, and keeps what was typed", async () => {
    const transport = new FakeTransport('connected').handle('stream.subscribe', () => ({ ok: false, error: { code: 'E_CONTEXT_INVALID', message: 'subscription target: "notes.txt" is not an absolute path; give the full path from /' } }));
    await openPanel(transport, () => contextView());
    fireEvent.change(within(kept()).getByLabelText('File path'), { target: { value: 'notes.txt' } });
    fireEvent.click(within(kept()).getByRole('button', { name: 'Keep in context' }));
    await flush();
    expect(within(kept()).getByRole('alert').textContent).toContain('Not kept: subscription target: "notes.txt" is not an absolute path');
    expect((within(kept()).getByLabelText('File path') as HTMLInputElement).value).toBe('notes.txt');
  });

  it('deactivates, reactivates and removes a subscription, showing why one is inactive', async () => {
    const transport = new FakeTransport('connected')
      .handle('stream.unsubscribe', (args) => ({ ok: true, value: { sub_id: 's1', removed: (args as { remove: boolean }).remove } }))
      .handle('stream.subscribe', () => ({ ok: true, value: { sub_id: 's2', subscription: subscriptionItem('s2') } }));
    const view = () =>
      contextView({
        subscriptions: [
          subscriptionItem('s1', { tokens: 120 }),
          subscriptionItem('s2', { sub_type: 'memory_query', target: 'garden plans', active: false, tokens: 0, note: 'deactivated as unused: not named in an answer for 10 turns' }),
        ],
      });
    await openPanel(transport, view);
    const [active, inactive] = within(kept()).getAllByRole('listitem');
    expect(active!.textContent).toContain('120 tokens');
    expect(inactive!.textContent).toContain('inactive');
    expect(inactive!.textContent).toContain('deactivated as unused');

    fireEvent.click(within(kept()).getByRole('button', { name: 'Deactivate /home/me/app/auth.py' }));
    await flush();
    fireEvent.click(within(kept()).getByRole('button', { name: 'Reactivate garden plans' }));
    await flush();
    fireEvent.click(within(kept()).getByRole('button', { name: 'Remove garden plans' }));
    await flush();
    expect(transport.callsTo('stream.unsubscribe')).toEqual([
      { scope: SCOPE, sub_id: 's1', remove: false },
      { scope: SCOPE, sub_id: 's2', remove: true },
    ]);
    expect(transport.callsTo('stream.subscribe')).toEqual([{ scope: SCOPE, reactivate: 's2' }]);
  });
});
