import { calls, type CallArgs, type CallName, type CallResult } from '../../src-shared/contract/index.js';
import type { Transport } from './transport.js';

/**
 * Raised when the runtime answered with a value the contract does not allow. Not part of the
 * shared taxonomy because only a client can observe it: the runtime validates its own output.
 */
export const E_BAD_RESULT = 'E_BAD_RESULT';

export class ClientError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ClientError';
  }
}

export function isClientError(value: unknown): value is ClientError {
  return value instanceof ClientError;
}

/** A failed call in words for the page: the runtime's message and its code. */
export function describeError(error: unknown): string {
  if (isClientError(error)) return `${error.message} (${error.code})`;
  return error instanceof Error ? error.message : String(error);
}

export interface Client {
  call<N extends CallName>(name: N, args: CallArgs<N>): Promise<CallResult<N>>;
}

/**
 * The typed client over any transport. Results are validated against the contract even
 * though the runtime validates them too: a mismatched runtime version must surface as a
 * clear error here, not as a crash deep inside a component.
 */
export function createClient(transport: Transport): Client {
  return {
    async call<N extends CallName>(name: N, args: CallArgs<N>): Promise<CallResult<N>> {
      const envelope = await transport.call(name, args);
      if (!envelope.ok) throw new ClientError(envelope.error.code, envelope.error.message);
      const checked = calls[name].result.safeParse(envelope.value);
      if (!checked.success) {
        const issue = checked.error.issues[0];
        const where = issue ? ['result', ...issue.path.map(String)].join('.') : 'result';
        throw new ClientError(E_BAD_RESULT, `${name}: ${where}: ${issue?.message ?? 'invalid'} (is the runtime a different version?)`);
      }
      return checked.data as CallResult<N>;
    },
  };
}
