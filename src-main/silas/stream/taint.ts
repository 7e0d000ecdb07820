import { signedMessageText, type SignedMessageProof } from '../../../src-shared/schemas/stream.js';
import type { TaintLevel } from '../../../src-shared/silas/execution.js';
import { verifyEd25519 } from '../../keys/ed25519.js';
import { NonceDomain, type NonceStore } from '../../store/repositories/nonce-store.js';
import type { StreamCaller } from './stream-channel.js';

/**
 * §5.12 step 2 of a turn: how far a message is trusted. `owner` only for a message signed by a
 * keyring-held owner key (DESIGN invariant 9) over this scope and text, within the freshness
 * window, with a nonce never seen before (recorded now, in the `msg` domain). A signature that is
 * forged, stale or replayed makes the message `external`, not `auth`: whoever sent it tried to
 * claim more than they hold. Unsigned, the cockpit's credential makes the sender a known
 * authenticated channel (`auth`); the local socket's credential is readable by any same-user
 * process, so its unsigned messages are `external`.
 */
export interface TaintInput {
  scope: string;
  text: string;
  signed?: SignedMessageProof;
  caller: StreamCaller;
}

export interface TaintDeps {
  nonces: NonceStore;
  trustedKeys: () => ReadonlyMap<string, Uint8Array>;
  now: () => Date;
  freshnessMs: number;
}

export type TaintVerdict = { taint: TaintLevel; signed: boolean; refused: string | null };

export function classifyTaint(deps: TaintDeps, input: TaintInput): TaintVerdict {
  if (input.signed === undefined) {
    return { taint: input.caller.transport === 'local-socket' ? 'external' : 'auth', signed: false, refused: null };
  }
  const proof = input.signed;
  const bytes = Buffer.from(signedMessageText({ scope: input.scope, text: input.text, nonce: proof.nonce, timestamp: proof.timestamp }), 'utf8');
  const signature = Buffer.from(proof.signature, 'base64');
  const valid = [...deps.trustedKeys().values()].some((key) => safeVerify(key, bytes, signature));
  if (!valid) return { taint: 'external', signed: true, refused: 'the signature is not by the owner key in the OS keyring' };
  const age = deps.now().getTime() - Date.parse(proof.timestamp);
  if (!Number.isFinite(age) || Math.abs(age) > deps.freshnessMs) {
    return { taint: 'external', signed: true, refused: `the signed timestamp is outside the ${Math.round(deps.freshnessMs / 1000)} s freshness window` };
  }
  try {
    if (deps.nonces.isUsed(NonceDomain.Message, proof.nonce)) return { taint: 'external', signed: true, refused: 'the nonce was already used (a replay)' };
    deps.nonces.record(NonceDomain.Message, proof.nonce);
  } catch {
    // Another process recorded it between the check and the write: still a replay.
    return { taint: 'external', signed: true, refused: 'the nonce was already used (a replay)' };
  }
  return { taint: 'owner', signed: true, refused: null };
}

function safeVerify(key: Uint8Array, bytes: Buffer, signature: Buffer): boolean {
  try {
    return verifyEd25519(key, bytes, signature);
  } catch {
    return false;
  }
}
