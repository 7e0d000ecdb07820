import type { SqliteDatabase } from '../../store/transaction.js';
import type { AuditEntry } from '../../../src-shared/schemas/audit.js';
import type { GovernedServer, ReportedStartFailure } from '../../../src-shared/schemas/servers.js';
import { ServerSandboxSummary } from '../../../src-shared/schemas/server-sandbox.js';
import { AuditRepository, rowToEntry } from '../../store/repositories/audit-repository.js';
import { type PinSealer, ToolPinRepository } from '../../store/repositories/tool-pins.js';
import { toolChangeDecisionId } from './tool-change-id.js';

const RECENT_DECISIONS = 20;
const RECENT_DENIALS = 20;
const POLICY_EVENTS = ['mcp.proxy_started', 'aip.policy_reloaded', 'aip.policy_reload_failed'] as const;

/**
 * The cockpit's view of governed MCP servers: what the proxies recorded (starts, pins and
 * decisions). Accepting a changed tool is a Review decision (review/kinds/tool-change.ts).
 */
export class ServersService {
  private readonly pins: ToolPinRepository;
  private readonly entries: AuditRepository;

  constructor(db: SqliteDatabase, sealer: PinSealer) {
    this.pins = new ToolPinRepository(db, sealer);
    this.entries = new AuditRepository(db);
  }

  list(): GovernedServer[] {
    const starts = this.entries.latestStartPerServer();
    // A proxy that never started (no keyring, so no ledger of its own) is known only by its report.
    // A proxy that opened the ledger but could not start its server recorded that itself.
    const reports = newestPerServer([...this.entries.latestStartPerServer('mcp.proxy_start_reported'), ...this.entries.latestStartPerServer('mcp.proxy_start_failed')]);
    const names = new Set<string>([...[...starts, ...reports].flatMap((s) => (s.server ? [s.server] : [])), ...this.pins.list().map((p) => p.server)]);
    return [...names].sort().map((name) => {
      const start = starts.find((s) => s.server === name);
      const startRow = start ? this.entries.entryAt(start.idx) : null;
      const started = startRow ? rowToEntry(startRow) : null;
      // The newest policy event per server says which policy is in force and whether its last edit failed.
      const events = this.entries.serverEntries(name, POLICY_EVENTS, 20).map(rowToEntry);
      const inForce = events.find((e) => e.event !== 'aip.policy_reload_failed') ?? started;
      const latest = events[0];
      const failed = latest?.event === 'aip.policy_reload_failed' ? latest : null;
      return {
        name,
        lastStartedAt: started?.ts ?? null,
        policyName: typeof inForce?.data.policy_name === 'string' ? inForce.data.policy_name : null,
        policyHash: typeof inForce?.data.policy_hash === 'string' ? inForce.data.policy_hash : null,
        policyError: failed ? { at: failed.ts, errors: Array.isArray(failed.data.errors) ? failed.data.errors.map(String) : [] } : null,
        pins: this.pins.list(name).map(({ server: _server, declinedHash: _declined, ...pin }) => ({ ...pin, decisionId: pin.pendingHash ? toolChangeDecisionId(name, pin.tool, pin.pendingHash) : null })),
        recentDecisions: this.entries.serverEntries(name, ['aip.decision'], RECENT_DECISIONS).map(rowToEntry) as AuditEntry[],
        sandbox: sandboxOf(started),
        sandboxDenials: this.entries.serverEntries(name, ['mcp.sandbox_denied'], RECENT_DENIALS).map(rowToEntry) as AuditEntry[],
        ...(started?.data.allow_unsigned === true ? { unsignedAllowed: true } : {}),
        ...startFailureOf(reports.find((r) => r.server === name), start, (idx) => this.entries.entryAt(idx)),
      };
    });
  }
}

/** The newer entry of each server among `rows`. */
function newestPerServer(rows: { server: string | null; idx: number }[]): { server: string | null; idx: number }[] {
  const newest = new Map<string | null, { server: string | null; idx: number }>();
  for (const row of rows) if ((newest.get(row.server)?.idx ?? -1) < row.idx) newest.set(row.server, row);
  return [...newest.values()];
}

/** The latest start failure (reported, or recorded by the proxy), when no start succeeded after it (a later start settles it). */
function startFailureOf(
  report: { idx: number } | undefined,
  start: { idx: number } | undefined,
  entryAt: (idx: number) => ReturnType<AuditRepository['entryAt']>,
): { startFailure?: ReportedStartFailure } {
  if (!report || (start && start.idx > report.idx)) return {};
  const row = entryAt(report.idx);
  if (!row) return {};
  const entry = rowToEntry(row);
  const text = (value: unknown): string => (typeof value === 'string' ? value : '');
  return { startFailure: { at: entry.ts, client: typeof entry.data.client === 'string' ? entry.data.client : null, reason: text(entry.data.reason), fix: text(entry.data.fix) } };
}

/**
 * The sandbox the latest start recorded. Proxies from before sandboxed servers wrote no `sandbox`
 * key, and a key that does not parse (a tampered row, a newer writer) is shown as not recorded
 * rather than half-read: the page must never claim a boundary it cannot read.
 */
function sandboxOf(started: AuditEntry | null): ServerSandboxSummary | null {
  const parsed = ServerSandboxSummary.safeParse(started?.data.sandbox);
  return parsed.success ? parsed.data : null;
}
