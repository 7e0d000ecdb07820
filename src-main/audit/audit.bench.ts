import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditDataProblem, auditEvents } from '../../src-shared/audit/events.js';
import { opsPerSecond, report } from '../testing/bench.js';
import { createTestLedger } from '../testing/ledger.js';
import { GENESIS_HASH, canonicalData, entryHash, keyedEntryHash } from './chain.js';
import { verificationStallFigures, worstStall } from './testing/chain-verifier-bench.js';
import { AuditWatcher } from './watcher.js';

// Real SQLite files in WAL mode with the runtime's pragmas, as the ledger runs in production.
const dir = mkdtempSync(join(tmpdir(), 'silas-bench-'));
try {
  const single = createTestLedger(join(dir));
  const data = { direction: 'upstream' as const, method: 'tools/call', tool: 'read_file', args: { path: '/home/user/notes.txt' }, decision: 'ALLOW', policy_mode: 'enforce', violation: false };

  // The floors of this run: the unkeyed sha256 link the keyed one replaced, and a signature alone.
  const body = { index: 42, id: '0190f2c4-0000-7000-8000-000000000000', ts: new Date().toISOString(), event: 'aip.decision', dataJson: canonicalData(data) };
  const sha = opsPerSecond(() => entryHash(GENESIS_HASH, body));
  const hmac = opsPerSecond(() => keyedEntryHash(single.keys.chain, GENESIS_HASH, body));
  const signOnly = opsPerSecond(() => single.signer.sign(Buffer.alloc(200, 1)));
  report('audit.link.sha256_unkeyed', 'ops/s', sha.opsPerSec, { role: 'floor' });
  report('audit.link.hmac_keyed', 'ops/s', hmac.opsPerSec, { ratio_to_floor: hmac.opsPerSec / sha.opsPerSec });
  report('audit.checkpoint.sign_only', 'ms', 1000 / signOnly.opsPerSec, { role: 'floor' });

  // The catalogue check every append makes: it must stay a small share of one append.
  const spec = auditEvents['aip.decision'];
  const validate = opsPerSecond(() => auditDataProblem('aip.decision', spec, { ...data, seq: 1 }));

  // Growth: the same figures with 10k, 100k and 1M entries already in the ledger. Appends and
  // checkpoints must not grow with the ledger; full verification grows linearly (per-entry rate flat).
  const batchSize = 1000;
  let seq = 0;
  const grow = (to: number) => {
    while ((single.audit.head()?.index ?? -1) + 1 < to) {
      single.audit.appendBatch(Array.from({ length: batchSize }, () => ({ event: 'aip.decision', data: { ...data, seq: seq++ } })));
    }
  };
  for (const [label, size] of [['10k', 10_000], ['100k', 100_000], ['1m', 1_000_000]] as const) {
    const before = (single.audit.head()?.index ?? -1) + 1;
    let start = performance.now();
    grow(size);
    const growSeconds = (performance.now() - start) / 1000;
    const entries = single.audit.head()!.index + 1;
    report(`audit.append.batched.${label}`, 'entries/s', (entries - before) / Math.max(growSeconds, 1e-9), { ledger_entries: entries, appended: entries - before, batch_size: batchSize, floor_hmac_links_per_s: hmac.opsPerSec });

    const singles = 2000;
    start = performance.now();
    for (let i = 0; i < singles; i += 1) single.audit.append('aip.decision', { ...data, seq: seq++ });
    const perSecond = singles / ((performance.now() - start) / 1000);
    report(`audit.append.one_transaction_per_entry.${label}`, 'entries/s', perSecond, { ledger_entries: entries, synchronous: 'NORMAL', validate_share: perSecond / validate.opsPerSec, floor_hmac_links_per_s: hmac.opsPerSec });

    // A checkpoint over the most entries it may cover (1,000): verify them, append its record,
    // sign, advance the anchor (a file here; the OS keyring adds a D-Bus round trip).
    single.audit.writeCheckpoint();
    single.audit.appendBatch(Array.from({ length: 999 }, () => ({ event: 'aip.decision', data: { ...data, seq: seq++ } })));
    start = performance.now();
    single.audit.writeCheckpoint();
    report(`audit.checkpoint.after_1000_entries.${label}`, 'ms', performance.now() - start, { ledger_entries: entries, floor_sign_ms: 1000 / signOnly.opsPerSec });

    for (let i = 0; i < 1000; i += 1) single.audit.append('aip.decision', { ...data, seq: seq++ });
    start = performance.now();
    const incremental = single.audit.verifyFromCheckpoint();
    if (!incremental.valid) throw new Error('incremental verification failed');
    report(`audit.verify.from_checkpoint.${label}`, 'ms', performance.now() - start, { ledger_entries: entries, entries_checked: incremental.entries, floor_hmac_links_per_s: hmac.opsPerSec });

    start = performance.now();
    const full = single.audit.verifyChain();
    const seconds = (performance.now() - start) / 1000;
    if (!full.valid) throw new Error('benchmark chain did not verify');
    const total = single.audit.head()!.index + 1;
    report(`audit.verify.full_chain.${label}`, 'entries/s', total / seconds, { ledger_entries: total, floor_sha256_links_per_s: sha.opsPerSec });
    await verificationStallFigures(single, label);
    await watcherStallFigures(single.audit, label);
  }
  single.db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * No turn of the runtime's event loop over ~50 ms (docs/architecture.md §1): the loop while its
 * audit watcher publishes a burst of entries other processes appended (busy proxies), one page per
 * turn, beside the same entries read and published in one go (what the watcher did before) and an
 * idle loop (the floor), at two burst sizes: the paged stall should stay flat while the one-go
 * stall grows with the burst. Each entry is serialised once, the least any transport to the cockpit
 * does with it.
 */
async function watcherStallFigures(audit: ReturnType<typeof createTestLedger>['audit'], label: string): Promise<void> {
  const data = { direction: 'upstream' as const, method: 'tools/call', tool: 'read_file', args: { path: '/home/user/notes.txt' }, decision: 'ALLOW', policy_mode: 'enforce', violation: false };
  const idle = await worstStall(() => new Promise((resolve) => setTimeout(resolve, 100)));
  for (const burst of [2_000, 20_000]) {
    const fill = () => {
      for (let i = 0; i < burst; i += 1000) audit.appendBatch(Array.from({ length: 1000 }, (_, k) => ({ event: 'aip.decision' as const, data: { ...data, seq: i + k } })));
    };
    let from = audit.head()!.index;
    fill();
    const inOneGo = await worstStall(async () => {
      await new Promise((resolve) => setImmediate(resolve));
      for (let page = audit.after(from, 500); page.length > 0; page = audit.after(from, 500)) {
        for (const entry of page) JSON.stringify(entry);
        from = page[page.length - 1]!.index;
      }
    });
    let published = 0;
    const watcher = new AuditWatcher(audit, (entry) => {
      JSON.stringify(entry);
      published += 1;
    });
    fill();
    const paged = await worstStall(async () => {
      watcher.poll();
      while (published < burst) await new Promise((resolve) => setTimeout(resolve, 1));
    });
    watcher.stop();
    const entries = audit.head()!.index + 1;
    const extra = { ledger_entries: entries, burst, floor_idle_ms: idle.stallMs };
    report(`audit.watcher.event_loop_stall_in_one_go.burst_${burst}.${label}`, 'ms', inOneGo.stallMs, { ...extra, drain_ms: inOneGo.workMs });
    report(`audit.watcher.event_loop_stall_paged.burst_${burst}.${label}`, 'ms', paged.stallMs, { ...extra, drain_ms: paged.workMs, target_ms: 50 });
  }
}
