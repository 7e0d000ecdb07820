import type { IlpCompositionSummary, IlpCompositionView, IlpHopView } from '../ilp.js';

/*
 * Compositions as the ILP service stores them, for tests of the control plane and the cockpit's
 * inspector: the cross-domain query of spec 004 §13.2, a meta-agent asking two specialists.
 */

const QUERY = 'How can I stabilize my spending?';
export const QUERY_HEADER = { domain: 'meta', depth: 0, max_depth: 5, budget_usd: 0, max_budget_usd: 1 };

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

/** One ILP/1.0 message as the codec writes it: every header on one line, Content-Length exact (spec 004 §5). */
function message(start: string, headers: Record<string, unknown>, body: unknown): string {
  const text = JSON.stringify(body);
  const lines = [start, ...Object.entries(headers).map(([name, value]) => `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)];
  lines.push('Content-Type: application/json', `Content-Length: ${new TextEncoder().encode(text).length}`);
  return `${lines.join('\n')}\n\n${text}`;
}

function requestText(path: string, header: Record<string, unknown>, body: unknown, method = 'THINK'): string {
  return message(`${method} ${path} ILP/1.0`, { 'Constitutional-Header': header, 'Attention-Enabled': 'true' }, body);
}

function responseText(status: number, reason: string, body: unknown): string {
  return message(`ILP/1.0 ${status} ${reason}`, { 'Constitutional-Status': status < 300 ? 'PASSED' : 'VIOLATION' }, body);
}

export function hop(id: string, overrides: Partial<IlpHopView> = {}): IlpHopView {
  const agent = overrides.agent ?? id;
  const domain = overrides.domain ?? agent;
  const depth = overrides.depth ?? 1;
  return {
    id,
    parent: 'h-meta',
    agent,
    kind: 'specialist',
    domain,
    method: 'THINK',
    path: '/insight',
    depth,
    cost_usd: 0.004,
    confidence: 0.85,
    status: 200,
    constitutional_status: 'PASSED',
    principle: null,
    severity: null,
    slices: [`${domain}/basics.md`],
    request_text: requestText('/insight', { ...QUERY_HEADER, domain, depth }, { query: QUERY }),
    response_text: responseText(200, 'OK', { answer: `${domain} answer`, confidence: 0.85 }),
    duration_ms: 120,
    ...overrides,
  };
}

/** The meta-agent's own hop (the query's), then a finance and a biology specialist. */
export function hopsOf(id = 'c-1'): IlpHopView[] {
  return [
    hop('h-meta', {
      parent: null,
      agent: 'meta-agent',
      kind: 'meta',
      domain: 'meta',
      depth: 0,
      cost_usd: 0.002,
      confidence: 0.89,
      slices: ['meta-agent/decomposition'],
      request_text: requestText('/insight', QUERY_HEADER, { query: QUERY, composition: id }),
      response_text: responseText(200, 'OK', { answer: 'Keep a buffer and review it monthly.', confidence: 0.89 }),
    }),
    hop('h-finance', { agent: 'financial', domain: 'finance', slices: ['finance/budgeting.md', 'finance/buffers.md'], confidence: 0.82 }),
    hop('h-biology', { agent: 'biology', domain: 'biology', slices: ['biology/homeostasis.md'], confidence: 0.88 }),
  ];
}

export function compositionSummary(id: string, overrides: Partial<IlpCompositionSummary> = {}): IlpCompositionSummary {
  return {
    id,
    query: QUERY,
    status: 200,
    constitutional_status: 'PASSED',
    started_at: new Date(T0).toISOString(),
    cost_usd: 0.01,
    hops: 3,
    max_depth: 1,
    replay_of: null,
    trusted: true,
    ...overrides,
  };
}

export function compositionView(id: string, overrides: Partial<IlpCompositionView> = {}): IlpCompositionView {
  return {
    ...compositionSummary(id),
    answer: 'Keep a buffer and review it monthly, as a body keeps its temperature.',
    hop_list: hopsOf(id),
    influencers: [
      { concept: 'feedback_loop', slice: 'agent/systems', weight: 0.84, reasoning: "systems contributed concept 'feedback_loop'" },
      { concept: 'homeostasis', slice: 'agent/biology', weight: 0.91, reasoning: "biology contributed concept 'homeostasis'" },
      { concept: 'domain_selection', slice: 'meta-agent/decomposition', weight: 0.8, reasoning: 'Selected finance based on: Query mentions spending' },
    ],
    ...overrides,
  };
}

/** `count` summaries one minute apart, newest first, ids `c-COUNT` down to `c-1`. */
export function summaries(count: number): IlpCompositionSummary[] {
  return Array.from({ length: count }, (_, i) => {
    const n = count - i;
    return compositionSummary(`c-${n}`, { started_at: new Date(T0 + n * 60_000).toISOString(), query: `query ${n}` });
  });
}
