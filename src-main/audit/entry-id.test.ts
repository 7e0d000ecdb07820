import { describe, expect, it } from 'vitest';
import { timeOrderedId } from './audit-log.js';

describe('timeOrderedId', () => {
  it('writes RFC 9562 UUIDv7: the time in the first 48 bits, version 7, variant 10, the rest random', () => {
    const ms = 0x0123456789ab;
    const ids = Array.from({ length: 2000 }, () => timeOrderedId(ms));
    for (const id of ids) {
      expect(id).toMatch(/^01234567-89ab-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    // 2,000 ids cross several blocks of pooled random bytes and never repeat.
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('sorts by time across milliseconds, whatever the random part', () => {
    const ids = Array.from({ length: 1000 }, (_, i) => timeOrderedId(1_732_500_000_000 + Math.floor(i / 7)));
    for (let i = 1; i < ids.length; i += 1) expect(ids[i]!.slice(0, 13) >= ids[i - 1]!.slice(0, 13)).toBe(true);
    expect(timeOrderedId(1_732_500_000_001) > timeOrderedId(1_732_500_000_000)).toBe(true);
  });
});
