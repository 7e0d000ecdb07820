import { z } from 'zod';
import type { JsonValue } from '../schemas/json.js';

/**
 * What an entry is about, for readers that react to entries (the cockpit refreshes the
 * Servers page on `mcp_*` and `policy_decision`, the standing list on `standing_approval`).
 * Readers switch on this instead of on name prefixes, so a renamed event keeps its readers.
 */
export const AUDIT_CATEGORIES = [
  'policy_decision',
  'dlp',
  'policy',
  'tool_approval',
  'standing_approval',
  'mcp_proxy',
  'mcp_tool',
  'mcp_client',
  'plan_approval',
  'approval_token',
  'execution',
  'work_item',
  'gate',
  'access',
  'agent',
  'stream',
  'runtime',
  'security',
  'ledger',
  'operator',
  'alignment',
  'ilp',
] as const;
export type AuditCategory = (typeof AUDIT_CATEGORIES)[number];

/**
 * One kind of ledger entry. `data` is a strict or a loose object schema, never zod's default
 * (which would silently drop unknown keys): strict where the writer's shape is fixed, loose
 * where the writer adds fields from elsewhere (a gate's scope, a proxy's extras).
 */
export interface AuditEventSpec<D extends z.ZodType = z.ZodType> {
  readonly data: D;
  readonly summary: string;
  readonly category: AuditCategory;
  /** Written only by the ledger itself (checkpoints, the legacy seal): `append` refuses them. */
  readonly reserved?: true;
}

export type AuditCatalogue = Readonly<Record<string, AuditEventSpec>>;

export function defineAuditEvent<D extends z.ZodType>(spec: AuditEventSpec<D>): AuditEventSpec<D> {
  return spec;
}

/** The domains an event name may start with; `silas.` names carry their subsystem. */
const AUDIT_DOMAINS = [
  'aip',
  'aap',
  'policies',
  'approvals',
  'review',
  'mcp',
  'control',
  'runtime',
  'audit',
  'operator',
  // Sealed state in the data home (docs/architecture.md §2 "Sealed state").
  'state',
  'access',
  'gate',
  'ilp',
  'silas.agent',
  'silas.approval',
  'silas.executor',
  'silas.memory',
  'silas.plan_approval',
  'silas.run',
  'silas.stream',
  'silas.work_item',
] as const;

const SNAKE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/**
 * The one naming style, `domain.snake_case_verb_or_noun` in lower case: a known domain, then one
 * snake_case word, e.g. `approvals.requested`, `silas.executor.tool_call`.
 */
export function followsAuditStyle(name: string, domains: readonly string[] = AUDIT_DOMAINS): boolean {
  const dot = name.lastIndexOf('.');
  return dot > 0 && domains.includes(name.slice(0, dot)) && SNAKE.test(name.slice(dot + 1));
}

// Short field builders: the catalogue lists close to a hundred events.
export const str = z.string();
export const num = z.number();
export const int = z.number().int();
export const bool = z.boolean();
/**
 * Any JSON value. Not walked again: the ledger checks data after normalising it to plain JSON
 * (src-main/audit/chain.ts normaliseData), so a second walk proves nothing, and on a tool call's
 * arguments it would cost more than the append, which the proxy pays on every call.
 */
export const json = z.custom<JsonValue>(() => true);
export const strs = z.array(z.string());
export const nstr = z.string().nullable();
export const requestId = z.union([z.string(), z.number()]);
