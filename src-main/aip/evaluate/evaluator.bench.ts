import { lstatSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectSuiteFiles, readSuite } from '../conformance/vectors.js';
import { loadPolicyText } from '../policy/load.js';
import { medianUs, report } from '../../testing/bench.js';
import { PolicyEvaluator, type EvaluationInput } from './evaluator.js';
import { benchProject, shellCommandArgs, sourceFileArgs } from './protected-paths/testing/bench.js';
import { ProtectedPathMatcher } from './protected-paths/index.js';
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

// (c) The full decision for one large call, from 1 KB to 4 MB of arguments (docs/protected-paths.md
// "Cost and file-system lookups"), beside its floor measured in the same run: a JSON parse +
// stringify of the same JSON-RPC message (what any proxy that reads the message pays). The real
// filesystem, a project directory as cwd, and the tool that would carry each shape. Read the growth
// off ns_per_char.
const { dir: sizedDir, home, project } = benchProject('silas-bench-decision-');
try {
  const sizedPolicy = unwrap(`apiVersion: aip.io/v1alpha2
kind: AgentPolicy
metadata:
  name: bench-sized
spec:
  allowed_tools: [write_file, run_command]
  protected_paths: ["~/.ssh", "~/.aws/credentials", ".env", "~/.gnupg", "~/.config/gh/hosts.yml"]
  tool_rules:
    - tool: write_file
      action: allow
    - tool: run_command
      action: allow
`);
  const matcher = new ProtectedPathMatcher(sizedPolicy.protectedPaths, { homeDir: home, cwd: project });
  const evaluator = new PolicyEvaluator(sizedPolicy, { protectedPaths: matcher, rateLimiter: new ToolRateLimiter(() => 0) });
  // The kernel's share: what one lookup costs here (an lstat of a name that exists and of one
  // that does not, the two kinds a decision makes), times the lookups the decision made.
  const missing = join(project, 'no-such-name');
  const lookupUs = (medianUs(() => lstatSync(project), 2001) + medianUs(() => lstatSync(missing, { throwIfNoEntry: false }), 2001)) / 2;
  const shapes: Record<string, { tool: string; make: (n: number) => unknown }> = {
    write_file_source: { tool: 'write_file', make: sourceFileArgs },
    run_command_shell: { tool: 'run_command', make: shellCommandArgs },
  };
  for (const [name, shape] of Object.entries(shapes)) {
    const unit = JSON.stringify(shape.make(1)).length;
    for (const [label, bytes] of [['1kb', 1_000], ['10kb', 10_000], ['100kb', 100_000], ['1mb', 1_000_000], ['4mb', 4_000_000]] as const) {
      const args = shape.make(Math.max(1, Math.round(bytes / unit)));
      const input: EvaluationInput = { method: 'tools/call', tool: shape.tool, args, requestId: 1 };
      const decision = evaluator.evaluate(input);
      if (decision.decision !== 'ALLOW') throw new Error(`benchmark decision ${name}_${label} was ${decision.decision}: ${decision.reason}`);
      const message = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: shape.tool, arguments: args } });
      const runs = bytes >= 1_000_000 ? 5 : bytes >= 100_000 ? 21 : 1001;
      // Warmed as a proxy's evaluator is after its first calls: a small decision measured in its
      // first few hundred runs is measured before V8 has optimised it.
      for (let i = 0, warm = bytes >= 100_000 ? 3 : 1000; i < warm; i += 1) evaluator.evaluate(input);
      const floorUs = medianUs(() => JSON.stringify(JSON.parse(message)), runs);
      const us = medianUs(() => evaluator.evaluate(input), runs);
      const lookups = matcher.lastLookups;
      report(`aip.evaluate.${name}_${label}`, 'us/decision', us, {
        chars: message.length,
        ns_per_char: (us * 1000) / message.length,
        floor_json_roundtrip_us: floorUs,
        ratio_to_floor: us / floorUs,
        target_ratio: 5,
        fs_lookups: lookups,
        fs_lookups_us: lookups * lookupUs,
        fs_lookups_ratio_to_floor: (lookups * lookupUs) / floorUs,
      });
    }
  }
} finally {
  rmSync(sizedDir, { recursive: true, force: true });
}
