import type { StateSeals } from '../keys/sealed-state.js';
import type { AlignmentChainReader } from '../store/repositories/alignment-chain.js';
import type { AgentCounts, AlignmentRepository, AlignmentTraceRow } from '../store/repositories/alignment.js';

/*
 * The Alignment page's rows sealed with the ledger key (docs/alignment.md "Attacker's side";
 * docs/architecture.md §2 "Sealed state", kind `trace-index`). A trace row is sealed under the
 * index of the decision it describes, over everything the page shows of it; an agent's counts
 * under `counts:AGENT`. Anything that can write the database but not reach the keyring can
 * neither plant a row that makes the recorder skip a decision nor edit a verdict into silence.
 */

export type TraceSeals = Pick<StateSeals, 'seal' | 'check' | 'verify' | 'report'>;

/** What a trace row's seal covers: every column but `seq` (the page's order, not a fact about the decision). */
function traceSealValue(row: Omit<AlignmentTraceRow, 'seq' | 'seal'>): unknown[] {
  return [
    row.agentId,
    row.traceId,
    row.cardId,
    row.ts,
    row.sourceIndex,
    row.auditIndex,
    row.actionName,
    row.actionType,
    row.escalated,
    row.verified,
    row.violations,
    row.similarity,
    row.driftSimilarity,
    row.driftAlert,
    row.values,
  ];
}

/** The id a trace row is sealed under: the decision's entry index (one trace per decision). */
const traceSealId = (sourceIndex: number): string => String(sourceIndex);

export function sealTraceRow(seals: TraceSeals, row: Omit<AlignmentTraceRow, 'seq' | 'seal'>): string {
  return seals.seal('ledger', 'trace-index', traceSealId(row.sourceIndex), traceSealValue(row));
}

/** Checks a stored row's seal; `report` audits a refusal (state.seal_refused), otherwise it only answers. */
export function traceRowHolds(seals: TraceSeals, row: AlignmentTraceRow, report: boolean): boolean {
  const { seq: _seq, seal, ...rest } = row;
  const check = report ? seals.check : seals.verify;
  return check.call(seals, 'ledger', 'trace-index', traceSealId(row.sourceIndex), traceSealValue(rest), seal).ok;
}

export const countsSealId = (agentId: string): string => `counts:${agentId}`;

export function countsSealValue(counts: AgentCounts): unknown[] {
  return [counts.agentId, counts.traces, counts.violations, counts.escalations, counts.alerts, counts.lastTs];
}

/**
 * An agent's counts taken again from what cannot be edited into silence: violations and drift
 * alerts from the chain's own entries, traces and escalations from the rows. Used only when the
 * stored counts do not hold (edited, missing, or written before they were sealed).
 */
export function recountAgent(repo: Pick<AlignmentRepository, 'countRows'>, chain: Pick<AlignmentChainReader, 'count'>, agentId: string): AgentCounts {
  const rows = repo.countRows(agentId);
  return { agentId, traces: rows.traces, violations: chain.count('aap.violation', agentId), escalations: rows.escalations, alerts: chain.count('aap.drift_alert', agentId), lastTs: rows.lastTs };
}
