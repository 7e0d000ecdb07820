import { describe, expect, it } from 'vitest';
import { AccessLevel, AccessLevels } from './access.js';

const problems = (result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }): string[] =>
  result.success ? [] : result.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`);

describe('AccessLevel', () => {
  it('parses the §13.2 levels with defaults', () => {
    const levels = AccessLevels.parse({
      public: { description: 'General info only', tools: ['faq_search', 'product_info'] },
      verified: { description: 'Customer-specific data', tools: ['faq_search', 'product_info', 'policy_lookup', 'claim_status'], requires: ['identity_verified'], expires_after: 900 },
    });
    expect(levels.public).toEqual({ description: 'General info only', tools: ['faq_search', 'product_info'], requires: [], expires_after: null });
    expect(levels.verified!.expires_after).toBe(900);
    expect(Object.keys(levels)).toEqual(['public', 'verified']);
  });

  it('refuses unknown fields, zero or negative expiry, and repeated gates', () => {
    expect(problems(AccessLevel.safeParse({ tools: [], expire_after: 5 }))[0]).toMatch(/expire_after/);
    expect(AccessLevel.safeParse({ expires_after: 0 }).success).toBe(false);
    expect(AccessLevel.safeParse({ expires_after: 1.5 }).success).toBe(false);
    expect(problems(AccessLevel.safeParse({ requires: ['a', 'a'] }))).toEqual(['requires.1: gate "a" is listed twice']);
  });

  it('lets only the default level be unconditional', () => {
    expect(problems(AccessLevels.safeParse({ public: {}, guest: { tools: ['x'] } }))).toEqual([
      'guest.requires: level "guest" needs at least one gate in requires; only "public" may be unconditional',
    ]);
  });

  it('refuses level names that are not plain identifiers', () => {
    expect(AccessLevels.safeParse({ 'a b': { requires: ['g'] } }).success).toBe(false);
  });
});
