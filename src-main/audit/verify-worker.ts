import { parentPort, workerData } from 'node:worker_threads';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import { mapSqliteError } from '../store/database.js';
import { openAuditReader } from '../store/repositories/audit-repository.js';
import { runVerifyJob, type VerifyJob, type VerifyWorkerMessage } from './verify-worker-job.js';

/**
 * The worker-thread entry of chain verification (`chain-verifier.ts` starts one per run): it opens
 * the database read-only on its own connection and reports progress and the result, so the
 * runtime's event loop only relays messages and never stalls (docs/ledger.md "Verifying without
 * blocking the runtime, and only what is new").
 */
function run(port: NonNullable<typeof parentPort>, job: VerifyJob): void {
  const post = (message: VerifyWorkerMessage) => port.postMessage(message);
  let reader: ReturnType<typeof openAuditReader> | null = null;
  try {
    reader = openAuditReader(job.dbFile);
    post({ type: 'done', result: runVerifyJob(reader.repo, job, (checked, total) => post({ type: 'progress', checked, total })) });
  } catch (caught) {
    const sqlite = String((caught as { code?: unknown }).code ?? '').startsWith('SQLITE_');
    const error = sqlite ? mapSqliteError(job.dbFile, caught) : caught;
    const code = error instanceof SilasError ? error.code : ErrorCode.Internal;
    post({ type: 'error', code, message: error instanceof Error ? error.message : String(error) });
  } finally {
    reader?.close();
  }
}

if (!parentPort) throw new Error('verify-worker runs only as a worker thread started by chain-verifier.ts');
run(parentPort, workerData as VerifyJob);
