// A separate process that appends to a ledger, for the multi-process and crash tests.
// Usage: node --import tsx append-worker.ts DB_FILE WORKER_NAME COUNT
// Prints each appended index on its own line as soon as append() has returned.
import { writeSync } from 'node:fs';
import { SqliteAuditLog } from '../audit/audit-log.js';
import { AuditRepository } from '../store/repositories/audit-repository.js';
import { openDatabase } from '../store/database.js';
import { testAuditEvents } from './audit-events.js';
import { testLedgerKeys } from './ledger.js';
import { closeDatabase } from '../store/transaction.js';

const [file, worker, countText] = process.argv.slice(2);
const count = Number(countText);
const { db } = openDatabase(file!, { create: false });
const audit = new SqliteAuditLog({ repository: new AuditRepository(db), keys: testLedgerKeys(file!), catalogue: testAuditEvents });
writeSync(1, 'ready\n');
for (let seq = 0; seq < count; seq += 1) {
  const entry = audit.append('test.worker', { worker: worker!, seq });
  // Synchronous write: the line leaves the process before the next append starts.
  writeSync(1, `${entry.index} ${seq}\n`);
}
// Like every writer, it checkpoints what it left unprotected before it goes.
audit.close();
closeDatabase(db);
