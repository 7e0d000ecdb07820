import { z } from 'zod';
import { bool, defineAuditEvent as ev, int, json, nstr, num, str, strs } from './define.js';

const item = { work_item_id: str };
const planItem = { work_item_id: str, plan_hash: str };
const planApproval = { approval_id: str, ...planItem };
// An attempt's scope, and one tool call inside it.
const attempt = { work_item_id: str, attempt: int };
const call = { ...attempt, call_index: int, tool: str };
const results = z.array(json);
const level = { connection_id: str, from: str, to: str };
// An agent's model calls; a work item when the agent serves one (the executor), none in the Stream.
const agent = { work_item_id: str.optional(), scope_id: str.optional(), turn: int.optional(), agent: str };
// A conversation scope of the Stream and the turn in it (the scope id is public; its resume key never appears).
const turn = { scope_id: str, turn: int };
// Gates are loose: the runner spreads in its caller's scope (work item, attempt, step, call).
const gate = { gate: str };

/** Plans, their approval tokens, the executor, agents' model calls, work items, gates and access levels (the Silas spec). */
export const silasEvents = {
  'silas.plan_approval.requested': ev({
    summary: 'A plan waits for the person in the cockpit.',
    category: 'plan_approval',
    data: z.strictObject({ ...planApproval, type: str, source: str }),
  }),
  'silas.plan_approval.refused_paused': ev({ summary: 'A plan approval was refused because approvals are paused.', category: 'plan_approval', data: z.strictObject(planItem) }),
  'silas.plan_approval.refused_unrunnable': ev({
    summary: 'A plan approval was refused before it was queued: its id names a work item that already ran to done (or of another type), so a signature could never be used.',
    category: 'plan_approval',
    data: z.strictObject({ ...planItem, reason: str }),
  }),
  'silas.plan_approval.approved': ev({
    summary: 'The person approved a plan; a signed approval token was issued.',
    category: 'plan_approval',
    data: z.strictObject({ ...planApproval, token_id: str, expires_at: str, key_fingerprint: str }),
  }),
  'silas.plan_approval.denied': ev({
    summary: 'The person denied a plan, or the runtime shut down with it pending.',
    category: 'plan_approval',
    data: z.strictObject({ ...planApproval, shutdown: bool.optional() }),
  }),
  'silas.plan_approval.withdrawn': ev({
    summary: 'A plan card left Review unanswered because the plan was approved elsewhere (at the terminal, signed with the owner key).',
    category: 'plan_approval',
    data: z.strictObject({ ...planApproval, reason: str }),
  }),
  'silas.plan_approval.timed_out': ev({ summary: 'Nobody answered a plan approval in time.', category: 'plan_approval', data: z.strictObject(planApproval) }),
  'silas.run.approval_confirmed': ev({
    summary: '`silas run` was confirmed at the terminal.',
    category: 'plan_approval',
    data: z.strictObject({ ...planItem, source: str }),
  }),
  'silas.run.approval_declined': ev({
    summary: '`silas run` was declined at the terminal or in the cockpit.',
    category: 'plan_approval',
    data: z.strictObject({ ...planItem, source: str, reason: str, outcome: str.optional() }),
  }),

  'silas.approval.issued': ev({
    summary: 'An approval token was signed with the owner key.',
    category: 'approval_token',
    data: z.strictObject({ token_id: str, ...planItem, scope: str, verdict: str, max_executions: int, expires_at: str, key_fingerprint: str }),
  }),
  'silas.approval.consumed': ev({
    summary: 'One execution of an approval token was consumed under its UNIQUE key.',
    category: 'approval_token',
    data: z.strictObject({
      token_id: str,
      ...planItem,
      bound_hash: str,
      spawned_task_id: str.optional(),
      scope: str,
      execution_index: int,
      max_executions: int,
      consumption_key: str,
      key_fingerprint: str,
    }),
  }),
  'silas.approval.checked': ev({
    summary: 'A consumed approval was checked again without consuming.',
    category: 'approval_token',
    data: z.strictObject({ token_id: str, ...item, bound_hash: str, execution_index: int, executions_used: int }),
  }),
  'silas.approval.refused': ev({
    summary: 'An approval token was refused; the work did not run.',
    category: 'approval_token',
    data: z.strictObject({
      op: z.enum(['verify', 'check']),
      code: str,
      reason: str,
      token_id: str.optional(),
      work_item_id: str.optional(),
      plan_hash: str.optional(),
      scope: str.optional(),
      key_fingerprint: str.optional(),
      subject_id: str.optional(),
      subject_plan_hash: str.optional(),
    }),
  }),

  'silas.executor.execute_requested': ev({ summary: 'Execution of a work item was requested.', category: 'execution', data: z.strictObject({ ...item, type: str, token_id: nstr }) }),
  'silas.executor.started': ev({
    summary: 'A work item was admitted with a verified approval and started.',
    category: 'execution',
    data: z.strictObject({ ...planItem, type: str, token_id: str, scope: str, parent: nstr }),
  }),
  'silas.executor.execution_blocked_no_approval': ev({
    summary: 'A work item was blocked: its approval is missing or invalid.',
    category: 'execution',
    data: z.strictObject({ ...planItem, code: str, reason: str }),
  }),
  'silas.executor.refused': ev({ summary: 'The executor refused a work item.', category: 'execution', data: z.strictObject({ ...planItem, status: str, reason: str }) }),
  'silas.executor.goal_missing': ev({ summary: "A task's parent goal is missing.", category: 'execution', data: z.strictObject({ ...item, parent: str }) }),
  'silas.executor.persist_refused': ev({ summary: 'The store refused a change of a work item.', category: 'execution', data: z.strictObject({ ...item, change: str, reason: str }) }),
  'silas.executor.follow_up_unlinked': ev({
    summary: 'A follow-up could not be linked to the item it follows.',
    category: 'execution',
    data: z.strictObject({ ...item, follow_up_of: str, reason: str }),
  }),
  'silas.executor.artifacts_hydrated': ev({
    summary: 'A follow-up received the artifacts of the item it follows.',
    category: 'execution',
    data: z.strictObject({ ...item, follow_up_of: str, keys: strs }),
  }),
  'silas.executor.project_order': ev({ summary: "The order of a project's tasks.", category: 'execution', data: z.strictObject({ ...item, order: strs, external_dependencies: strs }) }),
  'silas.executor.project_task_skipped': ev({ summary: 'A project task was skipped.', category: 'execution', data: z.strictObject({ ...item, task_id: str, reason: str }) }),
  'silas.executor.verification': ev({
    summary: 'Verification ran outside the sandbox.',
    category: 'execution',
    data: z.strictObject({ ...item, attempt: int, all_passed: bool, results }),
  }),
  'silas.executor.attempt_failed': ev({
    summary: 'An attempt failed its checks.',
    category: 'execution',
    data: z.strictObject({ ...attempt, reason: str, failed_checks: strs }),
  }),
  'silas.executor.planner_consulted': ev({ summary: 'The planner was consulted after a failed attempt.', category: 'execution', data: z.strictObject({ ...attempt, guidance: str }) }),
  'silas.executor.planner_failed': ev({ summary: 'Consulting the planner failed.', category: 'execution', data: z.strictObject({ ...attempt, reason: str }) }),
  'silas.executor.finished': ev({
    summary: 'A work item finished (done, failed, stuck or blocked).',
    category: 'execution',
    data: z.strictObject({
      ...item,
      status: str,
      last_error: nstr,
      attempts: int.optional(),
      verified: bool.nullable().optional(),
      tasks_done: int.optional(),
      children_budget: json.optional(),
    }),
  }),
  'silas.executor.goal_checks': ev({
    summary: "A goal's checks ran.",
    category: 'execution',
    data: z.strictObject({ ...item, after_fix_task: str.optional(), all_passed: bool, results }),
  }),
  'silas.executor.goal_task_spawned': ev({
    summary: 'A goal spawned a fix task.',
    category: 'execution',
    data: z.strictObject({ ...item, task_id: str, spawned_task_hash: str, spawn_policy_hash: str, conforms: bool }),
  }),
  'silas.executor.goal_approval_checked': ev({
    summary: "A goal's standing approval was checked.",
    category: 'execution',
    data: z.strictObject({ ...planItem, ok: bool, code: nstr, reason: str, token_id: nstr }),
  }),
  'silas.executor.gate_approval': ev({
    summary: 'A gate asked for approval; whether it was granted.',
    category: 'execution',
    data: z.strictObject({ ...item, kind: str, payload_hash: str, gates: strs, granted: bool, reason: str }),
  }),
  'silas.executor.interactive_approval': ev({
    summary: 'An interactive approval was asked during execution.',
    category: 'execution',
    data: z.strictObject({ ...planItem, source: str, outcome: str, reason: str }),
  }),
  'silas.executor.batch_proposed': ev({
    summary: 'A batch of actions was proposed for review.',
    category: 'execution',
    data: z.strictObject({ ...item, batch_id: str, action: str, batch_hash: str, count: int }),
  }),
  'silas.executor.batch_review_failed': ev({ summary: 'The review of a batch failed.', category: 'execution', data: z.strictObject({ batch_id: str, reason: str }) }),
  'silas.executor.batch_verdict': ev({
    summary: 'The verdict on a batch and how much of it ran.',
    category: 'execution',
    data: z.strictObject({ ...item, batch_id: str, batch_hash: str, verdict: str, executed: int, error: nstr }),
  }),
  'silas.executor.batch_applying': ev({
    summary: 'An approved batch is being applied.',
    category: 'execution',
    data: z.strictObject({ ...item, batch_id: str, batch_hash: str, token_id: str, item_ids: strs }),
  }),
  'silas.executor.tool_call': ev({
    summary: 'The agent called a tool (arguments redacted).',
    category: 'execution',
    data: z.strictObject({ ...call, args: json, gate_decision: str }),
  }),
  'silas.executor.tool_call_refused': ev({ summary: 'A tool call was refused: the attempt is over.', category: 'execution', data: z.strictObject({ ...call, reason: str }) }),
  'silas.executor.tool_call_invalid': ev({ summary: 'A tool call had invalid arguments.', category: 'execution', data: z.strictObject({ ...call, reason: str }) }),
  'silas.executor.tool_call_blocked': ev({ summary: 'A gate blocked a tool call.', category: 'execution', data: z.strictObject({ ...call, reason: str }) }),
  'silas.executor.tool_result': ev({
    summary: 'The result of a tool call (output size, never the output).',
    category: 'execution',
    data: z.strictObject({
      ...call,
      execution_id: str,
      success: bool,
      error: nstr,
      error_code: nstr,
      exit_code: int.nullable(),
      duration_seconds: num,
      output_chars: int,
      artifacts: strs,
      sandbox_limits: json,
    }),
  }),
  'silas.executor.step_completed': ev({
    summary: 'A plan step completed (outputs redacted).',
    category: 'execution',
    data: z.strictObject({ ...attempt, step: int, outputs: json, gate_decision: str }),
  }),
  'silas.executor.artifact_ref_mismatch': ev({
    summary: 'The agent claimed artifacts that do not exist.',
    category: 'execution',
    data: z.strictObject({ ...attempt, claimed_but_missing: strs }),
  }),

  'silas.agent.output_repaired': ev({
    summary: "An agent's answer did not match its schema; the one repair call fixed it.",
    category: 'agent',
    data: z.strictObject({ ...agent, first_error: str }),
  }),
  'silas.agent.output_fallback': ev({
    summary: "An agent's answer failed its schema twice, or its model call failed; its fallback was used.",
    category: 'agent',
    data: z.strictObject({ ...agent, reason: str, first_error: str, repair_error: nstr, raw_chars: int, raw_excerpt: str }),
  }),
  'silas.agent.model_usage': ev({
    summary: 'One model call of an agent: the model, its tokens and cost (never the prompt or the key).',
    category: 'agent',
    data: z.strictObject({ ...agent, role: str, provider: str, model: str, input_tokens: int, output_tokens: int, cost_usd: num.nullable(), repair: bool }),
  }),

  'silas.stream.started': ev({
    summary: 'The Stream started: known conversation scopes were rehydrated and queued work resumed.',
    category: 'stream',
    // refused_work: unfinished rows whose seal failed (state.seal_refused says which); they were not resumed.
    data: z.strictObject({ scopes: int, resumed_work: int, refused_work: int.optional() }),
  }),
  'silas.stream.open_refused': ev({
    summary: 'A session was refused another conversation scope: it, or its credential, already holds the most allowed (docs/silas/stream.md, Limits).',
    category: 'stream',
    data: z.strictObject({ transport: str, limit: z.enum(['session', 'credential']), held: int, max: int }),
  }),
  'silas.stream.turn_refused': ev({
    summary: 'A message was refused: its conversation, or its credential, already has the most turns allowed waiting (docs/silas/stream.md, Limits).',
    category: 'stream',
    data: z.strictObject({ scope_id: str, transport: str, limit: z.enum(['scope', 'credential']), waiting: int, max: int }),
  }),
  'silas.stream.scope_refused': ev({
    summary: 'A session was refused a conversation scope (unknown scope or wrong resume key), or used one it does not hold.',
    category: 'stream',
    data: z.strictObject({ scope_id: str, reason: str, transport: str }),
  }),
  'silas.stream.message_received': ev({
    summary: 'A message entered a conversation scope, with the taint it was given (§5.12).',
    category: 'stream',
    data: z.strictObject({ ...turn, taint: str, chars: int, signed: bool }),
  }),
  'silas.stream.signature_refused': ev({
    summary: 'A signed message was not owner-trusted: forged, replayed or stale; it was taken as external.',
    category: 'stream',
    data: z.strictObject({ ...turn, reason: str }),
  }),
  'silas.stream.routed': ev({
    summary: 'The Proxy routed a turn: route, register, interaction mode and context profile (§5.1 step 7).',
    category: 'stream',
    data: z.strictObject({ ...turn, route: str, register: str, mode: str, profile: str, source: str }),
  }),
  'silas.stream.gate_blocked': ev({
    summary: 'A policy-lane gate stopped a turn at its input or output; the escalation that answered (§5.1.1).',
    category: 'stream',
    data: z.strictObject({ ...turn, lane: str, gate: str, reason: str, escalation: str }),
  }),
  'silas.stream.memory_op': ev({
    summary: "An agent's memory operation was carried out or refused by a gate (§5.1 step 10).",
    category: 'stream',
    data: z.strictObject({ ...turn, op: str, memory_id: nstr, outcome: str }),
  }),
  'silas.stream.plan_proposed': ev({
    summary: "An agent proposed a plan; it goes to the person for approval whatever the agent's needs_approval said (§5.1.2).",
    category: 'stream',
    data: z.strictObject({ ...turn, ...planItem, agent_needs_approval: bool, approval_forced: bool }),
  }),
  'silas.stream.plan_rejected': ev({
    summary: "An agent's plan could not be parsed or is not runnable; nothing was asked or run.",
    category: 'stream',
    data: z.strictObject({ ...turn, reason: str }),
  }),
  'silas.stream.plan_reidentified': ev({
    summary: "An agent's plan reused the id of a work item that already ran to done (or is taken); it was given a fresh id before its hash and card, and the person was told.",
    category: 'stream',
    data: z.strictObject({ ...turn, from: str, to: str, reason: str }),
  }),
  'silas.stream.terminal_approval': ev({
    summary: "A plan waiting in the Stream was answered at the terminal (`silas chat --approve-here`) with an owner-signed token; the executor still verifies and consumes it.",
    category: 'stream',
    data: z.strictObject({ scope_id: str, ...planItem, token_id: str }),
  }),
  'silas.stream.work_progress': ev({
    summary: 'A work item started from the Stream changed state (approved, running, done, …).',
    category: 'stream',
    data: z.strictObject({ scope_id: str, ...item, status: str, detail: str }),
  }),
  // Context eviction (spec 002 §5.7, ADR-015; docs/silas/context.md): every evicted item is also stored as an episode.
  'silas.stream.context_evicted': ev({
    summary: "Items left a conversation's context: Tier 1 heuristics, the scorer model's groups, or the aggressive heuristic that stands in for it; why, how many per zone, and the scorer's outcome.",
    category: 'stream',
    data: z.strictObject({
      ...turn,
      tier: z.enum(['heuristic', 'scorer', 'fallback']),
      reason: str,
      items: int,
      tokens: int,
      chronicle: int,
      memory: int,
      workspace: int,
      scorer: z.enum(['model', 'repaired', 'fallback', 'timeout', 'failed', 'cancelled', 'breaker_open', 'not_configured', 'nothing_offered']).nullable(),
      over_threshold: bool,
    }),
  }),
  'silas.stream.scorer_breaker': ev({
    summary: "The context scorer's circuit breaker opened after consecutive failures (eviction uses the deterministic heuristic until the cool-down ends), or closed again on an answer.",
    category: 'stream',
    data: z.strictObject({ ...turn, state: z.enum(['open', 'closed']), failures: int, cooldown_ms: int }),
  }),
  // Context subscriptions (spec 002 §3.5, ADR-016; docs/silas/context.md "Subscriptions").
  'silas.stream.subscribed': ev({
    summary: "The person kept a file, a file's lines or a memory search in a conversation's context (a subscription), or activated one again.",
    category: 'stream',
    data: z.strictObject({ scope_id: str, sub_id: str, sub_type: str, target: str, zone: str, reactivated: bool }),
  }),
  'silas.stream.unsubscribed': ev({
    summary: 'The person deactivated a context subscription (it costs zero tokens and can be activated again) or removed it.',
    category: 'stream',
    data: z.strictObject({ scope_id: str, sub_id: str, removed: bool }),
  }),
  'silas.stream.subscription_deactivated': ev({
    summary: 'The harness deactivated a context subscription: no answer named it for subscription_ttl_turns, it grew past max_subscription_tokens, its file could not be read safely, or eviction took its block.',
    category: 'stream',
    data: z.strictObject({ ...turn, sub_id: str, sub_type: str, target: str, reason: z.enum(['ttl', 'too_large', 'unreadable', 'evicted']), detail: str }),
  }),
  'silas.stream.subscription_refused': ev({
    summary: 'A stored context subscription was not restored: its row fails its seal or does not validate (planted or changed outside Silas); nothing of it is read.',
    category: 'stream',
    data: z.strictObject({ scope_id: str, sub_id: str, reason: str }),
  }),
  'silas.stream.turn_completed': ev({
    summary: 'A turn ended: its outcome, the tokens of its prompts (§5.13) and what its model calls cost.',
    category: 'stream',
    data: z.strictObject({
      ...turn,
      outcome: str,
      route: nstr,
      prompt_tokens: int,
      input_tokens: int,
      output_tokens: int,
      cost_usd: num.nullable(),
      model_calls: int,
      duration_ms: int,
    }),
  }),
  // Memory portability (spec 002 §6.5, docs/silas/memory-portability.md): owner acts at the terminal.
  'silas.memory.exported': ev({
    summary: 'The owner exported memory as a portable bundle: how many memories, what it covers, its SHA-256 and where it went.',
    category: 'stream',
    data: z.strictObject({ count: int, sha256: str, bytes: int, scope: nstr, include_raw: bool, since: nstr, destination: str }),
  }),
  'silas.memory.imported': ev({
    summary: 'The owner imported a memory bundle (merge or replace) in one transaction: what it inserted, updated, left unchanged and removed.',
    category: 'stream',
    data: z.strictObject({ mode: str, count: int, inserted: int, updated: int, unchanged: int, removed: int, sha256: str, scope: nstr, include_raw: bool, exported_at: str }),
  }),
  'silas.memory.import_refused': ev({
    summary: 'A memory import was refused whole because it would change or remove constitutional or verified memories (§3.8); nothing was changed.',
    category: 'stream',
    data: z.strictObject({ mode: str, sha256: str, refused: int, memory_ids: strs, rules: strs }),
  }),

  'silas.work_item.saved': ev({
    summary: 'A work item was saved.',
    category: 'work_item',
    data: z.strictObject({ ...planItem, type: str, status: str, parent: nstr, created: bool, approval_token_id: nstr }),
  }),
  'silas.work_item.status_changed': ev({
    summary: 'A work item changed status, attempts or budget.',
    category: 'work_item',
    data: z.strictObject({ ...item, from: str, to: str, attempts: int, budget_used: json, reason: str.optional(), verification: results.optional() }),
  }),
  'silas.work_item.plan_changed': ev({
    summary: "A work item's plan changed.",
    category: 'work_item',
    data: z.strictObject({ ...planItem, previous_plan_hash: str }),
  }),
  'silas.work_item.result_recorded': ev({
    summary: 'The result of a work item was recorded.',
    category: 'work_item',
    data: z.strictObject({ ...item, status: str, summary: str, last_error: nstr, verification: results, artifacts: strs }),
  }),
  'silas.work_item.approval_attached': ev({
    summary: 'An approval token was attached to a work item.',
    category: 'work_item',
    data: z.strictObject({
      ...planItem,
      token_id: str,
      token_work_item_id: str,
      scope: str,
      executions_used: int,
      max_executions: int,
      key_fingerprint: str,
    }),
  }),
  'silas.work_item.corrupt': ev({
    summary: 'A stored work item was edited outside Silas and refused.',
    category: 'work_item',
    data: z.strictObject({ ...item, field: str, reason: str }),
  }),

  'gate.result': ev({
    summary: 'A gate ran: its verdict, score and flags (values redacted).',
    category: 'gate',
    data: z.looseObject({ ...gate, provider: str, trigger: str, lane: str, action: str, reason: json, value: json, flags: strs, mutated: strs, on_block: json }),
  }),
  'gate.mutation': ev({ summary: 'A policy gate changed a context value.', category: 'gate', data: z.looseObject({ ...gate, key: str, original: json, modified: json }) }),
  'gate.rejected_mutation': ev({ summary: 'A gate tried to change a value it may not.', category: 'gate', data: z.looseObject({ ...gate, key: str, reason: str, lane: str }) }),
  'gate.quality_lane_violation': ev({
    summary: 'A quality gate tried to block or stop; it may only flag.',
    category: 'gate',
    data: z.looseObject({ ...gate, trigger: str, action: str, reason: str }),
  }),

  'access.level_changed': ev({
    summary: "A connection's access level changed after a gate passed.",
    category: 'access',
    data: z.strictObject({ ...level, via_gate: str, verified_gates: strs, customer_id: z.union([str, num]).nullable(), granted_at: str }),
  }),
  'access.level_expired': ev({
    summary: "A connection's access level expired.",
    category: 'access',
    data: z.strictObject({ ...level, granted_at: str, expires_after: num }),
  }),
  'access.reset': ev({ summary: "A connection's access level was reset.", category: 'access', data: z.strictObject({ ...level, reason: str }) }),

  'silas.memory.vector_space': ev({
    summary: 'The embedder of recall by meaning changed: the old vectors were dropped and every memory is re-embedded in the background (§6.2).',
    category: 'stream',
    data: z.strictObject({ embedder: str, dimensions: int, previous: str, previous_dimensions: int, pending: int }),
  }),
  'silas.memory.embedder_failed': ev({
    summary: 'Recall by meaning is off: the embedder or the vector extension could not start; recall is keyword and temporal only.',
    category: 'stream',
    data: z.strictObject({ reason: str }),
  }),
  'silas.memory.changed': ev({
    summary: 'The owner changed a memory: edited or deleted on the Memory page, verified or kept unverified in Review (§3.8).',
    category: 'stream',
    data: z.strictObject({ memory_id: str, change: str, by: str }),
  }),
  'silas.memory.change_refused': ev({
    summary: 'A change to a verified or constitutional memory was refused: verified memory changes only by a signed owner decision, constitutional never at runtime (§3.8).',
    category: 'stream',
    data: z.strictObject({ memory_id: str, change: str, reason: str }),
  }),
  'silas.memory.promotion_requested': ev({
    summary: 'Verifying a working memory was asked for; it waits in Review for the owner\'s signed decision (§3.8).',
    category: 'stream',
    data: z.strictObject({ memory_id: str, card_id: str, requested_by: str }),
  }),
  'silas.memory.consolidated': ev({
    summary: 'One consolidation cycle (§6.4): duplicates merged, stale working memories archived to the raw lane, promotions proposed for Review, preferences inferred.',
    category: 'stream',
    data: z.strictObject({ scanned: int, merged: int, promoted: int, pruned: int, reembedded: int, preferences: int }),
  }),
  'silas.memory.consolidation_failed': ev({
    summary: 'A consolidation cycle stopped with an error; the next one runs at its time.',
    category: 'stream',
    data: z.strictObject({ reason: str }),
  }),
  'silas.memory.embedding_failed': ev({
    summary: 'A batch of memories could not be embedded; the re-embedding pauses and tries again.',
    category: 'stream',
    data: z.strictObject({ embedder: str, reason: str }),
  }),
  'silas.memory.cells_trained': ev({
    summary: "A scope's vectors were grouped into cells (k-means over a sample), so a search by meaning reads the cells nearest the query rather than every vector (§6.3).",
    category: 'stream',
    data: z.strictObject({ scope_id: str, cells: int, sample: int, iterations: int, ms: int }),
  }),
} as const;
