import { readAipDecision } from '../../../src-shared/audit/aip-decision.js';
import type { AuditEntry } from '../../../src-shared/schemas/audit.js';

/** Hex characters shown of a hash; the full value is one hover (title) away. */
const SHORT_HASH_LENGTH = 12;

/** `sha256:9f2c…` → `9f2c1be07a51`; a missing hash reads as an em dash. */
export function shortHash(hash: string | null | undefined): string {
  if (!hash) return '—';
  const hex = hash.includes(':') ? hash.slice(hash.indexOf(':') + 1) : hash;
  return hex.slice(0, SHORT_HASH_LENGTH);
}

export type DecisionTone = 'allow' | 'ask' | 'block' | 'other';

/** One row of "Recent decisions", from an `aip.decision` entry through its one reader (`readAipDecision`). */
export interface DecisionRow {
  id: string;
  ts: string;
  tool: string;
  /** As recorded: ALLOW, ALLOW_MONITOR, BLOCK, ASK, RATE_LIMITED… */
  decision: string;
  violation: boolean;
  /** Why, when the decision was not a plain allow (reason, else the failed rule). */
  detail: string | null;
}

const text = (value: string | null | undefined): string | null => (value ? value : null);

export function decisionRow(entry: AuditEntry): DecisionRow {
  const record = readAipDecision(entry);
  return {
    id: entry.id,
    ts: entry.ts,
    tool: text(record?.tool) ?? text(record?.method) ?? '—',
    decision: text(record?.decision)?.toUpperCase() ?? 'UNKNOWN',
    violation: record?.violation ?? false,
    detail: record?.violation ? (text(record.reason) ?? text(record.failedRule)) : null,
  };
}

export function decisionTone(decision: string): DecisionTone {
  if (decision.startsWith('ALLOW')) return 'allow';
  if (decision === 'ASK') return 'ask';
  if (decision === 'BLOCK' || decision === 'DENY' || decision === 'RATE_LIMITED') return 'block';
  return 'other';
}

/** `RATE_LIMITED` → `Rate limited`, `ALLOW_MONITOR` → `Allow (monitor)`. */
export function decisionLabel(decision: string): string {
  if (decision === 'ALLOW_MONITOR') return 'Allow (monitor)';
  const words = decision.toLowerCase().replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
