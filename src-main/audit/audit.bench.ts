import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditDataProblem, auditEvents } from '../../src-shared/audit/events.js';
import { opsPerSecond, report } from '../testing/bench.js';
import { createTestLedger } from '../testing/ledger.js';
import { GENESIS_HASH, canonicalData, entryHash, keyedEntryHash } from './chain.js';

// Real SQLite files in WAL mode with the runtime's pragmas, as the ledger runs in production.
const dir = mkdtempSync(join(tmpdir(), 'silas-bench-'));
try {
  const single = createTestLedger(join(dir));
  const data = { direction: 'upstream' as const, method: 'tools/call', tool: 'read_file', args: { path: '/home/user/notes.txt' }, decision: 'ALLOW', policy_mode: 'enforce', violation: false };

  const singleCount = 5000;
  let start = performance.now();
  for (let i = 0; i < singleCount; i += 1) single.audit.append('aip.decision', { ...data, seq: i });
  let seconds = (performance.now() - start) / 1000;
  report('audit.append.one_transaction_per_entry', 'entries/s', singleCount / seconds, { entries: singleCount, synchronous: 'NORMAL' });

  // The catalogue check every append makes, against the append it is part of: it must stay a small share.
  const spec = auditEvents['aip.decision'];
  const validate = opsPerSecond(() => auditDataProblem('aip.decision', spec, { ...data, seq: 1 }));
  report('audit.append.validate_data', 'ops/s', validate.opsPerSec, { share_of_one_append: singleCount / seconds / validate.opsPerSec });

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

  // The keyed link against its floor, the unkeyed sha256 link it replaced (same entry, same run).
  const body = { index: 42, id: '0190f2c4-0000-7000-8000-000000000000', ts: new Date().toISOString(), event: 'aip.decision', dataJson: canonicalData(data) };
  const sha = opsPerSecond(() => entryHash(GENESIS_HASH, body));
  const hmac = opsPerSecond(() => keyedEntryHash(single.keys.chain, GENESIS_HASH, body));
  report('audit.link.sha256_unkeyed', 'ops/s', sha.opsPerSec, { role: 'floor' });
  report('audit.link.hmac_keyed', 'ops/s', hmac.opsPerSec, { ratio_to_floor: hmac.opsPerSec / sha.opsPerSec });

  // A checkpoint over the most entries it may cover (1,000): verify them, append its record,
  // sign, advance the anchor. Its floor is the signature alone. The test keyring is a file; the
  // OS keyring adds one D-Bus round trip per checkpoint (measured by silas doctor, not here).
  const rounds = 5;
  let checkpointMs = 0;
  for (let r = 0; r < rounds; r += 1) {
    single.audit.writeCheckpoint();
    single.audit.appendBatch(Array.from({ length: 999 }, (_, i) => ({ event: 'aip.decision', data: { ...data, seq: i } })));
    start = performance.now();
    single.audit.writeCheckpoint();
    checkpointMs += performance.now() - start;
  }
  const signOnly = opsPerSecond(() => single.signer.sign(Buffer.alloc(200, 1)));
  report('audit.checkpoint.sign_only', 'ms', 1000 / signOnly.opsPerSec, { role: 'floor' });
  report('audit.checkpoint.after_1000_entries', 'ms', checkpointMs / rounds, { entries_verified: 1000 });
  single.db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
