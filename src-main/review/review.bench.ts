// Review with many waiting cards (docs/review.md "Deltas"): what one change costs each cockpit
// session now (a delta: the event bus's contract check and the frame's JSON, bytes and µs) beside
// a floor from the same run (JSON.stringify of one card) and beside what the whole-queue push of
// before cost per change; the first page of `review.list`; and the cockpit's review slice holding
// the queue (heap delta, and applying one delta). At 100, 1,000 and 10,000 waiting cards (the
// runtime's caps keep a real queue at 1,000; 10,000 shows the growth).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { events as eventContract } from '../../src-shared/contract/events.js';
import { ReviewQueueView, type CardOrigin, type ReviewQueueDelta } from '../../src-shared/schemas/review.js';
import { EventBus } from '../control/event-bus.js';
import { medianUs, report } from '../testing/bench.js';
import { testReview } from '../testing/approvals.js';
import { createTestLedger } from '../testing/ledger.js';

// The cockpit's store, loaded at run time: src-main's build does not type-check renderer code (DOM types).
const COCKPIT_STORE = new URL('../../src-renderer/store/cockpit-store.ts', import.meta.url).href;
interface ReviewStore {
  getState(): { reviewReplaced(queue: { cards: unknown[]; paused: boolean; seq: number }): void; reviewDelta(delta: ReviewQueueDelta): boolean };
}
const { createCockpitStore } = (await import(COCKPIT_STORE)) as { createCockpitStore(): ReviewStore };

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const SOURCES = 20;
const origin = (s: number): CardOrigin => ({ channel: 'local_requester', sourceId: `session-${s}`, requester: `a local requester claiming to be the proxy of server "s${s}" (session ${s})`, taint: 'external', governed: s === 0 });

for (const count of [100, 1_000, 10_000]) {
  const dir = mkdtempSync(join(tmpdir(), 'silas-review-bench-'));
  try {
    const ledger = createTestLedger(dir);
    const { queue, kinds } = testReview(ledger.db, ledger.audit, { limits: { perSource: count, total: count + 10 } });
    let n = 0;
    const ask = (s: number) => {
      n += 1;
      const args = { path: `/home/ada/notes/${n}.md`, mode: 'read' };
      queue.ask(kinds.toolCall, { server: `s${s}`, tool: 'read_file', args, display: args, requestId: n, sessionId: 'p', rule: 'tools.ask: read_file', reason: 'policy workstation asks before reading outside the project', policyName: 'workstation', timeoutMs: 3_600_000 }, { origin: origin(s) }).catch(() => undefined);
    };
    for (let i = 0; i < count; i += 1) ask(i % SOURCES);

    // What a cockpit session is sent per change: the bus checks the payload, the session frames it.
    const bus = new EventBus();
    let frameBytes = 0;
    bus.subscribe((name, payload) => {
      frameBytes = Buffer.byteLength(JSON.stringify({ type: 'event', name, payload }));
    });
    let last: ReviewQueueDelta | null = null;
    const off = queue.subscribe((delta) => {
      last = delta;
      bus.publish('review.changed', delta);
    });
    // One change = a card arrives and is answered: two deltas. Timed per delta, with the queue's
    // own work (the kind's audit entries in the ledger) included.
    const changeUs = medianUs(() => {
      ask(1);
      const id = last!.added[0]!.id;
      queue.decide(id, 'deny');
    }, 50) / 2;
    ask(1);
    const deltaBytes = frameBytes;
    const arrived = last!;
    const addedCard = arrived.added[0]!;
    off();
    // The push alone: the bus's contract check of the delta and one session's frame.
    const pushUs = medianUs(() => bus.publish('review.changed', arrived), 200);

    const oneCard = JSON.stringify(addedCard);
    const floorUs = medianUs(() => JSON.stringify(addedCard), 200);
    report(`review.delta_push_at_${count}`, 'us', pushUs, { waiting: count, bytes: deltaBytes, change_with_queue_and_audit_us: Number(changeUs.toFixed(1)), floor_stringify_one_card_us: Number(floorUs.toFixed(2)), floor_one_card_bytes: Buffer.byteLength(oneCard) });

    // Before: every change pushed the whole queue through the same bus check and frame.
    const whole = queue.view({ limit: count + 10 });
    const wholeUs = medianUs(() => JSON.stringify({ type: 'event', name: 'review.changed', payload: ReviewQueueView.parse(whole) }), count >= 10_000 ? 5 : 20);
    report(`review.whole_queue_push_at_${count}`, 'us', wholeUs, { waiting: count, bytes: Buffer.byteLength(JSON.stringify({ type: 'event', name: 'review.changed', payload: whole })) });

    const pageUs = medianUs(() => queue.view(), count >= 10_000 ? 5 : 20);
    report(`review.list_first_page_at_${count}`, 'us', pageUs, { waiting: count, page: Math.min(count, 1000) });

    // The cockpit's slice holding the whole queue, and one delta applied to it.
    const cards = whole.cards;
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const store = createCockpitStore();
    store.getState().reviewReplaced({ cards: cards.map((c) => eventContract['review.changed'].payload.shape.added.element.parse(c)), paused: false, seq: whole.seq });
    gc();
    const heapBytes = process.memoryUsage().heapUsed - heapBefore;
    let seq = whole.seq;
    const applyUs = medianUs(() => {
      seq += 1;
      store.getState().reviewDelta({ seq, added: [], updated: [], removed: [cards[seq % cards.length]!.id], paused: false, total: count });
      seq += 1;
      store.getState().reviewDelta({ seq, added: [cards[(seq - 1) % cards.length]!], updated: [], removed: [], paused: false, total: count });
    }, 20) / 2;
    report(`review.renderer_slice_at_${count}`, 'bytes', heapBytes, { waiting: cards.length, per_card_bytes: Math.round(heapBytes / cards.length), apply_delta_us: Number(applyUs.toFixed(1)) });
    queue.declineAll('bench over');
    ledger.db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
