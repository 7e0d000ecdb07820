import { sqliteConnection, type SqliteDatabase } from '../transaction.js';
import type { AuditEntry } from '../../../src-shared/schemas/audit.js';
import { rowToEntry, type EntryRow } from './audit-repository.js';

/** The chain's alignment entries the Alignment page's views are checked against. */
export type AlignmentChainEvent = 'aap.trace' | 'aap.violation' | 'aap.drift_alert';

/**
 * Reads the hash chain's own alignment entries (`aap.trace`, `aap.violation`, `aap.drift_alert`)
 * of one agent, through the chain's (event, idx) index: what the Alignment page shows is checked
 * against these, since the page's rows can be written by anything that can write the database
 * (docs/alignment.md "Attacker's side"). Read-only: the chain is written only by the audit log.
 */
export class AlignmentChainReader {
  private readonly rangeStatement;
  private readonly newestStatement;
  private readonly countStatement;
  private readonly proxyStartStatement;

  constructor(database: SqliteDatabase) {
    const db = sqliteConnection(database);
    this.rangeStatement = db.prepare("SELECT * FROM audit_entries WHERE event = ? AND idx > ? AND idx <= ? AND json_extract(data, '$.agent_id') = ? ORDER BY idx LIMIT ?");
    this.newestStatement = db.prepare("SELECT * FROM audit_entries WHERE event = ? AND idx < ? AND json_extract(data, '$.agent_id') = ? ORDER BY idx DESC LIMIT ?");
    this.countStatement = db.prepare("SELECT COUNT(*) FROM audit_entries WHERE event = ? AND json_extract(data, '$.agent_id') = ?").pluck();
    // `IS ?`: a proxy started without --client records no client, matched by a null parameter.
    this.proxyStartStatement = db
      .prepare(
        "SELECT * FROM audit_entries WHERE event = 'mcp.proxy_started' AND json_extract(data, '$.server') = ? AND json_extract(data, '$.client') IS ? AND json_extract(data, '$.policy_file') IS NOT NULL ORDER BY idx DESC LIMIT ?",
      );
  }

  /** The agent's `event` entries with `after < index <= upTo`, oldest first, at most `limit`. */
  range(event: AlignmentChainEvent, agentId: string, after: number, upTo: number, limit: number): AuditEntry[] {
    return (this.rangeStatement.all(event, after, upTo, agentId, limit) as EntryRow[]).map(rowToEntry);
  }

  /** The agent's newest `event` entries before `before`, newest first. */
  newest(event: AlignmentChainEvent, agentId: string, limit: number, before = Number.MAX_SAFE_INTEGER): AuditEntry[] {
    return (this.newestStatement.all(event, before, agentId, limit) as EntryRow[]).map(rowToEntry);
  }

  /** How many `event` entries the chain holds for the agent (only when its stored counts do not hold). */
  count(event: AlignmentChainEvent, agentId: string): number {
    return this.countStatement.get(event, agentId) as number;
  }

  /**
   * The newest `mcp.proxy_started` entries of `silas proxy --name SERVER [--client CLIENT]` that
   * name their policy file, newest first, as stored: the caller authenticates a row before it
   * takes the policy it names (entries from before starts named it have none).
   */
  proxyStartsNamingPolicy(server: string, client: string | null, limit: number): EntryRow[] {
    return this.proxyStartStatement.all(server, client, limit) as EntryRow[];
  }

}
