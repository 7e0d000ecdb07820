/**
 * The error taxonomy shared by every transport (spec 002 §18.1). A code names the class of
 * failure so that callers can react without parsing messages; the message says what to do.
 */
export const ErrorCode = {
  BadRequest: 'E_BAD_REQUEST',
  UnknownCall: 'E_UNKNOWN_CALL',
  InvalidArgs: 'E_INVALID_ARGS',
  Unauthorized: 'E_UNAUTHORIZED',
  RateLimited: 'E_RATE_LIMITED',
  Unavailable: 'E_UNAVAILABLE',
  Internal: 'E_INTERNAL',
  Config: 'E_CFG_INVALID',
  Database: 'E_DB_FAILURE',
  DatabaseNewer: 'E_DB_NEWER',
  DatabaseForeign: 'E_DB_FOREIGN',
  Migration: 'E_DB_MIGRATION',
  Keyring: 'E_KEYRING_UNAVAILABLE',
  KeyMissing: 'E_KEY_MISSING',
  Locked: 'E_HOME_LOCKED',
  PortInUse: 'E_PORT_IN_USE',
  Permission: 'E_PERMISSION',
  LedgerTampered: 'E_LEDGER_TAMPERED',
  /** What was to be changed changed meanwhile (a file edited behind the editor's back): reload, then retry. */
  Conflict: 'E_CONFLICT',
  NotFound: 'E_NOT_FOUND',
  /** A stored record no longer matches its own hash: reported, never used. */
  Corrupt: 'E_CORRUPT',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface ErrorInfo {
  code: string;
  message: string;
}

/** An error whose message is fit to show a person: it names the problem and the fix. */
export class SilasError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SilasError';
    this.code = code;
  }
  toInfo(): ErrorInfo {
    return { code: this.code, message: this.message };
  }
}

export function isSilasError(value: unknown): value is SilasError {
  return value instanceof SilasError;
}
