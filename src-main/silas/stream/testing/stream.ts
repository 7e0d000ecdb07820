import { join } from 'node:path';
import type { CallName } from '../../../../src-shared/contract/calls.js';
import type { Envelope } from '../../../../src-shared/contract/envelope.js';
import type { ReviewQueueView } from '../../../../src-shared/schemas/review.js';
import type { StreamEvent } from '../../../../src-shared/schemas/stream.js';
import { openHome } from '../../../app/home.js';
import { silentLogger } from '../../../app/logger.js';
import { buildRuntime, type RuntimeOverrides } from '../../../app/runtime.js';
import type { Runtime } from '../../../app/types.js';
import { NamedSecrets } from '../../../keys/named-secrets.js';
import { MemorySecretStore, type SecretStore } from '../../../keys/secret-store.js';
import { sqliteConnection, type SqliteConnection } from '../../../store/transaction.js';
import { saveModelsAsOwner } from '../../../llm/testing/sealed-models.js';
import { openaiReply, startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../../../llm/testing/scripted-openai-server.js';
import type { ScriptedReply } from '../../../llm/testing/scripted-http-server.js';

/*
 * The Stream's tests run the real runtime (ledger, decision queue, approval engine, sandbox) on a
 * temporary home, with the model roles pointed at a scripted OpenAI-compatible server on
 * 127.0.0.1. A "connection" is a session id with a live subscription, as a WebSocket has.
 */

export interface StreamHarness {
  runtime: Runtime;
  home: string;
  server: ScriptedOpenAIServer;
  store: SecretStore;
  connect(session: string, transport?: 'websocket' | 'local-socket' | 'ipc'): TestConnection;
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface TestConnection {
  session: string;
  events: StreamEvent[];
  call(name: CallName, args: unknown): Promise<Envelope<unknown>>;
  /** `value` of a call that must succeed. */
  ok<T>(name: CallName, args: unknown): Promise<T>;
  /** Waits for this turn's `turn_finished` and returns the turn's events. */
  turn(turnId: string): Promise<StreamEvent[]>;
  /** The connection goes away (its subscription ends), as a closed socket's does. */
  disconnect(): void;
}

const API_KEY_SECRET = 'scripted-key';

export async function startStreamHarness(
  home: string,
  options: { key?: string; configure?: boolean; timeoutMs?: number; overrides?: RuntimeOverrides; store?: SecretStore; headless?: boolean } = {},
): Promise<StreamHarness> {
  const server = await startScriptedOpenAIServer();
  // The OS keyring when proxy children must write the same ledger (they cannot read a memory store).
  const store = options.store ?? new MemorySecretStore();
  // Headless serves the cockpit's HTTP surface on a free loopback port (tests of `/health`).
  const mode = options.headless ? { mode: 'headless' as const, port: 0, cockpitDir: null } : { mode: 'desktop' as const };
  const build = () => buildRuntime({ home, ...mode, auditPollMs: 20 }, { secretStore: store, logger: silentLogger, ...options.overrides });
  let runtime = await build();
  await runtime.start();
  if (options.configure !== false) {
    if (options.key !== undefined) new NamedSecrets(store).set(API_KEY_SECRET, options.key, { origins: [server.baseUrl] });
    const role = {
      provider: 'openai-compatible',
      model: 'scripted-model',
      baseUrl: server.baseUrl,
      maxRetries: 2,
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.key !== undefined ? { apiKeySecret: API_KEY_SECRET } : {}),
      price: { inputPerMillion: 1, outputPerMillion: 2 },
    };
    const saved = saveModelsAsOwner(home, store, { proxy: role, planner: role, executor: role });
    if (!saved.ok) throw new Error(saved.problems.join('; '));
  }
  const unsubscribers: (() => void)[] = [];
  const harness: StreamHarness = {
    get runtime() {
      return runtime;
    },
    home,
    server,
    store,
    connect(session, transport = 'websocket') {
      const events: StreamEvent[] = [];
      const unsubscribe = runtime.events.subscribe((name, payload, target) => {
        if (name === 'stream.event' && target === session) events.push(payload as StreamEvent);
      }, session);
      unsubscribers.push(unsubscribe);
      const call = (name: CallName, args: unknown) => runtime.router.dispatch(name, args, { transport, session });
      return {
        session,
        events,
        call,
        async ok<T>(name: CallName, args: unknown): Promise<T> {
          const result = await call(name, args);
          if (!result.ok) throw new Error(`${name}: ${result.error.code}: ${result.error.message}`);
          return result.value as T;
        },
        async turn(turnId: string) {
          const deadline = Date.now() + 20_000;
          while (!events.some((event) => event.type === 'turn_finished' && event.turn_id === turnId)) {
            if (Date.now() > deadline) throw new Error(`turn ${turnId} did not finish; events: ${JSON.stringify(events.map((e) => e.type))}`);
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
          return events.filter((event) => 'turn_id' in event && event.turn_id === turnId);
        },
        disconnect: unsubscribe,
      };
    },
    async restart() {
      for (const unsubscribe of unsubscribers.splice(0)) unsubscribe();
      await runtime.stop('restart');
      runtime = await build();
      await runtime.start();
    },
    async close() {
      for (const unsubscribe of unsubscribers.splice(0)) unsubscribe();
      await runtime.stop('test');
      await server.http.close();
    },
  };
  return harness;
}

export function homeIn(dir: string): string {
  return join(dir, 'home');
}

/** A model answer streamed as JSON text in small pieces, as a model writes it. */
export function streamedJson(value: unknown, usage = { prompt_tokens: 120, completion_tokens: 30 }, piece = 9): ScriptedReply {
  const text = JSON.stringify(value);
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += piece) pieces.push(text.slice(i, i + piece));
  return openaiReply.stream({ text: pieces, usage });
}

export function directRoute(message: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    route: 'direct',
    reason: 'answerable now',
    response: { message, ...extra },
    interaction_register: 'status',
    interaction_mode: 'default_and_offer',
    continuation_of: null,
    context_profile: 'conversation',
  };
}

export function plannerRoute(): Record<string, unknown> {
  return { route: 'planner', reason: 'needs a plan', response: null, interaction_register: 'execution', interaction_mode: 'act_and_report', continuation_of: null, context_profile: 'conversation' };
}

export const GREETING_PLAN = `---
id: task-stream-greeting
type: task
title: Write the greeting file
budget: { max_tokens: 100000, max_cost_usd: 1.00, max_wall_time_seconds: 600, max_attempts: 1 }
verify:
  - name: greeting
    run: cat hello.txt
    expect: { equals: "hello" }
---

# What to do

Write hello.txt containing exactly "hello".
`;

export function plannerAnswer(message: string, needsApproval: boolean, plan = GREETING_PLAN): Record<string, unknown> {
  return { message, plan_action: { action: 'propose', plan_markdown: plan }, needs_approval: needsApproval };
}

/** The executor's two turns that write hello.txt and finish. */
export function executorWritesGreeting(): ScriptedReply[] {
  return [
    openaiReply.object({ action: 'tool_call', tool: 'shell_exec', args: { command: ['sh', '-c', 'printf hello > hello.txt'] } }, { prompt_tokens: 400, completion_tokens: 20 }),
    openaiReply.object({ action: 'finish', output: { summary: 'wrote hello.txt', artifact_refs: ['hello.txt'], next_steps: ['Show me hello.txt'] } }, { prompt_tokens: 450, completion_tokens: 20 }),
  ];
}

/** The Review queue as the cockpit reads it (the router's `review.list`, computed synchronously here). */
export function planCards(h: StreamHarness): ReviewQueueView['cards'] {
  return (h.runtime.decisions as unknown as { view(): ReviewQueueView }).view().cards;
}

export async function until<T>(read: () => T | undefined | null | false, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The adversary's handle on the database: no keyring (an empty store), so no ledger key and no owner key. */
export function asDatabaseWriter<T>(h: Pick<StreamHarness, 'home'>, act: (db: SqliteConnection) => T): T {
  const handle = openHome(h.home, { create: false, keys: 'verify', secretStore: new MemorySecretStore() });
  try {
    return act(sqliteConnection(handle.db));
  } finally {
    sqliteConnection(handle.db).close();
  }
}
