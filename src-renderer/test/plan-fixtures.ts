import type { PendingPlanApproval } from '../../src-shared/schemas/plan-approval.js';

const BASE = Date.UTC(2026, 0, 1, 12, 0, 0);

/** A 64-hex plan hash whose first 8 characters are `1a2b3c4d` followed by `n` in hex. */
export function planHash(n: number): string {
  return `1a2b3c4d${n.toString(16).padStart(8, '0')}${'e'.repeat(48)}`;
}

/** A well-formed pending plan card; `n` orders them like pendingApproval(n): plan 1 was requested before plan 2. */
export function pendingPlan(n: number, overrides: Partial<PendingPlanApproval> = {}): PendingPlanApproval {
  return {
    id: `plan-${n}`,
    workItemId: `task-fix-tz-bug-${n}`,
    type: 'task',
    title: `Fix the timezone bug ${n}`,
    planHash: planHash(n),
    source: `/home/ada/work/plan-${n}.md`,
    risk: 'medium',
    riskReasons: ['an agent runs commands in a sandbox with the network denied'],
    rationale: 'Shifts across timezones overlap. Parse dates as UTC.',
    body: '# Fix the timezone bug\n\nParse dates as UTC.',
    budget: { max_tokens: 200_000, max_cost_usd: 2, max_wall_time_seconds: 1800, max_attempts: 5, max_planner_calls: 3 },
    verify: [
      { name: 'unit tests', run: 'npm test', network: false },
      { name: 'types', run: 'npx tsc --noEmit', network: false },
    ],
    skills: ['coding', 'testing'],
    gates: 2,
    requestedAt: new Date(BASE + n * 1000).toISOString(),
    expiresAt: new Date(BASE + n * 1000 + 600_000).toISOString(),
    ...overrides,
  };
}
