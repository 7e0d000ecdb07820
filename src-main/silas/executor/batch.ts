import { randomUUID } from 'node:crypto';
import type { ApprovalScope, ApprovalToken } from '../../../src-shared/silas/approval.js';
import {
  BatchActionDecision,
  BatchActionItem,
  BatchProposal,
  MAX_BATCH_ITEMS,
  batchBindingFor,
  type BatchActionVerdict,
  type BatchBinding,
} from '../../../src-shared/silas/review.js';
import type { WorkItem } from '../../../src-shared/silas/work.js';
import { batchHash } from '../work/hashes.js';
import { clip } from './audit.js';
import type { ApprovalPort } from './gate-approval.js';
import type { ExecutorAuditSink } from './types.js';

/**
 * Reviewed batch execution of spec 002 §5.2.4. Candidates are chunked into proposals; each is
 * reviewed; an approved batch runs only under a token bound to its exact
 * `{goal_id, action, item_ids, count}` (the batch hash, §3.11) that is verified — consumed — first.
 * An edited selection is a different batch: it is proposed again and needs its own approval.
 */

/** A reviewer's answer. A token may come with it (signed where the person approved); else the engine issues one. */
export interface BatchReviewAnswer {
  decision: unknown;
  token?: ApprovalToken;
}

interface BatchReviewer {
  /** Disconnects and timeouts must answer `decline` (§8.1); a throw counts as decline too. */
  review(proposal: BatchProposal, signal?: AbortSignal): Promise<BatchReviewAnswer>;
}

export interface BatchActionHandler {
  apply(request: { goal: WorkItem; action: string; items: BatchActionItem[]; batchHash: string; token: ApprovalToken }): Promise<{ ok: boolean; error?: string }>;
}

/** §5.2.4 step 7: `autonomy_calibrator.record_outcome(...)`. */
export interface BatchOutcomeRecorder {
  recordOutcome(outcome: { goal_id: string; batch_id: string; action: string; verdict: BatchActionVerdict | 'invalid'; proposed: number; selected: number; executed: boolean }): void;
}

export interface BatchRunRequest {
  goal: WorkItem;
  action: string;
  candidates: readonly unknown[];
  /** `config.batch_review.default_size` (spec default 10). */
  batchSize?: number;
  reviewer: BatchReviewer;
  handler: BatchActionHandler;
  recorder?: BatchOutcomeRecorder;
  /** Scope of batch tokens; state-changing domain actions are `connection_act`. */
  scope?: ApprovalScope;
  signal?: AbortSignal;
}

export interface BatchOutcome {
  batch_id: string;
  verdict: BatchActionVerdict | 'invalid';
  batch_hash: string | null;
  executed_item_ids: string[];
  error: string | null;
}

const DEFAULT_BATCH_SIZE = 10;

export class BatchRunner {
  constructor(private readonly deps: { approvals: ApprovalPort; audit: ExecutorAuditSink; now?: () => Date; newId?: () => string }) {}

  async run(request: BatchRunRequest): Promise<BatchOutcome[]> {
    const size = request.batchSize ?? DEFAULT_BATCH_SIZE;
    if (!Number.isInteger(size) || size < 1 || size > MAX_BATCH_ITEMS) throw new RangeError(`batchSize: expected a whole number from 1 to ${MAX_BATCH_ITEMS}, got ${size}`);
    const items = request.candidates.map((candidate, index) => {
      const parsed = BatchActionItem.safeParse(candidate);
      if (!parsed.success) throw new RangeError(`candidates.${index}.${parsed.error.issues[0]!.path.join('.')}: ${parsed.error.issues[0]!.message}`);
      return parsed.data;
    });
    const outcomes: BatchOutcome[] = [];
    for (let start = 0; start < items.length; start += size) {
      if (request.signal?.aborted) break;
      outcomes.push(await this.reviewBatch(request, this.propose(request, items.slice(start, start + size))));
    }
    return outcomes;
  }

  private propose(request: BatchRunRequest, items: BatchActionItem[], reason?: string): BatchProposal {
    return BatchProposal.parse({
      batch_id: this.deps.newId?.() ?? `batch-${randomUUID()}`,
      goal_id: request.goal.id,
      action: request.action,
      items,
      reason_summary: reason ?? `${items.length} item(s) proposed for ${request.action}`,
      confidence_min: Math.min(...items.map((item) => item.confidence)),
      created_at: (this.deps.now?.() ?? new Date()).toISOString(),
    });
  }

  /** Reviews one proposal; an edited selection is proposed again until approved or declined. */
  private async reviewBatch(request: BatchRunRequest, first: BatchProposal): Promise<BatchOutcome> {
    let proposal = first;
    for (;;) {
      const binding: BatchBinding = { goal_id: proposal.goal_id, action: proposal.action, item_ids: proposal.items.map((i) => i.item_id) };
      const hash = batchHash(binding);
      this.deps.audit.append('silas.executor.batch_proposed', { work_item_id: proposal.goal_id, batch_id: proposal.batch_id, action: proposal.action, batch_hash: hash, count: proposal.items.length });
      let answer: BatchReviewAnswer;
      try {
        answer = await request.reviewer.review(proposal, request.signal);
      } catch (error) {
        answer = { decision: { verdict: 'decline' } };
        this.deps.audit.append('silas.executor.batch_review_failed', { batch_id: proposal.batch_id, reason: clip((error as Error).message ?? String(error)) });
      }
      const parsed = BatchActionDecision.safeParse(answer.decision);
      const outcome = (verdict: BatchOutcome['verdict'], executed: string[], error: string | null): BatchOutcome => {
        this.deps.audit.append('silas.executor.batch_verdict', {
          work_item_id: proposal.goal_id,
          batch_id: proposal.batch_id,
          batch_hash: hash,
          verdict,
          executed: executed.length,
          error: error === null ? null : clip(error),
        });
        request.recorder?.recordOutcome({
          goal_id: proposal.goal_id,
          batch_id: proposal.batch_id,
          action: proposal.action,
          verdict,
          proposed: proposal.items.length,
          selected: parsed.success && parsed.data.verdict === 'edit_selection' ? parsed.data.selected_item_ids.length : proposal.items.length,
          executed: executed.length > 0,
        });
        return { batch_id: proposal.batch_id, verdict, batch_hash: hash, executed_item_ids: executed, error };
      };
      if (!parsed.success) return outcome('invalid', [], `invalid decision: ${parsed.error.issues[0]!.path.join('.') || 'decision'}: ${parsed.error.issues[0]!.message}`);
      const decision = parsed.data;
      if (decision.verdict === 'decline') return outcome('decline', [], null);

      if (decision.verdict === 'edit_selection') {
        let narrowed: BatchBinding | null;
        try {
          narrowed = batchBindingFor(proposal, decision);
        } catch (error) {
          return outcome('invalid', [], (error as Error).message);
        }
        if (narrowed === null || narrowed.item_ids.length >= proposal.items.length) {
          return outcome('invalid', [], 'edit_selection must keep a strict subset of the batch; approve to act on all of it');
        }
        // §5.2.4 step 5: the narrowed batch is a new payload with a new hash and needs a fresh approval.
        const kept = new Set(narrowed.item_ids);
        outcome('edit_selection', [], null);
        proposal = this.propose(request, proposal.items.filter((item) => kept.has(item.item_id)), `narrowed from batch ${proposal.batch_id}`);
        continue;
      }

      const subject = { kind: 'plan', id: proposal.goal_id, hash };
      const scope = request.scope ?? 'connection_act';
      let token = answer.token;
      if (token === undefined) {
        try {
          token = this.deps.approvals.issueToken(subject, { verdict: 'approved' }, { scope });
        } catch (error) {
          return outcome('approve', [], `could not sign the batch approval: ${(error as Error).message}`);
        }
      }
      const verified = this.deps.approvals.verify(token, subject, { scope });
      if (!verified.ok) return outcome('approve', [], `batch approval refused: ${verified.code}: ${verified.reason}`);
      this.deps.audit.append('silas.executor.batch_applying', { work_item_id: proposal.goal_id, batch_id: proposal.batch_id, batch_hash: hash, token_id: verified.token.token_id, item_ids: binding.item_ids.slice(0, MAX_BATCH_ITEMS) as string[] });
      let applied: { ok: boolean; error?: string };
      try {
        applied = await request.handler.apply({ goal: request.goal, action: proposal.action, items: proposal.items, batchHash: hash, token: verified.token });
      } catch (error) {
        applied = { ok: false, error: (error as Error).message };
      }
      return applied.ok ? outcome('approve', [...binding.item_ids], null) : outcome('approve', [], `the action failed: ${applied.error ?? 'no reason given'}`);
    }
  }
}
