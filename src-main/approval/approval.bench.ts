// Approvals issued and verified per second on a real SQLite ledger (WAL, synchronous=NORMAL).
// Issuing signs and appends an audit entry; a consuming verify checks the signature and commits
// the consumption key, the execution nonce, the counter and its audit entry in one transaction.
// The `.no_audit` figures use a sink that drops entries, to show what the audit chain costs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApprovalToken } from '../../src-shared/silas/approval.js';
import { report } from '../testing/bench.js';
import { createTestLedger } from '../testing/ledger.js';
import { ApprovalEngine, type ApprovalSubject } from './engine.js';
import { hashOf } from './testing/engine.js';

const COUNT = 3000;
const WARM = 100;

/** Runs fn(0..n-1) once each and reports calls per second. */
function measure(name: string, n: number, fn: (i: number) => void, extra: Record<string, unknown>): void {
  const start = performance.now();
  for (let i = 0; i < n; i += 1) fn(i);
  report(name, 'ops/s', n / ((performance.now() - start) / 1000), { count: n, ...extra });
}

const dir = mkdtempSync(join(tmpdir(), 'silas-approval-bench-'));
try {
  const ledger = createTestLedger(dir);
  const audited = new ApprovalEngine({ db: ledger.db, audit: ledger.audit, signer: ledger.signer });
  const silent = new ApprovalEngine({ db: ledger.db, audit: { append: () => undefined }, signer: ledger.signer });
  const subjects = (prefix: string, n: number): ApprovalSubject[] =>
    Array.from({ length: n }, (_, i) => ({ kind: 'plan', id: `${prefix}-${i}`, hash: hashOf(`${prefix} plan ${i}`) }));

  // Warm-up: JIT, statement caches and the WAL, on subjects the measured runs never touch.
  const warm = subjects('warm', WARM);
  for (const subject of warm) audited.verify(audited.issueToken(subject, { verdict: 'approved' }), subject);

  const run = (engine: ApprovalEngine, label: string, audit: boolean) => {
    const items = subjects(label, COUNT);
    const tokens: ApprovalToken[] = [];
    measure(`approval.issue${audit ? '' : '.no_audit'}`, COUNT, (i) => tokens.push(engine.issueToken(items[i]!, { verdict: 'approved' })), { audited: audit });
    let refused = 0;
    measure(`approval.verify.consuming${audit ? '' : '.no_audit'}`, COUNT, (i) => void (engine.verify(tokens[i]!, items[i]!).ok || (refused += 1)), {
      audited: audit,
    });
    if (refused > 0) throw new Error(`${refused} verifications were refused`);
    if (audit) measure('approval.check', COUNT, (i) => void engine.check(tokens[i]!, items[i]!), { audited: true, consuming: false });
  };
  run(audited, 'audited', true);
  run(silent, 'silent', false);
  ledger.db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
