import type { RuntimeInfo, RuntimeMode } from '../../src-shared/schemas/runtime.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { ControlRouter } from '../control/router.js';
import type { EventBus } from '../control/event-bus.js';
import type { MemoryComposition } from './compose-memory.js';

/** A native notification. The desktop shell shows it with Electron; headless mode logs it. */
export type { NotificationRequest, Notifier } from '../review/notifier.js';

/**
 * The tray's view of the one queue of decisions waiting for the person, of every kind
 * (src-main/review/decision-queue.ts): its count, and one pause for all kinds.
 */
export interface DecisionQueue {
  pendingCount(): number;
  isPaused(): boolean;
  setPaused(paused: boolean): void;
  subscribe(listener: () => void): () => void;
}

export interface CockpitEndpoint {
  /** http://127.0.0.1:PORT/ — without the token. */
  url: string;
  wsUrl: string;
  /** The start credential: in memory only; `silas start` prints it once in the URL fragment. Revocable like every cockpit link (`cockpit.revokeSessions`). */
  token: string;
}

/** Builds the browser cockpit into a directory; resolves when it holds index.html, or throws why not. */
export interface CockpitBuilder {
  build(outDir: string): Promise<void>;
}

export interface Runtime {
  readonly mode: RuntimeMode;
  readonly home: string;
  info(): RuntimeInfo;
  readonly router: ControlRouter;
  readonly events: EventBus;
  readonly audit: AuditLog;
  readonly decisions: DecisionQueue;
  /** Silas's memory (spec 002 §6): the store, the retriever and recall by meaning. */
  silasMemory(): MemoryComposition;
  /** Set once `start()` resolved in headless mode. */
  readonly cockpit: CockpitEndpoint | null;
  start(): Promise<void>;
  /** Graceful shutdown (spec 002 §18.2). Idempotent. */
  stop(reason: string): Promise<void>;
}
