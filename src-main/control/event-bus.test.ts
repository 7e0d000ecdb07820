import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src-shared/schemas/audit.js';
import { EventBus } from './event-bus.js';

const entry: AuditEntry = {
  index: 0,
  id: 'e-1',
  ts: '2025-01-01T00:00:00.000Z',
  event: 'runtime.started',
  data: { pid: 1 },
  prevHash: '0'.repeat(64),
  hash: 'a'.repeat(64),
};

describe('EventBus', () => {
  it('delivers a checked payload to every subscriber and stops after unsubscribe', () => {
    const bus = new EventBus();
    const a: unknown[] = [];
    const b: unknown[] = [];
    const offA = bus.subscribe((name, payload) => a.push([name, payload]));
    bus.subscribe((name, payload) => b.push([name, payload]));
    expect(bus.size).toBe(2);
    bus.publish('audit.appended', entry);
    offA();
    expect(bus.size).toBe(1);
    bus.publish('runtime.stopping', { reason: 'bye' });
    expect(a).toEqual([['audit.appended', entry]]);
    expect(b).toEqual([
      ['audit.appended', entry],
      ['runtime.stopping', { reason: 'bye' }],
    ]);
  });

  it('refuses a payload outside the contract before any subscriber sees it', () => {
    const bus = new EventBus();
    const got: unknown[] = [];
    bus.subscribe((name) => got.push(name));
    expect(() => bus.publish('audit.appended', { ...entry, hash: 'not-a-hash' })).toThrow();
    expect(got).toEqual([]);
  });

  it('strips keys outside the payload schema', () => {
    const bus = new EventBus();
    const got: unknown[] = [];
    bus.subscribe((_name, payload) => got.push(payload));
    bus.publish('runtime.stopping', { reason: 'bye', secretRef: 'sk-live-123' } as { reason: string });
    expect(got).toEqual([{ reason: 'bye' }]);
  });

  it('one throwing subscriber does not starve the others', () => {
    const bus = new EventBus();
    const got: string[] = [];
    bus.subscribe(() => {
      throw new Error('socket closed');
    });
    bus.subscribe((name) => got.push(name));
    expect(() => bus.publish('runtime.stopping', { reason: 'x' })).not.toThrow();
    expect(got).toEqual(['runtime.stopping']);
  });

  it('a subscriber that unsubscribes during delivery does not skip the next one', () => {
    const bus = new EventBus();
    const got: string[] = [];
    const off = bus.subscribe(() => off());
    bus.subscribe(() => got.push('second'));
    bus.publish('runtime.stopping', { reason: 'x' });
    expect(got).toEqual(['second']);
  });
});

describe('EventBus: events addressed to one session', () => {
  const streamEvent = { type: 'draft' as const, scope: 'scope-AAAAAAAAAAAAAAAAAAAAAA', turn_id: 't1', delta: 'hi' };

  it('publishTo reaches the listeners with the target; a session with no live subscription gets nothing', () => {
    const bus = new EventBus();
    const seen: [string, unknown, string | undefined][] = [];
    const off = bus.subscribe((name, payload, target) => seen.push([name, payload, target]), 'session-a');
    expect(bus.publishTo('session-a', 'stream.event', streamEvent)).toBe(true);
    expect(bus.publishTo('session-b', 'stream.event', streamEvent)).toBe(false);
    off();
    expect(bus.publishTo('session-a', 'stream.event', streamEvent)).toBe(false);
    expect(seen).toEqual([['stream.event', streamEvent, 'session-a']]);
  });

  it('a session stays live while any of its subscriptions is (several cockpit windows), and payloads are checked first', () => {
    const bus = new EventBus();
    const one = bus.subscribe(() => undefined, 'session-ipc');
    const two = bus.subscribe(() => undefined, 'session-ipc');
    one();
    one();
    expect(bus.publishTo('session-ipc', 'stream.event', streamEvent)).toBe(true);
    two();
    expect(bus.publishTo('session-ipc', 'stream.event', streamEvent)).toBe(false);
    bus.subscribe(() => undefined, 'session-x');
    expect(() => bus.publishTo('session-x', 'stream.event', { ...streamEvent, scope: '../other' } as never)).toThrow();
  });
});
