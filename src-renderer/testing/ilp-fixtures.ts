import type { Envelope } from '../../src-shared/contract/index.js';
import type { IlpComposition, IlpSummary } from '../store/ilp-state.js';
import { compositionSummary, compositionView, summaries } from '../../src-shared/schemas/testing/ilp-compositions.js';
import { FakeTransport } from './fake-transport.js';

export { compositionSummary, compositionView, hop, hopsOf, QUERY_HEADER, summaries } from '../../src-shared/schemas/testing/ilp-compositions.js';

const ok = <T>(value: T): Envelope<T> => ({ ok: true, value });

/**
 * The ilp.* calls of a runtime, in memory: `stored` newest first, paged by `before` as the runtime
 * does (strictly older than that id), each composition whole from `views` (or built from its
 * summary), and a replay answered with `replayed`.
 */
export class IlpRuntime {
  stored: IlpSummary[] = summaries(3);
  views = new Map<string, IlpComposition>();
  replayed: IlpComposition = compositionView('c-replay', { status: 429, constitutional_status: 'VIOLATION', replay_of: 'c-3', cost_usd: 0.0001 });
  replays: { id: string; constitutional_header: string }[] = [];

  view(id: string): IlpComposition | null {
    const summary = this.stored.find((c) => c.id === id);
    if (!summary) return this.views.get(id) ?? null;
    return this.views.get(id) ?? compositionView(id, summary);
  }

  serve(transport: FakeTransport = new FakeTransport('connected')): FakeTransport {
    return transport
      .handle('ilp.list', (args) => {
        const { before, limit = 50 } = args as { before?: string; limit?: number };
        const from = before === undefined ? 0 : this.stored.findIndex((c) => c.id === before) + 1;
        return ok({ compositions: this.stored.slice(from, from + limit), total: this.stored.length });
      })
      .handle('ilp.get', (args) => {
        const { id } = args as { id: string };
        const view = this.view(id);
        return view ? ok(view) : { ok: false, error: { code: 'E_NOT_FOUND', message: `no ILP composition "${id}" is stored` } };
      })
      .handle('ilp.replay', (args) => {
        this.replays.push(args as { id: string; constitutional_header: string });
        // Stored as a composition of its own, as the runtime does: it can be inspected next.
        this.views.set(this.replayed.id, this.replayed);
        return ok(this.replayed);
      });
  }
}

/** A composition stored or updated, as `ilp.composition` carries it. */
export const arrived = (id: string, overrides: Partial<IlpSummary> = {}): IlpSummary => compositionSummary(id, overrides);
