import type Database from 'better-sqlite3';
import type { AuditEntry } from '../../../src-shared/schemas/audit.js';
import type { GovernedServer } from '../../../src-shared/schemas/servers.js';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import type { AuditLog } from '../../audit/audit-log.js';
import { rowToEntry, type EntryRow } from '../../audit/repository.js';
import { ToolPinRepository } from '../proxy/tool-pins.js';

const RECENT_DECISIONS = 20;

/**
 * The cockpit's view of governed MCP servers: what the proxies recorded (starts, pins,
 * decisions), and the one decision only a person may take here — accepting a changed tool.
 */
export class ServersService {
  private readonly pins: ToolPinRepository;

  constructor(
    private readonly db: Database.Database,
    private readonly audit: AuditLog,
  ) {
    this.pins = new ToolPinRepository(db);
  }

  list(): GovernedServer[] {
    const starts = this.db
      .prepare(
        `SELECT json_extract(data, '$.server') AS server, MAX(idx) AS idx FROM audit_entries
         WHERE event = 'mcp.proxy_started' GROUP BY json_extract(data, '$.server')`,
      )
      .all() as { server: string | null; idx: number }[];
    const names = new Set<string>([...starts.flatMap((s) => (s.server ? [s.server] : [])), ...this.pins.list().map((p) => p.server)]);
    // The newest policy event per server says which policy is in force and whether its last edit failed.
    const policyEvents = this.db.prepare(
      `SELECT * FROM audit_entries WHERE event IN ('mcp.proxy_started', 'aip.policy_reloaded', 'aip.policy_reload_failed')
       AND json_extract(data, '$.server') = ? ORDER BY idx DESC LIMIT 20`,
    );
    const recent = this.db.prepare(`SELECT * FROM audit_entries WHERE event = 'aip.decision' AND json_extract(data, '$.server') = ? ORDER BY idx DESC LIMIT ${RECENT_DECISIONS}`);
    const startRow = this.db.prepare('SELECT * FROM audit_entries WHERE idx = ?');
    return [...names].sort().map((name) => {
      const start = starts.find((s) => s.server === name);
      const started = start ? rowToEntry(startRow.get(start.idx) as EntryRow) : null;
      const events = (policyEvents.all(name) as EntryRow[]).map(rowToEntry);
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
        recentDecisions: (recent.all(name) as EntryRow[]).map(rowToEntry) as AuditEntry[],
      };
    });
  }

  /** Accepts the changed definition a server announced; audited before running proxies see it. */
  approveToolChange(server: string, tool: string, hash: string): { server: string; tool: string; hash: string } {
    const pin = this.pins.get(server, tool);
    if (!pin || pin.pendingHash !== hash) {
      throw new SilasError(ErrorCode.InvalidArgs, `no pending change of ${tool} on ${server} with hash ${hash}; reload the Servers page`);
    }
    const apply = this.db.transaction(() => {
      this.audit.append('mcp.tool_change_approved', { server, tool, previous_hash: pin.approvedHash, hash });
      if (!this.pins.approve(server, tool, hash)) throw new SilasError(ErrorCode.InvalidArgs, `the pending change of ${tool} on ${server} was already resolved`);
    });
    apply.immediate();
    return { server, tool, hash };
  }
}
