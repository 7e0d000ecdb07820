import { sqliteConnection, type SqliteConnection, type SqliteDatabase } from '../transaction.js';
import { normalizeName } from '../../../src-shared/policy/normalize.js';

/**
 * Pins of MCP tool definitions per server (the tool-poisoning defence): the definition hash of a
 * tool (aip/policy/definition-hash.ts) is recorded the first time a server shows it; a later,
 * different hash is held as `pendingHash` until the person approves it (the cockpit calls
 * `approve`). A definition the detectors flag at first sight is held the same way, with no
 * approved hash at all. Read from the database on every check, so an approval given in the
 * cockpit reaches running proxies at once. `tool` is the normalised name (spec 001 §4.1), the form
 * the policy judges, so a name variant is the same tool changed, never a new one.
 */
export interface ToolPin {
  server: string;
  tool: string;
  /** Null while a definition held at first sight waits for the person: nothing is approved yet. */
  approvedHash: string | null;
  firstSeenAt: string;
  approvedAt: string | null;
  pendingHash: string | null;
  pendingSince: string | null;
  /** The pending hash the person chose to keep blocked (its card leaves Review); null otherwise. */
  declinedHash: string | null;
  /**
   * What the detectors found in the pending definition, for its card. Shown, never trusted: the
   * column is not sealed, so a database writer can change what a card says but not what passes.
   */
  pendingFindings: PinFinding[];
  /**
   * The approved hash carries a valid seal. False: the row was written or changed outside Silas
   * (or nothing is approved yet), so `approvedHash` vouches for nothing and every definition of
   * the tool waits for the person.
   */
  sealed: boolean;
}

/** A detector finding as a pin keeps it (finding.ts `DetectorFinding` without the offsets). */
export interface PinFinding {
  rule: string;
  description: string;
  path: string;
  excerpt: string;
}

/** A card needs a few findings, not hundreds: a hostile definition could produce that many. */
export const PIN_FINDINGS_MAX = 20;
const FINDING_TEXT_MAX = 500;

/**
 * Seals a pin's approved hash with a keyring-held key (docs/architecture.md §2 "Sealed state");
 * the repository sees only this shape. `check` reports a failed seal itself.
 */
export interface PinSealer {
  seal(server: string, tool: string, approvedHash: string): string;
  check(server: string, tool: string, approvedHash: string, seal: string | null): boolean;
}

interface Row {
  server: string;
  tool: string;
  approved_hash: string | null;
  first_seen_at: string;
  approved_at: string | null;
  pending_hash: string | null;
  pending_since: string | null;
  declined_hash: string | null;
  seal: string | null;
  pending_findings: string | null;
}

export type PinObservation =
  /** First sight: now pinned. */
  | { kind: 'pinned'; hash: string }
  | { kind: 'unchanged' }
  /** Differs from the approved hash; `fresh` is true the first time this new hash is seen. */
  | { kind: 'changed'; expected: string; actual: string; fresh: boolean }
  /** Nothing approved yet (held at first sight): every definition waits; `fresh` as for `changed`. */
  | { kind: 'held'; actual: string; fresh: boolean };

/** How the caller judged what it announces now: `hold` keeps a first sight from being pinned. */
export interface ObserveOptions {
  hold?: boolean;
  /** Kept with the pending hash when this definition waits for the person. */
  findings?: readonly PinFinding[];
}

export class ToolPinRepository {
  private readonly getStmt;
  private readonly insertStmt;
  private readonly pendingStmt;
  private readonly approveStmt;
  private readonly declineStmt;
  // The seal last found valid per pin: the proxy reads a pin on every tools/call, and a row that
  // has not changed need not be MACed again (docs/architecture.md §9: the per-call budget).
  private readonly verified = new Map<string, string>();

  private readonly db: SqliteConnection;
  constructor(
    database: SqliteDatabase,
    private readonly sealer: PinSealer,
    private readonly now: () => Date = () => new Date(),
  ) {
    const db = sqliteConnection(database);
    this.db = db;
    this.getStmt = db.prepare('SELECT * FROM mcp_tool_pins WHERE server = ? AND tool = ?');
    this.insertStmt = db.prepare(
      'INSERT OR IGNORE INTO mcp_tool_pins (server, tool, approved_hash, first_seen_at, approved_at, seal, pending_hash, pending_since, pending_findings) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.pendingStmt = db.prepare('UPDATE mcp_tool_pins SET pending_hash = ?, pending_since = ?, pending_findings = ? WHERE server = ? AND tool = ?');
    this.approveStmt = db.prepare(
      'UPDATE mcp_tool_pins SET approved_hash = ?, approved_at = ?, seal = ?, pending_hash = NULL, pending_since = NULL, declined_hash = NULL, pending_findings = NULL WHERE server = ? AND tool = ? AND (pending_hash = ? OR approved_hash = ?)',
    );
    this.declineStmt = db.prepare('UPDATE mcp_tool_pins SET declined_hash = pending_hash WHERE server = ? AND tool = ? AND pending_hash = ?');
  }

  get(server: string, tool: string): ToolPin | null {
    const row = this.getStmt.get(server, tool) as Row | undefined;
    return row ? this.toPin(row) : null;
  }

  /**
   * Records what a server announced now and says how it compares to the pin. First sight pins
   * the definition, unless `hold`: then it is held (pending, nothing approved) for the person.
   */
  observe(server: string, tool: string, hash: string, options: ObserveOptions = {}): PinObservation {
    const at = this.now().toISOString();
    const pin = this.get(server, tool) ?? this.adoptLegacy(server, tool);
    const findings = findingsColumn(options.findings);
    if (!pin) {
      // INSERT OR IGNORE: two proxies of one server may see the tool at the same moment.
      const inserted = options.hold
        ? this.insertStmt.run(server, tool, null, at, null, null, hash, at, findings).changes === 1
        : this.insertStmt.run(server, tool, hash, at, at, this.sealer.seal(server, tool, hash), null, null, null).changes === 1;
      if (inserted) return options.hold ? { kind: 'held', actual: hash, fresh: true } : { kind: 'pinned', hash };
      return this.observe(server, tool, hash, options);
    }
    // An unsealed pin approved nothing: even the definition it names waits for the person.
    if (pin.sealed && pin.approvedHash === hash) return { kind: 'unchanged' };
    const fresh = pin.pendingHash !== hash;
    if (fresh) this.pendingStmt.run(hash, at, findings, server, tool);
    if (pin.approvedHash === null) return { kind: 'held', actual: hash, fresh };
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
      // The seal names the tool, so the renamed pin is sealed anew, and only if its old seal held.
      const seal = oldest.sealed && oldest.approvedHash !== null ? this.sealer.seal(server, tool, oldest.approvedHash) : null;
      this.db.prepare('UPDATE mcp_tool_pins SET tool = ?, seal = ? WHERE server = ? AND tool = ?').run(tool, seal, server, oldest.tool);
    })();
    return this.get(server, tool);
  }

  /**
   * The person accepted `hash` as the new definition of a tool. Only a hash the server actually
   * announced (pending) can be approved; returns false when there is nothing to approve.
   */
  approve(server: string, tool: string, hash: string): boolean {
    return this.approveStmt.run(hash, this.now().toISOString(), this.sealer.seal(server, tool, hash), server, tool, hash, hash).changes === 1;
  }

  /**
   * Pins written before the pin covered every field of a definition hold the §3.5.4 hash of its
   * name, description and input schema (`specHash`). When a sealed pin holds exactly that, the
   * fields it covered are unchanged and it is re-pinned to the whole definition (`fullHash`),
   * trusted as the pin itself was at first sight; the caller does this only for a definition no
   * detector flagged. False when the pin is anything else.
   */
  widen(server: string, tool: string, specHash: string, fullHash: string): boolean {
    const pin = this.get(server, tool);
    if (!pin || !pin.sealed || pin.approvedHash !== specHash || pin.pendingHash !== null) return false;
    const update = 'UPDATE mcp_tool_pins SET approved_hash = ?, seal = ? WHERE server = ? AND tool = ? AND approved_hash = ? AND pending_hash IS NULL';
    return this.db.prepare(update).run(fullHash, this.sealer.seal(server, tool, fullHash), server, tool, specHash).changes === 1;
  }

  /** The person keeps the pending `hash` blocked: the tool stays hidden; false when it is no longer pending. */
  decline(server: string, tool: string, hash: string): boolean {
    return this.declineStmt.run(server, tool, hash).changes === 1;
  }

  /** Pins whose announced change waits for the person. */
  pending(): ToolPin[] {
    return (this.db.prepare('SELECT * FROM mcp_tool_pins WHERE pending_hash IS NOT NULL ORDER BY pending_since, server, tool').all() as Row[]).map((row) => this.toPin(row));
  }

  /** Every pin of one server (or all), for the cockpit's Servers page. */
  list(server?: string): ToolPin[] {
    const rows = (server === undefined ? this.db.prepare('SELECT * FROM mcp_tool_pins ORDER BY server, tool').all() : this.db.prepare('SELECT * FROM mcp_tool_pins WHERE server = ? ORDER BY tool').all(server)) as Row[];
    return rows.map((row) => this.toPin(row));
  }

  /**
   * Seals the pins written before pins were sealed: once per home, by the first process holding
   * the keys after the upgrade (the caller keeps the keyring's record that it was done). Returns
   * how many were sealed.
   */
  sealUnsealed(): number {
    // A held row has nothing approved to seal.
    const rows = this.db.prepare('SELECT server, tool, approved_hash FROM mcp_tool_pins WHERE seal IS NULL AND approved_hash IS NOT NULL').all() as { server: string; tool: string; approved_hash: string }[];
    const update = this.db.prepare('UPDATE mcp_tool_pins SET seal = ? WHERE server = ? AND tool = ? AND approved_hash = ? AND seal IS NULL');
    this.db.transaction(() => {
      for (const row of rows) update.run(this.sealer.seal(row.server, row.tool, row.approved_hash), row.server, row.tool, row.approved_hash);
    })();
    return rows.length;
  }

  private toPin(row: Row): ToolPin {
    // Held at first sight: nothing approved, so nothing to check (and no refusal to record).
    if (row.approved_hash === null) return pinOf(row, false);
    const key = `${row.server}\n${row.tool}\n${row.approved_hash}`;
    let sealed = row.seal !== null && this.verified.get(key) === row.seal;
    if (!sealed) {
      sealed = this.sealer.check(row.server, row.tool, row.approved_hash, row.seal);
      if (sealed) this.verified.set(key, row.seal!);
    }
    return pinOf(row, sealed);
  }
}

function findingsColumn(findings: readonly PinFinding[] | undefined): string | null {
  if (!findings || findings.length === 0) return null;
  const cut = (text: string) => (text.length > FINDING_TEXT_MAX ? `${text.slice(0, FINDING_TEXT_MAX - 1)}…` : text);
  return JSON.stringify(findings.slice(0, PIN_FINDINGS_MAX).map((f) => ({ rule: cut(f.rule), description: cut(f.description), path: cut(f.path), excerpt: cut(f.excerpt) })));
}

/** The stored findings, each field a string; anything else in the column (it is not sealed) is left out. */
function findingsOf(column: string | null): PinFinding[] {
  if (column === null) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(column);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  const text = (value: unknown) => (typeof value === 'string' ? value.slice(0, FINDING_TEXT_MAX) : '');
  return parsed
    .slice(0, PIN_FINDINGS_MAX)
    .filter((f): f is Record<string, unknown> => typeof f === 'object' && f !== null && typeof (f as { rule?: unknown }).rule === 'string')
    .map((f) => ({ rule: text(f.rule), description: text(f.description), path: text(f.path), excerpt: text(f.excerpt) }));
}

function pinOf(row: Row, sealed: boolean): ToolPin {
  return {
    server: row.server,
    tool: row.tool,
    approvedHash: row.approved_hash,
    firstSeenAt: row.first_seen_at,
    approvedAt: row.approved_at,
    pendingHash: row.pending_hash,
    pendingSince: row.pending_since,
    declinedHash: row.declined_hash ?? null,
    pendingFindings: row.pending_hash === null ? [] : findingsOf(row.pending_findings ?? null),
    sealed,
  };
}
