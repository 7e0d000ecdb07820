// Prompt render time (docs/silas/context.md "Figures"), at 8k, 32k and 128k tokens of context in
// one scope, beside a floor: joining the same content strings with the same separator, which any
// render must at least do. Also the §5.13 count of the whole rendered prompt (the Stream counts
// every prompt) and how render time grows with the context. Masking is set out of reach so every
// token is rendered; `enforceBudget` is not part of render.
//
// Then eviction (§5.7, both tiers) of a scope filled to 32k and 128k tokens in a window of that
// size, with the threshold at 50%: Tier 1 brings each zone within its budget, Tier 2 the whole
// below the threshold, once by the deterministic heuristic (no scorer model) and once by an
// in-process scorer that answers at once (the harness's own cost: the blocks shown, the answer
// validated, its groups applied; a real scorer adds its 1–3 s). Beside a floor: sorting the same
// items oldest first, which choosing what to evict must at least do.
import type { ScorerOutput } from '../../../src-shared/silas/agents.js';
import { TokenBudget, type ContextItem, type ContextItemKind, type ContextZone, type TokenBudgetInput } from '../../../src-shared/silas/context.js';
import { medianUs, report } from '../../testing/bench.js';
import { createContextScorer } from '../agents/definitions.js';
import { ContextManager, type ContextItemDraft } from './context-manager.js';
import { toolResultSource } from './eviction.js';
import { CHARS_PER_TOKEN, HeuristicTokenCounter } from './token-counter.js';
import { ContextEviction, type ScorerSource } from './two-tier.js';

const RUNS = 300;
const TARGETS = [8_000, 32_000, 128_000];
const VOCABULARY = ('the module payment auth token validate middleware request response error retry config ' +
  'deploy build test passed failed function return value schema user agent plan step verify sandbox — café').split(' ');

/** Deterministic prose of about `tokens` tokens by the §5.13 rule; tool output has `---` lines to escape. */
function text(tokens: number, seed: number, withRules = false): string {
  const chars = Math.round(tokens * CHARS_PER_TOKEN);
  const parts: string[] = [];
  let length = 0;
  let state = seed;
  let line = 0;
  while (length < chars) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    const word = VOCABULARY[state % VOCABULARY.length]!;
    line += word.length + 1;
    const breakLine = line > 72;
    if (breakLine) line = 0;
    const piece = breakLine ? (withRules && state % 7 === 0 ? `${word}\n---\n` : `${word}\n`) : `${word} `;
    parts.push(piece);
    length += piece.length;
  }
  return parts.join('').slice(0, chars);
}

interface Mix {
  zone: ContextZone;
  kind: ContextItemKind;
  source: string;
  share: number;
  itemTokens: number;
}

/** The shape of a working session: a system prompt, conversation with tool output, recall, a plan. */
const MIX: Mix[] = [
  { zone: 'chronicle', kind: 'message', source: 'channel:web', share: 0.2, itemTokens: 60 },
  { zone: 'chronicle', kind: 'tool_result', source: toolResultSource('shell_exec', 'succeeded'), share: 0.4, itemTokens: 1_500 },
  { zone: 'memory', kind: 'memory', source: 'memory:episode', share: 0.25, itemTokens: 200 },
  { zone: 'workspace', kind: 'plan', source: 'agent:planner', share: 0.15, itemTokens: 800 },
];

function build(target: number, budgetInput: TokenBudgetInput = { total: target * 2 }): { manager: ContextManager; contents: string[]; turn: number } {
  const counter = new HeuristicTokenCounter();
  const budget = TokenBudget.parse({ system_max: 8_000, observation_mask_after_turns: 1_000_000, ...budgetInput });
  const manager = new ContextManager({ counter, budget, clock: () => new Date('2026-01-15T10:00:00.000Z') });
  const contents: string[] = [];
  const add = (draft: ContextItemDraft) => {
    manager.add('owner', draft);
    contents.push(draft.content);
  };
  const system = Math.min(8_000, Math.round(target / 16));
  add({ zone: 'system', kind: 'system', source: 'system:constitution', content: text(system, 1), turn_number: 0, taint: 'owner', pinned: true });
  let turn = 0;
  let seed = 2;
  for (const mix of MIX) {
    const count = Math.max(1, Math.round(((target - system) * mix.share) / mix.itemTokens));
    for (let i = 0; i < count; i += 1) {
      turn += mix.zone === 'chronicle' ? 1 : 0;
      const content = text(mix.itemTokens, (seed += 1), mix.kind === 'tool_result');
      const taint = mix.kind === 'tool_result' ? 'external' : 'owner';
      add({ zone: mix.zone, kind: mix.kind, source: mix.source, content, turn_number: Math.max(turn, 1), taint });
    }
  }
  return { manager, contents, turn };
}

const counter = new HeuristicTokenCounter();
const times = new Map<number, { render: number; floor: number }>();
for (const target of TARGETS) {
  const { manager, contents, turn } = build(target);
  const usage = manager.tokenUsage('owner');
  const tokens = usage.system + usage.chronicle + usage.memory + usage.workspace;
  const rendered = manager.render('owner', turn);
  const renderUs = medianUs(() => manager.render('owner', turn), RUNS);
  const floorUs = medianUs(() => contents.join('\n\n'), RUNS);
  times.set(target, { render: renderUs, floor: floorUs });
  const label = `${target / 1000}k`;
  report(`context.render.${label}`, 'us', renderUs, {
    context_tokens: tokens,
    prompt_tokens: counter.count(rendered),
    items: contents.length,
    chars: rendered.length,
    floor_join_us: Number(floorUs.toPrecision(4)),
    x_floor: Number((renderUs / floorUs).toPrecision(3)),
  });
  report(`context.count_prompt.${label}`, 'us', medianUs(() => counter.count(rendered), RUNS), { chars: rendered.length });
}
const small = times.get(TARGETS[0]!)!;
const large = times.get(TARGETS[TARGETS.length - 1]!)!;
report('context.render.growth_128k_over_8k', 'x', large.render / small.render, {
  context_ratio: TARGETS[TARGETS.length - 1]! / TARGETS[0]!,
  floor_growth: Number((large.floor / small.floor).toPrecision(3)),
});

// Eviction at 32k and 128k: a fresh scope for every run (built outside the timing), one enforce timed.
const EVICTION_RUNS = 40;
const EVICTION_TARGETS = [32_000, 128_000];
const noAudit = { append: () => undefined } as unknown as ConstructorParameters<typeof ContextEviction>[0]['audit'];
const noScorer: ScorerSource = async () => ({ scorer: null, problem: 'no scorer model in the benchmark' });
// Evicts the offered blocks in groups of five, as a scorer answering at once would.
const instantScorer: ScorerSource = async (hooks) => ({
  scorer: createContextScorer(async (prompt) => {
    const ids = [...prompt.messages[0]!.content.matchAll(/<block id=(\S+) /gu)].map((match) => match[1]!);
    const output: ScorerOutput = { keep_groups: [], evict_groups: [] };
    for (let i = 0; i < ids.length; i += 5) output.evict_groups.push({ reason: 'older detail', block_ids: ids.slice(i, i + 5) });
    return { rawText: '', object: output };
  }, hooks.audit),
});

const byAge = (a: ContextItem, b: ContextItem) => a.turn_number - b.turn_number || (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0);
const allItems = (manager: ContextManager) => (['system', 'chronicle', 'memory', 'workspace'] as const).flatMap((zone) => [...manager.getZone('owner', zone)]);

async function evictionFigures(target: number, scorer: ScorerSource): Promise<{ us: number; floor: number; items: number; evicted: number; before: number; after: number }> {
  const times: number[] = [];
  const floors: number[] = [];
  let last = { items: 0, evicted: 0, before: 0, after: 0 };
  for (let run = 0; run <= EVICTION_RUNS; run += 1) {
    const { manager, turn } = build(target, { total: target, eviction_threshold_pct: 0.5 });
    const eviction = new ContextEviction({ context: manager, counter, scorer, audit: noAudit, now: () => new Date('2026-01-15T10:00:00.000Z') });
    const items = allItems(manager);
    const before = manager.totalTokens('owner');
    let start = performance.now();
    items.slice().sort(byAge);
    const floor = (performance.now() - start) * 1000;
    start = performance.now();
    const result = await eviction.enforce({ scope: 'owner', turn: turn + 1 });
    const us = (performance.now() - start) * 1000;
    if (run === 0) continue; // warm-up
    times.push(us);
    floors.push(floor);
    last = { items: items.length, evicted: result.evicted.length, before, after: manager.totalTokens('owner') };
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  return { us: median(times), floor: median(floors), ...last };
}

const evictionTimes = new Map<number, number>();
for (const target of EVICTION_TARGETS) {
  const label = `${target / 1000}k`;
  for (const [tier, scorer] of [['fallback', noScorer], ['scorer', instantScorer]] as const) {
    const figures = await evictionFigures(target, scorer);
    if (tier === 'fallback') evictionTimes.set(target, figures.us);
    report(`context.evict.${tier}.${label}`, 'us', figures.us, {
      items: figures.items,
      evicted: figures.evicted,
      tokens_before: figures.before,
      tokens_after: figures.after,
      floor_sort_us: Number(figures.floor.toPrecision(4)),
      x_floor: Number((figures.us / figures.floor).toPrecision(3)),
    });
  }
}
report('context.evict.growth_128k_over_32k', 'x', evictionTimes.get(128_000)! / evictionTimes.get(32_000)!, { context_ratio: 4 });
