import { randomBytes } from 'node:crypto';
import { OsKeyring, type SecretStore } from '../secret-store.js';

/**
 * The real OS keyring under a service name of its own, remembering every account written so
 * `cleanup` can remove them: parallel test files never see each other's entries, and a person's
 * real `silas` entries are never read or overwritten.
 */
export class ScratchKeyring implements SecretStore {
  readonly service = `silas-test-${randomBytes(6).toString('hex')}`;
  readonly written = new Set<string>();
  private readonly keyring = new OsKeyring(this.service);
  readonly description = this.keyring.description;

  get(account: string): string | null {
    return this.keyring.get(account);
  }

  set(account: string, secret: string): void {
    this.written.add(account);
    this.keyring.set(account, secret);
  }

  delete(account: string): boolean {
    return this.keyring.delete(account);
  }

  cleanup(): void {
    for (const account of this.written) this.keyring.delete(account);
    this.written.clear();
  }
}
