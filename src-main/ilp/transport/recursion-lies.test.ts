import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IlpAgent } from '../agents/agent.js';
import { responseMessage } from '../composition/messages.js';
import { headerOf } from '../protocol/message.js';
import { decompose, insight, synthesis } from '../testing/fake-model.js';
import { testComposition } from '../testing/composition.js';
import { ilpHttpServer } from '../testing/transports.js';

/*
 * Headers that lie mid-recursion (docs/ilp.md "Composition"): an agent answering a hop calls back
 * into the composition it is part of (ILP-Composition names it) with headers that misstate where the
 * composition stands. Each is refused with 400 naming the field; an honest one is admitted and
 * counts against the same budget.
 */

const TOKEN = 'lies-token';
const said: Record<string, { status: number; text: string }> = {};
let url = '';

const HONEST = { domain: 'biology', depth: 2, max_depth: 5, budget_usd: 0.01, max_budget_usd: 0.5 };
const LIES: Record<string, Record<string, unknown>> = {
  honest: HONEST,
  depthBelowRecorded: { ...HONEST, depth: 1 },
  maxDepthRaised: { ...HONEST, max_depth: 50 },
  budgetAboveParent: { ...HONEST, max_budget_usd: 5 },
  spentUnderstated: { ...HONEST, budget_usd: 0 },
  loopsSwitchedOff: { ...HONEST, detect_loops: false },
};

const callingBack: IlpAgent = {
  id: 'callback-agent',
  domain: 'callback',
  kind: 'specialist',
  description: 'Calls back into the composition it answers for.',
  async answer(request) {
    const composition = String(headerOf(request, 'ILP-Composition')?.value);
    for (const [name, header] of Object.entries(LIES)) {
      const res = await fetch(`${url}/ilp/biology-agent/insight`, { method: 'POST', headers: { 'ILP-Method': 'THINK', Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', 'ILP-Composition': composition, 'Constitutional-Header': JSON.stringify(header) }, body: JSON.stringify({ query: `part ${name}` }) });
      said[name] = { status: res.status, text: await res.text() };
    }
    return { response: responseMessage(200, { answer: 'Called back.', concepts: [], confidence: 0.9, reasoning: 'Asked the biology specialist for part of the answer through the composition.', cost_usd: 0 }), measuredCostUsd: 0, slices: [] };
  },
};

const composition = testComposition({ extra: [callingBack] });
let close: () => Promise<void>;
beforeAll(async () => {
  const server = await ilpHttpServer(composition.service, TOKEN);
  url = server.url;
  close = server.close;
});
afterAll(() => close());

describe('a hop joining a live composition', () => {
  it('is refused naming the field when its header lies, and admitted and counted when honest', async () => {
    composition.model.reply(decompose('callback'), insight('Biology, asked honestly.'), synthesis());
    const res = await fetch(`${url}/ilp/meta-agent/insight`, { method: 'POST', headers: { 'ILP-Method': 'THINK', Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', 'Constitutional-Header': JSON.stringify({ domain: 'meta', depth: 0, budget_usd: 0, max_budget_usd: 0.5 }) }, body: JSON.stringify({ query: 'q' }) });
    expect(res.status).toBeLessThan(500);
    expect(said['honest']!.status).toBe(200);
    for (const [name, field] of [['depthBelowRecorded', 'depth'], ['maxDepthRaised', 'max_depth'], ['budgetAboveParent', 'max_budget_usd'], ['spentUnderstated', 'budget_usd'], ['loopsSwitchedOff', 'detect_loops']] as const) {
      expect([name, said[name]!.status]).toEqual([name, 400]);
      expect(said[name]!.text).toContain(`Constitutional-Header.${field}`);
    }
    // The honest hop ran inside the composition: it is one of its recorded hops.
    expect(composition.completed.at(-1)!.hops.map((h) => h.agent)).toContain('biology-agent');
  });
});
