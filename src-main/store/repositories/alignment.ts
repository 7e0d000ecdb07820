import { inImmediateTransaction, sqliteConnection, type SqliteConnection, type SqliteDatabase } from '../transaction.js';

/** One version of an agent's Alignment Card (migration 012). */
export interface AlignmentCardRow {
  id: number;
  agentId: string;
  cardId: string;
  cardJson: string;
  source: 'derived' | 'edited';
  signature: string | null;
  active: boolean;
  createdAt: string;
}

/** One AP-Trace as the Alignment page reads it: its verification and drift figures, not its text. */
export interface AlignmentTraceRow {
  seq: number;
  agentId: string;
  traceId: string;
  cardId: string;
  ts: string;
  /** The decision's audit entry, and the `aap.trace` entry that holds the trace. */
  sourceIndex: number;
  auditIndex: number;
  actionName: string;
  actionType: string;
  escalated: boolean;
  verified: boolean;
  violations: string[];
  similarity: number;
  driftSimilarity: number | null;
  driftAlert: boolean;
  values: string[];
  /** The ledger key's MAC over the row as the page shows it (migration 014); null on rows written before it. */
  seal: string | null;
}

interface CardRow {
  id: number;
  agent_id: string;
  card_id: string;
  card_json: string;
  source: 'derived' | 'edited';
  signature: string | null;
  active: number;
  created_at: string;
}

interface TraceRow {
  seq: number;
  agent_id: string;
  trace_id: string;
  card_id: string;
  ts: string;
  source_index: number;
  audit_index: number;
  action_name: string;
  action_type: string;
  escalated: number;
  verified: number;
  violations_json: string;
  similarity: number;
  drift_similarity: number | null;
  drift_alert: number;
  values_json: string;
  seal: string | null;
}

const card = (row: CardRow): AlignmentCardRow => ({
  id: row.id,
  agentId: row.agent_id,
  cardId: row.card_id,
  cardJson: row.card_json,
  source: row.source,
  signature: row.signature,
  active: row.active === 1,
  createdAt: row.created_at,
});

const trace = (row: TraceRow): AlignmentTraceRow => ({
  seq: row.seq,
  agentId: row.agent_id,
  traceId: row.trace_id,
  cardId: row.card_id,
  ts: row.ts,
  sourceIndex: row.source_index,
  auditIndex: row.audit_index,
  actionName: row.action_name,
  actionType: row.action_type,
  escalated: row.escalated === 1,
  verified: row.verified === 1,
  violations: JSON.parse(row.violations_json) as string[],
  similarity: row.similarity,
  driftSimilarity: row.drift_similarity,
  driftAlert: row.drift_alert === 1,
  values: JSON.parse(row.values_json) as string[],
  seal: row.seal,
});

/** An agent's trace counts, for the agents list. */
export interface AgentCounts {
  agentId: string;
  traces: number;
  violations: number;
  escalations: number;
  alerts: number;
  lastTs: string | null;
}

/** An agent's counts as stored, with their seal (null before migration 014, or written by something else). */
export interface SealedAgentCounts extends AgentCounts {
  seal: string | null;
}

/** Cards per agent (one active), traces per agent in the order recorded, and the recorder's place in the chain. */
export class AlignmentRepository {
  // The recorder writes a row, a drift state and the cursor per page: prepared once, not per call.
  private readonly insertTraceStatement;
  private readonly saveDriftStatement;
  private readonly setCursorStatement;
  private readonly seriesStatement;
  private readonly hasTraceStatement;
  private readonly countStatement;
  private readonly countsOfStatement;

  private readonly db: SqliteConnection;
  constructor(database: SqliteDatabase) {
    const db = sqliteConnection(database);
    this.db = db;
    this.insertTraceStatement = db.prepare(
      `INSERT INTO aap_traces (agent_id, trace_id, card_id, ts, source_index, audit_index, action_name, action_type, escalated, verified, violations_json, similarity, drift_similarity, drift_alert, values_json, seal)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.saveDriftStatement = db.prepare(
      'INSERT INTO aap_drift_state (agent_id, card_id, snapshot, signature) VALUES (?, ?, ?, ?) ON CONFLICT (agent_id) DO UPDATE SET card_id = excluded.card_id, snapshot = excluded.snapshot, signature = excluded.signature',
    );
    this.seriesStatement = db.prepare(
      'SELECT seq, ts, trace_id, action_name, escalated, verified, similarity, drift_similarity, drift_alert, values_json FROM aap_traces WHERE agent_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    );
    this.setCursorStatement = db.prepare(
      'INSERT INTO aap_cursor (id, last_index, signature) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET last_index = excluded.last_index, signature = excluded.signature',
    );
    this.hasTraceStatement = db.prepare('SELECT * FROM aap_traces WHERE trace_id = ?');
    this.countsOfStatement = db.prepare('SELECT agent_id AS agentId, traces, violations, escalations, alerts, last_ts AS lastTs, seal FROM aap_agent_counts WHERE agent_id = ?');
    this.countStatement = db.prepare(
      `INSERT INTO aap_agent_counts (agent_id, traces, violations, escalations, alerts, last_ts, seal) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (agent_id) DO UPDATE SET traces = excluded.traces, violations = excluded.violations, escalations = excluded.escalations,
         alerts = excluded.alerts, last_ts = excluded.last_ts, seal = excluded.seal`,
    );
  }

  activeCard(agentId: string): AlignmentCardRow | null {
    const row = this.db.prepare('SELECT * FROM aap_cards WHERE agent_id = ? AND active = 1').get(agentId) as CardRow | undefined;
    return row ? card(row) : null;
  }

  activeCards(): AlignmentCardRow[] {
    return (this.db.prepare('SELECT * FROM aap_cards WHERE active = 1 ORDER BY agent_id').all() as CardRow[]).map(card);
  }

  cardById(cardId: string): AlignmentCardRow | null {
    const row = this.db.prepare('SELECT * FROM aap_cards WHERE card_id = ?').get(cardId) as CardRow | undefined;
    return row ? card(row) : null;
  }

  /** Makes `version` the agent's active card; the previous one is kept, inactive. */
  activate(version: Omit<AlignmentCardRow, 'id' | 'active'>): AlignmentCardRow {
    return inImmediateTransaction(this.db, () => {
      this.db.prepare('UPDATE aap_cards SET active = 0 WHERE agent_id = ? AND active = 1').run(version.agentId);
      const info = this.db
        .prepare('INSERT INTO aap_cards (agent_id, card_id, card_json, source, signature, active, created_at) VALUES (?, ?, ?, ?, ?, 1, ?)')
        .run(version.agentId, version.cardId, version.cardJson, version.source, version.signature, version.createdAt);
      return { ...version, id: Number(info.lastInsertRowid), active: true };
    });
  }

  /** Puts an earlier version back in force (a policy changed back to what a kept card was derived from). */
  reactivate(row: AlignmentCardRow): AlignmentCardRow {
    return inImmediateTransaction(this.db, () => {
      this.db.prepare('UPDATE aap_cards SET active = 0 WHERE agent_id = ? AND active = 1').run(row.agentId);
      this.db.prepare('UPDATE aap_cards SET active = 1 WHERE id = ?').run(row.id);
      return { ...row, active: true };
    });
  }

  /** Replaces a kept version's text and signature and puts it in force (a version edited in the database, derived again). */
  rewrite(row: AlignmentCardRow, cardJson: string, signature: string): AlignmentCardRow {
    return inImmediateTransaction(this.db, () => {
      this.db.prepare('UPDATE aap_cards SET active = 0 WHERE agent_id = ? AND active = 1').run(row.agentId);
      this.db.prepare('UPDATE aap_cards SET card_json = ?, signature = ?, active = 1 WHERE id = ?').run(cardJson, signature, row.id);
      return { ...row, cardJson, signature, active: true };
    });
  }

  insertTrace(row: Omit<AlignmentTraceRow, 'seq'>): number {
    const info = this.insertTraceStatement.run(
        row.agentId,
        row.traceId,
        row.cardId,
        row.ts,
        row.sourceIndex,
        row.auditIndex,
        row.actionName,
        row.actionType,
        row.escalated ? 1 : 0,
        row.verified ? 1 : 0,
        JSON.stringify(row.violations),
        row.similarity,
        row.driftSimilarity,
        row.driftAlert ? 1 : 0,
        JSON.stringify(row.values),
        row.seal,
      );
    return Number(info.lastInsertRowid);
  }

  /** Removes a row that does not hold (its seal failed): the recorder writes the real one in its place. */
  removeTrace(traceId: string): void {
    this.db.prepare('DELETE FROM aap_traces WHERE trace_id = ?').run(traceId);
  }

  /** The agent's traces after `afterSeq`, oldest first, at most `limit`. */
  traces(agentId: string, afterSeq: number, limit: number): AlignmentTraceRow[] {
    return (this.db.prepare('SELECT * FROM aap_traces WHERE agent_id = ? AND seq > ? ORDER BY seq LIMIT ?').all(agentId, afterSeq, limit) as TraceRow[]).map(trace);
  }

  /**
   * The figures the charts draw, for the agent's traces after `afterSeq`, oldest first: only those
   * columns, as raw rows (the Alignment page reads up to 100,000 of them at a time).
   */
  seriesRows(agentId: string, afterSeq: number, limit: number): Array<{ seq: number; ts: string; trace_id: string; action_name: string; escalated: number; verified: number; similarity: number; drift_similarity: number | null; drift_alert: number; values_json: string }> {
    return this.seriesStatement.all(agentId, afterSeq, limit) as never;
  }

  /** The seq just before the agent's newest `count` traces (0 when it has no more than that). */
  seqBeforeNewest(agentId: string, count: number): number {
    return (this.db.prepare('SELECT seq FROM aap_traces WHERE agent_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?').pluck().get(agentId, count) as number | undefined) ?? 0;
  }

  /** The agent's newest traces with violations, newest first. */
  violations(agentId: string, limit: number): AlignmentTraceRow[] {
    return (this.db.prepare('SELECT * FROM aap_traces WHERE agent_id = ? AND verified = 0 ORDER BY seq DESC LIMIT ?').all(agentId, limit) as TraceRow[]).map(trace);
  }

  traceById(traceId: string): AlignmentTraceRow | null {
    const row = this.db.prepare('SELECT * FROM aap_traces WHERE trace_id = ?').get(traceId) as TraceRow | undefined;
    return row ? trace(row) : null;
  }

  /** Per agent: traces, unverified traces, escalations, drift alerts and the newest trace's time (kept by setCounts), with their seal. */
  summaries(): SealedAgentCounts[] {
    return this.db
      .prepare('SELECT agent_id AS agentId, traces, violations, escalations, alerts, last_ts AS lastTs, seal FROM aap_agent_counts ORDER BY agent_id')
      .all() as SealedAgentCounts[];
  }

  /** One agent's stored counts, or null. */
  countsOf(agentId: string): SealedAgentCounts | null {
    return (this.countsOfStatement.get(agentId) as SealedAgentCounts | undefined) ?? null;
  }

  /** Writes an agent's counts with their seal (in the recorder's page transaction). */
  setCounts(counts: AgentCounts, seal: string): void {
    this.countStatement.run(counts.agentId, counts.traces, counts.violations, counts.escalations, counts.alerts, counts.lastTs, seal);
  }

  /** What the rows say of an agent's traces, counted afresh (only when its stored counts do not hold). */
  countRows(agentId: string): { traces: number; escalations: number; lastTs: string | null } {
    const row = this.db.prepare('SELECT COUNT(*) AS traces, COALESCE(SUM(escalated), 0) AS escalations, MAX(ts) AS lastTs FROM aap_traces WHERE agent_id = ?').get(agentId) as { traces: number; escalations: number; lastTs: string | null };
    return row;
  }

  /** The stored row of a trace, if any: the recorder checks its seal before counting it as recorded. */
  recordedTrace(traceId: string): AlignmentTraceRow | null {
    const row = this.hasTraceStatement.get(traceId) as TraceRow | undefined;
    return row ? trace(row) : null;
  }

  /** The rows of the given traces (the views check them against the chain). */
  tracesByIds(traceIds: readonly string[]): AlignmentTraceRow[] {
    if (traceIds.length === 0) return [];
    const out: AlignmentTraceRow[] = [];
    for (let at = 0; at < traceIds.length; at += 500) {
      const chunk = traceIds.slice(at, at + 500);
      out.push(...(this.db.prepare(`SELECT * FROM aap_traces WHERE trace_id IN (${chunk.map(() => '?').join(', ')})`).all(...chunk) as TraceRow[]).map(trace));
    }
    return out;
  }

  driftState(agentId: string): { cardId: string; snapshot: string; signature: string } | null {
    return (this.db.prepare('SELECT card_id AS cardId, snapshot, signature FROM aap_drift_state WHERE agent_id = ?').get(agentId) as { cardId: string; snapshot: string; signature: string } | undefined) ?? null;
  }

  saveDriftState(agentId: string, cardId: string, snapshot: string, signature: string): void {
    this.saveDriftStatement.run(agentId, cardId, snapshot, signature);
  }

  cursor(): { index: number; signature: string } | null {
    return (this.db.prepare('SELECT last_index AS "index", signature FROM aap_cursor WHERE id = 1').get() as { index: number; signature: string } | undefined) ?? null;
  }

  setCursor(index: number, signature: string): void {
    this.setCursorStatement.run(index, signature);
  }
}
