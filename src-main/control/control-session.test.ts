import { describe, expect, it } from 'vitest';
import type { ServerFrame } from '../../src-shared/contract/wire.js';
import { ControlSession, type SessionLink } from './control-session.js';
import { EventBus } from './event-bus.js';
import { ControlRouter } from './router.js';
import type { Transport } from './capabilities.js';

// Which events reach which session (docs/silas/stream.md): broadcast events only a reader gets;
// an event addressed to a session reaches that session alone, whatever its credential.
function sessionOn(transport: Transport, bus: EventBus) {
  const frames: ServerFrame[] = [];
  const link: SessionLink = { send: (frame) => frames.push(frame), close: () => undefined, isOpen: () => true };
  const router = new ControlRouter({} as never, { error: () => undefined });
  const session = new ControlSession(link, { router, events: bus, messagesPerMinute: 100, serverVersion: 't', transport, peer: 'test', tokenMatches: (t) => t === 'good', authTimeoutMs: 60_000 });
  session.receive(JSON.stringify({ type: 'auth', token: 'good' }));
  return { session, events: () => frames.filter((frame) => frame.type === 'event') };
}

const draft = (scope: string) => ({ type: 'draft' as const, scope, turn_id: 't', delta: 'x' });
const SCOPE_A = 'scope-AAAAAAAAAAAAAAAAAAAAAA';
const SCOPE_B = 'scope-BBBBBBBBBBBBBBBBBBBBBB';

describe('ControlSession: event delivery', () => {
  it('an addressed event reaches its session only; broadcasts reach readers, never the ask-only local socket', () => {
    const bus = new EventBus();
    const cockpit = sessionOn('websocket', bus);
    const other = sessionOn('websocket', bus);
    const terminal = sessionOn('local-socket', bus);
    bus.publishTo(cockpit.session.id, 'stream.event', draft(SCOPE_A));
    bus.publishTo(terminal.session.id, 'stream.event', draft(SCOPE_B));
    bus.publish('runtime.stopping', { reason: 'bye' });

    expect(cockpit.events()).toEqual([
      { type: 'event', name: 'stream.event', payload: draft(SCOPE_A) },
      { type: 'event', name: 'runtime.stopping', payload: { reason: 'bye' } },
    ]);
    expect(other.events()).toEqual([{ type: 'event', name: 'runtime.stopping', payload: { reason: 'bye' } }]);
    expect(terminal.events()).toEqual([{ type: 'event', name: 'stream.event', payload: draft(SCOPE_B) }]);
    for (const s of [cockpit, other, terminal]) s.session.closed();
    expect(bus.publishTo(cockpit.session.id, 'stream.event', draft(SCOPE_A))).toBe(false);
  });
});
