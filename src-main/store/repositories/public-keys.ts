import { sqliteConnection, type SqliteConnection, type SqliteDatabase } from '../transaction.js';

export interface RegisteredKey {
  fingerprint: string;
  publicKey: Buffer;
  keyringService: string;
  keyringAccount: string;
  createdAt: string;
}

interface Row {
  fingerprint: string;
  public_key: string;
  keyring_service: string;
  keyring_account: string;
  created_at: string;
}

/** The public halves of owner keys this home has used, so old signatures stay verifiable. */
export class PublicKeyRepository {
  private readonly db: SqliteConnection;
  constructor(database: SqliteDatabase) {
    this.db = sqliteConnection(database);
  }

  register(key: RegisteredKey): void {
    this.db
      .prepare('INSERT OR IGNORE INTO owner_keys (fingerprint, public_key, keyring_service, keyring_account, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(key.fingerprint, key.publicKey.toString('hex'), key.keyringService, key.keyringAccount, key.createdAt);
  }

  all(): RegisteredKey[] {
    return (this.db.prepare('SELECT * FROM owner_keys ORDER BY created_at').all() as Row[]).map(toKey);
  }

  find(fingerprint: string): RegisteredKey | null {
    const row = this.db.prepare('SELECT * FROM owner_keys WHERE fingerprint = ?').get(fingerprint) as Row | undefined;
    return row ? toKey(row) : null;
  }
}

function toKey(row: Row): RegisteredKey {
  return {
    fingerprint: row.fingerprint,
    publicKey: Buffer.from(row.public_key, 'hex'),
    keyringService: row.keyring_service,
    keyringAccount: row.keyring_account,
    createdAt: row.created_at,
  };
}
