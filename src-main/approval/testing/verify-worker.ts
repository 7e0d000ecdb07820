// Test helper: one consuming verification in its own connection, started on a barrier so that
// several of them race for the same token. Runs as a worker thread (workerData, a shared flag)
// or as a process: `node --import tsx verify-worker-test-support.ts JOB_JSON`, printing `ready`, waiting for
// a line on stdin, then printing the result as one JSON line.
import { writeSync } from 'node:fs';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { SqliteAuditLog } from '../../audit/audit-log.js';
import { AuditRepository } from '../../store/repositories/audit-repository.js';
import { trustedKeys } from '../../keys/owner-key.js';
import { openDatabase } from '../../store/database.js';
import { testLedgerKeys } from '../../testing/ledger.js';
import { ApprovalEngine, type ApprovalSubject, type VerifyOptions } from '../engine.js';
import { closeDatabase } from '../../store/transaction.js';

export interface VerifyJob {
  file: string;
  fingerprint: string;
  publicKeyHex: string;
  token: unknown;
  subject: ApprovalSubject;
  options?: VerifyOptions;
  /** Fixed clock, so a child process agrees with the test about expiry. */
  nowIso: string;
}

function prepare(job: VerifyJob): () => { ok: boolean; code?: string; reason?: string } {
  const { db } = openDatabase(job.file, { create: false });
  const audit = new SqliteAuditLog({ repository: new AuditRepository(db), keys: testLedgerKeys(job.file) });
  const keys = trustedKeys({ fingerprint: job.fingerprint, publicKey: Buffer.from(job.publicKeyHex, 'hex') });
  const engine = new ApprovalEngine({ db, audit, trustedKeys: () => keys, now: () => new Date(job.nowIso) });
  return () => {
    const result = engine.verify(job.token, job.subject, job.options);
    closeDatabase(db);
    return result.ok ? { ok: true } : { ok: false, code: result.code, reason: result.reason };
  };
}

if (!isMainThread) {
  const { job, flag } = workerData as { job: VerifyJob; flag: Int32Array };
  const run = prepare(job);
  parentPort!.postMessage({ ready: true });
  Atomics.wait(flag, 0, 0);
  parentPort!.postMessage({ result: run() });
} else if (process.argv[2]) {
  const run = prepare(JSON.parse(process.argv[2]) as VerifyJob);
  writeSync(1, 'ready\n');
  process.stdin.once('data', () => {
    writeSync(1, `${JSON.stringify(run())}\n`);
    process.exit(0);
  });
}
