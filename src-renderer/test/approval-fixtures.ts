import type { PendingApproval } from '../../src-shared/schemas/approval.js';

const BASE = Date.UTC(2026, 0, 1, 12, 0, 0);

/** A well-formed pending card; `n` orders them: card 1 was requested before card 2. */
export function pendingApproval(n: number, overrides: Partial<PendingApproval> = {}): PendingApproval {
  return {
    id: `approval-${n}`,
    server: 'filesystem',
    tool: `read_file_${n}`,
    args: { path: `/home/ada/notes/${n}.md`, token: '[REDACTED:api_key]' },
    rule: 'tools.read_file_*',
    reason: 'Reading files outside the project asks first.',
    policyName: 'workstation',
    risk: 'medium',
    requestedAt: new Date(BASE + n * 1000).toISOString(),
    expiresAt: new Date(BASE + n * 1000 + 120_000).toISOString(),
    ...overrides,
  };
}

/** The time card `n` was requested, in ms. */
export function requestedAtMs(n: number): number {
  return BASE + n * 1000;
}
