import { opsPerSecond, report } from '../../testing/bench.js';
import { enforceConstitution, type AgentResponse } from './enforce.js';
import { checkConstitutionalHeader } from './header.js';
import { compilePrinciples } from './custom-principles.js';

/*
 * The constitutional enforcer (docs/ilp.md): decisions per second on an agent's response whose
 * answer grows from 1 KB to 64 KB (the word checks read all of it), beside the JSON.parse of the
 * same response: the least a hop that receives it pays. Target: 200,000 checks/s at 1 KB.
 * Run: node --import tsx src-main/ilp/constitution/enforce.bench.ts
 */

const TARGET = 200_000;
const checked = checkConstitutionalHeader({ domain: 'finance', depth: 2, budget_usd: 0.01, max_depth: 5, max_budget_usd: 1 });
if (!checked.ok) throw new Error(checked.message);
const header = checked.header;
const context = { depth: 2, invocations: 3, cost_usd: 0.02, previous_agents: ['meta', 'finance', 'biology'], agent: 'systems' };
/** `count` of the owner's principles, alternately word lists and patterns, none matching the answers. */
const ownerPrinciples = (count: number) =>
  compilePrinciples(
    Array.from({ length: count }, (_, i) => (i % 2 === 0 ? { id: `words_${i}`, description: 'no promises', severity: 'error' as const, forbidden_words: [`guaranteed${i}`, `risk-free${i}`, `cannot lose${i}`] } : { id: `pattern_${i}`, description: 'no rates', severity: 'warning' as const, forbidden_pattern: `\\b${i}[0-9]% (?:a|per) year` })),
  );
const OWNER_PRINCIPLES = ownerPrinciples(10);
const SENTENCE = 'A monthly budget behaves like a thermostat: spending above the set point is corrected in the next period. ';

for (const [label, bytes] of [['1kb', 1024], ['16kb', 16 * 1024], ['64kb', 64 * 1024]] as const) {
  const response: AgentResponse = {
    answer: SENTENCE.repeat(Math.ceil(bytes / SENTENCE.length)).slice(0, bytes),
    concepts: ['homeostasis', 'feedback_loop'],
    confidence: 0.86,
    reasoning: 'Combined budgeting practice with the control-loop view of a set point and a correction.',
    cost_usd: 0.004,
    sources: ['finance/budgeting'],
  };
  const json = JSON.stringify(response);
  const checks = opsPerSecond(() => enforceConstitution(header, response, context), 1000).opsPerSec;
  const floor = opsPerSecond(() => JSON.parse(json), 1000).opsPerSec;
  report(`ilp.enforcer.checks_${label}`, 'checks/s', checks, { answer_bytes: bytes, floor_json_parse: Math.round(floor), ratio_to_floor: Number((floor / checks).toFixed(2)), target: TARGET });
  // With the owner's principles of HOME/ilp.yaml (docs/ilp.md "Configuration"): ten word lists and patterns that match nothing, so each reads the whole answer.
  const withPrinciples = opsPerSecond(() => enforceConstitution(header, response, context, { principles: OWNER_PRINCIPLES }), 1000).opsPerSec;
  report(`ilp.enforcer.checks_${label}_with_10_principles`, 'checks/s', withPrinciples, { answer_bytes: bytes, floor_json_parse: Math.round(floor), floor_without_principles: Math.round(checks), ratio_to_floor: Number((floor / withPrinciples).toFixed(2)), target: TARGET });
}

// How the cost grows with the number of the owner's principles, at 1 KB.
{
  const response: AgentResponse = { answer: SENTENCE.repeat(Math.ceil(1024 / SENTENCE.length)).slice(0, 1024), concepts: ['homeostasis'], confidence: 0.86, reasoning: 'Combined budgeting practice with the control-loop view of a set point and a correction.', cost_usd: 0.004, sources: ['finance/budgeting'] };
  const floor = opsPerSecond(() => enforceConstitution(header, response, context), 1000).opsPerSec;
  for (const count of [1, 10, 50]) {
    const principles = ownerPrinciples(count);
    const checks = opsPerSecond(() => enforceConstitution(header, response, context, { principles }), 1000).opsPerSec;
    report(`ilp.enforcer.checks_1kb_principles_${count}`, 'checks/s', checks, { principles: count, floor_without_principles: Math.round(floor), ratio_to_floor: Number((floor / checks).toFixed(2)) });
  }
}
