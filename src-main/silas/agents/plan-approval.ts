import { isMap, parseDocument } from 'yaml';
import type { AgentResponse, InteractionConfig, PlanActionType, RouteDecision } from '../../../src-shared/silas/agents.js';
import type { ApprovalToken } from '../../../src-shared/silas/approval.js';
import { WorkItem } from '../../../src-shared/silas/work.js';
import { splitFrontMatter, tryParsePlan, type ParsePlanOptions, type PlanIssue } from '../work/plan-parser.js';
import { interactionConfigInputs, resolveInteractionMode } from './interaction-mode.js';

/**
 * The plan/approval rule of spec 002 §5.1 step 12 and §5.1.2: an agent's `needs_approval` is a
 * request, never an authorisation. Approval may be skipped only for a work item that carries an
 * approval token the approval engine has verified for it; a plan parsed from an agent's
 * `plan_action` never does (the plan format has no token field, and the parser refuses one), so
 * every agent plan goes to the person, whatever the agent or the plan's front matter claim.
 */

/**
 * §5.1 step 12 for any work item: `needs_approval: true` enters the approval flow; `false` is
 * honoured only when a token is attached AND the approval engine verified it for this item.
 */
export function requiresInteractiveApproval(input: { agentNeedsApproval: boolean; approvalToken: ApprovalToken | null; tokenVerified: boolean }): boolean {
  if (input.agentNeedsApproval) return true;
  if (input.approvalToken === null) return true;
  return !input.tokenVerified;
}

export interface PlanApprovalInput {
  /** A response that passed the AgentResponse schema (runStructuredAgent's value). */
  response: AgentResponse;
  /** Who answered: a plan_action in a Proxy's direct reply is handled exactly like the Planner's. */
  origin: 'proxy' | 'planner';
  /** The turn's route decision, for its continuation target and mode; null when there is none. */
  route: Pick<RouteDecision, 'interaction_mode' | 'interaction_register' | 'continuation_of'> | null;
  /** Inputs of `resolveInteractionMode` that the response does not carry. */
  mode: { riskRequiresConfirmation: boolean; initiativeLevel: number; config: InteractionConfig };
  /** Passed to the plan parser (parent, clock, file name shown in errors). */
  parse?: ParsePlanOptions;
}

export type PlanApprovalDecision =
  /** No plan_action: nothing to approve. Text in `message` is never read as a plan. */
  | { kind: 'no_plan' }
  | {
      kind: 'approval_required';
      origin: 'proxy' | 'planner';
      action: Exclude<PlanActionType, 'abort'>;
      /** The parsed plan with linkage and mode applied, `needs_approval: true`, no token: what the card shows and the token binds. */
      item: WorkItem;
      /** The agent (or the plan's front matter) said no approval was needed and was overruled: audit it. */
      overridden: boolean;
    }
  /** The agent asks to stop a work item; nothing runs. The Stream decides how to confirm it. */
  | { kind: 'abort_requested'; origin: 'proxy' | 'planner'; work_item_id: string | null }
  /** The plan_action cannot be acted on; nothing is shown for approval and nothing runs. */
  | { kind: 'refused'; origin: 'proxy' | 'planner'; reason: string; issues: readonly PlanIssue[] };

/** Whether the plan's front matter sets `key` itself (as opposed to the model's default). */
function frontMatterSets(markdown: string, key: string): boolean {
  const split = splitFrontMatter(markdown.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n'));
  if ('issue' in split) return false;
  const doc = parseDocument(split.yaml, { version: '1.2', schema: 'core' });
  return isMap(doc.contents) && doc.has(key);
}

/** §5.1 step 12: what the Stream must do with an agent response's plan_action. */
export function decidePlanApproval(input: PlanApprovalInput): PlanApprovalDecision {
  const { response, origin } = input;
  const plan = response.plan_action;
  if (plan === null) return { kind: 'no_plan' };
  const refuse = (reason: string, issues: readonly PlanIssue[] = []): PlanApprovalDecision => ({ kind: 'refused', origin, reason, issues });

  if (plan.action === 'abort') return { kind: 'abort_requested', origin, work_item_id: plan.continuation_of ?? input.route?.continuation_of ?? null };
  if (plan.plan_markdown === null || plan.plan_markdown.trim() === '') {
    return refuse(`plan_action "${plan.action}" carries no plan_markdown; there is nothing to show for approval`);
  }

  const parsed = tryParsePlan(plan.plan_markdown, { file: 'plan_action.plan_markdown', ...input.parse });
  if (!parsed.ok) return refuse(`the plan does not parse: ${parsed.error.issues[0]!.field}: ${parsed.error.issues[0]!.message}`, parsed.error.issues);
  const item = parsed.item;

  // Deepening linkage (§5.1 step 12): the Planner's target wins over the Proxy's guess.
  const continuation = plan.continuation_of ?? input.route?.continuation_of ?? null;
  let followUpOf = item.follow_up_of;
  let artifactsFrom = item.input_artifacts_from;
  if (continuation !== null) {
    if (followUpOf !== null && followUpOf !== continuation) {
      return refuse(`the plan's follow_up_of (${followUpOf}) contradicts continuation_of (${continuation})`);
    }
    followUpOf = continuation;
    if (artifactsFrom.length === 0) artifactsFrom = ['*'];
  }

  // Interaction-mode propagation (§5.1 step 12): the resolver is the only one to set it.
  const interactionMode = resolveInteractionMode({
    riskRequiresConfirmation: input.mode.riskRequiresConfirmation,
    plannerOverride: plan.interaction_mode_override,
    workItemMode: frontMatterSets(plan.plan_markdown, 'interaction_mode') ? item.interaction_mode : null,
    proxyMode: input.route?.interaction_mode ?? null,
    initiativeLevel: input.mode.initiativeLevel,
    interactionRegister: input.route?.interaction_register ?? 'execution',
    ...interactionConfigInputs(input.mode.config),
  });

  const prepared = WorkItem.safeParse({ ...item, follow_up_of: followUpOf, input_artifacts_from: artifactsFrom, interaction_mode: interactionMode, needs_approval: true, approval_token: null });
  if (!prepared.success) {
    const issue = prepared.error.issues[0]!;
    return refuse(`the plan is not valid with its continuation applied: ${issue.path.join('.') || '(plan)'}: ${issue.message}`);
  }
  // requiresInteractiveApproval is true here by construction: the item has no token to verify.
  return { kind: 'approval_required', origin, action: plan.action, item: prepared.data, overridden: !response.needs_approval || !item.needs_approval };
}
