import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { report } from '../testing/bench.js';
import { createTestLedger } from '../testing/ledger.js';

// Real SQLite files in WAL mode with the runtime's pragmas, as the ledger runs in production.
const dir = mkdtempSync(join(tmpdir(), 'silas-bench-'));
try {
  const single = createTestLedger(join(dir));
  const data = { direction: 'upstream', method: 'tools/call', tool: 'read_file', args: { path: '/home/user/notes.txt' }, decision: 'ALLOW', policy_mode: 'enforce', violation: false };

  const singleCount = 5000;
  let start = performance.now();
  for (let i = 0; i < singleCount; i += 1) single.audit.append('aip.decision', { ...data, seq: i });
  let seconds = (performance.now() - start) / 1000;
  report('audit.append.one_transaction_per_entry', 'entries/s', singleCount / seconds, { entries: singleCount, synchronous: 'NORMAL' });

  const batchSize = 100;
  const batches = 500;
  start = performance.now();
  for (let b = 0; b < batches; b += 1) {
    single.audit.appendBatch(Array.from({ length: batchSize }, (_, i) => ({ event: 'aip.decision', data: { ...data, seq: b * batchSize + i } })));
  }
  seconds = (performance.now() - start) / 1000;
  report('audit.append.batched', 'entries/s', (batchSize * batches) / seconds, { entries: batchSize * batches, batch_size: batchSize });

  single.audit.writeCheckpoint();
  const total = single.audit.head()!.index + 1;
  start = performance.now();
  const full = single.audit.verifyChain();
  seconds = (performance.now() - start) / 1000;
  if (!full.valid) throw new Error('benchmark chain did not verify');
  report('audit.verify.full_chain', 'entries/s', total / seconds, { entries: total });

  for (let i = 0; i < 1000; i += 1) single.audit.append('aip.decision', { ...data, seq: i });
  start = performance.now();
  const incremental = single.audit.verifyFromCheckpoint();
  seconds = (performance.now() - start) / 1000;
  if (!incremental.valid) throw new Error('incremental verification failed');
  report('audit.verify.from_checkpoint', 'ms', seconds * 1000, { entries_total: total + 1000, entries_checked: incremental.entries });
  single.db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
