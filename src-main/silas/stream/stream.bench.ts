// The Stream's benchmarks (docs/silas/stream.md):
// 1. Turn overhead excluding the model: a direct turn through every §5.1 step with an in-process
//    model that answers at once, p50/p99, with 1,000 chronicle items and 10,000 (then 100,000), then 100,000 chronicle items
//    memory items in the scope, beside its floor: a JSON.parse of the same model answer.
// 2. Time to the first streamed token added by the runtime: from `stream.send` to the first
//    `draft` event, against the provider's own time to its first text through the same client and
//    the same scripted OpenAI-compatible server (streamed over HTTP on 127.0.0.1).
// Prompt render time at 128k tokens is context.bench.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StreamEvent, StreamOpenResult } from '../../../src-shared/schemas/stream.js';
import { composeStream } from '../../app/compose-stream.js';
import { openHome } from '../../app/home.js';
import { EventBus } from '../../control/event-bus.js';
import { MemorySecretStore } from '../../keys/secret-store.js';
import { createModelClient } from '../../llm/ai-sdk-client.js';
import type { ModelClient, ModelStreamEvent } from '../../llm/model-client.js';
import { ChronicleRepository } from '../../store/repositories/chronicle.js';
import { chronicleSealer, memorySealer } from '../memory/memory-seals.js';
import { MemoryRepository } from '../../store/repositories/memory.js';
import { report } from '../../testing/bench.js';
import { directRoute, startStreamHarness, streamedJson } from './testing/stream.js';
import type { StreamModels } from './stream-models.js';

const ANSWER = JSON.stringify(directRoute('Done. The build passed and the report is in the workspace.'));
const WORDS = 'build deploy module payment auth token validate middleware request response error retry config schema user agent plan step verify sandbox'.split(' ');

/** A model that answers at once: the answer in three pieces, then `finish`. */
function instantClient(): ModelClient {
  return {
    role: 'proxy',
    provider: 'openai-compatible',
    model: 'instant',
    async *streamText(): AsyncGenerator<ModelStreamEvent> {
      const third = Math.ceil(ANSWER.length / 3);
      for (let i = 0; i < ANSWER.length; i += third) yield { type: 'text-delta', text: ANSWER.slice(i, i + third) };
      yield { type: 'finish', finishReason: 'stop', usage: { inputTokens: 500, outputTokens: 40 }, costUsd: null };
    },
    generateObject: () => Promise.reject(new Error('not used')),
  };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

function sentence(seed: number): string {
  const out: string[] = [];
  let state = seed;
  for (let i = 0; i < 24; i += 1) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    out.push(WORDS[state % WORDS.length]!);
  }
  return out.join(' ');
}

async function turnOverhead(memoryItems: number, chronicleItems = 1_000): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'silas-stream-bench-'));
  const store = new MemorySecretStore();
  const ledger = openHome(home, { create: true, keys: 'signer', secretStore: store });
  try {
    const client = instantClient();
    const models: StreamModels = { client: () => Promise.resolve({ ok: true, client, config: { provider: 'openai-compatible', model: 'instant', baseUrl: 'http://127.0.0.1:1/v1', timeoutMs: 1000, maxRetries: 0 } }), status: () => ({ ready: true, problem: null, roles: [] }) };
    const events = new EventBus();
    const finished: StreamEvent[] = [];
    let onFinished: (() => void) | null = null;
    events.subscribe((_name, payload) => {
      if ((payload as StreamEvent).type === 'turn_finished') {
        finished.push(payload as StreamEvent);
        onFinished?.();
      }
    }, 'session-bench');
    const { stream } = composeStream({
      home,
      db: ledger.db,
      audit: ledger.audit,
      events,
      signer: ledger.signer!,
      trustedKeys: () => ledger.trustedKeys(),
      secretStore: store,
      seals: ledger.seals,
      decisions: { ask: () => Promise.resolve({ outcome: 'deny', reason: 'bench' }) },
      planKind: {} as never,
      models,
    });
    const caller = { session: 'session-bench', transport: 'websocket' as const };
    const opened: StreamOpenResult = stream.open({}, caller);
    const chronicle = new ChronicleRepository(ledger.db, chronicleSealer(ledger.seals));
    const memory = new MemoryRepository(ledger.db, memorySealer(ledger.seals));
    for (let i = 0; i < chronicleItems; i += 1) {
      chronicle.append(opened.scope, { ctx_id: `c${i}`, zone: 'chronicle', kind: 'message', source: 'channel:cockpit', taint: 'auth', content: `[auth] cockpit: ${sentence(i)}`, token_count: 40, turn_number: i, created_at: new Date().toISOString(), relevance: 1, masked: false, pinned: false });
    }
    for (let i = 0; i < memoryItems; i += 1000) {
      memory.ingestRaw(opened.scope, Array.from({ length: 1000 }, (_, j) => ({ content: sentence(i + j + 7), taint: 'auth' as const, source_kind: 'conversation_raw', token_count: 30 })));
    }
    // A new session picks the scope up as after a restart: its chronicle is rehydrated.
    const resumed = stream.open({ resume: { scope: opened.scope, key: opened.key } }, caller);
    const turn = async (i: number) => {
      const done = new Promise<void>((resolve) => (onFinished = resolve));
      const start = performance.now();
      stream.send({ scope: resumed.scope, text: `please check the ${WORDS[i % WORDS.length]} step of the deploy plan` }, caller);
      await done;
      return performance.now() - start;
    };
    for (let i = 0; i < 30; i += 1) await turn(i);
    const times: number[] = [];
    for (let i = 0; i < 300; i += 1) times.push(await turn(i));
    times.sort((a, b) => a - b);
    const parseStart = performance.now();
    for (let i = 0; i < 10_000; i += 1) JSON.parse(ANSWER);
    const parseUs = ((performance.now() - parseStart) / 10_000) * 1000;
    const extra = { chronicle_items: chronicleItems, memory_items: memoryItems, floor_json_parse_us: Number(parseUs.toFixed(2)), target_p50_ms: 5 };
    report('stream.turn_overhead.p50', 'ms', percentile(times, 0.5), extra);
    report('stream.turn_overhead.p99', 'ms', percentile(times, 0.99), extra);
    if (finished.some((event) => event.type === 'turn_finished' && event.outcome !== 'answered')) throw new Error('a benchmark turn did not answer');
    await stream.stop();
  } finally {
    ledger.close();
    rmSync(home, { recursive: true, force: true });
  }
}

async function firstTokenOverhead(): Promise<void> {
  const home = join(mkdtempSync(join(tmpdir(), 'silas-stream-bench-')), 'home');
  const h = await startStreamHarness(home);
  try {
    const reply = () => streamedJson({ response: { message: 'Hello there, this is the answer.' }, route: 'direct', reason: 'r', interaction_register: 'status', interaction_mode: 'default_and_offer', continuation_of: null, context_profile: 'conversation' }, undefined, 28);
    // The provider's own time to its first text, through the same client and server.
    const client = createModelClient('proxy', { provider: 'openai-compatible', model: 'scripted-model', baseUrl: h.server.baseUrl, timeoutMs: 10_000, maxRetries: 0 }, { secrets: { get: () => null, description: 'none', releasable: () => ({ ok: true }) } });
    const providerFirst = async () => {
      h.server.http.enqueue(reply());
      const start = performance.now();
      let first = -1;
      for await (const event of client.streamText({ system: 's', messages: [{ role: 'user', content: 'hi' }] })) if (first < 0 && event.type === 'text-delta') first = performance.now() - start;
      return first;
    };
    const conn = h.connect('session-bench');
    const { scope } = await conn.ok<StreamOpenResult>('stream.open', {});
    const streamFirst = async () => {
      h.server.http.enqueue(reply());
      const before = conn.events.length;
      const start = performance.now();
      const { turn_id } = await conn.ok<{ turn_id: string }>('stream.send', { scope, text: 'hello' });
      let first = -1;
      while (first < 0) {
        const draft = conn.events.slice(before).find((event) => event.type === 'draft');
        if (draft) first = performance.now() - start;
        else await new Promise<void>((resolve) => setImmediate(resolve));
      }
      await conn.turn(turn_id);
      return first;
    };
    for (let i = 0; i < 10; i += 1) {
      await providerFirst();
      await streamFirst();
    }
    const provider: number[] = [];
    const runtime: number[] = [];
    for (let i = 0; i < 100; i += 1) {
      provider.push(await providerFirst());
      runtime.push(await streamFirst());
    }
    provider.sort((a, b) => a - b);
    runtime.sort((a, b) => a - b);
    const p50 = percentile(runtime, 0.5) - percentile(provider, 0.5);
    report('stream.first_token_overhead.p50', 'ms', p50, { runtime_first_token_p50_ms: percentile(runtime, 0.5), provider_first_token_p50_ms: percentile(provider, 0.5), target_ms: 10 });
    report('stream.first_token_overhead.p99', 'ms', percentile(runtime, 0.99) - percentile(provider, 0.99), { runtime_first_token_p99_ms: percentile(runtime, 0.99), provider_first_token_p99_ms: percentile(provider, 0.99) });
  } finally {
    await h.close();
    rmSync(join(home, '..'), { recursive: true, force: true });
  }
}

await turnOverhead(10_000);
await turnOverhead(100_000);
// The chronicle axis: rehydration reads the last 50 entries by key, whatever the scope holds.
await turnOverhead(10_000, 100_000);
await firstTokenOverhead();

