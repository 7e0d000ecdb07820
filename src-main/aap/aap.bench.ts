// AAP's benchmarks (docs/aap.md "Conformance and benchmarks"), ours beside the published SDK
// (@mnemom/agent-alignment-protocol 2.0.0) on the same cards and traces in one run: verifications
// per second (ours computes the §7.4 similarity score too, the SDK does not), drift over 10, 100
// and 1,000 traces, and the cost per trace of our incremental drift monitor once its baseline is
// fixed (target ≥ 100,000 traces/s) at 10k, 100k and 1M traces of history; verification with 1 KB
// to 4 MB of arguments. Each figure beside the floor of JSON-parsing the same traces in the same
// run. The card's conditions use only the three shapes the SDK parses, so both evaluate every
// trigger (the SDK logs a warning per evaluation of any other). The SDK takes its "unified" card
// shape, so the same card is handed to it with `autonomy_envelope` and `audit_commitment` renamed
// to `autonomy` and `audit` (the SDK documents the rename).
import * as sdk from '@mnemom/agent-alignment-protocol';
import { AlignmentCard } from '../../src-shared/aap/card.js';
import { ApTrace } from '../../src-shared/aap/trace.js';
import { medianUs, opsPerSecond, report } from '../testing/bench.js';
import { compileAlignmentCard } from './card.js';
import { detectDrift } from './drift.js';
import { DriftMonitor } from './drift-monitor.js';
import { verifyTrace } from './verify.js';

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const card = AlignmentCard.parse({
  aap_version: '0.1.0',
  card_id: 'ac-bench-001',
  agent_id: 'agent-bench',
  issued_at: '2026-01-01T00:00:00Z',
  principal: { type: 'human', relationship: 'delegated_authority' },
  values: { declared: ['principal_benefit', 'transparency', 'harm_prevention', 'user_control', 'privacy'], conflicts_with: ['profit_maximization'] },
  autonomy_envelope: {
    bounded_actions: ['search', 'compare', 'recommend', 'summarize', 'read_file', 'list_directory'],
    escalation_triggers: [
      { condition: 'amount > 100', action: 'escalate', reason: 'High-value action' },
      { condition: 'shares_personal_data', action: 'escalate', reason: 'Consent' },
      { condition: 'action_type == "purchase"', action: 'deny', reason: 'No purchases' },
    ],
    max_autonomous_value: { amount: 250, currency: 'USD' },
    forbidden_actions: ['delete_file', 'share_credentials', 'auto_purchase'],
  },
  audit_commitment: { retention_days: 90, queryable: true, query_endpoint: 'https://agent.example/traces' },
});

const NAMES = ['search', 'compare', 'recommend', 'summarize', 'read_file', 'list_directory', 'delete_file', 'purchase'];
const VALUES = ['principal_benefit', 'transparency', 'harm_prevention', 'user_control', 'privacy', 'efficiency', 'profit_maximization'];

function traces(count: number, seed: number): ApTrace[] {
  const next = random(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  return Array.from({ length: count }, (_, i) => {
    const name = pick(NAMES);
    const required = next() < 0.3;
    return ApTrace.parse({
      trace_id: `tr-bench-${seed}-${i}`,
      agent_id: 'agent-bench',
      card_id: 'ac-bench-001',
      timestamp: new Date(Date.UTC(2026, 1, 1) + i * 60_000).toISOString(),
      action: {
        type: pick(['recommend', 'execute', 'execute', 'deny'] as const),
        name,
        category: name === 'delete_file' ? 'forbidden' : name === 'purchase' ? 'escalation_trigger' : 'bounded',
        parameters: { amount: Math.round(next() * 40000) / 100, path: next() < 0.1 ? '/etc/passwd' : '/home/user/notes.txt', shares_personal_data: next() < 0.1 },
      },
      decision: {
        alternatives_considered: [
          { option_id: 'a', description: 'first option', score: Math.round(next() * 100) / 100 },
          { option_id: 'b', description: 'second option', score: Math.round(next() * 100) / 100 },
        ],
        selected: 'a',
        selection_reasoning: 'Chosen for principal_benefit and transparency.',
        values_applied: [pick(VALUES), pick(VALUES)],
        confidence: Math.round(next() * 100) / 100,
      },
      escalation: { evaluated: true, required, reason: required ? 'Trigger matched' : 'No trigger', ...(required ? { escalation_status: 'approved' } : {}) },
    });
  });
}

const { autonomy_envelope: autonomy, audit_commitment: audit, ...rest } = card;
const sdkCard = { ...rest, autonomy, audit } as unknown as Parameters<typeof sdk.verifyTrace>[1];
const asSdk = (list: ApTrace[]) => list as unknown as Parameters<typeof sdk.verifyTrace>[0][];
const compiled = compileAlignmentCard(card);
if (!compiled.ok) throw new Error('the bench card does not compile');

function verification(): void {
  const sample = traces(1000, 1);
  const sdkSample = asSdk(sample);
  const now = new Date('2026-03-01T00:00:00Z');
  let i = 0;
  const ours = opsPerSecond(() => verifyTrace(sample[i++ % sample.length]!, compiled.ok ? compiled.compiled : (undefined as never), { now }), 1500);
  let j = 0;
  const theirs = opsPerSecond(() => sdk.verifyTrace(sdkSample[j++ % sdkSample.length]!, sdkCard), 1500);
  let k = 0;
  const withCompile = opsPerSecond(() => {
    const fresh = compileAlignmentCard(card);
    if (fresh.ok) verifyTrace(sample[k++ % sample.length]!, fresh.compiled, { now });
  }, 1500);
  // Floor: reading the same traces' JSON, which any verifier of a received trace must do.
  const texts = sample.map((trace) => JSON.stringify(trace));
  let f = 0;
  const floor = opsPerSecond(() => JSON.parse(texts[f++ % texts.length]!), 1000);
  report('aap.verify_per_second.ours', 'ops/s', ours.opsPerSec, {
    includes_similarity: true,
    distinct_traces: sample.length,
    ratio_vs_sdk: Number((ours.opsPerSec / theirs.opsPerSec).toFixed(2)),
    floor_json_parse_per_s: Math.round(floor.opsPerSec),
  });
  report('aap.verify_per_second.sdk', 'ops/s', theirs.opsPerSec, { includes_similarity: false, sdk: '@mnemom/agent-alignment-protocol@2.0.0' });
  report('aap.verify_per_second.ours_compiling_card_each_time', 'ops/s', withCompile.opsPerSec, { note: 'card schema check, condition compilation and card features on every call' });
}

/** Verification does not read the action's parameters beyond the fields conditions name: its cost stays flat from 1 KB to 4 MB of arguments. */
function verificationBySize(): void {
  const now = new Date('2026-03-01T00:00:00Z');
  for (const bytes of [1024, 64 * 1024, 4 * 1024 * 1024]) {
    const [base] = traces(1, 4);
    const trace = ApTrace.parse({ ...base!, action: { ...base!.action, parameters: { ...base!.action.parameters, content: 'x'.repeat(bytes) } } });
    const text = JSON.stringify(trace);
    const us = medianUs(() => verifyTrace(trace, compiled.ok ? compiled.compiled : (undefined as never), { now }), 200);
    const floorUs = medianUs(() => JSON.parse(text), 20);
    report(`aap.verify_us.args_${bytes}`, 'us', us, { argument_bytes: bytes, floor_json_parse_us: Number(floorUs.toFixed(1)) });
  }
}

function drift(): void {
  for (const count of [10, 100, 1000]) {
    const sample = traces(count, 2);
    const sdkSample = asSdk(sample);
    const ours = opsPerSecond(() => detectDrift(card, sample), 1000);
    const theirs = opsPerSecond(() => sdk.detectDrift(sdkCard, sdkSample), 1000);
    const text = JSON.stringify(sample);
    const floor = opsPerSecond(() => JSON.parse(text), 500);
    report(`aap.drift_${count}.ours`, 'ms', 1000 / ours.opsPerSec, {
      traces: count,
      ratio_sdk_time_over_ours: Number((ours.opsPerSec / theirs.opsPerSec).toFixed(2)),
      floor_json_parse_ms: Number((1000 / floor.opsPerSec).toPrecision(4)),
    });
    report(`aap.drift_${count}.sdk`, 'ms', 1000 / theirs.opsPerSec, { traces: count, sdk: '@mnemom/agent-alignment-protocol@2.0.0' });
  }
}

/** The monitor's cost per trace at 10k, 100k and 1M traces of history: it must not grow with the history. */
function incremental(): void {
  const sample = traces(10_000, 3);
  const texts = sample.map((trace) => JSON.stringify(trace));
  let f = 0;
  const floor = opsPerSecond(() => JSON.parse(texts[f++ % texts.length]!), 1000);
  const monitor = new DriftMonitor(card, { baselineSize: 10 });
  for (const trace of sample.slice(0, 10)) monitor.observe(trace);
  let alerts = 0;
  let seen = 0;
  for (const upTo of [10_000, 100_000, 1_000_000]) {
    const count = upTo - seen;
    const start = performance.now();
    for (let i = 0; i < count; i += 1) if (monitor.observe(sample[10 + ((seen + i) % (sample.length - 10))]!).alert) alerts += 1;
    const seconds = (performance.now() - start) / 1000;
    seen = upTo;
    report(`aap.drift_incremental_at_${upTo}`, 'traces/s', count / seconds, {
      history: upTo,
      us_per_trace: Number(((seconds * 1e6) / count).toFixed(3)),
      alerts,
      floor_json_parse_per_s: Math.round(floor.opsPerSec),
      target_traces_per_s: 100_000,
    });
  }
}

verification();
verificationBySize();
drift();
incremental();
