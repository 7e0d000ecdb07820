import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

/*
 * The WAL checkpointer's thread (store/wal-checkpointer.ts): its own connection to the runtime's
 * database, copying the write-ahead log into the database file every `intervalMs` with a PASSIVE
 * checkpoint, which never waits for and never blocks the runtime's readers and writers. It reports
 * each checkpoint's counts, and exits (the runtime then checkpoints itself again) on any error.
 */

interface CheckpointJob {
  file: string;
  intervalMs: number;
}

const job = workerData as CheckpointJob;
const db = new Database(job.file, { fileMustExist: true });
db.pragma('busy_timeout = 0');

function checkpoint(): void {
  const [row] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
  parentPort?.postMessage({ type: 'checkpointed', log: row?.log ?? 0, checkpointed: row?.checkpointed ?? 0 });
}

const timer = setInterval(() => {
  try {
    checkpoint();
  } catch (error) {
    clearInterval(timer);
    parentPort?.postMessage({ type: 'failed', reason: error instanceof Error ? error.message : String(error) });
    db.close();
    process.exit(1);
  }
}, job.intervalMs);

parentPort?.on('message', (message: { type: string }) => {
  if (message.type !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort?.close();
});
