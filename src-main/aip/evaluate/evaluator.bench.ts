import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { collectSuiteFiles, readSuite } from '../conformance/vectors.js';
import { loadPolicyText } from '../policy/load.js';
import { report } from '../../testing/bench.js';
import { PolicyEvaluator, type EvaluationInput } from './evaluator.js';
import { ProtectedPathMatcher } from './protected-paths.js';
import { ToolRateLimiter } from './rate-limiter.js';

// Decisions per second and per-decision latency (p50/p99), measured in one process so the
// two workloads are comparable on a shared, noisy machine.

function measure(name: string, pairs: readonly { evaluator: PolicyEvaluator; input: EvaluationInput }[], rounds: number, extra: Record<string, unknown>): void {
  for (let i = 0; i < 2000; i += 1) pairs[i % pairs.length]!.evaluator.evaluate(pairs[i % pairs.length]!.input);
  const samples = new Float64Array(rounds);
  const start = performance.now();
  for (let i = 0; i < rounds; i += 1) {
    const pair = pairs[i % pairs.length]!;
    const t0 = performance.now();
    pair.evaluator.evaluate(pair.input);
    samples[i] = performance.now() - t0;
  }
  const seconds = (performance.now() - start) / 1000;
  samples.sort();
  report(`aip.evaluate.${name}.throughput`, 'decisions/s', rounds / seconds, extra);
  report(`aip.evaluate.${name}.p50`, 'µs', samples[Math.floor(rounds * 0.5)]! * 1000, extra);
  report(`aip.evaluate.${name}.p99`, 'µs', samples[Math.floor(rounds * 0.99)]! * 1000, extra);
}

function unwrap(text: string) {
  const loaded = loadPolicyText(text);
  if (!loaded.ok) throw new Error(`bench policy did not load: ${JSON.stringify(loaded.errors)}`);
  return loaded.policy;
}

// (a) The conformance policies with their own inputs.
const vectorsDir = fileURLToPath(new URL('../../../../shared/conformance/aip/', import.meta.url));
const pairs: { evaluator: PolicyEvaluator; input: EvaluationInput }[] = [];
for (const file of collectSuiteFiles([`${vectorsDir}basic`, `${vectorsDir}full`])) {
  for (const vector of readSuite(file, vectorsDir).tests) {
    if (!vector.policy || vector.input.type) continue;
    const policy = unwrap(vector.policy);
    const evaluator = new PolicyEvaluator(policy, {
      protectedPaths: new ProtectedPathMatcher(policy.protectedPaths, { homeDir: homedir(), cwd: process.cwd() }),
      rateLimiter: new ToolRateLimiter(() => 0),
    });
    pairs.push({ evaluator, input: { method: String(vector.input.method), tool: vector.input.tool as string | undefined, args: vector.input.args ?? {} } });
  }
}
measure('conformance', pairs, 200_000, { policies: pairs.length });

// (b) A 40-rule policy with 10 argument regexes and 5 protected paths.
const rules: string[] = [];
for (let i = 0; i < 40; i += 1) {
  if (i < 10) rules.push(`  - tool: tool_${i}\n    action: allow\n    allow_args:\n      target: "^(/srv/data|/home/user/projects)/[a-z0-9_./-]{1,200}$"`);
  else if (i < 30) rules.push(`  - tool: tool_${i}\n    action: allow`);
  else if (i < 35) rules.push(`  - tool: tool_${i}\n    action: block`);
  else rules.push(`  - tool: tool_${i}\n    action: ask`);
}
const bigPolicy = unwrap(`apiVersion: aip.io/v1alpha2
kind: AgentPolicy
metadata:
  name: bench-40
spec:
  allowed_tools: [${Array.from({ length: 30 }, (_, i) => `tool_${i}`).join(', ')}]
  protected_paths: ["~/.ssh", "~/.aws/credentials", "~/.config/gcloud", "/etc/shadow", ".env"]
  tool_rules:
${rules.join('\n')}
`);
const big = new PolicyEvaluator(bigPolicy, {
  protectedPaths: new ProtectedPathMatcher(bigPolicy.protectedPaths, { homeDir: homedir(), cwd: process.cwd() }),
  rateLimiter: new ToolRateLimiter(() => 0),
});
const inputs: EvaluationInput[] = [];
for (let i = 0; i < 40; i += 1) {
  inputs.push({ method: 'tools/call', tool: `tool_${i}`, args: { target: `/srv/data/reports/q${i}.csv`, mode: 'read', limit: 100 } });
}
inputs.push({ method: 'tools/call', tool: 'tool_3', args: { target: '/home/user/projects/../../../etc/passwd' } });
inputs.push({ method: 'tools/list' });
measure('rules40', inputs.map((input) => ({ evaluator: big, input })), 300_000, { rules: 40, arg_regexes: 10, protected_paths: 5 });
