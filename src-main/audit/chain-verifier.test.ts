import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp.js';
import { ledgerWith as ledgerWithEntries, type TestLedger } from '../testing/ledger.js';
import { verifierFor } from './testing/chain-verifier.js';
import { attackedLedger, tamperAttacks, type TamperAttack } from './testing/tamper-attacks.js';

const tempDir = useTempDirs();

const ledgerWith = (count: number, checkpointAt?: number): TestLedger => ledgerWithEntries(tempDir(), count, checkpointAt);

const verdict = ({ valid, entries, checkpoints, firstInvalid }: { valid: boolean; entries: number; checkpoints: number; firstInvalid: unknown }) => ({ valid, entries, checkpoints, firstInvalid });

/** The attacks of tamper.test.ts: each is run through the worker and through today's in-process verifier. */
const tamperCases = (Object.keys(tamperAttacks) as TamperAttack[]).map((name) => [name, () => attackedLedger(tempDir(), name)] as const);

describe('chain verification in a worker thread', () => {
  it.each(tamperCases)('finds the same first invalid entry as the in-process verifier: %s', async (_name, make) => {
    const ledger = make();
    const expected = ledger.reopen().verifyChain();
    const verifier = verifierFor(ledger);
    const result = await verifier.verify('full').catch((error: unknown) => error);
    expect(verdict(result as never)).toEqual(expected);
    expect(verifier.status()).toMatchObject({ last: { mode: 'full', valid: expected.valid }, running: null, error: null });
  });

  it('reports progress and verifies only what is new on the next run', async () => {
    const ledger = ledgerWith(250);
    const progress: number[] = [];
    const verifier = verifierFor(ledger, { progressEvery: 100, onProgress: (run) => progress.push(run.checked) });
    const first = await verifier.verify('new');
    // No checkpoint anchors the chain yet, so the first run checks everything.
    expect(first).toMatchObject({ valid: true, mode: 'full', fromIndex: 0, checked: 250, verifiedUpTo: { index: 249 } });
    expect(progress).toEqual([100, 200]);

    for (let i = 0; i < 5; i += 1) ledger.audit.append('test.entry', { seq: 1000 + i });
    const second = await verifier.verify('new');
    expect(second).toMatchObject({ valid: true, mode: 'new', fromIndex: 249, checked: 6, entries: 255, verifiedUpTo: { index: 254, hash: ledger.audit.head()!.hash } });
  });

  it('a first incremental run starts at the keyring-anchored checkpoint', async () => {
    const ledger = ledgerWith(100, 89);
    const result = await verifierFor(ledger).verify('new');
    // Entry 90 is the checkpoint record; the run rechecks it and the 10 entries after it.
    expect(result).toMatchObject({ valid: true, mode: 'new', fromIndex: 90, checked: 11, entries: 101 });
  });

  it('an incremental run catches a rewrite of the last verified entry, and of what follows it', async () => {
    const ledger = ledgerWith(20);
    const verifier = verifierFor(ledger);
    await verifier.verify('new');
    ledger.audit.append('test.entry', { seq: 99 });
    ledger.db.prepare("UPDATE audit_entries SET data = '{\"note\":\"forged\",\"seq\":19}' WHERE idx = 19").run();
    const rewritten = await verifier.verify('new');
    expect(rewritten).toMatchObject({ valid: false, mode: 'new', firstInvalid: { index: 19, reason: expect.stringContaining('modified after it was verified') } });
    // A broken verdict is never replaced by an incremental "intact": the next run is full.
    expect(await verifier.verify('new')).toMatchObject({ valid: false, mode: 'full', firstInvalid: { index: 19 } });
  });

  it('an incremental run catches truncation below the last verified entry', async () => {
    const ledger = ledgerWith(20);
    const verifier = verifierFor(ledger);
    await verifier.verify('new');
    ledger.db.prepare('DELETE FROM audit_entries WHERE idx >= 15').run();
    expect(await verifier.verify('new')).toMatchObject({ valid: false, firstInvalid: { index: 15, reason: expect.stringContaining('truncated') } });
  });

  it('an old rewrite below the last verified entry needs a full run, which finds it', async () => {
    const ledger = ledgerWith(30);
    const verifier = verifierFor(ledger);
    await verifier.verify('new');
    ledger.db.prepare("UPDATE audit_entries SET data = '{}' WHERE idx = 3").run();
    expect(await verifier.verify('new')).toMatchObject({ valid: true, mode: 'new' });
    expect(await verifier.verify('full')).toMatchObject({ valid: false, mode: 'full', firstInvalid: { index: 3 } });
  });

  it('a cancelled run leaves the last result as it was and reports why', async () => {
    const ledger = ledgerWith(40);
    const statuses: unknown[] = [];
    const verifier = verifierFor(ledger, { onFinished: (s) => statuses.push(s) });
    const first = await verifier.verify('full');
    const pending = verifier.verify('full');
    expect(verifier.status().running).toMatchObject({ mode: 'full', checked: 0 });
    expect(verifier.cancel()).toBe(true);
    await expect(pending).rejects.toThrow(/cancelled/);
    expect(verifier.status()).toEqual({ last: first, running: null, error: { code: 'E_UNAVAILABLE', message: expect.stringContaining('cancelled') } });
    expect(statuses).toHaveLength(2);
    expect(verifier.cancel()).toBe(false);
    // Nothing was written: the chain and its checkpoints are as before, and the next run completes.
    expect(ledger.reopen().verifyChain().valid).toBe(true);
    expect(await verifier.verify('new')).toMatchObject({ valid: true });
    expect(verifier.status().error).toBeNull();
  });

  it('joins the run in progress, and runs a full request after an incremental one', async () => {
    const ledger = ledgerWith(30, 19);
    const verifier = verifierFor(ledger);
    const a = verifier.verify('new');
    const b = verifier.verify('new');
    expect(b).toBe(a);
    const full = verifier.verify('full');
    expect(full).not.toBe(a);
    await a;
    expect(await full).toMatchObject({ mode: 'full', valid: true });
  });

  it('fails closed without the keyring, with a message that says how to fix it', async () => {
    const ledger = ledgerWith(3);
    const verifier = verifierFor(ledger, {
      keys: () => {
        throw new Error('cannot verify the audit ledger: unlock the keyring');
      },
    });
    await expect(verifier.verify('new')).rejects.toThrow(/unlock the keyring/);
    expect(verifier.status()).toMatchObject({ last: null, running: null, error: { message: expect.stringContaining('unlock') } });
  });
});

describe('a build without the worker', () => {
  it('says which file is missing and how to fix it, keeping no half result', async () => {
    const ledger = ledgerWith(3);
    const verifier = verifierFor(ledger, { workerUrl: new URL('file:///nonexistent/verify-worker.js') });
    await expect(verifier.verify('full')).rejects.toThrow(/verify-worker\.js is missing from this build; rebuild/);
    expect(verifier.status()).toMatchObject({ last: null, running: null, error: { code: 'E_INTERNAL' } });
  });
});

describe('a first incremental run trusts only a checkpoint whose signature holds', () => {
  it('reports a forged anchored checkpoint instead of starting from it', async () => {
    const ledger = ledgerWith(30, 19);
    ledger.db.prepare('UPDATE audit_checkpoints SET signature = ?').run(Buffer.alloc(64, 7).toString('base64'));
    const result = await verifierFor(ledger).verify('new');
    expect(result).toMatchObject({ valid: false, mode: 'new', firstInvalid: { index: 20, reason: expect.stringContaining('invalid signature') } });
  });
});
