import type { ModelRoleStatus, ModelsStatus, StreamEvent, StreamMessage, StreamOpenResult, TurnUsage } from '../../src-shared/schemas/stream.js';
import type { FakeTransport } from './fake-transport.js';

/*
 * The Stream as the runtime shows it (src-shared/schemas/stream.ts): scopes, messages, events
 * and model statuses that pass the contract, so the client's result check lets them through.
 */

export const SCOPE = 'scope-AAAAAAAAAAAAAAAA';
export const OTHER_SCOPE = 'scope-BBBBBBBBBBBBBBBB';
export const KEY = 'k'.repeat(43);
export const OTHER_KEY = 'q'.repeat(43);

export function message(n: number, sender: StreamMessage['sender'] = 'silas', text = `message ${n}`): StreamMessage {
  return { id: `msg-${n}`, sender, text, taint: sender === 'person' ? 'owner' : 'auth', turn: n, timestamp: `2026-01-01T12:00:0${n % 10}.000Z` };
}

export function roleStatus(role: ModelRoleStatus['role'], overrides: Partial<ModelRoleStatus> = {}): ModelRoleStatus {
  return {
    role,
    configured: true,
    provider: 'openai-compatible',
    model: 'llama3.1:8b',
    base_url: 'http://127.0.0.1:11434/v1',
    key_secret: null,
    key_present: false,
    problem: null,
    ...overrides,
  };
}

export const readyModels = (): ModelsStatus => ({ ready: true, roles: (['proxy', 'planner', 'executor', 'scorer'] as const).map((role) => roleStatus(role)), problem: null });

export const unconfiguredModels = (): ModelsStatus => ({
  ready: false,
  roles: (['proxy', 'planner', 'executor', 'scorer'] as const).map((role) =>
    roleStatus(role, { configured: false, provider: null, model: null, base_url: null, problem: `no model for the ${role} role; set one up below` }),
  ),
  problem: null,
});

export function opened(overrides: Partial<StreamOpenResult> = {}): StreamOpenResult {
  return { scope: SCOPE, key: KEY, resumed: false, history: [], busy: false, models: readyModels(), ...overrides };
}

export const usage = (overrides: Partial<TurnUsage> = {}): TurnUsage => ({ prompt_tokens: 1200, input_tokens: 1500, output_tokens: 230, cost_usd: 0.0012, model_calls: 2, ...overrides });

type EventOf<T extends StreamEvent['type']> = Extract<StreamEvent, { type: T }>;
type Fields<T extends StreamEvent['type']> = Omit<EventOf<T>, 'type' | 'scope'> & { scope?: string };

/** An event of `SCOPE` unless the fields name another. */
export function event<T extends StreamEvent['type']>(type: T, fields: Fields<T>): EventOf<T> {
  return { scope: SCOPE, type, ...fields } as EventOf<T>;
}

export const workEvent = (id: string, overrides: Partial<Fields<'work'>> = {}) =>
  event('work', { work_item_id: id, title: `Plan ${id}`, status: 'awaiting_approval', detail: 'Waits for your signature.', plan_hash: '1a2b3c4d' + 'e'.repeat(56), review_id: `plan-${id}`, item: null, ...overrides });

/** A runtime whose Stream opens `result` (a fresh scope with ready models unless given). */
export function withStream(transport: FakeTransport, result: StreamOpenResult = opened()): FakeTransport {
  return transport.handle('stream.open', () => ({ ok: true, value: result }));
}

/** A sessionStorage stand-in, so a test sees exactly what is kept for the tab. */
export function memoryStorage(initial: Record<string, string> = {}): Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> & { items: Map<string, string> } {
  const items = new Map(Object.entries(initial));
  return {
    items,
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}
