import type { ContextItemView, StreamContextView, SubscriptionView } from '../../src-shared/schemas/stream.js';
import type { FakeTransport } from './fake-transport.js';
import { SCOPE } from './stream-fixtures.js';

/*
 * What `stream.context` answers (src-shared/schemas/stream.ts `StreamContextView`), shaped so the
 * client's result check lets it through: a conversation of two turns under the default profile,
 * with the system prompt, the person's message, Silas's answer and one recalled memory.
 */

export function contextItem(ctxId: string, overrides: Partial<ContextItemView> = {}): ContextItemView {
  return {
    ctx_id: ctxId,
    kind: 'message',
    source: 'channel:cockpit',
    taint: 'auth',
    tokens: 12,
    relevance: 1,
    pinned: false,
    masked: false,
    turn: 1,
    created_at: '2026-01-01T12:00:00.000Z',
    excerpt: `item ${ctxId}`,
    ...overrides,
  };
}

type Zone = StreamContextView['zones'][number];

const zone = (name: Zone['zone'], budget: number, share: number | null, items: ContextItemView[], omitted = 0): Zone => ({
  zone: name,
  tokens: items.reduce((sum, item) => sum + item.tokens, 0),
  budget,
  share,
  items,
  omitted,
});

export function contextView(overrides: Partial<StreamContextView> = {}): StreamContextView {
  const zones = [
    zone('system', 2_000, null, [contextItem('sys-1', { kind: 'system', source: 'system:stream', taint: 'owner', tokens: 400, pinned: true, turn: 0, excerpt: 'You are Silas.' })]),
    zone('chronicle', 40_000, 0.4, [
      contextItem('chr-1', { tokens: 14, excerpt: '[auth] owner: I always indent with tabs, never spaces' }),
      contextItem('chr-2', { source: 'agent:proxy', tokens: 9, excerpt: 'Noted: tabs, never spaces.' }),
    ]),
    zone('memory', 20_000, 0.2, [contextItem('mem-m1', { kind: 'memory', source: 'memory:agent_memory_op', relevance: 0.8231, tokens: 10, turn: 2, excerpt: 'The owner indents code with tabs' })]),
    zone('workspace', 20_000, 0.2, []),
  ];
  const used = zones.reduce((sum, z) => sum + z.tokens, 0);
  return {
    scope: SCOPE,
    turns: 2,
    profile: 'default',
    total_budget: 100_000,
    used,
    threshold: 80_000,
    allocable: 98_000,
    headroom: 18_000,
    zones,
    last_eviction: null,
    subscriptions: [],
    ...overrides,
  };
}

/** A context subscription as `stream.context` lists it: an active whole-file one by default. */
export function subscriptionItem(subId: string, overrides: Partial<SubscriptionView> = {}): SubscriptionView {
  return {
    sub_id: subId,
    sub_type: 'file',
    target: '/home/me/app/auth.py',
    zone: 'workspace',
    active: true,
    tokens: 120,
    turn_created: 1,
    created_at: '2026-01-01T12:00:00.000Z',
    last_changed: 2,
    stale_since: null,
    covered_by: null,
    note: null,
    ...overrides,
  };
}

export const lastEviction = (overrides: Partial<NonNullable<StreamContextView['last_eviction']>> = {}): NonNullable<StreamContextView['last_eviction']> => ({
  turn: 7,
  tier: 'scorer',
  why: 'over the threshold after Tier 1; the scorer grouped the oldest exchanges',
  at: '2026-01-01T12:05:00.000Z',
  items: [
    { ctx_id: 'chr-0', zone: 'chronicle', kind: 'message', tokens: 30, reason: 'scorer' },
    { ctx_id: 'chr-00', zone: 'chronicle', kind: 'message', tokens: 3, reason: 'trivial_acknowledgement' },
    { ctx_id: 'mem-old', zone: 'memory', kind: 'memory', tokens: 20, reason: 'scorer' },
  ],
  omitted: 0,
  ...overrides,
});

/** A runtime answering `stream.context` with `view` (a fresh copy each time), counting the reads. */
export function withContext(transport: FakeTransport, view: () => StreamContextView = () => contextView()): FakeTransport {
  return transport.handle('stream.context', () => ({ ok: true, value: view() }));
}
