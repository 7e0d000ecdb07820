import { inImmediateTransaction, type SqliteDatabase } from '../../store/transaction.js';
import type { AuditEntry } from '../../../src-shared/schemas/audit.js';
import type { GovernedServer } from '../../../src-shared/schemas/servers.js';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import type { AuditLog } from '../../audit/audit-log.js';
import { AuditRepository, rowToEntry } from '../../store/repositories/audit-repository.js';
import { ToolPinRepository } from '../../store/repositories/tool-pins.js';

const RECENT_DECISIONS = 20;
const POLICY_EVENTS = ['mcp.proxy_started', 'aip.policy_reloaded', 'aip.policy_reload_failed'] as const;

/**
 * The cockpit's view of governed MCP servers: what the proxies recorded (starts, pins,
 * decisions), and the one decision only a person may take here — accepting a changed tool.
 */
export class ServersService {
  private readonly pins: ToolPinRepository;
  private readonly entries: AuditRepository;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly audit: AuditLog,
  ) {
    this.pins = new ToolPinRepository(db);
    this.entries = new AuditRepository(db);
  }

  list(): GovernedServer[] {
    const starts = this.entries.latestStartPerServer();
    const names = new Set<string>([...starts.flatMap((s) => (s.server ? [s.server] : [])), ...this.pins.list().map((p) => p.server)]);
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
        pins: this.pins.list(name).map(({ server: _server, ...pin }) => pin),
        recentDecisions: this.entries.serverEntries(name, ['aip.decision'], RECENT_DECISIONS).map(rowToEntry) as AuditEntry[],
      };
    });
  }

  /** Accepts the changed definition a server announced; audited before running proxies see it. */
  approveToolChange(server: string, tool: string, hash: string): { server: string; tool: string; hash: string } {
    const pin = this.pins.get(server, tool);
    if (!pin || pin.pendingHash !== hash) {
      throw new SilasError(ErrorCode.InvalidArgs, `no pending change of ${tool} on ${server} with hash ${hash}; reload the Servers page`);
    }
    inImmediateTransaction(this.db, () => {
      this.audit.append('mcp.tool_change_approved', { server, tool, previous_hash: pin.approvedHash, hash });
      if (!this.pins.approve(server, tool, hash)) throw new SilasError(ErrorCode.InvalidArgs, `the pending change of ${tool} on ${server} was already resolved`);
    });
    return { server, tool, hash };
  }
}
