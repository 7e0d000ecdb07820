import type { ApprovalToken } from '../../../src-shared/silas/approval.js';
import type { WorkItem } from '../../../src-shared/silas/work.js';
import type { CallArgs, CallResult } from '../../../src-shared/contract/calls.js';
import { planApprovalCard } from '../../review/kinds/plan-card.js';
import { planHash } from '../../silas/work/hashes.js';
import type { ApprovalTerminal } from './approval-terminal.js';
import { formatPlanCard, terminalSafe } from './plan.js';

/**
 * `silas chat --approve-here` (spec 002 §8.4: approvals by text prompt): a plan the Stream asks
 * approval for is shown here in full, and typing the first 8 characters of its hash signs it with
 * the owner key at the terminal. What is shown is what is signed: the hash is computed here from
 * the plan the runtime sent, and a plan whose hash differs from the runtime's is not offered.
 * Anything else typed leaves the plan to the cockpit's Review. The confirmation is read from the
 * controlling terminal (approval-terminal.ts), never from standard input: lines piped into chat are
 * messages, and cannot approve anything.
 */
export interface TerminalApprovalDeps {
  /** Signs the plan with the owner key (`CliDatabase.planApprover`, app/cli-database.ts). */
  sign(item: WorkItem): ApprovalToken;
  approve(args: CallArgs<'stream.approve'>): Promise<CallResult<'stream.approve'>>;
  /** Where the person types the confirmation. */
  terminal: ApprovalTerminal;
}

export class TerminalApprovals {
  private pending: { scope: string; item: WorkItem; hash: string } | null = null;

  constructor(private readonly deps: TerminalApprovalDeps) {}

  get waiting(): boolean {
    return this.pending !== null;
  }

  /** Lines to show for a plan awaiting approval; arms the next typed line as its confirmation. */
  offer(scope: string, event: { item: WorkItem | null; plan_hash: string | null }): string[] {
    if (event.item === null || event.plan_hash === null) return [];
    const hash = planHash(event.item);
    if (hash !== event.plan_hash) {
      return [`the plan the runtime sent does not match its hash (${terminalSafe(event.plan_hash.slice(0, 12))}…); it is not offered for approval here — check it in the cockpit`];
    }
    this.pending = { scope, item: event.item, hash };
    return ['', ...formatPlanCard(planApprovalCard(event.item, hash)), '', `To approve and sign it here, type the first 8 characters of the plan hash at the prompt (${hash.slice(0, 2)}…); anything else leaves it to the cockpit's Review.`];
  }

  /** Asks the terminal for the confirmation: signs and hands over the token on a match; returns what to tell the person. */
  async confirm(): Promise<string> {
    const pending = this.pending;
    this.pending = null;
    if (pending === null) return 'no plan is waiting for approval here';
    const typed = await this.deps.terminal.ask(`approve "${terminalSafe(pending.item.title)}"? first 8 characters of its plan hash: `);
    if (typed === null || typed.trim().toLowerCase() !== pending.hash.slice(0, 8)) return `not approved here; "${terminalSafe(pending.item.title)}" still waits in the cockpit's Review`;
    const token = this.deps.sign(pending.item);
    const answer = await this.deps.approve({ scope: pending.scope, work_item_id: pending.item.id, token });
    return answer.accepted ? `approved and signed here (token ${token.token_id.slice(0, 12)}…)` : `the runtime did not take the approval: ${terminalSafe(answer.reason)}`;
  }
}
