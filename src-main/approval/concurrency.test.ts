import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import type { ApprovalToken } from '../../src-shared/silas/approval.js';
import { SqliteAuditLog } from '../audit/audit-log.js';
import { AuditRepository } from '../store/repositories/audit-repository.js';
import { openDatabase } from '../store/database.js';
import { useTempDirs } from '../testing/temp.js';
import { ConsumptionLedger } from '../store/repositories/consumption-ledger.js';
import { ApprovalEngine } from './engine.js';
import { T0, engineFixture, goal, spawned, task, type EngineFixture } from './testing/engine.js';
import type { VerifyJob } from './testing/verify-worker.js';
import { sqliteConnection } from '../store/transaction.js';

const tempDir = useTempDirs();
const WORKER = fileURLToPath(new URL('./testing/verify-worker.ts', import.meta.url));
type Outcome = { ok: boolean; code?: string; reason?: string };

function job(f: EngineFixture, token: ApprovalToken, subject = task(), options?: VerifyJob['options']): VerifyJob {
  return {
    file: f.ledger.file,
    fingerprint: f.ledger.signer.fingerprint,
    publicKeyHex: f.ledger.signer.publicKey.toString('hex'),
    token,
    subject,
    options,
    nowIso: T0.toISOString(),
  };
}

/** Starts `n` worker threads that verify at the same instant, released by one shared flag. */
async function raceThreads(n: number, work: VerifyJob): Promise<Outcome[]> {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const boot = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(new URL('./testing/verify-worker.ts', import.meta.url).href)}); });`;
  let ready = 0;
  let release: () => void = () => {};
  const allReady = new Promise<void>((resolve) => (release = resolve));
  const results = Array.from({ length: n }, () => {
    const worker = new Worker(boot, { eval: true, workerData: { job: work, flag } });
    return new Promise<Outcome>((resolve, reject) => {
      worker.on('error', reject);
      worker.on('message', (message: { ready?: boolean; result?: Outcome }) => {
        if (message.ready && ++ready === n) release();
        if (message.result) void worker.terminate().then(() => resolve(message.result!));
      });
    });
  });
  await allReady;
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
  return Promise.all(results);
}

/** Starts one node process per job, waits until each has opened the database, then releases them together. */
async function raceProcesses(jobs: VerifyJob[]): Promise<Outcome[]> {
  const children = jobs.map((work) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WORKER, JSON.stringify(work)], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const ready = new Promise<void>((resolve) =>
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.startsWith('ready\n')) resolve();
      }),
    );
    const done = new Promise<Outcome>((resolve, reject) =>
      child.on('exit', (code) => {
        const line = out.split('\n').find((l) => l.startsWith('{'));
        if (code === 0 && line) resolve(JSON.parse(line) as Outcome);
        else reject(new Error(`verify worker exited with ${code}: ${err}`));
      }),
    );
    return { child, ready, done };
  });
  await Promise.all(children.map((c) => c.ready));
  for (const { child } of children) child.stdin.write('go\n');
  return Promise.all(children.map((c) => c.done));
}

/** Successes and refusal codes; a refusal's reason is kept in `detail` so a failure explains itself. */
function tally(outcomes: Outcome[]): { ok: number; codes: string[] } {
  const result = { ok: outcomes.filter((o) => o.ok).length, codes: outcomes.filter((o) => !o.ok).map((o) => o.code!) };
  Object.defineProperty(result, 'detail', { value: outcomes.map((o) => o.reason ?? 'ok'), enumerable: false });
  return result;
}

const detail = (value: object) => JSON.stringify((value as { detail?: unknown }).detail);

describe('concurrent consumption of one token', () => {
  it('two engines on two connections in one process: the second verification of a single-use token fails', () => {
    const f = engineFixture(tempDir());
    const token = f.engine.issueToken(task(), { verdict: 'approved' });
    const { db } = openDatabase(f.ledger.file, { create: false });
    const audit = new SqliteAuditLog({ repository: new AuditRepository(db), keys: f.ledger.keys });
    const second = new ApprovalEngine({ db, audit, trustedKeys: () => new Map([[f.ledger.signer.fingerprint, f.ledger.signer.publicKey]]), now: () => T0 });
    expect(f.engine.verify(token, task()).ok).toBe(true);
    expect(second.verify(token, task())).toMatchObject({ ok: false, code: 'E_APPROVAL_REPLAY' });
    sqliteConnection(db).close();
  });

  it('the UNIQUE keys refuse a second consumption even from a writer that skipped the engine read', () => {
    const f = engineFixture(tempDir());
    const token = f.engine.issueToken(task(), { verdict: 'approved' });
    const ledger = new ConsumptionLedger(f.ledger.db);
    ledger.ensureToken(token, T0.toISOString());
    ledger.consume(token.token_id, token.plan_hash, 0, 'nonce-a', T0.toISOString());
    // A racer that read executions_used = 0 before the first commit: its insert collides.
    expect(() => ledger.consume(token.token_id, token.plan_hash, 0, 'nonce-b', T0.toISOString())).toThrow(/UNIQUE constraint failed/);
    expect(f.count('silas_approval_consumptions')).toBe(1);
  });

  it('four threads of one process verifying one single-use token at once: exactly one succeeds', async () => {
    const f = engineFixture(tempDir());
    const token = f.engine.issueToken(task(), { verdict: 'approved' });
    const result = tally(await raceThreads(4, job(f, token)));
    expect(result, detail(result)).toEqual({ ok: 1, codes: Array(3).fill('E_APPROVAL_REPLAY') });
    expect(f.count('silas_approval_consumptions')).toBe(1);
    expect(f.events('silas.approval.consumed')).toHaveLength(1);
    expect(f.ledger.reopen().verifyChain().valid).toBe(true);
  }, 60_000);

  it('four processes over one database verifying one single-use token at once: exactly one succeeds', async () => {
    const f = engineFixture(tempDir());
    const token = f.engine.issueToken(task(), { verdict: 'approved' });
    const result = tally(await raceProcesses(Array(4).fill(job(f, token))));
    expect(result, detail(result)).toEqual({ ok: 1, codes: Array(3).fill('E_APPROVAL_REPLAY') });
    expect(f.count('silas_approval_consumptions')).toBe(1);
    expect(f.events('silas.approval.refused').map((e) => e.code)).toEqual(Array(3).fill('E_APPROVAL_REPLAY'));
    expect(f.ledger.reopen().verifyChain().valid).toBe(true);
  }, 60_000);

  it('four processes spending a standing token with two executions on four spawned tasks: exactly two succeed', async () => {
    const f = engineFixture(tempDir());
    const token = f.engine.issueToken(goal(), { verdict: 'approved' }, { scope: 'standing', maxExecutions: 2, ttlMs: 3_600_000 });
    const result = tally(await raceProcesses([1, 2, 3, 4].map((n) => job(f, token, goal(), { spawned: spawned(n) }))));
    expect(result, detail(result)).toEqual({ ok: 2, codes: ['E_APPROVAL_EXHAUSTED', 'E_APPROVAL_EXHAUSTED'] });
    expect(f.ledger.db.prepare('SELECT executions_used FROM silas_approval_tokens').pluck().get()).toBe(2);
  }, 60_000);
});
