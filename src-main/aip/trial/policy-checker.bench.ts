// Policy drafts checked off the event loop (docs/policy-editor.md, Limits): for drafts of 10 KB to
// the 256 KiB cap, the longest the runtime's loop stalls while the worker checks them (DESIGN
// invariant 11: under 50 ms) beside what the same check costs on the loop and the floor of parsing
// the YAML alone. A 1 MiB draft is refused by its size (one byte count) and never parsed.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseDocument } from 'yaml';
import { report } from '../../testing/bench.js';
import { MAX_POLICY_BYTES } from '../policy/load.js';
import { PolicyChecker } from './policy-checker.js';
import { validatePolicyDraft } from './validate-draft.js';

function draftOf(bytes: number): string {
  const lines = ['apiVersion: aip.io/v1alpha2', 'kind: AgentPolicy', 'metadata:', '  name: bench', 'spec:', '  mode: enforce', '  allowed_tools:'];
  const rules = ['  tool_rules:'];
  let size = lines.join('\n').length;
  for (let i = 0; size < bytes * 0.98; i += 1) {
    const tool = `    - tool_${i}`;
    const rule = [`    - tool: tool_${i}`, `      action: ${i % 3 === 0 ? 'ask' : 'allow'}`, '      allow_args:', `        path: "^/srv/data/${i}/[a-z0-9_./-]+$"`];
    const added = tool.length + rule.join('\n').length + 2 * rule.length;
    if (size + added > bytes) break;
    lines.push(tool);
    rules.push(...rule);
    size += added;
  }
  return `${[...lines, ...rules].join('\n')}\n`;
}

const time = (fn: () => unknown): number => {
  const start = performance.now();
  fn();
  return performance.now() - start;
};

const checker = new PolicyChecker();
await checker.validate(draftOf(2_000)); // the worker's start (and tsx's, from sources) is not measured
for (const size of [10_000, 64_000, MAX_POLICY_BYTES - 512]) {
  const text = draftOf(size);
  const bytes = Buffer.byteLength(text);
  // Off the loop first, so the garbage of the on-loop runs below is not collected during it.
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const start = performance.now();
  const result = await checker.validate(text);
  const wall = performance.now() - start;
  histogram.disable();
  const floor = Math.min(...[0, 1, 2].map(() => time(() => parseDocument(text))));
  const onLoop = Math.min(...[0, 1, 2].map(() => time(() => validatePolicyDraft(text))));
  if (!result.ok) throw new Error(`the bench draft of ${bytes} bytes does not load: ${result.diagnostics[0]?.message}`);
  report(`policy.validate_off_loop_${Math.round(size / 1000)}kb.loop_max_stall`, 'ms', histogram.max / 1e6, { bytes, wall_ms: Number(wall.toFixed(1)), on_loop_ms: Number(onLoop.toFixed(1)), floor_yaml_parse_ms: Number(floor.toFixed(1)), target_ms: 50 });
}
const huge = 'x'.repeat(1024 * 1024);
const refusedStart = performance.now();
const refused = await checker.validate(huge);
report('policy.validate_1mib_refused', 'ms', performance.now() - refusedStart, { refused: !refused.ok, cap_bytes: MAX_POLICY_BYTES });
await checker.close();
