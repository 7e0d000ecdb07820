// The policy editor's benchmarks (docs/policy-editor.md). (1) Validation latency of a 500-line
// policy as it is typed: the real loader (YAML, schema, every check) on 200 successive edits,
// p50/p99, beside the floor of parsing the same YAML alone. (2) Replaying recorded calls against a
// draft: 1,000, 10,000 and 100,000 calls, beside the floor of JSON-parsing their ledger records.
import { homedir } from 'node:os';
import { parseDocument } from 'yaml';
import { loadPolicyText } from '../policy/load.js';
import { report } from '../../testing/bench.js';
import { replay, type RecordedCall } from './trial.js';

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

/** A realistic policy of about `lines` lines: tool rules with argument checks, protected paths, DLP. */
function policyOfLines(lines: number, edit: number): string {
  const head = [
    'apiVersion: aip.io/v1alpha2',
    'kind: AgentPolicy',
    'metadata:',
    `  name: bench-${edit}`,
    '  version: "1.0.0"',
    'spec:',
    '  mode: enforce',
    '  allowed_tools:',
  ];
  const tools: string[] = [];
  const rules: string[] = ['  tool_rules:'];
  const paths: string[] = ['  protected_paths:'];
  const dlp: string[] = ['  dlp:', '    patterns:'];
  let i = 0;
  while (head.length + tools.length + rules.length + paths.length + dlp.length < lines) {
    tools.push(`    - tool_${i}`);
    rules.push(`    - tool: tool_${i}`, `      action: ${i % 3 === 0 ? 'ask' : 'allow'}`, '      allow_args:', `        path: "^/srv/data/${i}/[a-z0-9_./-]+$"`);
    if (i % 4 === 0) rules.push('      rate_limit: "30/minute"');
    paths.push(`    - ~/.secrets-${i}`);
    dlp.push(`      - name: token_${i}`, `        regex: "tok${i}_[A-Za-z0-9]{24}"`);
    i += 1;
  }
  return [...head, ...tools, ...rules, ...paths, ...dlp, ''].join('\n');
}

function validation(lines: number): void {
  const texts = Array.from({ length: 201 }, (_, edit) => policyOfLines(lines, edit));
  const lineCount = texts[0]!.split('\n').length;
  const first = loadPolicyText(texts[0]!);
  if (!first.ok) throw new Error(`the bench policy does not load: ${first.errors[0]!.message}`);
  const loads: number[] = [];
  const parses: number[] = [];
  for (const text of texts) {
    let start = performance.now();
    const loaded = loadPolicyText(text);
    loads.push(performance.now() - start);
    if (!loaded.ok) throw new Error('an edit does not load');
    start = performance.now();
    parseDocument(text);
    parses.push(performance.now() - start);
  }
  loads.sort((a, b) => a - b);
  parses.sort((a, b) => a - b);
  const extra = { lines: lineCount, edits: texts.length, floor_yaml_parse_p50_ms: Number(percentile(parses, 0.5).toFixed(3)), ...(lines === 500 ? { target_p50_ms: 20 } : {}) };
  report(`policy.validate_${lines}_lines.p50`, 'ms', percentile(loads, 0.5), extra);
  report(`policy.validate_${lines}_lines.p99`, 'ms', percentile(loads, 0.99), extra);
}

function replays(): void {
  const current = loadPolicyText(policyOfLines(500, 0));
  const draft = loadPolicyText(policyOfLines(500, 1).replace('action: allow', 'action: ask'));
  if (!current.ok || !draft.ok) throw new Error('the bench policies do not load');
  for (const count of [1_000, 10_000, 100_000]) {
    const records = Array.from({ length: count }, (_, i) =>
      JSON.stringify({ direction: 'upstream', decision: 'ALLOW', method: 'tools/call', tool: `tool_${i % 120}`, args: { path: `/srv/data/${i % 120}/file-${i}.txt` }, server: 'bench' }),
    );
    const start = performance.now();
    const calls: RecordedCall[] = records.map((record, index) => {
      const data = JSON.parse(record) as { tool: string; args: Record<string, unknown>; decision: string };
      return { index, ts: '2026-01-01T00:00:00.000Z', server: 'bench', tool: data.tool, args: data.args, recorded: data.decision };
    });
    const floor = performance.now() - start;
    const replayStart = performance.now();
    const results = replay(calls, draft.policy, current.policy, { homeDir: homedir(), cwd: process.cwd() });
    const took = performance.now() - replayStart;
    if (results.length !== count) throw new Error('replay lost calls');
    report(`policy.replay_${count}`, 'ms', took, { calls: count, changed: results.filter((r) => r.changed).length, floor_json_parse_ms: Number(floor.toFixed(2)), ...(count === 10_000 ? { target_ms: 1000 } : {}) });
  }
}

for (const lines of [50, 500, 5_000]) validation(lines);
replays();
