import type Database from 'better-sqlite3';
import { normalizeName } from '../../../src-shared/policy/normalize.js';

/**
 * Pins of MCP tool definitions per server (the tool-poisoning defence): the §3.5.4 hash of a
 * tool is recorded the first time a server shows it; a later, different hash is held as
 * `pendingHash` until the person approves it (the cockpit calls `approve`). Read from the
 * database on every check, so an approval given in the cockpit reaches running proxies at once.
 * `tool` is the normalised name (spec 001 §4.1), the form the policy judges, so a name variant
 * is the same tool changed, never a new one.
 */
export interface ToolPin {
  server: string;
  tool: string;
  approvedHash: string;
  firstSeenAt: string;
  approvedAt: string;
  pendingHash: string | null;
  pendingSince: string | null;
  /** The pending hash the person chose to keep blocked (its card leaves Review); null otherwise. */
  declinedHash: string | null;
}

interface Row {
  server: string;
  tool: string;
  approved_hash: string;
  first_seen_at: string;
  approved_at: string;
  pending_hash: string | null;
  pending_since: string | null;
  declined_hash: string | null;
}

export type PinObservation =
  /** First sight: now pinned. */
  | { kind: 'pinned'; hash: string }
  | { kind: 'unchanged' }
  /** Differs from the approved hash; `fresh` is true the first time this new hash is seen. */
  | { kind: 'changed'; expected: string; actual: string; fresh: boolean };

export class ToolPinRepository {
  private readonly getStmt;
  private readonly insertStmt;
  private readonly pendingStmt;
  private readonly approveStmt;
  private readonly declineStmt;

  constructor(
    private readonly db: Database.Database,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.getStmt = db.prepare('SELECT * FROM mcp_tool_pins WHERE server = ? AND tool = ?');
    this.insertStmt = db.prepare('INSERT OR IGNORE INTO mcp_tool_pins (server, tool, approved_hash, first_seen_at, approved_at) VALUES (?, ?, ?, ?, ?)');
    this.pendingStmt = db.prepare('UPDATE mcp_tool_pins SET pending_hash = ?, pending_since = ? WHERE server = ? AND tool = ?');
    this.approveStmt = db.prepare(
      'UPDATE mcp_tool_pins SET approved_hash = ?, approved_at = ?, pending_hash = NULL, pending_since = NULL, declined_hash = NULL WHERE server = ? AND tool = ? AND (pending_hash = ? OR approved_hash = ?)',
    );
    this.declineStmt = db.prepare('UPDATE mcp_tool_pins SET declined_hash = pending_hash WHERE server = ? AND tool = ? AND pending_hash = ?');
  }

  get(server: string, tool: string): ToolPin | null {
    const row = this.getStmt.get(server, tool) as Row | undefined;
    return row ? toPin(row) : null;
  }

  /** Records what a server announced now and says how it compares to the pin. */
  observe(server: string, tool: string, hash: string): PinObservation {
    const at = this.now().toISOString();
    const pin = this.get(server, tool) ?? this.adoptLegacy(server, tool);
    if (!pin) {
      // INSERT OR IGNORE: two proxies of one server may see the tool at the same moment.
      const inserted = this.insertStmt.run(server, tool, hash, at, at).changes === 1;
      if (inserted) return { kind: 'pinned', hash };
      return this.observe(server, tool, hash);
    }
    if (pin.approvedHash === hash) return { kind: 'unchanged' };
    const fresh = pin.pendingHash !== hash;
    if (fresh) this.pendingStmt.run(hash, at, server, tool);
    return { kind: 'changed', expected: pin.approvedHash, actual: hash, fresh };
  }

  /**
   * Pins written before they were keyed by the normalised name carry the name as announced
   * (`readFile`). The oldest such pin becomes the pin of the normalised name, so an upgrade
   * does not trust a definition afresh; later variants (a name-variant attack already pinned)
   * are discarded with it.
   */
  private adoptLegacy(server: string, tool: string): ToolPin | null {
    const legacy = this.list(server)
      .filter((p) => p.tool !== tool && normalizeName(p.tool) === tool)
      .sort((a, b) => a.firstSeenAt.localeCompare(b.firstSeenAt));
    const oldest = legacy[0];
    if (!oldest) return null;
    this.db.transaction(() => {
      for (const p of legacy.slice(1)) this.db.prepare('DELETE FROM mcp_tool_pins WHERE server = ? AND tool = ?').run(server, p.tool);
      this.db.prepare('UPDATE mcp_tool_pins SET tool = ? WHERE server = ? AND tool = ?').run(tool, server, oldest.tool);
    })();
    return this.get(server, tool);
  }

  /**
   * The person accepted `hash` as the new definition of a tool. Only a hash the server actually
   * announced (pending) can be approved; returns false when there is nothing to approve.
   */
  approve(server: string, tool: string, hash: string): boolean {
    return this.approveStmt.run(hash, this.now().toISOString(), server, tool, hash, hash).changes === 1;
  }

  /** The person keeps the pending `hash` blocked: the tool stays hidden; false when it is no longer pending. */
  decline(server: string, tool: string, hash: string): boolean {
    return this.declineStmt.run(server, tool, hash).changes === 1;
  }

  /** Pins whose announced change waits for the person. */
  pending(): ToolPin[] {
    return (this.db.prepare('SELECT * FROM mcp_tool_pins WHERE pending_hash IS NOT NULL ORDER BY pending_since, server, tool').all() as Row[]).map(toPin);
  }

  /** Every pin of one server (or all), for the cockpit's Servers page. */
  list(server?: string): ToolPin[] {
    const rows = (server === undefined ? this.db.prepare('SELECT * FROM mcp_tool_pins ORDER BY server, tool').all() : this.db.prepare('SELECT * FROM mcp_tool_pins WHERE server = ? ORDER BY tool').all(server)) as Row[];
    return rows.map(toPin);
  }
}

function toPin(row: Row): ToolPin {
  return {
    server: row.server,
    tool: row.tool,
    approvedHash: row.approved_hash,
    firstSeenAt: row.first_seen_at,
    approvedAt: row.approved_at,
    pendingHash: row.pending_hash,
    pendingSince: row.pending_since,
    declinedHash: row.declined_hash ?? null,
  };
}
