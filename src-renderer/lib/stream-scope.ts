import { z } from 'zod';
import { StreamScopeId, StreamScopeKey } from '../../src-shared/schemas/stream.js';

/**
 * The conversation this tab holds, kept across reloads in sessionStorage (never localStorage:
 * two tabs are two conversations, and the resume key should not outlive the tab).
 */
export const STREAM_SCOPE_KEY = 'silas.stream.scope';

export type ScopeStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

const KeptScope = z.strictObject({ scope: StreamScopeId, key: StreamScopeKey });
export type KeptScope = z.infer<typeof KeptScope>;

/** Storage can be disabled, full or hold anything another version wrote: all of it reads as "no scope". */
export function readScope(storage: ScopeStorage | null): KeptScope | null {
  if (!storage) return null;
  try {
    const raw = storage.getItem(STREAM_SCOPE_KEY);
    if (raw === null) return null;
    const parsed = KeptScope.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export function keepScope(storage: ScopeStorage | null, kept: KeptScope): void {
  try {
    storage?.setItem(STREAM_SCOPE_KEY, JSON.stringify({ scope: kept.scope, key: kept.key }));
  } catch {
    // Not kept: a reload opens a new conversation, which is all this costs.
  }
}

export function forgetScope(storage: ScopeStorage | null): void {
  try {
    storage?.removeItem(STREAM_SCOPE_KEY);
  } catch {
    // Nothing kept, nothing to forget.
  }
}
