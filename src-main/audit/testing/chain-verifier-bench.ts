import { report } from '../../testing/bench.js';
import type { TestLedger } from '../../testing/ledger.js';
import { verifierFor } from './chain-verifier.js';

/**
 * Samples the event loop every millisecond while `work` runs; returns the longest gap between
 * two samples (the worst stall anything on the loop — a WebSocket call, a proxy's approval
 * request — would have waited) and how long `work` took.
 */
export async function worstStall(work: () => Promise<unknown>): Promise<{ stallMs: number; workMs: number }> {
  let last = performance.now();
  let worst = 0;
  const sampler = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 1);
  await new Promise((resolve) => setTimeout(resolve, 5));
  last = performance.now();
  worst = 0;
  const start = performance.now();
  await work();
  const workMs = performance.now() - start;
  await new Promise((resolve) => setTimeout(resolve, 5));
  clearInterval(sampler);
  return { stallMs: worst, workMs };
}

/**
 * No turn of the runtime's event loop over ~50 ms (docs/architecture.md §1): the loop while a full
 * verification runs, in the worker (what the runtime does) beside in-process (what it did), with an
 * idle loop as the floor.
 */
export async function verificationStallFigures(ledger: TestLedger, label: string): Promise<void> {
  const entries = ledger.audit.head()!.index + 1;
  const idle = await worstStall(() => new Promise((resolve) => setTimeout(resolve, 200)));
  const inProcess = await worstStall(async () => {
    await new Promise((resolve) => setImmediate(resolve));
    if (!ledger.audit.verifyChain().valid) throw new Error('benchmark chain did not verify');
  });
  const verifier = verifierFor(ledger);
  const inWorker = await worstStall(async () => {
    const result = await verifier.verify('full');
    if (!result.valid) throw new Error('benchmark chain did not verify in the worker');
  });
  report(`audit.verify.event_loop_idle.${label}`, 'ms', idle.stallMs, { role: 'floor', ledger_entries: entries });
  report(`audit.verify.event_loop_stall_in_process.${label}`, 'ms', inProcess.stallMs, { ledger_entries: entries, verify_ms: inProcess.workMs });
  report(`audit.verify.event_loop_stall_worker.${label}`, 'ms', inWorker.stallMs, { ledger_entries: entries, verify_ms: inWorker.workMs, floor_ms: idle.stallMs, target_ms: 50 });
  // Appending 1,000 entries and checking only those: what a cockpit connect costs after the first run.
  for (let i = 0; i < 1000; i += 1) ledger.audit.append('operator.note', { text: `after verification ${i}` });
  const incremental = await worstStall(async () => {
    const result = await verifier.verify('new');
    if (!result.valid || result.mode !== 'new') throw new Error('incremental verification did not run incrementally');
  });
  // Floor: the same 1,001 entries at the in-process full-verification rate of this run (no worker start, no keyring reads).
  const floorMs = (inProcess.workMs * 1001) / entries;
  report(`audit.verify.worker_new_entries_only.${label}`, 'ms', incremental.workMs, { ledger_entries: entries + 1000, entries_checked: 1001, event_loop_stall_ms: incremental.stallMs, floor_in_process_ms: floorMs, ratio_to_floor: incremental.workMs / floorMs });
}
