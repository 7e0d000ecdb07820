import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApprovalToken } from '../../../src-shared/silas/approval.js';
import { argumentsHash, issueToolCallToken } from '../../approval/tool-call.js';
import type { OwnerSigner } from '../../keys/owner-key.js';
import { ApprovalEngine } from '../../approval/engine.js';
import { openDatabase } from '../../store/database.js';
import type { ApprovalAnswer, ApprovalRequest, Approver } from '../proxy/approver.js';
import { closeDatabase } from '../../store/transaction.js';

/**
 * Issues a tool-call token for a request the way the runtime does — the approval engine, the
 * owner key, scope single_step, bound to the exact call — but on a throwaway database, so the
 * ledger under test holds only what the proxy itself records.
 */
export function signApprovalFor(req: ApprovalRequest, signer: OwnerSigner, options: { ttlMs?: number; now?: Date } = {}): ApprovalToken {
  const dir = mkdtempSync(join(tmpdir(), 'silas-sign-'));
  const { db } = openDatabase(join(dir, 'silas.db'), { create: true });
  try {
    const now = options.now ?? new Date();
    const engine = new ApprovalEngine({ db, audit: { append: () => undefined } as never, signer, now: () => now });
    const call = { server: req.server, tool: req.tool, argsHash: argumentsHash(req.args), requestId: req.requestId, sessionId: req.sessionId };
    return issueToolCallToken(engine, call, options.ttlMs ?? 60_000);
  } finally {
    closeDatabase(db);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An approver scripted by the test: records every request and answers with `answer`. */
export class ScriptedApprover implements Approver {
  readonly requests: ApprovalRequest[] = [];
  readonly aborted: ApprovalRequest[] = [];

  constructor(private readonly answer: (req: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalAnswer> | ApprovalAnswer) {}

  async request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    this.requests.push(req);
    signal.addEventListener('abort', () => this.aborted.push(req), { once: true });
    return this.answer(req, signal);
  }
}

/** Never answers until aborted: a person who does not respond. */
export function never(_req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve({ outcome: 'timeout' }), { once: true }));
}
