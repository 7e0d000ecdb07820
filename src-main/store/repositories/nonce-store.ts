import { sqliteConnection, type SqliteDatabase } from '../transaction.js';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';

/**
 * Nonce domains (spec 002 §4.5). A nonce is unique only within its domain, so a message nonce can
 * never collide with an approval execution nonce that happens to share its spelling.
 */
export const NonceDomain = {
  /** Replay nonces of signed messages. */
  Message: 'msg',
  /** Approval execution nonces; the stored value is `execBinding(...)`. */
  Execution: 'exec',
} as const;

const DOMAIN_PATTERN = /^[a-z][a-z0-9_]{0,31}$/;
const MAX_NONCE_LENGTH = 512;

/** Spec default: nonces outlive the longest token by a 10-minute safety buffer. */
export const NONCE_SAFETY_BUFFER_MS = 10 * 60_000;

/** The content-bound key of one execution: `{token_id}:{plan_or_spawn_hash}:{nonce}` (§4.5). */
export function execBinding(tokenId: string, boundHash: string, executionNonce: string): string {
  return `${tokenId}:${boundHash}:${executionNonce}`;
}

export class NonceReplayError extends SilasError {
  constructor(readonly domain: string, readonly nonce: string) {
    super('E_APPROVAL_REPLAY', `nonce already used in domain "${domain}" (a replay)`);
    this.name = 'NonceReplayError';
  }
}

export interface NonceStore {
  isUsed(domain: string, nonce: string): boolean;
  /** Records the nonce; throws NonceReplayError when the domain already holds it. Atomic. */
  record(domain: string, nonce: string): void;
  /** Removes records older than `olderThan`; returns how many. */
  pruneExpired(olderThan: Date): number;
}

function checkKey(domain: string, nonce: string): void {
  if (!DOMAIN_PATTERN.test(domain)) {
    throw new SilasError(ErrorCode.InvalidArgs, `nonce domain "${domain.slice(0, 40)}" must be a short lowercase word such as "msg" or "exec"`);
  }
  if (nonce.length === 0 || nonce.length > MAX_NONCE_LENGTH) {
    throw new SilasError(ErrorCode.InvalidArgs, `a nonce must be 1 to ${MAX_NONCE_LENGTH} characters, got ${nonce.length}`);
  }
}

function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/**
 * SQLite nonce store: uniqueness is the table's primary key, not a read-then-write, so two
 * processes recording the same nonce cannot both succeed. `record` inside a caller's transaction
 * commits or rolls back with it.
 */
export class SqliteNonceStore implements NonceStore {
  private readonly selectStmt;
  private readonly insertStmt;
  private readonly pruneStmt;

  constructor(
    database: SqliteDatabase,
    private readonly now: () => Date = () => new Date(),
  ) {
    const db = sqliteConnection(database);
    this.selectStmt = db.prepare('SELECT 1 FROM silas_nonces WHERE domain = ? AND nonce = ?').pluck();
    this.insertStmt = db.prepare('INSERT INTO silas_nonces (domain, nonce, recorded_at) VALUES (?, ?, ?)');
    this.pruneStmt = db.prepare('DELETE FROM silas_nonces WHERE recorded_at < ?');
  }

  isUsed(domain: string, nonce: string): boolean {
    checkKey(domain, nonce);
    return this.selectStmt.get(domain, nonce) !== undefined;
  }

  record(domain: string, nonce: string): void {
    checkKey(domain, nonce);
    try {
      this.insertStmt.run(domain, nonce, this.now().toISOString());
    } catch (error) {
      if (isUniqueViolation(error)) throw new NonceReplayError(domain, nonce);
      throw error;
    }
  }

  pruneExpired(olderThan: Date): number {
    return this.pruneStmt.run(olderThan.toISOString()).changes;
  }

  /** Prunes by the retention rule: older than the longest token TTL plus the safety buffer. */
  pruneByRetention(maxTokenTtlMs: number, safetyBufferMs = NONCE_SAFETY_BUFFER_MS): number {
    return this.pruneExpired(new Date(this.now().getTime() - maxTokenTtlMs - safetyBufferMs));
  }
}
