import type { ChainBreak, ChainVerified, VerifyMode } from '../../src-shared/schemas/audit.js';
import { verifyEd25519 } from '../keys/ed25519.js';
import { parseLedgerKeyRecord } from '../keys/ledger-key.js';
import type { OwnerSigner } from '../keys/owner-key.js';
import type { AuditRepository } from '../store/repositories/audit-repository.js';
import type { LedgerKeys } from './ledger-keys.js';
import { checkCheckpoint, verifyAfter, verifyWholeChainAt, type LedgerState, type TrustedEntry } from './verify.js';

/**
 * The keyring material a verifier thread needs, handed over in memory (`workerData`), never
 * through a file: the ledger key's keyring record (the HMAC key has no other exportable form)
 * and the public half of the owner key. The owner's private key never leaves the runtime thread.
 */
export interface VerifyKeyMaterial {
  ledgerKeyRecord: string;
  ownerFingerprint: string;
  ownerPublicKey: Uint8Array;
}

/** One verification run, as the runtime hands it to its worker. */
export interface VerifyJob {
  dbFile: string;
  mode: VerifyMode;
  /** The last entry an earlier run verified, for `new`; null starts from the anchored checkpoint. */
  from: TrustedEntry | null;
  /** Read on the runtime thread under the write lock (`captureLedgerState`). */
  state: LedgerState;
  keys: VerifyKeyMaterial;
  progressEvery: number;
}

export type VerifyOutcome = Omit<ChainVerified, 'verifiedAt'>;

export type VerifyWorkerMessage =
  | { type: 'progress'; checked: number; total: number }
  | { type: 'done'; result: VerifyOutcome }
  | { type: 'error'; code: string; message: string };

/** Rebuilds verify-only `LedgerKeys` from the handed-over material; signing and anchor writes are refused. */
function keysFromMaterial(material: VerifyKeyMaterial, state: LedgerState): LedgerKeys {
  // Parsed by the function the runtime uses, so the worker accepts exactly the records the runtime does.
  const secret = parseLedgerKeyRecord(material.ledgerKeyRecord, 'handed to the verifier');
  const publicKey = Buffer.from(material.ownerPublicKey);
  const signer: OwnerSigner = {
    fingerprint: material.ownerFingerprint,
    publicKey,
    sign: () => {
      throw new Error('a verifier never signs');
    },
    verify: (message, signature) => verifyEd25519(publicKey, message, signature),
  };
  const anchors = {
    read: () => state.anchor,
    write: () => {
      throw new Error('a verifier never moves the checkpoint anchor');
    },
  };
  return { chain: secret.chain, keyedFrom: secret.keyedFrom, anchors, signer };
}

/** Where a run starts: genesis (`full`), the last verified entry, or the keyring-anchored checkpoint. */
export interface RunPlan {
  mode: VerifyMode;
  start: TrustedEntry | null;
  /** Entries the run will hash. */
  total: number;
}

export function planRun(state: LedgerState, mode: VerifyMode, from: TrustedEntry | null): RunPlan {
  const chainLength = state.headIndex + 1;
  let start: TrustedEntry | null = null;
  if (mode === 'new') {
    if (from) start = from;
    else if (state.anchor) {
      const cp = state.checkpoints.find((c) => c.id === state.anchor!.checkpointId);
      if (cp) start = { index: cp.index, hash: cp.hash };
    }
  }
  if (!start) return { mode: 'full', start: null, total: chainLength };
  return { mode: 'new', start, total: Math.max(0, chainLength - start.index) };
}

/**
 * Runs one job on `repo` (the worker's read-only connection). Finds the same first break as
 * `verifyWholeChain` for `full`; `new` trusts what lies below its start (docs/ledger.md).
 */
export function runVerifyJob(repo: AuditRepository, job: VerifyJob, report: (checked: number, total: number) => void): VerifyOutcome {
  const keys = keysFromMaterial(job.keys, job.state);
  const plan = planRun(job.state, job.mode, job.from);
  const progress = { every: job.progressEvery, report: (checked: number) => report(checked, plan.total) };
  const chainLength = job.state.headIndex + 1;
  if (!plan.start) {
    const result = verifyWholeChainAt(job.state, repo, keys, progress);
    return {
      valid: result.valid,
      entries: result.entries,
      checkpoints: result.checkpoints,
      firstInvalid: result.firstInvalid,
      mode: 'full',
      fromIndex: 0,
      checked: result.firstInvalid ? Math.min(result.firstInvalid.index, chainLength) : chainLength,
      verifiedUpTo: result.valid && chainLength > 0 ? { index: job.state.headIndex, hash: result.lastHash } : null,
    };
  }
  let precheck: ChainBreak | null = null;
  if (!job.from) {
    // Starting from the anchored checkpoint: its signature must hold before anything below it is trusted.
    const cp = job.state.checkpoints.find((c) => c.id === job.state.anchor!.checkpointId)!;
    precheck = checkCheckpoint(cp, keys, chainLength, () => ({ hash: cp.hash, checkpointId: cp.id }));
  }
  const result = precheck
    ? { valid: false, entries: chainLength, checkpoints: job.state.checkpoints.length, firstInvalid: precheck, lastHash: plan.start.hash, checked: 0 }
    : verifyAfter(job.state, repo, keys, plan.start, progress);
  return {
    valid: result.valid,
    entries: result.entries,
    checkpoints: result.checkpoints,
    firstInvalid: result.firstInvalid,
    mode: 'new',
    fromIndex: plan.start.index,
    checked: result.checked,
    verifiedUpTo: result.valid && chainLength > 0 ? { index: job.state.headIndex, hash: result.lastHash } : null,
  };
}
