import type { IlpAgent } from '../agents/agent.js';
import { report } from '../../testing/bench.js';
import { header } from '../testing/composition.js';
import { runHop, type CompositionState } from './hop.js';
import { responseMessage } from './messages.js';

/*
 * What the protocol adds to one hop, the model excluded (docs/ilp.md "Figures"): admission, the
 * request written and read back by the codec, the answer read back by the codec, the enforcer and
 * the record — beside the floor of handing the agent its request and JSON-parsing its answer, as a
 * plain function call between agents would. Answers of 1 KB and 64 KB (the codec and the enforcer
 * read all of them). Target: the protocol adds at most 0.5 ms per hop.
 */

const TARGET_MS = 0.5;
const SENTENCE = 'A monthly budget behaves like a thermostat: spending above the set point is corrected in the next period. ';
const limits = header({ max_invocations: 100_000, max_budget_usd: 1_000_000, max_depth: 1000, detect_loops: false });

for (const [label, bytes] of [['1kb', 1024], ['64kb', 64 * 1024]] as const) {
  const body = { answer: SENTENCE.repeat(Math.ceil(bytes / SENTENCE.length)).slice(0, bytes), concepts: ['homeostasis'], confidence: 0.86, reasoning: 'Combined budgeting practice with the control-loop view of a set point and a correction.', sources: ['budget-set-point'], cost_usd: 0 };
  const agent: IlpAgent = { id: 'finance-agent', domain: 'finance', kind: 'specialist', description: '', answer: () => Promise.resolve({ response: responseMessage(200, body), measuredCostUsd: 0, slices: ['budget-set-point'] }) };
  const text = JSON.stringify(body);
  const signal = new AbortController().signal;
  const state = (): CompositionState => ({ id: 'bench', header: limits, enforcer: {}, screen: undefined, signal, spentUsd: 0, invocations: 0, chain: [], asked: new Set(), hops: [], running: [], onHop: undefined });

  const hopMs = await perCallMs(async () => {
    await runHop(state(), { parent: null, agent, method: 'THINK', path: '/insight', depth: 1, payload: { query: 'How can I stabilize my spending?' } });
  });
  const floorMs = await perCallMs(async () => {
    const answered = await agent.answer({ kind: 'request', method: 'THINK', path: '/insight', version: '1.0', headers: [], body: { query: 'How can I stabilize my spending?' } }, signal);
    JSON.parse(JSON.stringify(answered.response.body)) as unknown;
    JSON.parse(text) as unknown;
  });
  report(`ilp.composition.hop_overhead_${label}`, 'ms', hopMs - floorMs, { answer_bytes: bytes, hop_ms: Number(hopMs.toFixed(4)), floor_ms: Number(floorMs.toFixed(4)), target_ms: TARGET_MS });
}

/** Median milliseconds per call over batches run for about a second. */
async function perCallMs(fn: () => Promise<void>): Promise<number> {
  for (let i = 0; i < 50; i += 1) await fn();
  const samples: number[] = [];
  const end = performance.now() + 1000;
  while (performance.now() < end) {
    const start = performance.now();
    for (let i = 0; i < 20; i += 1) await fn();
    samples.push((performance.now() - start) / 20);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}
