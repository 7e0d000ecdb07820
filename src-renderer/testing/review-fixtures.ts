import { orderActions, type ActionText } from '../../src-shared/review/cta.js';
import type { FakeTransport } from './fake-transport.js';
import { DecisionCard, type CardOf, type DecisionKindName, type RiskLevel } from '../../src-shared/schemas/review.js';

/*
 * Review cards as the runtime builds them (spec 002 §0.5.3), one builder per kind. `n` orders
 * them: card 1 was requested before card 2, whatever the kind. The buttons come from the same
 * CTA rule the runtime applies, recomputed when a test overrides the risk.
 */

const BASE = Date.UTC(2026, 0, 1, 12, 0, 0);

/** The time card `n` was requested, in ms. */
function requestedAtMs(n: number): number {
  return BASE + n * 1000;
}

/** A 64-hex plan hash whose first 8 characters are `1a2b3c4d` followed by `n` in hex. */
export function planHash(n: number): string {
  return `1a2b3c4d${n.toString(16).padStart(8, '0')}${'e'.repeat(48)}`;
}

type Overrides<K extends DecisionKindName> = Partial<Omit<CardOf<K>, 'details'>> & { details?: Partial<CardOf<K>['details']> };

const CHOICES: { [K in DecisionKindName]: { allowing: [ActionText, ...ActionText[]]; decline: ActionText } } = {
  tool_call: {
    allowing: [
      { choice: 'allow_once', label: 'Allow once', consequence: 'Runs this call once; signed with your key' },
      {
        choice: 'always_allow',
        label: 'Always allow',
        consequence: 'Runs this call now and every identical call (same tool, same arguments, this server) without asking, until you revoke it on the Policies page',
      },
    ],
    decline: { choice: 'deny', label: 'Deny', consequence: 'The agent receives an error (-32004)' },
  },
  plan: {
    allowing: [{ choice: 'approve', label: 'Approve and sign', consequence: 'Signs this exact plan with your owner key; it runs once in a sandbox and only its checks decide success' }],
    decline: { choice: 'deny', label: 'Deny', consequence: 'Nothing runs' },
  },
  tool_change: {
    allowing: [{ choice: 'approve', label: 'Accept the new definition', consequence: 'The agent can see and call the changed tool again' }],
    decline: { choice: 'keep_blocked', label: 'Keep blocked', consequence: 'The tool stays hidden from the agent and refused' },
  },
  ilp_slice: {
    allowing: [{ choice: 'deploy', label: 'Deploy the slice', consequence: 'The specialists of its domain read it from the next request; the version it replaces is kept for rollback' }],
    decline: { choice: 'decline', label: 'Decline', consequence: 'Nothing is deployed; the proposal is kept in the slice history' },
  },
  memory_promotion: {
    allowing: [{ choice: 'verify', label: 'Verify the memory', consequence: 'Silas treats it as confirmed by you: only you can change or delete it from now on' }],
    decline: { choice: 'decline', label: 'Keep it unverified', consequence: 'It stays working memory: Silas may still recall, change or forget it' },
  },
};

function card<K extends DecisionKindName>(kind: K, n: number, base: Omit<CardOf<K>, 'kind' | 'id' | 'actions' | 'requestedAt' | 'expiresAt'>, timeoutMs: number | null, overrides: Overrides<K>) {
  const { details, ...rest } = overrides;
  const riskLevel: RiskLevel = rest.riskLevel ?? base.riskLevel;
  // Parsed, so a fixture that drifts from the contract fails where it is built.
  return DecisionCard.parse({
    kind,
    id: `${kind}-${n}`,
    ...base,
    actions: orderActions(riskLevel, CHOICES[kind].allowing, CHOICES[kind].decline),
    requestedAt: new Date(requestedAtMs(n)).toISOString(),
    expiresAt: timeoutMs === null ? null : new Date(requestedAtMs(n) + timeoutMs).toISOString(),
    ...rest,
    details: { ...base.details, ...details },
  }) as CardOf<K>;
}

/** A tool call a policy asked about; expires after two minutes. */
export function toolCallCard(n: number, overrides: Overrides<'tool_call'> = {}): CardOf<'tool_call'> {
  const server = overrides.details?.server ?? 'filesystem';
  const tool = overrides.details?.tool ?? `read_file_${n}`;
  return card(
    'tool_call',
    n,
    {
      intent: `${tool} on ${server} wants to run`,
      riskLevel: 'medium',
      riskReasons: [],
      rationale: 'Reading files outside the project asks first.',
      details: {
        server,
        tool,
        args: { path: `/home/ada/notes/${n}.md`, token: '[REDACTED:api_key]' },
        rule: 'tools.read_file_*',
        reason: 'Reading files outside the project asks first.',
        policyName: 'workstation',
      },
    },
    120_000,
    overrides,
  );
}

/** A plan `silas run` asks to execute; expires after ten minutes. */
export function planCard(n: number, overrides: Overrides<'plan'> = {}): CardOf<'plan'> {
  const title = overrides.details?.title ?? `Fix the timezone bug ${n}`;
  return card(
    'plan',
    n,
    {
      intent: `Run plan: ${title} (task)`,
      riskLevel: 'medium',
      riskReasons: ['an agent runs commands in a sandbox with the network denied'],
      rationale: 'Shifts across timezones overlap. Parse dates as UTC.',
      details: {
        workItemId: `task-fix-tz-bug-${n}`,
        type: 'task',
        title,
        planHash: planHash(n),
        source: `/home/ada/work/plan-${n}.md`,
        body: '# Fix the timezone bug\n\nParse dates as UTC.',
        budget: { max_tokens: 200_000, max_cost_usd: 2, max_wall_time_seconds: 1800, max_attempts: 5, max_planner_calls: 3 },
        verify: [
          { name: 'unit tests', run: 'npm test', network: false },
          { name: 'types', run: 'npx tsc --noEmit', network: false },
        ],
        skills: ['coding', 'testing'],
        gates: 2,
      },
    },
    600_000,
    overrides,
  );
}

/** A tool whose definition changed after it was trusted; it waits until the person acts. */
export function toolChangeCard(n: number, overrides: Overrides<'tool_change'> = {}): CardOf<'tool_change'> {
  const server = overrides.details?.server ?? 'web';
  const tool = overrides.details?.tool ?? `fetch_${n}`;
  return card(
    'tool_change',
    n,
    {
      intent: `Accept the changed definition of ${tool} on ${server}`,
      riskLevel: 'high',
      riskReasons: ['a changed tool definition can carry instructions to the agent'],
      rationale: `${server} announced a different definition of ${tool} than the one you trusted.`,
      details: { server, tool, approvedHash: `sha256:${'1'.repeat(64)}`, pendingHash: `sha256:${'2'.repeat(64)}` },
    },
    null,
    overrides,
  );
}

/** A slice distillation proposes; waits until the owner decides. */
export function ilpSliceCard(n: number, overrides: Overrides<'ilp_slice'> = {}): CardOf<'ilp_slice'> {
  return card(
    'ilp_slice',
    n,
    {
      intent: `Deploy the learned slice learned-budget-feedback-${n}`,
      riskLevel: 'medium',
      riskReasons: ['a slice is what specialists read as knowledge'],
      rationale: 'Learned from 4 answered queries about budgets and feedback.',
      details: {
        sliceId: `learned-budget-feedback-${n}`,
        version: 1,
        change: 'created',
        title: 'Budgets as feedback loops',
        domain: 'finance',
        concepts: ['budget', 'feedback_loop'],
        text: 'metadata:\n  id: learned-budget-feedback\n',
        previousText: null,
        rationale: 'Four answers joined budgets and feedback the same way.',
        confidence: 0.85,
        constitutionalScore: 1,
        warnings: [],
        pattern: { frequency: 4, successRate: 1, queries: ['How do I keep my budget steady?'] },
      },
    },
    null,
    overrides,
  );
}

/** A working memory the owner asked, on the Memory page, to verify; waits until the owner decides. */
export function memoryPromotionCard(n: number, overrides: Overrides<'memory_promotion'> = {}): CardOf<'memory_promotion'> {
  const content = overrides.details?.content ?? `The owner indents code with tabs, never spaces (${n})`;
  return card(
    'memory_promotion',
    n,
    {
      intent: `Verify the memory "${content}"`,
      riskLevel: 'low',
      riskReasons: ['Silas will treat it as confirmed by you'],
      rationale: 'A verified memory is recalled as confirmed by you, and Silas can no longer change or forget it on its own.',
      details: {
        memoryId: `memory-${n}`,
        content,
        memoryType: 'preference',
        taint: 'auth',
        sourceKind: 'memory_op',
        accessCount: 3,
        createdAt: '2026-01-01T09:30:00.000Z',
        requestedBy: 'the owner, on the Memory page',
        reason: '',
      },
    },
    null,
    overrides,
  );
}

/** A `review.decide` handler that answers (approved unless the choice declines) only when the test says so. */
export function heldDecisions(transport: FakeTransport): (() => void)[] {
  const answers: (() => void)[] = [];
  transport.handle(
    'review.decide',
    (args) =>
      new Promise((resolve) => {
        const { id, choice } = args as { id: string; choice: string };
        answers.push(() => resolve({ ok: true, value: { id, kind: id.slice(0, id.lastIndexOf('-')), choice, outcome: choice === 'deny' ? 'denied' : 'approved' } }));
      }),
  );
  return answers;
}

/** A `review.changed` delta as the runtime sends it: `seq` follows the list's (0 for a fixture list). */
export function reviewDelta(seq: number, change: { added?: DecisionCard[]; updated?: DecisionCard[]; removed?: string[]; paused?: boolean; total?: number } = {}) {
  const added = change.added ?? [];
  return { seq, added, updated: change.updated ?? [], removed: change.removed ?? [], paused: change.paused ?? false, total: change.total ?? added.length };
}
