import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src-shared/errors.js';
import type { IlpCompositionSummary, IlpCompositionView } from '../../src-shared/schemas/ilp.js';
import { compositionSummary, compositionView, summaries } from '../../src-shared/schemas/testing/ilp-compositions.js';
import { createTestLedger, type TestLedger } from '../testing/ledger.js';
import { testServices } from '../testing/handlers.js';
import { useTempDirs } from '../testing/temp.js';
import { EventBus } from './event-bus.js';
import { createHandlers } from './handlers.js';
import { publishIlpCompositions, type IlpInspector, type IlpListQuery, type IlpReplayRequest } from './ilp-inspector.js';
import { ControlRouter, type CallContext } from './router.js';

const tempDir = useTempDirs();
const cockpit: CallContext = { transport: 'websocket', peer: '127.0.0.1' };
const ledgers: TestLedger[] = [];
afterEach(() => ledgers.splice(0).forEach((l) => l.db.close()));

/** An ILP service in memory: compositions newest first, replays answered from `replayed`. */
class MemoryInspector implements IlpInspector {
  stored = summaries(120);
  listed: IlpListQuery[] = [];
  replays: IlpReplayRequest[] = [];
  replayed: IlpCompositionView = compositionView('c-replay', { status: 429, constitutional_status: 'VIOLATION', replay_of: 'c-1' });
  private readonly listeners = new Set<(s: IlpCompositionSummary) => void>();

  list(args: IlpListQuery) {
    this.listed.push(args);
    const from = args.before === undefined ? 0 : this.stored.findIndex((c) => c.id === args.before) + 1;
    return { compositions: this.stored.slice(from, from + args.limit), total: this.stored.length };
  }
  get(id: string) {
    return this.stored.some((c) => c.id === id) ? compositionView(id) : null;
  }
  replay(args: IlpReplayRequest) {
    this.replays.push(args);
    return Promise.resolve(this.replayed);
  }
  onComposition(listener: (s: IlpCompositionSummary) => void) {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
  announce(summary: IlpCompositionSummary) {
    for (const listener of this.listeners) listener(summary);
  }
  get listening() {
    return this.listeners.size;
  }
}

function routerWith(ilp: IlpInspector | undefined) {
  const ledger = createTestLedger(tempDir());
  ledgers.push(ledger);
  return new ControlRouter(createHandlers({ audit: ledger.audit, ...testServices(ledger.db, ledger.audit), ...(ilp ? { ilp } : {}), runtimeInfo: () => { throw new Error('unused'); } }), { error: () => undefined });
}

function errorOf(envelope: { ok: boolean }): { code: string; message: string } {
  expect(envelope.ok).toBe(false);
  return (envelope as { ok: false; error: { code: string; message: string } }).error;
}

describe('ilp.* calls (the composition inspector, docs/ilp.md "Inspector")', () => {
  it('lists a page newest first, the default page size applied, and the next page strictly older than `before`', async () => {
    const ilp = new MemoryInspector();
    const router = routerWith(ilp);
    const first = (await router.dispatch('ilp.list', {}, cockpit)) as { ok: true; value: { compositions: IlpCompositionSummary[]; total: number } };
    expect(first.ok).toBe(true);
    expect(first.value.compositions.map((c) => c.id).slice(0, 2)).toEqual(['c-120', 'c-119']);
    expect(first.value.compositions).toHaveLength(50);
    expect(first.value.total).toBe(120);
    const next = (await router.dispatch('ilp.list', { before: 'c-71', limit: 10 }, cockpit)) as { ok: true; value: { compositions: IlpCompositionSummary[] } };
    expect(next.value.compositions.map((c) => c.id)[0]).toBe('c-70');
    expect(ilp.listed).toEqual([{ limit: 50 }, { before: 'c-71', limit: 10 }]);
  });

  it('gives one composition whole, and not_found naming an id that is not stored', async () => {
    const router = routerWith(new MemoryInspector());
    const found = (await router.dispatch('ilp.get', { id: 'c-3' }, cockpit)) as { ok: true; value: IlpCompositionView };
    expect(found.value.hop_list.map((h) => h.agent)).toEqual(['meta-agent', 'financial', 'biology']);
    const missing = errorOf(await router.dispatch('ilp.get', { id: 'c-999' }, cockpit));
    expect(missing.code).toBe(ErrorCode.NotFound);
    expect(missing.message).toContain('"c-999"');
    expect(missing.message).toContain('ilp.list');
  });

  it('replays under the header typed, and refuses one that is not a JSON object naming constitutional_header and the fix, before any model is called', async () => {
    const ilp = new MemoryInspector();
    const router = routerWith(ilp);
    const header = '{"domain": "meta", "depth": 0, "budget_usd": 0, "max_budget_usd": 0.0001}';
    const replayed = (await router.dispatch('ilp.replay', { id: 'c-1', constitutional_header: header }, cockpit)) as { ok: true; value: IlpCompositionView };
    expect(replayed.value).toMatchObject({ status: 429, replay_of: 'c-1' });
    for (const bad of ['{"max_budget_usd": 0.0001', "{max_budget_usd: 1}", '[1, 2]', 'null', '"text"']) {
      const error = errorOf(await router.dispatch('ilp.replay', { id: 'c-1', constitutional_header: bad }, cockpit));
      expect(error.code, bad).toBe(ErrorCode.InvalidArgs);
      expect(error.message, bad).toMatch(/^constitutional_header is /);
      expect(error.message, bad).toContain('give the Constitutional-Header as a JSON object');
    }
    expect(ilp.replays).toEqual([{ id: 'c-1', constitutional_header: header }]);
  });

  it('needs decide to replay (it spends model budget): refused over the local socket, as for any decision', async () => {
    const ilp = new MemoryInspector();
    const error = errorOf(await routerWith(ilp).dispatch('ilp.replay', { id: 'c-1', constitutional_header: '{}' }, { transport: 'local-socket' }));
    expect(error.code).toBe(ErrorCode.Unauthorized);
    expect(ilp.replays).toEqual([]);
  });

  it('says the ILP service is not running when the runtime has none, for every ilp call', async () => {
    const router = routerWith(undefined);
    for (const [name, args] of [['ilp.list', {}], ['ilp.get', { id: 'c-1' }], ['ilp.replay', { id: 'c-1', constitutional_header: '{}' }]] as const) {
      const error = errorOf(await router.dispatch(name, args, cockpit));
      expect(error.code, name).toBe(ErrorCode.Unavailable);
      expect(error.message, name).toBe('the ILP service is not running in this runtime; restart Silas');
    }
  });
});

describe('publishIlpCompositions', () => {
  it('puts each composition stored or updated on the bus as ilp.composition, until unsubscribed', () => {
    const ilp = new MemoryInspector();
    const bus = new EventBus();
    const seen: Array<[string, unknown]> = [];
    bus.subscribe((name, payload) => seen.push([name, payload]));
    const stop = publishIlpCompositions(ilp, bus);
    const summary = compositionSummary('c-121', { replay_of: 'c-1', status: 429 });
    ilp.announce(summary);
    expect(seen).toEqual([['ilp.composition', summary]]);
    stop();
    expect(ilp.listening).toBe(0);
    ilp.announce(summary);
    expect(seen).toHaveLength(1);
  });

  it('refuses a summary outside the contract rather than sending it to the cockpit', () => {
    const ilp = new MemoryInspector();
    const bus = new EventBus();
    const seen: unknown[] = [];
    bus.subscribe((name) => seen.push(name));
    publishIlpCompositions(ilp, bus);
    expect(() => ilp.announce({ ...compositionSummary('c-1'), status: 42 })).toThrow();
    expect(seen).toEqual([]);
  });
});
