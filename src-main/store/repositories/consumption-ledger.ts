import { sqliteConnection, type SqliteDatabase } from '../transaction.js';
import type { ApprovalToken } from '../../../src-shared/silas/approval.js';

export interface TokenState {
  executionsUsed: number;
  maxExecutions: number;
}

export interface Consumption {
  consumptionKey: string;
  tokenId: string;
  boundHash: string;
  executionIndex: number;
  executionNonce: string;
  consumedAt: string;
}

/** `{token_id}:{bound_hash}:{execution_index}`: deterministic, so the same use always has the same key. */
function consumptionKey(tokenId: string, boundHash: string, executionIndex: number): string {
  return `${tokenId}:${boundHash}:${executionIndex}`;
}

interface ConsumptionRow {
  consumption_key: string;
  token_id: string;
  bound_hash: string;
  execution_index: number;
  execution_nonce: string;
  consumed_at: string;
}

/**
 * The authoritative consumption state of approval tokens. The token's own `executions_used`
 * is an unsigned mirror for display; every decision reads these rows. Callers run `consume`
 * inside a `BEGIN IMMEDIATE` transaction; the UNIQUE keys make a lost race fail even if a
 * caller forgot to.
 */
export class ConsumptionLedger {
  private readonly stateStmt;
  private readonly insertTokenStmt;
  private readonly bumpStmt;
  private readonly insertStmt;
  private readonly findStmt;
  private readonly noncesStmt;

  constructor(database: SqliteDatabase) {
    const db = sqliteConnection(database);
    this.stateStmt = db.prepare('SELECT executions_used, max_executions FROM silas_approval_tokens WHERE token_id = ?');
    this.insertTokenStmt = db.prepare(
      `INSERT INTO silas_approval_tokens (token_id, work_item_id, plan_hash, scope, key_fingerprint, expires_at, max_executions, executions_used, first_used_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?) ON CONFLICT(token_id) DO NOTHING`,
    );
    this.bumpStmt = db.prepare('UPDATE silas_approval_tokens SET executions_used = ? WHERE token_id = ? AND executions_used = ? AND executions_used < max_executions');
    this.insertStmt = db.prepare(
      'INSERT INTO silas_approval_consumptions (consumption_key, token_id, bound_hash, execution_index, execution_nonce, consumed_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.findStmt = db.prepare('SELECT * FROM silas_approval_consumptions WHERE token_id = ? AND bound_hash = ?');
    this.noncesStmt = db.prepare('SELECT execution_nonce FROM silas_approval_consumptions WHERE token_id = ? ORDER BY execution_index').pluck();
  }

  state(tokenId: string): TokenState | null {
    const row = this.stateStmt.get(tokenId) as { executions_used: number; max_executions: number } | undefined;
    return row ? { executionsUsed: row.executions_used, maxExecutions: row.max_executions } : null;
  }

  find(tokenId: string, boundHash: string): Consumption | null {
    const row = this.findStmt.get(tokenId, boundHash) as ConsumptionRow | undefined;
    return row ? toConsumption(row) : null;
  }

  executionNonces(tokenId: string): string[] {
    return this.noncesStmt.all(tokenId) as string[];
  }

  /** Registers the token on its first use; the values come from its verified, signed fields. */
  ensureToken(token: ApprovalToken, at: string): TokenState {
    this.insertTokenStmt.run(token.token_id, token.work_item_id, token.plan_hash, token.scope, token.key_fingerprint, token.expires_at, token.max_executions, at);
    return this.state(token.token_id)!;
  }

  /** Increments `executions_used` from `previous` and inserts the consumption; throws on any conflict. */
  consume(tokenId: string, boundHash: string, previous: number, executionNonce: string, at: string): Consumption {
    const executionIndex = previous + 1;
    const key = consumptionKey(tokenId, boundHash, executionIndex);
    this.insertStmt.run(key, tokenId, boundHash, executionIndex, executionNonce, at);
    if (this.bumpStmt.run(executionIndex, tokenId, previous).changes !== 1) {
      throw new ConsumptionConflict(`token ${tokenId} changed while it was being consumed`);
    }
    return { consumptionKey: key, tokenId, boundHash, executionIndex, executionNonce, consumedAt: at };
  }
}

/** Another consumer won: the transaction must roll back and the use be refused as a replay. */
export class ConsumptionConflict extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConsumptionConflict';
  }
}

function toConsumption(row: ConsumptionRow): Consumption {
  return {
    consumptionKey: row.consumption_key,
    tokenId: row.token_id,
    boundHash: row.bound_hash,
    executionIndex: row.execution_index,
    executionNonce: row.execution_nonce,
    consumedAt: row.consumed_at,
  };
}
