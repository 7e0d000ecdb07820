import { Entry } from '@napi-rs/keyring';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';

/** Where private keys live. The only production implementation is the OS keyring. */
export interface SecretStore {
  readonly description: string;
  get(account: string): string | null;
  set(account: string, secret: string): void;
  delete(account: string): boolean;
}

export const KEYRING_SERVICE = 'silas';

const HOW_TO_GET_A_KEYRING =
  process.platform === 'linux'
    ? 'start a Secret Service keyring (GNOME Keyring or KeePassXC) in this session; on a headless server run `dbus-run-session -- sh -c "printf pass | gnome-keyring-daemon --unlock --components=secrets --daemonize; silas …"`'
    : process.platform === 'darwin'
      ? 'unlock your login Keychain'
      : 'sign in to Windows so Credential Manager is available';

/**
 * The OS keyring through @napi-rs/keyring. On Linux it is pinned to the Secret Service: the
 * kernel keyring the library would otherwise fall back to forgets keys at reboot, and a key
 * that silently vanishes is worse than a clear refusal.
 */
export class OsKeyring implements SecretStore {
  readonly description: string;

  constructor(private readonly service: string = KEYRING_SERVICE) {
    this.description = process.platform === 'linux' ? 'Secret Service' : process.platform === 'darwin' ? 'macOS Keychain' : 'Windows Credential Manager';
  }

  /**
   * One entry per account, kept: creating one sets up a Secret Service session (about 7 ms here),
   * and every checkpoint reads the keyring (a proxy's cost per call). A failed call drops the entry
   * so the next one starts afresh (a restarted daemon).
   */
  private readonly entries = new Map<string, Entry>();

  private entry(account: string): Entry {
    let entry = this.entries.get(account);
    if (!entry) {
      entry = new Entry(this.service, account, process.platform === 'linux' ? { linux: { store: 'secret-service' } } : undefined);
      this.entries.set(account, entry);
    }
    return entry;
  }

  get(account: string): string | null {
    return this.guard(account, () => this.entry(account).getPassword() ?? null);
  }

  set(account: string, secret: string): void {
    this.guard(account, () => this.entry(account).setPassword(secret));
  }

  delete(account: string): boolean {
    return this.guard(account, () => this.entry(account).deleteCredential());
  }

  private guard<T>(account: string, fn: () => T): T {
    try {
      return fn();
    } catch (error) {
      this.entries.delete(account);
      throw new SilasError(ErrorCode.Keyring, `the OS keyring (${this.description}) is not reachable: ${(error as Error).message}. To fix: ${HOW_TO_GET_A_KEYRING}`, { cause: error });
    }
  }
}

/** For unit tests of code that needs a signer but is not about the keyring. */
export class MemorySecretStore implements SecretStore {
  readonly description = 'in-memory (tests only)';
  private readonly secrets = new Map<string, string>();
  get(account: string): string | null {
    return this.secrets.get(account) ?? null;
  }
  set(account: string, secret: string): void {
    this.secrets.set(account, secret);
  }
  delete(account: string): boolean {
    return this.secrets.delete(account);
  }
}
