import type { ApTrace, Escalation, EscalationStatus } from '../../src-shared/aap/trace.js';
import { isUpstreamToolCall, readAipDecision } from '../../src-shared/audit/aip-decision.js';
import type { AuditEntry } from '../../src-shared/schemas/audit.js';
import { ILP_AGENT_ID, mcpAgentId, SILAS_AGENT_ID, type AgentSubject } from './default-cards.js';

/*
 * AP-Traces (spec 003 §5) from the ledger's real decisions (docs/alignment.md "From a ledger entry
 * to a verified trace"). Each trace is built from exactly one audit entry and names it
 * (`context.metadata.audit_index`, `audit_id`), so a trace can always be checked against the entry
 * it claims to describe. Pure: the recorder decides which card a trace is verified against and
 * stores it.
 *
 * No `confidence` is given (§5.5 makes it optional): a policy decides deterministically, and a
 * constant 1 in every trace would only make all traces look alike to drift detection.
 *
 * What becomes a trace:
 *   - a proxy's policy decision on a tools/call (`aip.decision`, upstream). An ASK without its
 *     answer is not a decision yet; the entry with the answer (`approval: approve|deny|timeout|
 *     unreachable|standing|cancelled`) is;
 *   - Silas's executor calling a tool, a gate blocking or the executor refusing it
 *     (`silas.executor.tool_call`, `…_blocked`, `…_refused`), and each plan step it completes
 *     (`silas.executor.step_completed`);
 *   - an ILP composition the meta-agent answered or the constitution refused (`ilp.composition`).
 */

export interface TraceSource {
  agentId: string;
  subject: AgentSubject;
  /** Its `card_id` is empty: the recorder names the card the trace is verified against. */
  trace: ApTrace;
}

type Data = Record<string, unknown>;

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function base(entry: AuditEntry, agentId: string) {
  return { trace_id: `tr-${entry.id}`, agent_id: agentId, card_id: '', timestamp: new Date(entry.ts).toISOString() };
}

function metadata(entry: AuditEntry, extra: Data = {}): Data {
  return { audit_index: entry.index, audit_id: entry.id, audit_event: entry.event, ...extra };
}

// A call the agent cancelled (or left) while the person had not answered ended unanswered: AAP has
// no "withdrawn" status, and "denied" would put words in the person's mouth. `approval: cancelled`
// stays in the trace's metadata (docs/mcp-proxy.md "Asks follow the agent").
const ESCALATION_STATUS: Record<string, EscalationStatus> = { approve: 'approved', standing: 'approved', deny: 'denied', timeout: 'timeout', unreachable: 'timeout', cancelled: 'timeout' };

function proxyDecision(entry: AuditEntry): TraceSource | null {
  const record = readAipDecision(entry);
  if (!record || !isUpstreamToolCall(record)) return null;
  const { tool, server, decision, client, approval } = record;
  if (!tool || !server || !decision) return null;
  if (decision === 'ASK' && approval === null) return null; // still waiting for the person
  // In monitor mode a call the policy refuses is forwarded all the same, recorded as ALLOW_MONITOR:
  // the agent acted, and the card judges whether it was within bounds.
  const forwarded = decision === 'ALLOW' || decision === 'ALLOW_MONITOR';
  // An approval whose token the proxy then refused (`approval_rejected`) ran nothing: denied.
  const answered = approval === null ? null : (ESCALATION_STATUS[approval] ?? 'denied');
  const status = answered === 'approved' && !forwarded ? 'denied' : answered;
  const reason = record.reason ?? (forwarded ? 'Allowed by the policy' : 'Refused by the policy');
  const args = record.args !== null && typeof record.args === 'object' && !Array.isArray(record.args) ? (record.args as Data) : undefined;
  const escalation: Escalation =
    status === null
      ? { evaluated: true, triggers_checked: [], required: false, reason: 'No ask rule applies to this call' }
      : {
          evaluated: true,
          triggers_checked: [],
          required: true,
          reason: approval === 'standing' ? 'The person approved these arguments for good (a standing approval)' : 'The policy asks the person before this call',
          escalation_id: record.approvalNonce ?? record.standingId ?? `esc-${entry.id}`,
          escalation_status: status,
          principal_response: { decision: status, timestamp: new Date(entry.ts).toISOString() },
        };
  const agentId = mcpAgentId(server, client);
  return {
    agentId,
    subject: { kind: 'mcp', server, client },
    trace: {
      ...base(entry, agentId),
      action: {
        type: forwarded ? 'execute' : 'deny',
        name: tool,
        category: status !== null ? 'escalation_trigger' : forwarded ? 'bounded' : 'forbidden',
        target: { type: 'mcp_server', identifier: server },
        ...(args ? { parameters: args } : {}),
      },
      decision: {
        alternatives_considered: [
          { option_id: 'forward', description: `Forward the ${tool} call to ${server}` },
          { option_id: 'refuse', description: `Refuse the ${tool} call` },
        ],
        selected: forwarded ? 'forward' : 'refuse',
        selection_reasoning: reason,
        // The value the decision served: the person's own word, the principal's request within
        // bounds, or harm prevention when the policy refused.
        values_applied: status !== null ? ['user_control'] : forwarded ? ['principal_benefit'] : ['harm_prevention'],
      },
      escalation,
      context: {
        session_id: record.sessionId,
        environment: { policy_mode: record.policyMode },
        metadata: metadata(entry, { server, ...(client ? { client } : {}), violation: record.violation, ...(approval ? { approval } : {}) }),
      },
    },
  };
}

function silasToolCall(entry: AuditEntry, blocked: boolean, step = false): TraceSource {
  const data = entry.data as Data;
  // A plan step is named by its number; its outputs are not parameters of the action.
  const tool = step ? 'plan_step' : (text(data.tool) ?? 'unknown');
  const workItem = text(data.work_item_id) ?? 'unknown';
  const args = step ? { step: data.step ?? null } : !blocked && data.args !== null && typeof data.args === 'object' && !Array.isArray(data.args) ? (data.args as Data) : undefined;
  return {
    agentId: SILAS_AGENT_ID,
    subject: { kind: 'silas' },
    trace: {
      ...base(entry, SILAS_AGENT_ID),
      action: { type: blocked ? 'deny' : 'execute', name: tool, category: 'escalation_trigger', target: { type: 'work_item', identifier: workItem }, ...(args ? { parameters: args } : {}) },
      decision: {
        alternatives_considered: [
          { option_id: 'run', description: `Run ${tool} as step of the approved plan` },
          { option_id: 'stop', description: 'Stop the attempt' },
        ],
        selected: blocked ? 'stop' : 'run',
        selection_reasoning: blocked ? (text(data.reason) ?? 'A gate blocked the call') : `Part of work item ${workItem}, whose plan the owner approved`,
        values_applied: blocked ? ['harm_prevention'] : ['user_control'],
      },
      escalation: {
        evaluated: true,
        triggers_checked: [],
        required: true,
        reason: 'Every plan Silas runs was approved with an owner-signed token',
        escalation_id: workItem,
        escalation_status: 'approved',
      },
      context: { session_id: workItem, metadata: metadata(entry, { attempt: data.attempt ?? null, call_index: data.call_index ?? null, gate_decision: text(data.gate_decision) }) },
    },
  };
}

/** An ILP composition (spec 004): the meta-agent composed an answer, or its constitution refused one. */
function ilpComposition(entry: AuditEntry): TraceSource {
  const data = entry.data as Data;
  const status = typeof data.status === 'number' ? data.status : 500;
  const answered = status === 200 || status === 207;
  const id = text(data.composition_id) ?? 'unknown';
  return {
    agentId: ILP_AGENT_ID,
    subject: { kind: 'ilp' },
    trace: {
      ...base(entry, ILP_AGENT_ID),
      action: { type: answered ? 'execute' : 'deny', name: 'compose', category: 'bounded', target: { type: 'ilp_composition', identifier: id } },
      decision: {
        alternatives_considered: [
          { option_id: 'answer', description: 'Answer with the composed insight' },
          { option_id: 'refuse', description: 'Refuse under the constitution' },
        ],
        selected: answered ? 'answer' : 'refuse',
        selection_reasoning: answered ? `Composed within the request's constitution (${status})` : `The constitution refused the composition (${status})`,
        values_applied: answered ? ['principal_benefit', 'transparency'] : ['harm_prevention'],
      },
      escalation: { evaluated: true, triggers_checked: [], required: false, reason: "Limits come from the request's Constitutional-Header, held by the enforcer" },
      context: { session_id: id, metadata: metadata(entry, { status, constitutional_status: data.constitutional_status ?? null, cost_usd: data.cost_usd ?? null, hops: data.hops ?? null }) },
    },
  };
}

/** The trace an audit entry describes, or null for entries that are not an agent's decision. */
export function traceFromEntry(entry: AuditEntry): TraceSource | null {
  switch (entry.event) {
    case 'aip.decision':
      return proxyDecision(entry);
    case 'silas.executor.tool_call':
      return silasToolCall(entry, false);
    case 'silas.executor.tool_call_blocked':
    case 'silas.executor.tool_call_refused':
      return silasToolCall(entry, true);
    case 'silas.executor.step_completed':
      return silasToolCall(entry, false, true);
    case 'ilp.composition':
      return ilpComposition(entry);
    default:
      return null;
  }
}
