import { describe, expect, it } from 'vitest';
import { KEY, memoryStorage, SCOPE } from '../testing/stream-fixtures.js';
import { forgetScope, keepScope, readScope, STREAM_SCOPE_KEY, type ScopeStorage } from './stream-scope.js';

const broken: ScopeStorage = {
  getItem: () => {
    throw new Error('SecurityError');
  },
  setItem: () => {
    throw new Error('QuotaExceededError');
  },
  removeItem: () => {
    throw new Error('SecurityError');
  },
};

describe('stream scope storage', () => {
  it('keeps, reads and forgets the scope and its key under silas.stream.scope', () => {
    const storage = memoryStorage();
    expect(readScope(storage)).toBeNull();
    keepScope(storage, { scope: SCOPE, key: KEY });
    expect(JSON.parse(storage.items.get(STREAM_SCOPE_KEY)!)).toEqual({ scope: SCOPE, key: KEY });
    expect(readScope(storage)).toEqual({ scope: SCOPE, key: KEY });
    forgetScope(storage);
    expect(storage.items.size).toBe(0);
  });

  it('reads anything malformed as no scope', () => {
    for (const raw of ['not json', '{}', JSON.stringify({ scope: 'x', key: KEY }), JSON.stringify({ scope: SCOPE, key: 'short' }), JSON.stringify({ scope: SCOPE, key: KEY, extra: 1 })]) {
      expect(readScope(memoryStorage({ [STREAM_SCOPE_KEY]: raw }))).toBeNull();
    }
  });

  it('survives storage that throws, or none at all', () => {
    expect(readScope(broken)).toBeNull();
    expect(() => keepScope(broken, { scope: SCOPE, key: KEY })).not.toThrow();
    expect(() => forgetScope(broken)).not.toThrow();
    expect(readScope(null)).toBeNull();
  });
});
