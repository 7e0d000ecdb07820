import { report, opsPerSecond } from '../../testing/bench.js';
import { parseIlpMessage } from './parse.js';
import { serializeIlpMessage } from './serialize.js';
import type { IlpRequest } from './message.js';

/*
 * The ILP/1.0 codec (docs/ilp.md): parse and serialise of a THINK request whose body grows from
 * 1 KB to 4 MB (just under the 4 MiB a body may hold), in messages/s, each beside JSON.parse (for parse) and JSON.stringify (for
 * serialise) of the same body and header values in the same run: the floor any reader of JSON
 * messages pays. Target: the codec within 3× its floor.
 * Run: node --import tsx src-main/ilp/protocol/codec.bench.ts
 */

const TARGET_RATIO = 3;
const HEADER = { domain: 'finance', depth: 2, max_depth: 5, budget_usd: 0.015, max_budget_usd: 1, enforce_epistemic_honesty: true, confidence_threshold: 0.7, require_reasoning_trace: true, detect_loops: true, max_same_agent_consecutive: 2 };

/** A request whose insights (§7.1 context) fill about `bytes` of body. */
function request(bytes: number): IlpRequest {
  const insights: Record<string, { answer: string; concepts: string[]; confidence: number }> = {};
  let size = 0;
  for (let i = 0; size < bytes; i += 1) {
    const insight = { answer: `Agent ${i} found that budgets behave like feedback loops; spending above income is corrected by the next period. `.repeat(2), concepts: ['homeostasis', 'feedback_loop'], confidence: 0.8 };
    insights[`agent_${i}`] = insight;
    size += JSON.stringify(insight).length + 12;
  }
  return {
    kind: 'request',
    version: '1.0',
    method: 'THINK',
    path: '/insight',
    headers: [
      { name: 'Constitutional-Header', value: HEADER },
      { name: 'Attention-Enabled', value: true },
      { name: 'Content-Type', value: 'application/json' },
    ],
    body: { query: 'How can I optimize my budget?', context: { previous_agents: ['meta'], invocation_count: 1, cost_so_far: 0.005, insights } },
  };
}

for (const [label, bytes] of [['1kb', 1024], ['64kb', 64 * 1024], ['1mb', 1024 * 1024], ['4mb', 4_000_000]] as const) {
  const message = request(bytes);
  const wire = serializeIlpMessage(message);
  const parsed = parseIlpMessage(wire);
  if (!parsed.ok) throw new Error(`bench: the message did not parse: ${parsed.error.message}`);
  const body = JSON.stringify(message.body);
  const header = JSON.stringify(HEADER);
  const ms = bytes >= 1024 * 1024 ? 3000 : 1000;
  const parse = opsPerSecond(() => parseIlpMessage(wire), ms).opsPerSec;
  const parseFloor = opsPerSecond(() => {
    JSON.parse(header);
    JSON.parse(body);
  }, ms).opsPerSec;
  const write = opsPerSecond(() => serializeIlpMessage(message), ms).opsPerSec;
  const writeFloor = opsPerSecond(() => {
    JSON.stringify(HEADER);
    JSON.stringify(message.body);
  }, ms).opsPerSec;
  const extra = { message_bytes: Buffer.byteLength(wire, 'utf8'), target_ratio: TARGET_RATIO };
  report(`ilp.codec.parse_${label}`, 'messages/s', parse, { ...extra, floor_json_parse: Math.round(parseFloor), ratio_to_floor: Number((parseFloor / parse).toFixed(2)) });
  report(`ilp.codec.serialize_${label}`, 'messages/s', write, { ...extra, floor_json_stringify: Math.round(writeFloor), ratio_to_floor: Number((writeFloor / write).toFixed(2)) });
}
