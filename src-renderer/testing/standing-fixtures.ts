import type { StandingApproval } from '../store/standing-slice.js';

/** A standing "always allow" as `approvals.listStanding` returns it. */
export function standingApproval(n: number, overrides: Partial<StandingApproval> = {}): StandingApproval {
  return {
    id: `standing-${n}`,
    server: 'files',
    tool: 'delete_file',
    argsHash: String(n).repeat(64).slice(0, 64),
    argsDisplay: JSON.stringify({ path: `/home/ada/tmp/${n}.txt`, token: '[REDACTED:api_key]' }),
    createdAt: `2026-01-0${Math.min(n, 9)}T10:00:00.000Z`,
    keyFingerprint: 'ed25519:9f2c1be07a51d4c3e8f0aa11bb22cc33',
    ...overrides,
  };
}
