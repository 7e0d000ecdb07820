// What recording real decisions costs (docs/alignment.md "Cost"). A proxy's ALLOW decisions are
// appended to a real ledger (keyring-held owner key in memory); the recorder turns them into
// verified, signed AP-Traces in the chain with the Alignment page's rows and drift state. Figures
// for 1,000, 10,000 and 50,000 decisions, beside the floor of appending the same number of
// `aap.trace`-sized entries to the chain without any alignment work; and the agents list at each
// size, beside the floor of a one-row query.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { medianUs, report } from '../testing/bench.js';
import { alignmentHarness } from './testing/alignment.js';
import { sqliteConnection } from '../store/transaction.js';

const decision = (i: number) => ({
  event: 'aip.decision' as const,
  data: { direction: 'upstream' as const, decision: i % 10 === 9 ? 'BLOCK' : 'ALLOW', policy_mode: 'enforce', violation: false, method: 'tools/call', tool: i % 10 === 9 ? 'delete_file' : 'read_file', args: { path: `/home/ada/notes/${i}.md` }, server: 'files', session_id: 's' },
});

function appendDecisions(h: ReturnType<typeof alignmentHarness>, count: number): void {
  for (let start = 0; start < count; start += 1000) h.ledger.audit.appendBatch(Array.from({ length: Math.min(1000, count - start) }, (_, i) => decision(start + i)));
}

for (const count of [1_000, 10_000, 50_000]) {
  const dir = mkdtempSync(join(tmpdir(), 'silas-alignment-bench-'));
  try {
    const h = alignmentHarness(dir);
    appendDecisions(h, count);
    const start = performance.now();
    h.drain();
    const ms = performance.now() - start;
    // Floor: the chain appends alone, same count, same page size, a trace-sized payload each.
    const sample = h.ledger.audit.tail(1).find((e) => e.event === 'aap.trace') ?? h.ledger.audit.tail(2)[0]!;
    const floorStart = performance.now();
    for (let done = 0; done < count; done += 500) {
      h.ledger.audit.appendBatch(Array.from({ length: Math.min(500, count - done) }, () => ({ event: 'operator.note' as const, data: { text: JSON.stringify(sample.data) } })));
    }
    const floorMs = performance.now() - floorStart;
    report(`alignment.record_${count}`, 'traces/s', (count * 1000) / ms, { decisions: count, ms: Math.round(ms), floor_chain_append_per_s: Math.round((count * 1000) / floorMs) });
    // The agents list, shown on every burst of traces: it must not grow with the history.
    const agentsUs = medianUs(() => h.service.agents(), 50);
    const floorUs = medianUs(() => sqliteConnection(h.ledger.db).prepare('SELECT 1').get(), 50);
    report(`alignment.agents_list_at_${count}`, 'us', agentsUs, { traces: count, floor_one_row_query_us: Number(floorUs.toFixed(1)) });
    h.ledger.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
