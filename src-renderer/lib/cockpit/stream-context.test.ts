import { describe, expect, it } from 'vitest';
import type { Route } from '../routes.js';
import { createCockpitStore } from '../../store/cockpit-store.js';
import { FakeTransport, settle } from '../../testing/fake-transport.js';
import { contextView, withContext } from '../../testing/stream-context-fixtures.js';
import { event, message, OTHER_SCOPE, SCOPE, usage, withStream } from '../../testing/stream-fixtures.js';
import { connectCockpit } from './connect.js';

async function drain(): Promise<void> {
  for (let i = 0; i < 4; i += 1) await settle();
}

async function connected(route: Route = 'stream', transport = withContext(withStream(new FakeTransport()))) {
  const store = createCockpitStore({ route });
  const cockpit = connectCockpit({ transport, store });
  transport.setState('connected');
  await drain();
  return { transport, store, panel: () => store.getState().streamContext, actions: cockpit.actions };
}

const finished = (scope = SCOPE) => event('turn_finished', { scope, turn_id: 't1', outcome: 'answered', usage: usage(), error: null });

describe('connectCockpit: stream context', () => {
  it('reads nothing until the panel is opened, then the context of this tab’s scope', async () => {
    const { transport, panel, actions } = await connected();
    transport.emit('stream.event', finished());
    expect(transport.callsTo('stream.context')).toEqual([]);
    actions.showStreamContext();
    expect(panel()).toMatchObject({ shown: true, loading: true });
    await drain();
    expect(transport.callsTo('stream.context')).toEqual([{ scope: SCOPE }]);
    expect(panel()).toMatchObject({ loading: false, view: contextView(), error: null });
  });

  it('reads again after each turn of this scope finishes and after a line the runtime adds, while shown', async () => {
    const { transport, actions } = await connected();
    actions.showStreamContext();
    await drain();
    transport.emit('stream.event', event('draft', { turn_id: 't1', delta: 'Hel' }));
    transport.emit('stream.event', finished(OTHER_SCOPE));
    expect(transport.callsTo('stream.context')).toHaveLength(1);
    transport.emit('stream.event', finished());
    expect(transport.callsTo('stream.context')).toHaveLength(2);
    transport.emit('stream.event', event('message', { turn_id: null, message: message(3, 'system', 'The plan finished.'), chips: [] }));
    expect(transport.callsTo('stream.context')).toHaveLength(3);

    actions.hideStreamContext();
    transport.emit('stream.event', finished());
    expect(transport.callsTo('stream.context')).toHaveLength(3);
  });

  it('reads only where it is seen: not while another page is open, and again when the Stream page opens', async () => {
    const { transport, actions } = await connected();
    actions.showStreamContext();
    await drain();
    actions.navigate('memory');
    transport.emit('stream.event', finished());
    expect(transport.callsTo('stream.context')).toHaveLength(1);
    actions.navigate('stream');
    expect(transport.callsTo('stream.context')).toHaveLength(2);
  });

  it('after a reconnect, reads only once the scope is this session’s again', async () => {
    const { transport, actions } = await connected();
    actions.showStreamContext();
    await drain();
    transport.setState('reconnecting');
    transport.setState('connected');
    const names = () => transport.calls.map((c) => c.name).filter((name) => name.startsWith('stream.'));
    expect(names()).toEqual(['stream.open', 'stream.context', 'stream.open']);
    await drain();
    expect(names()).toEqual(['stream.open', 'stream.context', 'stream.open', 'stream.context']);
  });

  it('keeps the runtime’s refusal, and the view read before it', async () => {
    let refuse = false;
    const transport = withStream(new FakeTransport()).handle('stream.context', () =>
      refuse ? { ok: false, error: { code: 'E_FORBIDDEN', message: 'this conversation belongs to another session; open your own' } } : { ok: true, value: contextView() },
    );
    const { panel, actions } = await connected('stream', transport);
    actions.showStreamContext();
    await drain();
    refuse = true;
    actions.refreshStreamContext();
    await drain();
    expect(panel()).toMatchObject({ loading: false, view: contextView(), error: 'this conversation belongs to another session; open your own (E_FORBIDDEN)' });
  });
});
