// Prompt render time (docs/silas/context.md "Figures"), at 8k, 32k and 128k tokens of context in
// one scope, beside a floor: joining the same content strings with the same separator, which any
// render must at least do. Also the §5.13 count of the whole rendered prompt (the Stream counts
// every prompt) and how render time grows with the context. Masking is set out of reach so every
// token is rendered; `enforceBudget` is not part of render.
import { TokenBudget, type ContextItemKind, type ContextZone } from '../../../src-shared/silas/context.js';
import { medianUs, report } from '../../testing/bench.js';
import { ContextManager, type ContextItemDraft } from './context-manager.js';
import { toolResultSource } from './eviction.js';
import { CHARS_PER_TOKEN, HeuristicTokenCounter } from './token-counter.js';

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

function build(target: number): { manager: ContextManager; contents: string[]; turn: number } {
  const counter = new HeuristicTokenCounter();
  const budget = TokenBudget.parse({ total: target * 2, system_max: 8_000, observation_mask_after_turns: 1_000_000 });
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
